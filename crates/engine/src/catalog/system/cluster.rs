//! The relations about the cluster rather than one database's objects: pg_database,
//! pg_tablespace, pg_stat_activity, pg_locks, and the roles (pg_authid, its views pg_roles
//! and pg_user, pg_auth_members). There is one database.

use super::functions::type_name;
use super::relations::DATABASE_OWNER_ROLE_OID;
use super::{
    boolean, char, int4, oid, text, CatalogSnapshot, Rows, ACL, BOOL, CHAR, DATABASE_OID, INT4,
    INT8, NAME, NULL, OID, OPAQUE, SUPERUSER_OID, TEXT, TEXT_ARRAY,
};
use std::sync::atomic::Ordering;

use crate::catalog::Role;
use crate::types::{DataType, ScalarValue};

const TIMESTAMPTZ: DataType = DataType::TimestampTz(None);
/// pg_default, the tablespace of every relation.
const DEFAULT_TABLESPACE_OID: u32 = 1663;
/// UTF8 in PostgreSQL's encoding numbering.
const UTF8_ENCODING: i32 = 6;

pub(super) const PG_DATABASE: &[(&str, DataType)] = &[
    ("oid", OID),
    ("datname", NAME),
    ("datdba", OID),
    ("encoding", INT4),
    ("datlocprovider", CHAR),
    ("datistemplate", BOOL),
    ("datallowconn", BOOL),
    ("datconnlimit", INT4),
    ("datfrozenxid", OPAQUE),
    ("datminmxid", OPAQUE),
    ("dattablespace", OID),
    ("datcollate", TEXT),
    ("datctype", TEXT),
    ("daticulocale", TEXT),
    ("datcollversion", TEXT),
    ("datacl", ACL),
];

pub(super) fn pg_database(snapshot: &CatalogSnapshot) -> Rows {
    let privileges = snapshot.state.roles.database_privileges();
    vec![vec![
        oid(DATABASE_OID),
        text(&snapshot.session.database),
        oid(SUPERUSER_OID),
        int4(UTF8_ENCODING),
        char(b'c'),
        boolean(false),
        boolean(true),
        int4(-1),
        text("716"),
        text("1"),
        oid(DEFAULT_TABLESPACE_OID),
        text("C.UTF-8"),
        text("C.UTF-8"),
        NULL,
        NULL,
        super::relations::acl_value(snapshot, privileges.acl.as_deref()),
    ]]
}

pub(super) const PG_AUTHID: &[(&str, DataType)] = &[
    ("oid", OID),
    ("rolname", NAME),
    ("rolsuper", BOOL),
    ("rolinherit", BOOL),
    ("rolcreaterole", BOOL),
    ("rolcreatedb", BOOL),
    ("rolcanlogin", BOOL),
    ("rolreplication", BOOL),
    ("rolbypassrls", BOOL),
    ("rolconnlimit", INT4),
    ("rolpassword", TEXT),
    ("rolvaliduntil", TIMESTAMPTZ),
];

/// The roles (the bootstrap superuser by the name this session sees, see
/// `RoleCatalog::displayed_name`) and pg_database_owner, the predefined role that owns
/// schema public (pg_dump looks every owner up).
fn roles(snapshot: &CatalogSnapshot) -> Vec<Role> {
    let session = snapshot.session.session_role();
    let catalog = &snapshot.state.roles;
    let mut roles: Vec<Role> = catalog
        .roles
        .iter()
        .map(|role| Role {
            name: catalog
                .displayed_name(role.oid, &session)
                .unwrap_or_else(|| role.name.clone()),
            ..(**role).clone()
        })
        .collect();
    let owner = Role::new(DATABASE_OWNER_ROLE_OID, "pg_database_owner".to_string());
    let at = roles.partition_point(|r| r.oid < owner.oid);
    roles.insert(at, owner);
    roles
}

fn valid_until(role: &Role) -> ScalarValue {
    role.valid_until.map_or(NULL, ScalarValue::TimestampTz)
}

/// Only superusers may read it (the binder checks), so the verifiers are shown.
pub(super) fn pg_authid(snapshot: &CatalogSnapshot) -> Rows {
    roles(snapshot)
        .into_iter()
        .map(|role| {
            vec![
                oid(role.oid),
                text(&role.name),
                boolean(role.superuser),
                boolean(role.inherit),
                boolean(role.create_role),
                boolean(role.create_db),
                boolean(role.login),
                boolean(role.replication),
                boolean(role.bypass_rls),
                int4(role.connection_limit),
                role.password.as_deref().map_or(NULL, text),
                valid_until(&role),
            ]
        })
        .collect()
}

