//! The information_schema views SQL tools read (schemata, tables, columns, views,
//! table_constraints, key_column_usage, constraint_column_usage, sequences), computed from
//! the catalog like the pg_catalog relations; referential_constraints, routines and
//! parameters are empty (no foreign keys, no user-defined functions).

pub(in crate::catalog::system) mod columns;
pub(in crate::catalog::system) mod domains;
pub(in crate::catalog::system) mod foreign;
mod privileges;

pub(super) use privileges::{column_privileges, role_table_grants, table_privileges};

use super::relations::{deparse_default, indexes};
use super::{int4, text, CatalogSnapshot, Rows, NULL, PUBLIC_OID, RELATIONS, SUPERUSER_OID};
use crate::catalog::{
    quote_identifier, ColumnDef, Constraint as TableConstraint, ConstraintKind, ForeignKey,
    ReferentialAction, TableSchema, ViewCheckOption,
};
use crate::types::{DataType, IntervalRange, ScalarValue};

fn yes_or_no(value: bool) -> ScalarValue {
    text(if value { "YES" } else { "NO" })
}

fn cardinal(value: usize) -> ScalarValue {
    int4(i32::try_from(value).unwrap_or(i32::MAX))
}

pub(super) fn schemata(snapshot: &CatalogSnapshot) -> Rows {
    let database = &snapshot.session.database;
    snapshot
        .namespaces()
        .into_iter()
        .map(|(oid, name)| {
            let owner = match oid {
                PUBLIC_OID => "pg_database_owner".to_string(),
                _ => snapshot.role_name(SUPERUSER_OID),
            };
            vec![
                text(database),
                text(&name),
                text(&owner),
                NULL,
                NULL,
                NULL,
                NULL,
            ]
        })
        .collect()
}

/// A relation as information_schema sees it: schema, name, table_type.
struct Relation<'a> {
    oid: u32,
    schema: String,
    name: &'a str,
    table_type: &'static str,
}

/// Every table and view, the system ones included, as PostgreSQL lists them to a superuser:
/// not the temporary tables of other sessions.
fn relations<'a>(snapshot: &CatalogSnapshot<'a>) -> Vec<Relation<'a>> {
    let state = snapshot.state;
    let own_temp = snapshot.search_path.and_then(|p| p.temp_schema(state));
    let other_temp: Vec<u32> = state
        .temporary_schemas()
        .into_iter()
        .filter(|&oid| Some(oid) != own_temp)
        .collect();
    let system = RELATIONS.iter().map(|r| Relation {
        oid: r.oid,
        schema: r.schema.name().to_string(),
        name: r.name,
        table_type: if r.kind == b'v' { "VIEW" } else { "BASE TABLE" },
    });
    let tables = state
        .tables
        .values()
        // PostgreSQL's information_schema leaves materialized views out.
        .filter(|t| !other_temp.contains(&t.schema.namespace) && t.schema.materialized.is_none())
        .map(|t| Relation {
            oid: t.schema.oid,
            schema: snapshot.relation_schema_name(t.schema.oid),
            name: &t.schema.name,
            table_type: if Some(t.schema.namespace) == own_temp {
                "LOCAL TEMPORARY"
            } else if t.schema.foreign.is_some() {
                "FOREIGN"
            } else {
                "BASE TABLE"
            },
        });
    let views = state.views.values().map(|v| Relation {
        oid: v.oid,
        schema: snapshot.relation_schema_name(v.oid),
        name: &v.name,
        table_type: "VIEW",
    });
    system.chain(tables).chain(views).collect()
}

pub(super) fn tables(snapshot: &CatalogSnapshot) -> Rows {
    let database = &snapshot.session.database;
    relations(snapshot)
        .iter()
        .map(|r| {
            vec![
                text(database),
                text(&r.schema),
                text(r.name),
                text(r.table_type),
                NULL,
                NULL,
                NULL,
                NULL,
                NULL,
                yes_or_no(r.table_type != "VIEW"),
                yes_or_no(false),
                NULL,
            ]
        })
        .collect()
}

