//! information_schema's foreign-data views: foreign_data_wrappers, foreign_servers,
//! foreign_tables, user_mappings and the `*_options` views that list each object's
//! `OPTIONS (...)` one option per row, as PostgreSQL 15 defines them.

use super::columns::{CHARACTER_DATA, IDENTIFIER};
use super::text;
use crate::catalog::system::foreign::{self as catalog, mapping_options_visible};
use crate::catalog::system::{CatalogSnapshot, Rows, NULL};
use crate::catalog::{ForeignServer, TableSchema, FILE_FDW};
use crate::types::{DataType, ScalarValue};

pub(in crate::catalog::system) const FOREIGN_DATA_WRAPPERS: &[(&str, DataType)] = &[
    ("foreign_data_wrapper_catalog", IDENTIFIER),
    ("foreign_data_wrapper_name", IDENTIFIER),
    ("authorization_identifier", IDENTIFIER),
    ("library_name", CHARACTER_DATA),
    ("foreign_data_wrapper_language", CHARACTER_DATA),
];

pub(in crate::catalog::system) const FOREIGN_SERVERS: &[(&str, DataType)] = &[
    ("foreign_server_catalog", IDENTIFIER),
    ("foreign_server_name", IDENTIFIER),
    ("foreign_data_wrapper_catalog", IDENTIFIER),
    ("foreign_data_wrapper_name", IDENTIFIER),
    ("foreign_server_type", CHARACTER_DATA),
    ("foreign_server_version", CHARACTER_DATA),
    ("authorization_identifier", IDENTIFIER),
];

pub(in crate::catalog::system) const FOREIGN_SERVER_OPTIONS: &[(&str, DataType)] = &[
    ("foreign_server_catalog", IDENTIFIER),
    ("foreign_server_name", IDENTIFIER),
    ("option_name", IDENTIFIER),
    ("option_value", CHARACTER_DATA),
];

pub(in crate::catalog::system) const FOREIGN_TABLES: &[(&str, DataType)] = &[
    ("foreign_table_catalog", IDENTIFIER),
    ("foreign_table_schema", IDENTIFIER),
    ("foreign_table_name", IDENTIFIER),
    ("foreign_server_catalog", IDENTIFIER),
    ("foreign_server_name", IDENTIFIER),
];

pub(in crate::catalog::system) const FOREIGN_TABLE_OPTIONS: &[(&str, DataType)] = &[
    ("foreign_table_catalog", IDENTIFIER),
    ("foreign_table_schema", IDENTIFIER),
    ("foreign_table_name", IDENTIFIER),
    ("option_name", IDENTIFIER),
    ("option_value", CHARACTER_DATA),
];

pub(in crate::catalog::system) const COLUMN_OPTIONS: &[(&str, DataType)] = &[
    ("table_catalog", IDENTIFIER),
    ("table_schema", IDENTIFIER),
    ("table_name", IDENTIFIER),
    ("column_name", IDENTIFIER),
    ("option_name", IDENTIFIER),
    ("option_value", CHARACTER_DATA),
];

pub(in crate::catalog::system) const USER_MAPPINGS: &[(&str, DataType)] = &[
    ("authorization_identifier", IDENTIFIER),
    ("foreign_server_catalog", IDENTIFIER),
    ("foreign_server_name", IDENTIFIER),
];

pub(in crate::catalog::system) const USER_MAPPING_OPTIONS: &[(&str, DataType)] = &[
    ("authorization_identifier", IDENTIFIER),
    ("foreign_server_catalog", IDENTIFIER),
    ("foreign_server_name", IDENTIFIER),
    ("option_name", IDENTIFIER),
    ("option_value", CHARACTER_DATA),
];

pub(in crate::catalog::system) fn foreign_data_wrappers(snapshot: &CatalogSnapshot) -> Rows {
    let Some(extension) = snapshot.state.extensions.get(FILE_FDW) else {
        return Vec::new();
    };
    vec![vec![
        text(&snapshot.session.database),
        text(FILE_FDW),
        text(&snapshot.role_name(extension.owner)),
        NULL,
        text("c"),
    ]]
}

/// The servers, by OID.
fn servers<'a>(snapshot: &CatalogSnapshot<'a>) -> Vec<&'a ForeignServer> {
    let mut servers: Vec<&ForeignServer> = (snapshot.state.foreign_servers.values())
        .map(|s| &**s)
        .collect();
    servers.sort_by_key(|s| s.oid);
    servers
}