pub(super) const PG_ROLES: &[(&str, DataType)] = &[
    ("rolname", NAME),
    ("rolsuper", BOOL),
    ("rolinherit", BOOL),
    ("rolcreaterole", BOOL),
    ("rolcreatedb", BOOL),
    ("rolcanlogin", BOOL),
    ("rolreplication", BOOL),
    ("rolconnlimit", INT4),
    ("rolpassword", TEXT),
    ("rolvaliduntil", TIMESTAMPTZ),
    ("rolbypassrls", BOOL),
    ("rolconfig", TEXT_ARRAY),
    ("oid", OID),
];

/// pg_authid's rows with the password hidden, as PostgreSQL's view does.
pub(super) fn pg_roles(snapshot: &CatalogSnapshot) -> Rows {
    roles(snapshot)
        .into_iter()
        .map(|role| {
            vec![
                text(&role.name),
                boolean(role.superuser),
                boolean(role.inherit),
                boolean(role.create_role),
                boolean(role.create_db),
                boolean(role.login),
                boolean(role.replication),
                int4(role.connection_limit),
                text("********"),
                valid_until(&role),
                boolean(role.bypass_rls),
                NULL,
                oid(role.oid),
            ]
        })
        .collect()
}

pub(super) const PG_USER: &[(&str, DataType)] = &[
    ("usename", NAME),
    ("usesysid", OID),
    ("usecreatedb", BOOL),
    ("usesuper", BOOL),
    ("userepl", BOOL),
    ("usebypassrls", BOOL),
    ("passwd", TEXT),
    ("valuntil", TIMESTAMPTZ),
    ("useconfig", TEXT_ARRAY),
];

/// The roles that may log in.
pub(super) fn pg_user(snapshot: &CatalogSnapshot) -> Rows {
    roles(snapshot)
        .into_iter()
        .filter(|role| role.login)
        .map(|role| {
            vec![
                text(&role.name),
                oid(role.oid),
                boolean(role.create_db),
                boolean(role.superuser),
                boolean(role.replication),
                boolean(role.bypass_rls),
                text("********"),
                valid_until(&role),
                NULL,
            ]
        })
        .collect()
}

pub(super) const PG_AUTH_MEMBERS: &[(&str, DataType)] = &[
    ("roleid", OID),
    ("member", OID),
    ("grantor", OID),
    ("admin_option", BOOL),
];

pub(super) fn pg_auth_members(snapshot: &CatalogSnapshot) -> Rows {
    snapshot
        .state
        .roles
        .memberships
        .iter()
        .map(|m| {
            vec![
                oid(m.role),
                oid(m.member),
                oid(m.grantor),
                boolean(m.admin_option),
            ]
        })
        .collect()
}

pub(super) const PG_DB_ROLE_SETTING: &[(&str, DataType)] = &[
    ("setdatabase", OID),
    ("setrole", OID),
    ("setconfig", TEXT_ARRAY),
];

/// ALTER ROLE / DATABASE ... SET's settings, one row per (database, role).
pub(super) fn pg_db_role_setting(snapshot: &CatalogSnapshot) -> Rows {
    let settings = &snapshot.state.roles.settings;
    settings
        .0
        .iter()
        .map(|((database, role), items)| {
            let items = items.iter().map(|i| text(i)).collect();
            vec![oid(*database), oid(*role), ScalarValue::Array(items)]
        })
        .collect()
}

pub(super) const PG_TABLESPACE: &[(&str, DataType)] = &[
    ("oid", OID),
    ("spcname", NAME),
    ("spcowner", OID),
    ("spcacl", ACL),
    ("spcoptions", TEXT_ARRAY),
];

pub(super) fn pg_tablespace(_: &CatalogSnapshot) -> Rows {
    [(DEFAULT_TABLESPACE_OID, "pg_default"), (1664, "pg_global")]
        .into_iter()
        .map(|(id, name)| vec![oid(id), text(name), oid(SUPERUSER_OID), NULL, NULL])
        .collect()
}

pub(super) const PG_STAT_ACTIVITY: &[(&str, DataType)] = &[
    ("datid", OID),
    ("datname", NAME),
    ("pid", INT4),
    ("leader_pid", INT4),
    ("usesysid", OID),
    ("usename", NAME),
    ("application_name", TEXT),
    ("client_addr", OPAQUE),
    ("client_hostname", TEXT),
    ("client_port", INT4),
    ("backend_start", TIMESTAMPTZ),
    ("xact_start", TIMESTAMPTZ),
    ("query_start", TIMESTAMPTZ),
    ("state_change", TIMESTAMPTZ),
    ("wait_event_type", TEXT),
    ("wait_event", TEXT),
    ("state", TEXT),
    ("backend_xid", OPAQUE),
    ("backend_xmin", OPAQUE),
    ("query_id", INT8),
    ("query", TEXT),
    ("backend_type", TEXT),
];

