//! pg_foreign_data_wrapper, pg_foreign_server and pg_foreign_table: file_fdw while its
//! extension is installed (with the extension's OID, unique among wrappers), the servers
//! of CREATE SERVER and the foreign tables, options as PostgreSQL stores them
//! (`{name=value,...}`, NULL for none). psql's `\dew`, `\des` and `\det` read them.

use super::{oid, text, CatalogSnapshot, Rows, ACL, NAME, NULL, OID, TEXT, TEXT_ARRAY};
use crate::catalog::FILE_FDW;
use crate::types::{DataType, ScalarValue};

pub(super) const PG_FOREIGN_DATA_WRAPPER: &[(&str, DataType)] = &[
    ("oid", OID),
    ("fdwname", NAME),
    ("fdwowner", OID),
    ("fdwhandler", OID),
    ("fdwvalidator", OID),
    ("fdwacl", ACL),
    ("fdwoptions", TEXT_ARRAY),
];

pub(super) const PG_FOREIGN_SERVER: &[(&str, DataType)] = &[
    ("oid", OID),
    ("srvname", NAME),
    ("srvowner", OID),
    ("srvfdw", OID),
    ("srvtype", TEXT),
    ("srvversion", TEXT),
    ("srvacl", ACL),
    ("srvoptions", TEXT_ARRAY),
];

pub(super) const PG_FOREIGN_TABLE: &[(&str, DataType)] = &[
    ("ftrelid", OID),
    ("ftserver", OID),
    ("ftoptions", TEXT_ARRAY),
];

/// file_fdw, once CREATE EXTENSION file_fdw installed it. Its handler and validator are
/// built in, with no pg_proc rows to point at.
pub(super) fn pg_foreign_data_wrapper(snapshot: &CatalogSnapshot) -> Rows {
    let Some(extension) = snapshot.state.extensions.get(FILE_FDW) else {
        return Vec::new();
    };
    vec![vec![
        oid(extension.oid),
        text(FILE_FDW),
        oid(extension.owner),
        oid(0),
        oid(0),
        NULL,
        NULL,
    ]]
}

pub(super) fn pg_foreign_server(snapshot: &CatalogSnapshot) -> Rows {
    let wrapper = snapshot.state.extensions.get(FILE_FDW).map_or(0, |e| e.oid);
    let mut servers: Vec<_> = snapshot.state.foreign_servers.values().collect();
    servers.sort_by_key(|s| s.oid);
    servers
        .into_iter()
        .map(|server| {
            vec![
                oid(server.oid),
                text(&server.name),
                oid(server.owner),
                oid(wrapper),
                NULL,
                NULL,
                NULL,
                options(&server.options),
            ]
        })
        .collect()
}

pub(super) fn pg_foreign_table(snapshot: &CatalogSnapshot) -> Rows {
    let state = &snapshot.state;
    let mut tables: Vec<_> = (state.tables.values())
        .filter_map(|t| Some((t.schema.oid, t.schema.foreign.as_ref()?)))
        .collect();
    tables.sort_by_key(|(oid, _)| *oid);
    tables
        .into_iter()
        .map(|(table, foreign)| {
            let server = state
                .foreign_servers
                .get(&foreign.server)
                .map_or(0, |s| s.oid);
            vec![oid(table), oid(server), options(&foreign.options)]
        })
        .collect()
}

/// Options as a text[] of `name=value`, NULL when there are none.
fn options(options: &[(String, String)]) -> ScalarValue {
    if options.is_empty() {
        return NULL;
    }
    ScalarValue::Array(
        (options.iter())
            .map(|(name, value)| ScalarValue::Text(format!("{name}={value}")))
            .collect(),
    )
}