/// A column's type as information_schema.columns describes it: data_type, then the
/// length, precision and scale columns, then udt_name.
fn type_facts(ty: DataType) -> (String, [ScalarValue; 7], String) {
    let udt_name = super::types::builtin(ty.oid()).map_or("", |t| t.name);
    let data_type = match ty {
        DataType::Array(_) => "ARRAY".to_string(),
        other => other.name().to_string(),
    };
    // PostgreSQL's largest field: what an unbounded string may hold, in bytes.
    const MAX_OCTETS: usize = 1_073_741_824;
    let some = |n: u32| cardinal(n as usize);
    let (length, octets) = match ty {
        DataType::Varchar(Some(n)) | DataType::Char(Some(n)) => (some(n), some(n * 4)),
        DataType::Bit(Some(n)) | DataType::VarBit(Some(n)) => (some(n), NULL),
        DataType::Varchar(None) | DataType::Char(None) | DataType::Text => {
            (NULL, cardinal(MAX_OCTETS))
        }
        _ => (NULL, NULL),
    };
    let (precision, radix, scale) = match ty {
        DataType::Int16 => (some(16), some(2), some(0)),
        DataType::Int32 => (some(32), some(2), some(0)),
        DataType::Int64 => (some(64), some(2), some(0)),
        DataType::Float32 => (some(24), some(2), NULL),
        DataType::Float64 => (some(53), some(2), NULL),
        DataType::Numeric(Some(m)) => (some(m.precision), some(10), some(m.scale)),
        DataType::Numeric(None) => (NULL, some(10), NULL),
        _ => (NULL, NULL, NULL),
    };
    let datetime = match ty {
        DataType::Date => some(0),
        DataType::Timestamp(p)
        | DataType::TimestampTz(p)
        | DataType::Time(p)
        | DataType::TimeTz(p) => some(p.map_or(6, u32::from)),
        DataType::Interval(m) => some(m.precision.map_or(6, u32::from)),
        _ => NULL,
    };
    // _pg_interval_type: the fields as format_type writes them after `interval `, in
    // capitals (`DAY TO SECOND(3)`).
    let interval_type = match ty {
        DataType::Interval(m) if m.range != IntervalRange::Full => {
            ScalarValue::Text(m.to_string().trim_start().to_ascii_uppercase())
        }
        _ => NULL,
    };
    let facts = [
        length,
        octets,
        precision,
        radix,
        scale,
        datetime,
        interval_type,
    ];
    (data_type, facts, udt_name.to_string())
}

/// One row of information_schema.columns.
struct ColumnRow<'a> {
    schema: String,
    table: &'a str,
    name: &'a str,
    position: usize,
    ty: DataType,
    definition: Option<&'a ColumnDef>,
}