/// The session running the statement: other sessions are not listed.
pub(super) fn pg_stat_activity(snapshot: &CatalogSnapshot) -> Rows {
    let session = snapshot.session;
    vec![vec![
        oid(DATABASE_OID),
        text(&session.database),
        int4(session.backend_pid),
        NULL,
        oid(SUPERUSER_OID),
        text(&session.user),
        text(""),
        NULL,
        NULL,
        NULL,
        NULL,
        NULL,
        NULL,
        NULL,
        NULL,
        NULL,
        text("active"),
        NULL,
        NULL,
        NULL,
        text(""),
        text("client backend"),
    ]]
}

pub(super) const PG_LOCKS: &[(&str, DataType)] = &[
    ("locktype", TEXT),
    ("database", OID),
    ("relation", OID),
    ("page", INT4),
    ("tuple", DataType::Int16),
    ("virtualxid", TEXT),
    ("transactionid", OPAQUE),
    ("classid", OID),
    ("objid", OID),
    ("objsubid", DataType::Int16),
    ("virtualtransaction", TEXT),
    ("pid", INT4),
    ("mode", TEXT),
    ("granted", BOOL),
    ("fastpath", BOOL),
    ("waitstart", TIMESTAMPTZ),
];

pub(super) const PG_SETTINGS: &[(&str, DataType)] = &[
    ("name", TEXT),
    ("setting", TEXT),
    ("unit", TEXT),
    ("category", TEXT),
    ("short_desc", TEXT),
    ("extra_desc", TEXT),
    ("context", TEXT),
    ("vartype", TEXT),
    ("source", TEXT),
    ("min_val", TEXT),
    ("max_val", TEXT),
    ("enumvals", TEXT_ARRAY),
    ("boot_val", TEXT),
    ("reset_val", TEXT),
    ("sourcefile", TEXT),
    ("sourceline", INT4),
    ("pending_restart", BOOL),
];

/// The settings KestrelDB has, with the session's values.
pub(super) fn pg_settings(snapshot: &CatalogSnapshot) -> Rows {
    let settings = snapshot.settings.unwrap_or_default();
    let optional = |value: Option<&str>| value.map_or(NULL, text);
    (settings.iter())
        .filter_map(|s| Some((&s.name, s.listed.as_ref()?)))
        .map(|(name, s)| {
            let listing = s.listing;
            let enumvals = listing.enumvals.as_ref().map_or(NULL, |choices| {
                ScalarValue::Array(choices.iter().map(|choice| text(choice)).collect())
            });
            vec![
                text(name),
                text(&s.setting),
                optional(listing.unit),
                text(listing.category),
                text(s.short_desc),
                optional(listing.extra_desc),
                text(listing.context),
                text(listing.vartype),
                text(s.source),
                optional(listing.min_val),
                optional(listing.max_val),
                enumvals,
                text(&s.boot_val),
                text(&s.reset_val),
                NULL,
                NULL,
                boolean(false),
            ]
        })
        .collect()
}

pub(super) const PG_PREPARED_STATEMENTS: &[(&str, DataType)] = &[
    ("name", TEXT),
    ("statement", TEXT),
    ("prepare_time", TIMESTAMPTZ),
    // regtype[] in PostgreSQL, which has no array type here: the names its output shows.
    ("parameter_types", TEXT_ARRAY),
    ("from_sql", BOOL),
    ("generic_plans", INT8),
    ("custom_plans", INT8),
];

/// The session's named prepared statements, SQL's and the protocol's.
pub(super) fn pg_prepared_statements(snapshot: &CatalogSnapshot) -> Rows {
    snapshot
        .prepared_statements
        .iter()
        .map(|prepared| {
            let runs = prepared.executions.load(Ordering::Relaxed);
            vec![
                text(&prepared.name),
                text(&prepared.statement),
                ScalarValue::TimestampTz(prepared.prepare_micros),
                ScalarValue::Array(
                    (prepared.parameter_types.iter())
                        .map(|&t| ScalarValue::Text(type_name(snapshot, t, -1)))
                        .collect(),
                ),
                boolean(prepared.from_sql),
                ScalarValue::Int64(i64::try_from(runs).unwrap_or(i64::MAX)),
                ScalarValue::Int64(0),
            ]
        })
        .collect()
}

pub(super) const PG_CURSORS: &[(&str, DataType)] = &[
    ("name", TEXT),
    ("statement", TEXT),
    ("is_holdable", BOOL),
    ("is_binary", BOOL),
    ("is_scrollable", BOOL),
    ("creation_time", TIMESTAMPTZ),
];

/// The session's open cursors.
pub(super) fn pg_cursors(snapshot: &CatalogSnapshot) -> Rows {
    snapshot
        .cursors
        .iter()
        .map(|cursor| {
            vec![
                text(&cursor.name),
                text(&cursor.statement),
                boolean(cursor.holdable),
                boolean(cursor.binary),
                boolean(cursor.scrollable),
                ScalarValue::TimestampTz(cursor.creation_micros),
            ]
        })
        .collect()
}