pub(in crate::catalog::system) fn foreign_servers(snapshot: &CatalogSnapshot) -> Rows {
    let database = &snapshot.session.database;
    (servers(snapshot).into_iter())
        .map(|server| {
            vec![
                text(database),
                text(&server.name),
                text(database),
                text(&server.wrapper),
                NULL,
                NULL,
                text(&snapshot.role_name(server.owner)),
            ]
        })
        .collect()
}

/// `key` (the object's identifying columns) followed by each option's name and value.
fn option_rows(key: &[ScalarValue], options: &[(String, String)], rows: &mut Rows) {
    for (name, value) in options {
        let mut row = key.to_vec();
        row.push(text(name));
        row.push(text(value));
        rows.push(row);
    }
}

pub(in crate::catalog::system) fn foreign_server_options(snapshot: &CatalogSnapshot) -> Rows {
    let database = text(&snapshot.session.database);
    let mut rows = Vec::new();
    for server in servers(snapshot) {
        let key = [database.clone(), text(&server.name)];
        option_rows(&key, &server.options, &mut rows);
    }
    rows
}

/// The foreign tables, by OID.
fn foreign_table_schemas<'a>(snapshot: &CatalogSnapshot<'a>) -> Vec<&'a TableSchema> {
    let mut tables: Vec<&TableSchema> = (snapshot.state.tables.values())
        .map(|t| &*t.schema)
        .filter(|schema| schema.foreign.is_some())
        .collect();
    tables.sort_by_key(|schema| schema.oid);
    tables
}

/// A table's catalog, schema and name.
fn table_key(snapshot: &CatalogSnapshot, schema: &TableSchema) -> [ScalarValue; 3] {
    [
        text(&snapshot.session.database),
        text(&snapshot.schema_name(schema.namespace)),
        text(&schema.name),
    ]
}

pub(in crate::catalog::system) fn foreign_tables(snapshot: &CatalogSnapshot) -> Rows {
    let database = text(&snapshot.session.database);
    (foreign_table_schemas(snapshot).into_iter())
        .filter_map(|schema| {
            let mut row = table_key(snapshot, schema).to_vec();
            row.push(database.clone());
            row.push(text(&schema.foreign.as_ref()?.server));
            Some(row)
        })
        .collect()
}

pub(in crate::catalog::system) fn foreign_table_options(snapshot: &CatalogSnapshot) -> Rows {
    let mut rows = Vec::new();
    for schema in foreign_table_schemas(snapshot) {
        if let Some(foreign) = &schema.foreign {
            option_rows(&table_key(snapshot, schema), &foreign.options, &mut rows);
        }
    }
    rows
}

pub(in crate::catalog::system) fn column_options(snapshot: &CatalogSnapshot) -> Rows {
    let mut rows = Vec::new();
    for schema in foreign_table_schemas(snapshot) {
        for column in &schema.columns {
            let mut key = table_key(snapshot, schema).to_vec();
            key.push(text(&column.name));
            option_rows(&key, &column.fdw_options, &mut rows);
        }
    }
    rows
}

/// A user mapping's role as information_schema names it: PUBLIC's is `PUBLIC`.
fn mapping_user(snapshot: &CatalogSnapshot, role: u32) -> ScalarValue {
    match role {
        0 => text("PUBLIC"),
        role => text(&snapshot.role_name(role)),
    }
}

pub(in crate::catalog::system) fn user_mappings(snapshot: &CatalogSnapshot) -> Rows {
    let database = text(&snapshot.session.database);
    (catalog::user_mappings(snapshot).into_iter())
        .map(|(server, mapping)| {
            vec![
                mapping_user(snapshot, mapping.role),
                database.clone(),
                text(&server.name),
            ]
        })
        .collect()
}

/// One row per option; the value only where pg_user_mappings would show it.
pub(in crate::catalog::system) fn user_mapping_options(snapshot: &CatalogSnapshot) -> Rows {
    let database = text(&snapshot.session.database);
    let mut rows = Vec::new();
    for (server, mapping) in catalog::user_mappings(snapshot) {
        let visible = mapping_options_visible(snapshot, server, mapping);
        for (name, value) in &mapping.options {
            rows.push(vec![
                mapping_user(snapshot, mapping.role),
                database.clone(),
                text(&server.name),
                text(name),
                match visible {
                    true => text(value),
                    false => NULL,
                },
            ]);
        }
    }
    rows
}