impl ColumnRow<'_> {
    fn values(&self, snapshot: &CatalogSnapshot) -> Vec<ScalarValue> {
        let database = snapshot.session.database.as_str();
        let (mut data_type, facts, mut udt_name) = type_facts(self.ty);
        let mut udt_schema = "pg_catalog".to_string();
        if let Some(oid) = self.ty.enum_oid() {
            if let Some(enum_type) = snapshot.state.enum_types.get(&oid) {
                let name = &enum_type.name.name;
                // An array of an enum stays ARRAY, of the array type `_name`.
                udt_name = match self.ty {
                    DataType::Enum(_) => {
                        data_type = "USER-DEFINED".to_string();
                        name.clone()
                    }
                    _ => format!("_{name}"),
                };
                udt_schema = snapshot.schema_name(enum_type.name.schema);
            }
        }
        let column = self.definition;
        let domain = column.and_then(|c| c.domain);
        if let Some((schema, name)) = domain.and_then(|d| super::domains::inner_domain(snapshot, d))
        {
            data_type = "USER-DEFINED".to_string();
            (udt_schema, udt_name) = (schema, name);
        }
        let [length, octets, precision, radix, scale, datetime, interval_type] = facts;
        let identity = column.and_then(|c| c.identity);
        let default = column
            .filter(|c| c.identity.is_none())
            .and_then(|c| c.default_sql.as_deref())
            .map_or(NULL, |d| text(&deparse_default(d, self.ty)));
        let nullable = column.is_none_or(|c| !c.not_null);
        let mut row = vec![
            text(database),
            text(&self.schema),
            text(self.table),
            text(self.name),
            cardinal(self.position),
            default,
            yes_or_no(nullable),
            text(&data_type),
            length,
            octets,
            precision,
            radix,
            scale,
            datetime,
            interval_type,
            NULL,
        ];
        // character set, collation: none.
        row.extend(std::iter::repeat_n(NULL, 6));
        match domain.and_then(|d| super::domains::domain_of_column(snapshot, d)) {
            Some((schema, name)) => row.extend([text(database), text(&schema), text(&name)]),
            None => row.extend(std::iter::repeat_n(NULL, 3)),
        }
        row.extend([text(database), text(&udt_schema), text(&udt_name)]);
        // scope, maximum_cardinality.
        row.extend(std::iter::repeat_n(NULL, 4));
        row.extend([
            text(&self.position.to_string()),
            yes_or_no(false),
            yes_or_no(identity.is_some()),
            match identity {
                Some(crate::catalog::Identity::Always) => text("ALWAYS"),
                Some(crate::catalog::Identity::ByDefault) => text("BY DEFAULT"),
                None => NULL,
            },
        ]);
        // identity start, increment, maximum, minimum, cycle: only for identity columns,
        // whose sequence options are not at hand here.
        row.extend(std::iter::repeat_n(NULL, 4));
        let generated = column.and_then(|c| c.generated.as_ref());
        row.extend([
            if identity.is_some() {
                yes_or_no(false)
            } else {
                NULL
            },
            text(if generated.is_some() {
                "ALWAYS"
            } else {
                "NEVER"
            }),
            generated.map_or(NULL, |g| text(&g.definition)),
            yes_or_no(true),
        ]);
        row
    }
}

pub(super) fn columns(snapshot: &CatalogSnapshot) -> Rows {
    let state = snapshot.state;
    let mut rows = Vec::new();
    for relation in RELATIONS {
        rows.extend(
            relation
                .columns
                .iter()
                .enumerate()
                .map(|(i, (name, ty))| ColumnRow {
                    schema: relation.schema.name().to_string(),
                    table: relation.name,
                    name,
                    position: i + 1,
                    ty: *ty,
                    definition: None,
                }),
        );
    }
    for entry in state.tables.values() {
        let schema = &entry.schema;
        if schema.materialized.is_some() {
            continue;
        }
        rows.extend(schema.columns.iter().enumerate().map(|(i, c)| ColumnRow {
            schema: snapshot.relation_schema_name(schema.oid),
            table: &schema.name,
            name: &c.name,
            position: i + 1,
            ty: c.data_type,
            definition: Some(c),
        }));
    }
    for view in state.views.values() {
        rows.extend(
            view.columns
                .iter()
                .enumerate()
                .map(|(i, (name, ty))| ColumnRow {
                    schema: snapshot.relation_schema_name(view.oid),
                    table: &view.name,
                    name,
                    position: i + 1,
                    ty: *ty,
                    definition: None,
                }),
        );
    }
    rows.iter().map(|r| r.values(snapshot)).collect()
}

pub(super) fn views(snapshot: &CatalogSnapshot) -> Rows {
    let database = &snapshot.session.database;
    snapshot
        .state
        .views
        .values()
        .map(|view| {
            vec![
                text(database),
                text(&snapshot.relation_schema_name(view.oid)),
                text(&view.name),
                text(&format!(" {};", view.query_sql)),
                text(match view.check_option {
                    None => "NONE",
                    Some(ViewCheckOption::Local) => "LOCAL",
                    Some(ViewCheckOption::Cascaded) => "CASCADED",
                }),
                yes_or_no(false),
                yes_or_no(false),
                yes_or_no(false),
                yes_or_no(false),
                yes_or_no(false),
            ]
        })
        .collect()
}

/// A PRIMARY KEY, UNIQUE, CHECK or FOREIGN KEY constraint, or a NOT NULL column (a CHECK
/// constraint to the SQL standard, named as PostgreSQL names it).
struct Constraint<'a> {
    schema: String,
    table: &'a str,
    name: String,
    kind: &'static str,
    /// A key's columns in key order; the columns a CHECK reads.
    columns: Vec<&'a str>,
    /// A CHECK's condition as information_schema.check_constraints shows it.
    check_clause: Option<String>,
    deferrable: bool,
    initially_deferred: bool,
    /// A foreign key's referenced side: (schema, table, columns), what
    /// constraint_column_usage lists, and each column's position in the referenced key.
    references: Option<References<'a>>,
}

