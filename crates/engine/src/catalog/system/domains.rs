//! Domains in the system catalogs: their pg_type rows (typtype 'd', the base type's
//! storage with typbasetype, typtypmod, typnotnull and typdefault), the pg_constraint rows of
//! their CHECKs (contypid) and the definitions pg_get_constraintdef prints of them.

use super::{boolean, char, int4, oid, text, CatalogSnapshot, Rows, NULL};
use crate::catalog::Domain;

/// pg_type's rows of the domains, each a copy of its base type's row (`rows`, the rows of
/// the other types) with what a domain changes.
pub(super) fn pg_type_rows(snapshot: &CatalogSnapshot, rows: &Rows) -> Rows {
    let mut domains: Vec<&Domain> = snapshot.state.domains.values().map(|d| &**d).collect();
    domains.sort_by_key(|d| d.oid);
    domains
        .into_iter()
        .filter_map(|domain| {
            let base_oid = domain.base.oid();
            let mut row = rows.iter().find(|r| r[0] == oid(base_oid))?.clone();
            row[0] = oid(domain.oid);
            row[1] = text(&domain.name.name);
            row[2] = oid(domain.name.schema);
            row[3] = oid(domain.owner);
            row[6] = char(b'd');
            row[8] = boolean(false);
            // No array type is made for a domain here.
            row[14] = oid(0);
            row[24] = boolean(domain.not_null);
            row[25] = oid(domain.parent.unwrap_or(base_oid));
            row[26] = int4(domain.base.typmod());
            row[27] = int4(0);
            row[30] = domain.default_sql.as_deref().map_or(NULL, text);
            Some(row)
        })
        .collect()
}

/// pg_constraint's rows of the domains' CHECKs.
pub(super) fn pg_constraint_rows(snapshot: &CatalogSnapshot, rows: &mut Rows) {
    let mut domains: Vec<&Domain> = snapshot.state.domains.values().map(|d| &**d).collect();
    domains.sort_by_key(|d| d.oid);
    for domain in domains {
        for check in &domain.checks {
            rows.push(vec![
                oid(check.oid),
                text(&check.name),
                oid(domain.name.schema),
                char(b'c'),
                boolean(false),
                boolean(false),
                boolean(check.validated),
                oid(0),
                oid(domain.oid),
                oid(0),
                oid(0),
                oid(0),
                char(b' '),
                char(b' '),
                char(b' '),
                boolean(true),
                int4(0),
                boolean(false),
                NULL,
                NULL,
                NULL,
                NULL,
                NULL,
                NULL,
                NULL,
                text(&check.definition),
            ]);
        }
    }
}

/// pg_get_constraintdef of a domain's CHECK, `None` for other OIDs.
pub(super) fn check_definition(
    snapshot: &CatalogSnapshot,
    constraint_oid: u32,
    pretty: bool,
) -> Option<String> {
    let check = (snapshot.state.domains.values())
        .flat_map(|d| &d.checks)
        .find(|c| c.oid == constraint_oid)?;
    let definition = match pretty {
        true => &check.definition_pretty,
        false => &check.definition,
    };
    Some(match check.validated {
        true => definition.clone(),
        false => format!("{definition} NOT VALID"),
    })
}

/// The schema and name of the domain a domain is over, which information_schema shows as
/// the udt of a USER-DEFINED type; `None` for a domain over a base type.
pub(super) fn inner_domain(snapshot: &CatalogSnapshot, domain: u32) -> Option<(String, String)> {
    let parent = snapshot.state.domains.get(&domain)?.parent?;
    domain_of_column(snapshot, parent)
}

/// information_schema's domain_name of a column's domain, with its schema.
pub(super) fn domain_of_column(
    snapshot: &CatalogSnapshot,
    domain: u32,
) -> Option<(String, String)> {
    let domain = snapshot.state.domains.get(&domain)?;
    Some((
        snapshot.schema_name(domain.name.schema),
        domain.name.name.clone(),
    ))
}
