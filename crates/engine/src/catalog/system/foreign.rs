//! pg_foreign_data_wrapper, pg_foreign_server, pg_foreign_table, pg_user_mapping and the
//! pg_user_mappings view: file_fdw while its extension is installed (with the extension's
//! OID, unique among wrappers), the servers of CREATE SERVER, the foreign tables and the
//! user mappings, options as PostgreSQL stores them (`{name=value,...}`, NULL for none).
//! psql's `\dew`, `\des`, `\det` and `\deu` read them.

use super::{oid, text, CatalogSnapshot, Rows, ACL, NAME, NULL, OID, TEXT, TEXT_ARRAY};
use crate::catalog::{ForeignServer, UserMapping, FILE_FDW};
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

pub(super) const PG_USER_MAPPING: &[(&str, DataType)] = &[
    ("oid", OID),
    ("umuser", OID),
    ("umserver", OID),
    ("umoptions", TEXT_ARRAY),
];

pub(super) const PG_USER_MAPPINGS: &[(&str, DataType)] = &[
    ("umid", OID),
    ("srvid", OID),
    ("srvname", NAME),
    ("umuser", OID),
    ("usename", NAME),
    ("umoptions", TEXT_ARRAY),
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

/// Every user mapping with its server, by the mapping's OID.
pub(super) fn user_mappings<'a>(
    snapshot: &CatalogSnapshot<'a>,
) -> Vec<(&'a ForeignServer, &'a UserMapping)> {
    let mut mappings: Vec<_> = (snapshot.state.foreign_servers.values())
        .flat_map(|server| server.user_mappings.iter().map(move |m| (&**server, m)))
        .collect();
    mappings.sort_by_key(|(_, mapping)| mapping.oid);
    mappings
}

pub(super) fn pg_user_mapping(snapshot: &CatalogSnapshot) -> Rows {
    (user_mappings(snapshot).into_iter())
        .map(|(server, mapping)| {
            vec![
                oid(mapping.oid),
                oid(mapping.role),
                oid(server.oid),
                options(&mapping.options),
            ]
        })
        .collect()
}

/// pg_user_mappings: PUBLIC's mapping is `public`'s; the options show only to the
/// mapping's own role, the server's owner and superusers, as PostgreSQL's view decides.
pub(super) fn pg_user_mappings(snapshot: &CatalogSnapshot) -> Rows {
    (user_mappings(snapshot).into_iter())
        .map(|(server, mapping)| {
            let user = match mapping.role {
                0 => text("public"),
                role => text(&snapshot.role_name(role)),
            };
            vec![
                oid(mapping.oid),
                oid(server.oid),
                text(&server.name),
                oid(mapping.role),
                user,
                match mapping_options_visible(snapshot, server, mapping) {
                    true => options(&mapping.options),
                    false => NULL,
                },
            ]
        })
        .collect()
}

/// Whether the session may see a user mapping's options (they may hold passwords).
pub(super) fn mapping_options_visible(
    snapshot: &CatalogSnapshot,
    server: &ForeignServer,
    mapping: &UserMapping,
) -> bool {
    let role = snapshot.session.role_oid;
    let privileges = &snapshot.state.roles;
    mapping.role == role || privileges.has_ownership(role, server.owner)
}

/// Options as a text[] of `name=value`, NULL when there are none.
pub(super) fn options(options: &[(String, String)]) -> ScalarValue {
    if options.is_empty() {
        return NULL;
    }
    ScalarValue::Array(
        (options.iter())
            .map(|(name, value)| ScalarValue::Text(format!("{name}={value}")))
            .collect(),
    )
}