struct References<'a> {
    schema: String,
    table: &'a str,
    columns: Vec<&'a str>,
    positions_in_key: Vec<usize>,
    /// The referenced PRIMARY KEY or UNIQUE constraint.
    key_name: &'a str,
    key: &'a ForeignKey,
}

fn constraints<'a>(snapshot: &CatalogSnapshot<'a>) -> Vec<Constraint<'a>> {
    let mut found = Vec::new();
    for entry in snapshot.state.tables.values() {
        let schema = &entry.schema;
        let namespace = snapshot.relation_schema_name(schema.oid);
        for index in indexes(schema).into_iter().filter(|i| i.constraint) {
            found.push(Constraint {
                schema: namespace.clone(),
                table: &schema.name,
                name: index.name.to_string(),
                kind: if index.primary {
                    "PRIMARY KEY"
                } else {
                    "UNIQUE"
                },
                columns: index
                    .columns
                    .iter()
                    .filter_map(|&c| schema.columns.get(c).map(|c| c.name.as_str()))
                    .collect(),
                check_clause: None,
                deferrable: false,
                initially_deferred: false,
                references: None,
            });
        }
        for constraint in &schema.constraints {
            let (kind, columns, clause) = check_like(schema, constraint);
            found.push(Constraint {
                schema: namespace.clone(),
                table: &schema.name,
                name: constraint.name.clone(),
                kind,
                columns: columns
                    .into_iter()
                    .filter_map(|c| schema.columns.get(c).map(|c| c.name.as_str()))
                    .collect(),
                check_clause: Some(clause),
                deferrable: false,
                initially_deferred: false,
                references: None,
            });
        }
        for key in &schema.foreign_keys {
            let Some(referenced) = snapshot.state.tables.get(&key.referenced_table) else {
                continue;
            };
            let referenced = &referenced.schema;
            let Some(unique) = referenced
                .unique_key_over(&key.referenced_columns)
                .map(|k| &referenced.unique_keys[k])
            else {
                continue;
            };
            let names = |table: &'a TableSchema, columns: &[usize]| {
                columns
                    .iter()
                    .filter_map(|&c| table.columns.get(c).map(|c| c.name.as_str()))
                    .collect()
            };
            found.push(Constraint {
                schema: namespace.clone(),
                table: &schema.name,
                name: key.name.clone(),
                kind: "FOREIGN KEY",
                columns: names(schema, &key.columns),
                check_clause: None,
                deferrable: key.deferrable,
                initially_deferred: key.initially_deferred,
                references: Some(References {
                    schema: snapshot.relation_schema_name(referenced.oid),
                    table: &referenced.name,
                    columns: names(referenced, &unique.columns),
                    positions_in_key: key
                        .referenced_columns
                        .iter()
                        .filter_map(|c| unique.columns.iter().position(|u| u == c))
                        .collect(),
                    key_name: &unique.name,
                    key,
                }),
            });
        }
        for (i, column) in schema.columns.iter().enumerate() {
            if column.not_null {
                let namespace_oid = schema.namespace;
                found.push(Constraint {
                    schema: namespace.clone(),
                    table: &schema.name,
                    name: format!("{namespace_oid}_{}_{}_not_null", schema.oid, i + 1),
                    kind: "CHECK",
                    columns: Vec::new(),
                    check_clause: Some(format!("{} IS NOT NULL", quote_identifier(&column.name))),
                    deferrable: false,
                    initially_deferred: false,
                    references: None,
                });
            }
        }
    }
    found
}

pub(super) fn table_constraints(snapshot: &CatalogSnapshot) -> Rows {
    let database = &snapshot.session.database;
    constraints(snapshot)
        .iter()
        .map(|c| {
            vec![
                text(database),
                text(&c.schema),
                text(&c.name),
                text(database),
                text(&c.schema),
                text(c.table),
                text(c.kind),
                yes_or_no(c.deferrable),
                yes_or_no(c.initially_deferred),
                yes_or_no(true),
                if c.kind == "CHECK" {
                    NULL
                } else {
                    yes_or_no(true)
                },
            ]
        })
        .collect()
}

