//! information_schema.domains and information_schema.domain_constraints.

use super::{text, type_facts, yes_or_no, CatalogSnapshot, Rows, NULL};
use crate::catalog::Domain;
use crate::types::DataType;

const IDENTIFIER: DataType = DataType::Text;
const CHARACTER_DATA: DataType = DataType::Text;
const YES_OR_NO: DataType = DataType::Text;
const CARDINAL_NUMBER: DataType = DataType::Int32;

pub(in crate::catalog::system) const DOMAINS: &[(&str, DataType)] = &[
    ("domain_catalog", IDENTIFIER),
    ("domain_schema", IDENTIFIER),
    ("domain_name", IDENTIFIER),
    ("data_type", CHARACTER_DATA),
    ("character_maximum_length", CARDINAL_NUMBER),
    ("character_octet_length", CARDINAL_NUMBER),
    ("character_set_catalog", IDENTIFIER),
    ("character_set_schema", IDENTIFIER),
    ("character_set_name", IDENTIFIER),
    ("collation_catalog", IDENTIFIER),
    ("collation_schema", IDENTIFIER),
    ("collation_name", IDENTIFIER),
    ("numeric_precision", CARDINAL_NUMBER),
    ("numeric_precision_radix", CARDINAL_NUMBER),
    ("numeric_scale", CARDINAL_NUMBER),
    ("datetime_precision", CARDINAL_NUMBER),
    ("interval_type", CHARACTER_DATA),
    ("interval_precision", CARDINAL_NUMBER),
    ("domain_default", CHARACTER_DATA),
    ("udt_catalog", IDENTIFIER),
    ("udt_schema", IDENTIFIER),
    ("udt_name", IDENTIFIER),
    ("scope_catalog", IDENTIFIER),
    ("scope_schema", IDENTIFIER),
    ("scope_name", IDENTIFIER),
    ("maximum_cardinality", CARDINAL_NUMBER),
    ("dtd_identifier", IDENTIFIER),
];

pub(in crate::catalog::system) const DOMAIN_CONSTRAINTS: &[(&str, DataType)] = &[
    ("constraint_catalog", IDENTIFIER),
    ("constraint_schema", IDENTIFIER),
    ("constraint_name", IDENTIFIER),
    ("domain_catalog", IDENTIFIER),
    ("domain_schema", IDENTIFIER),
    ("domain_name", IDENTIFIER),
    ("is_deferrable", YES_OR_NO),
    ("initially_deferred", YES_OR_NO),
];

fn sorted_domains<'a>(snapshot: &'a CatalogSnapshot) -> Vec<&'a Domain> {
    let mut domains: Vec<&Domain> = snapshot.state.domains.values().map(|d| &**d).collect();
    domains.sort_by_key(|d| d.oid);
    domains
}

pub(in crate::catalog::system) fn domains(snapshot: &CatalogSnapshot) -> Rows {
    let database = snapshot.session.database.as_str();
    sorted_domains(snapshot)
        .into_iter()
        .map(|domain| {
            let (mut data_type, facts, mut udt_name) = type_facts(domain.base);
            let mut udt_schema = "pg_catalog".to_string();
            if let Some((schema, name)) = super::super::domains::inner_domain(snapshot, domain.oid)
            {
                data_type = "USER-DEFINED".to_string();
                (udt_schema, udt_name) = (schema, name);
            }
            let [length, octets, precision, radix, scale, datetime, interval_type] = facts;
            let schema = snapshot.schema_name(domain.name.schema);
            let mut row = vec![
                text(database),
                text(&schema),
                text(&domain.name.name),
                text(&data_type),
                length,
                octets,
            ];
            row.extend(std::iter::repeat_n(NULL, 6));
            row.extend([precision, radix, scale, datetime, interval_type, NULL]);
            row.push(domain.default_sql.as_deref().map_or(NULL, text));
            row.extend([text(database), text(&udt_schema), text(&udt_name)]);
            row.extend(std::iter::repeat_n(NULL, 4));
            row.push(text("1"));
            row
        })
        .collect()
}

pub(in crate::catalog::system) fn domain_constraints(snapshot: &CatalogSnapshot) -> Rows {
    let database = snapshot.session.database.as_str();
    let mut rows = Vec::new();
    for domain in sorted_domains(snapshot) {
        let schema = snapshot.schema_name(domain.name.schema);
        for check in &domain.checks {
            rows.push(vec![
                text(database),
                text(&schema),
                text(&check.name),
                text(database),
                text(&schema),
                text(&domain.name.name),
                yes_or_no(false),
                yes_or_no(false),
            ]);
        }
    }
    rows
}