/// A constraint of `TableSchema::constraints`: its constraint_type, the columns it reads and
/// its check_clause (PostgreSQL's definition after `CHECK `).
fn check_like(
    schema: &TableSchema,
    constraint: &TableConstraint,
) -> (&'static str, Vec<usize>, String) {
    match &constraint.kind {
        ConstraintKind::Check(check) => (
            "CHECK",
            super::constraints::referenced_columns(schema, &check.expr.sql),
            super::constraints::constraint_definition(constraint, false)
                .trim_start_matches("CHECK ")
                .to_string(),
        ),
    }
}

/// information_schema.check_constraints: CHECK constraints and NOT NULL columns.
pub(super) fn check_constraints(snapshot: &CatalogSnapshot) -> Rows {
    let database = &snapshot.session.database;
    constraints(snapshot)
        .into_iter()
        .filter_map(|c| {
            let clause = c.check_clause?;
            Some(vec![
                text(database),
                text(&c.schema),
                text(&c.name),
                text(&clause),
            ])
        })
        .collect()
}

pub(super) fn key_column_usage(snapshot: &CatalogSnapshot) -> Rows {
    let database = &snapshot.session.database;
    let mut rows = Vec::new();
    // Keys only: a CHECK's columns are in constraint_column_usage.
    for c in constraints(snapshot)
        .into_iter()
        .filter(|c| c.kind != "CHECK")
    {
        rows.extend(c.columns.iter().enumerate().map(|(i, column)| {
            vec![
                text(database),
                text(&c.schema),
                text(&c.name),
                text(database),
                text(&c.schema),
                text(c.table),
                text(column),
                cardinal(i + 1),
                match &c.references {
                    Some(r) => r.positions_in_key.get(i).map_or(NULL, |&p| cardinal(p + 1)),
                    None => NULL,
                },
            ]
        }));
    }
    rows
}

pub(super) fn constraint_column_usage(snapshot: &CatalogSnapshot) -> Rows {
    let database = &snapshot.session.database;
    let mut rows = Vec::new();
    for c in constraints(snapshot) {
        // A foreign key uses the columns it references.
        let (schema, table, columns) = match &c.references {
            Some(r) => (&r.schema, r.table, &r.columns),
            None => (&c.schema, c.table, &c.columns),
        };
        rows.extend(columns.iter().map(|column| {
            vec![
                text(database),
                text(schema),
                text(table),
                text(column),
                text(database),
                text(&c.schema),
                text(&c.name),
            ]
        }));
    }
    rows
}

pub(super) fn sequences(snapshot: &CatalogSnapshot) -> Rows {
    let database = &snapshot.session.database;
    snapshot
        .state
        .sequences
        .values()
        .map(|sequence| {
            let ty = sequence.data_type();
            let (_, facts, _) = type_facts(ty);
            let [_, _, precision, radix, scale, _, _] = facts;
            let options = &sequence.options;
            vec![
                text(database),
                text(&snapshot.relation_schema_name(sequence.oid)),
                text(&sequence.name.name),
                text(ty.name()),
                precision,
                radix,
                scale,
                text(&options.start.to_string()),
                text(&options.min.to_string()),
                text(&options.max.to_string()),
                text(&options.increment.to_string()),
                yes_or_no(options.cycle),
            ]
        })
        .collect()
}

pub(super) fn referential_constraints(snapshot: &CatalogSnapshot) -> Rows {
    let database = &snapshot.session.database;
    let rule = |action: ReferentialAction| text(action.sql());
    constraints(snapshot)
        .iter()
        .filter_map(|c| {
            let r = c.references.as_ref()?;
            Some(vec![
                text(database),
                text(&c.schema),
                text(&c.name),
                text(database),
                text(&r.schema),
                text(r.key_name),
                text(if r.key.match_full { "FULL" } else { "NONE" }),
                rule(r.key.on_update),
                rule(r.key.on_delete),
            ])
        })
        .collect()
}
