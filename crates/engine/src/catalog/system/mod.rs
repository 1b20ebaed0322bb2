//! PostgreSQL's system catalogs (`pg_catalog`) as read-only relations computed from the
//! catalog of the database version a statement reads.
//!
//! Each relation is declared once, in [`RELATIONS`]: its schema, name, columns (PostgreSQL's
//! names and types) and the function that produces its rows. The binder resolves a name to a
//! relation here and plans a `SystemScan`; the executor materialises the rows from the
//! statement's snapshot when the scan runs, so they are exact inside a transaction and, since
//! the result cache checks the catalog version, never stale.

mod builtin_types;
mod cluster;
mod comments;
mod constraints;
mod domains;
mod enum_types;
mod foreign;
mod functions;
mod has_privilege;
mod information_schema;
mod relations;
mod row_types;
mod sql_functions;
mod time_zones;
mod types;
mod unused_features;
mod views;

use std::fmt;

use crate::exec::{SessionIdentity, SettingRow};
use crate::storage::DbState;
use crate::types::{DataType, OidKind, ScalarValue};

pub(crate) use builtin_types::{BuiltinType, BUILTIN_TYPES};
pub use functions::{format_type, object_oid, CatalogFunction, Parameter};
pub use sql_functions::sql_function_oid;

pub use crate::catalog::{INFORMATION_SCHEMA_OID, PG_CATALOG_OID, PUBLIC_OID};
/// PostgreSQL's schema for TOAST tables (empty here, but listed as in every database).
pub const PG_TOAST_OID: u32 = 99;
/// The bootstrap superuser's OID, which owns everything here.
pub const SUPERUSER_OID: u32 = 10;
/// The one database's OID (PostgreSQL's `postgres` after initdb is 5; template1 is 1).
pub const DATABASE_OID: u32 = 5;

/// What a relation's rows are computed from.
pub(crate) struct CatalogSnapshot<'a> {
    pub state: &'a DbState,
    pub session: &'a SessionIdentity,
    /// The session's settings, when the statement reads them.
    pub settings: Option<&'a [SettingRow]>,
    /// The session's search path; `None` outside a session (then `"$user", public`).
    pub search_path: Option<&'a crate::catalog::SearchPath>,
    /// Where set_config() leaves the changes the session makes after the statement.
    pub setting_changes: &'a std::cell::RefCell<Vec<crate::exec::SettingChange>>,
    /// The session's advisory locks; `None` outside a session.
    pub advisory: Option<&'a crate::storage::AdvisoryLocks>,
    /// The session's cursors.
    pub cursors: &'a [crate::exec::CursorRow],
    /// The session's named prepared statements.
    pub prepared_statements: &'a [crate::exec::PreparedStatementRow],
}

type Rows = Vec<Vec<ScalarValue>>;

/// The schema a relation is reached through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SystemSchema {
    PgCatalog,
    InformationSchema,
}

impl SystemSchema {
    fn name(self) -> &'static str {
        match self {
            SystemSchema::PgCatalog => "pg_catalog",
            SystemSchema::InformationSchema => "information_schema",
        }
    }

    fn oid(self) -> u32 {
        match self {
            SystemSchema::PgCatalog => PG_CATALOG_OID,
            SystemSchema::InformationSchema => INFORMATION_SCHEMA_OID,
        }
    }

    /// Whether an unqualified name finds its relations: pg_catalog is implicitly first in
    /// every search_path.
    fn searched(self) -> bool {
        match self {
            SystemSchema::PgCatalog => true,
            SystemSchema::InformationSchema => false,
        }
    }
}

/// One system relation.
pub struct SystemRelation {
    pub schema: SystemSchema,
    pub name: &'static str,
    /// PostgreSQL's OID for a catalog table; a stable one of ours for a view.
    pub oid: u32,
    /// 'r' for a catalog table, 'v' for a view, as pg_class.relkind says.
    pub kind: u8,
    pub columns: &'static [(&'static str, DataType)],
    rows: fn(&CatalogSnapshot) -> Rows,
}

impl SystemRelation {
    pub fn types(&self) -> Vec<DataType> {
        self.columns.iter().map(|(_, ty)| *ty).collect()
    }

    pub(crate) fn rows(&self, snapshot: &CatalogSnapshot) -> Rows {
        (self.rows)(snapshot)
    }

    /// `pg_catalog.pg_class`, for EXPLAIN.
    pub fn qualified_name(&self) -> String {
        format!("{}.{}", self.schema.name(), self.name)
    }
}

impl fmt::Debug for SystemRelation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.qualified_name())
    }
}

/// Relations are static and unique by name, so identity is equality.
impl PartialEq for SystemRelation {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

/// The relation `schema.name` (`schema` as written, lower-cased), or the one an unqualified
/// `name` finds first in the search path. `None` if no system relation has that name, so
/// the caller goes on to user tables.
pub fn lookup(schema: Option<&str>, name: &str) -> Option<&'static SystemRelation> {
    RELATIONS.iter().find(|r| {
        r.name == name
            && match schema {
                Some(schema) => r.schema.name() == schema,
                None => r.schema.searched(),
            }
    })
}

/// The schema OID of the system relation `relation_oid`, if it is one.
pub fn namespace_of(relation_oid: u32) -> Option<u32> {
    RELATIONS
        .iter()
        .find(|r| r.oid == relation_oid)
        .map(|r| r.schema.oid())
}

/// Whether `name` is a schema of system relations (so `name.x` is not a user schema).
pub fn is_system_schema(name: &str) -> bool {
    RELATIONS.iter().any(|r| r.schema.name() == name)
}

/// Every schema of `state`, (OID, name) in OID order, and pg_toast, which PostgreSQL lists
/// in every database (empty here).
pub(crate) fn namespaces(state: &DbState) -> Vec<(u32, String)> {
    let mut list: Vec<(u32, String)> = state
        .schema_list()
        .iter()
        .map(|s| (s.oid, s.name.clone()))
        .collect();
    list.push((PG_TOAST_OID, "pg_toast".to_string()));
    list.sort_by_key(|(oid, _)| *oid);
    list
}

/// The name of the user relation (table, view, sequence, composite type or index)
/// `relation_oid`.
pub(crate) fn user_relation_name(state: &DbState, relation_oid: u32) -> Option<String> {
    if let Some(table) = state.tables.get(&relation_oid) {
        return Some(table.schema.name.clone());
    }
    if let Some(view) = state.views.values().find(|v| v.oid == relation_oid) {
        return Some(view.name.clone());
    }
    if let Some(sequence) = state.sequences.values().find(|s| s.oid == relation_oid) {
        return Some(sequence.name.name.clone());
    }
    if let Some(composite) = state.composite_types.get(&relation_oid) {
        return Some(composite.name.name.clone());
    }
    state.tables.values().find_map(|t| {
        relations::indexes(&t.schema)
            .into_iter()
            .find(|i| i.oid == relation_oid)
            .map(|i| i.name.to_string())
    })
}

impl CatalogSnapshot<'_> {
    /// The name of role `oid` as this session sees it (pg_get_userbyid's answer).
    pub(crate) fn role_name(&self, oid: u32) -> String {
        match oid {
            relations::DATABASE_OWNER_ROLE_OID => "pg_database_owner".to_string(),
            other => self
                .state
                .roles
                .displayed_name(other, &self.session.session_role())
                .unwrap_or_else(|| format!("unknown (OID={other})")),
        }
    }

    /// Every schema, see [`namespaces`].
    pub(crate) fn namespaces(&self) -> Vec<(u32, String)> {
        namespaces(self.state)
    }

    /// The name of schema `namespace` (its OID as text if it is gone).
    pub(crate) fn schema_name(&self, namespace: u32) -> String {
        self.namespaces()
            .into_iter()
            .find(|(oid, _)| *oid == namespace)
            .map_or_else(|| namespace.to_string(), |(_, name)| name)
    }

    /// The schema OID of the user relation (table, view, sequence or index) `relation_oid`.
    pub(crate) fn namespace_of(&self, relation_oid: u32) -> u32 {
        let state = self.state;
        if let Some(table) = state.tables.get(&relation_oid) {
            return table.schema.namespace;
        }
        if let Some(view) = state.views.values().find(|v| v.oid == relation_oid) {
            return view.namespace;
        }
        if let Some(sequence) = state.sequences.values().find(|s| s.oid == relation_oid) {
            return sequence.name.schema;
        }
        if let Some(composite) = state.composite_types.get(&relation_oid) {
            return composite.name.schema;
        }
        state
            .tables
            .values()
            .find(|t| {
                relations::indexes(&t.schema)
                    .iter()
                    .any(|i| i.oid == relation_oid)
            })
            .map_or(PUBLIC_OID, |t| t.schema.namespace)
    }

    /// Whether user relation `relation_oid` is found by its bare name: its schema is in the
    /// search path and no relation of the same name comes before it there
    /// (pg_table_is_visible). Objects that are not user relations are all in pg_catalog.
    pub(crate) fn relation_visible(&self, relation_oid: u32) -> bool {
        let searched = match self.search_path {
            Some(path) => path.searched(self.state),
            None => vec![PG_CATALOG_OID, PUBLIC_OID],
        };
        let Some(name) = user_relation_name(self.state, relation_oid) else {
            // A system relation: pg_catalog is always searched, information_schema only
            // when the path lists it.
            let system = RELATIONS.iter().find(|r| r.oid == relation_oid);
            return system.is_none_or(|r| searched.contains(&r.schema.oid()));
        };
        let namespace = self.namespace_of(relation_oid);
        searched
            .into_iter()
            .find(|&schema| {
                schema == namespace
                    || self
                        .state
                        .relation_kind(&crate::catalog::QualifiedName::new(schema, name.as_str()))
                        .is_some()
            })
            .is_some_and(|schema| schema == namespace)
    }

    /// The name of the schema of user relation `relation_oid`.
    pub(crate) fn relation_schema_name(&self, relation_oid: u32) -> String {
        self.schema_name(self.namespace_of(relation_oid))
    }
}

/// An OID value.
pub(crate) fn oid(value: u32) -> ScalarValue {
    ScalarValue::Int64(i64::from(value))
}

/// A `name` or `text` value.
pub(crate) fn text(value: &str) -> ScalarValue {
    ScalarValue::Text(value.to_string())
}

/// A `"char"` value.
pub(crate) fn char(value: u8) -> ScalarValue {
    ScalarValue::Text(char::from(value).to_string())
}

pub(crate) fn boolean(value: bool) -> ScalarValue {
    ScalarValue::Bool(value)
}

pub(crate) fn int2(value: i16) -> ScalarValue {
    ScalarValue::Int16(value)
}

pub(crate) fn int4(value: i32) -> ScalarValue {
    ScalarValue::Int32(value)
}

pub(crate) const NULL: ScalarValue = ScalarValue::Null;

/// An int2vector value (pg_index.indkey).
pub(crate) fn int2_vector(values: impl Iterator<Item = i16>) -> ScalarValue {
    ScalarValue::Array(values.map(ScalarValue::Int16).collect())
}

/// An oidvector value (pg_proc.proargtypes).
pub(crate) fn oid_vector(values: impl Iterator<Item = u32>) -> ScalarValue {
    ScalarValue::Array(values.map(|v| ScalarValue::Int64(i64::from(v))).collect())
}

/// Column types as PostgreSQL declares them; `name` is text here, whose values and text
/// forms are the same.
pub(crate) const OID: DataType = DataType::Oid(OidKind::Oid);
pub(crate) const NAME: DataType = DataType::Text;
pub(crate) const CHAR: DataType = DataType::InternalChar;
/// regproc columns hold the function's name: most built-in functions have no row (and so
/// no OID) in our pg_proc.
pub(crate) const REGPROC: DataType = DataType::Text;
pub(crate) const TEXT: DataType = DataType::Text;
pub(crate) const BOOL: DataType = DataType::Bool;
pub(crate) const INT2: DataType = DataType::Int16;
pub(crate) const INT4: DataType = DataType::Int32;
pub(crate) const INT8: DataType = DataType::Int64;
pub(crate) const FLOAT4: DataType = DataType::Float32;
pub(crate) const TEXT_ARRAY: DataType = DataType::Array(&DataType::Text);
/// pg_node_tree, xid and the like: always NULL or a text rendering here.
pub(crate) const OPAQUE: DataType = DataType::Text;
pub(crate) const INT2VECTOR: DataType = DataType::Int2Vector;
pub(crate) const OIDVECTOR: DataType = DataType::OidVector;
/// aclitem[]: always NULL (everything is the owner's, who is a superuser), but an array,
/// which psql passes to array_to_string.
pub(crate) const ACL: DataType = DataType::Array(&DataType::Text);

const fn relation(
    name: &'static str,
    oid: u32,
    kind: u8,
    columns: &'static [(&'static str, DataType)],
    rows: fn(&CatalogSnapshot) -> Rows,
) -> SystemRelation {
    SystemRelation {
        schema: SystemSchema::PgCatalog,
        name,
        oid,
        kind,
        columns,
        rows,
    }
}

/// An information_schema view (they are all views).
const fn information_schema(
    name: &'static str,
    oid: u32,
    columns: &'static [(&'static str, DataType)],
    rows: fn(&CatalogSnapshot) -> Rows,
) -> SystemRelation {
    SystemRelation {
        schema: SystemSchema::InformationSchema,
        name,
        oid,
        kind: b'v',
        columns,
        rows,
    }
}

/// Every system relation: schema pg_catalog, name, OID, relkind, columns, rows.
#[rustfmt::skip]
pub static RELATIONS: &[SystemRelation] = &[
    relation("pg_namespace", 2615, b'r', relations::PG_NAMESPACE, relations::pg_namespace),
    relation("pg_class", 1259, b'r', relations::PG_CLASS, relations::pg_class),
    relation("pg_attribute", 1249, b'r', relations::PG_ATTRIBUTE, relations::pg_attribute),
    relation("pg_index", 2610, b'r', relations::PG_INDEX, relations::pg_index),
    relation("pg_constraint", 2606, b'r', relations::PG_CONSTRAINT, relations::pg_constraint),
    relation("pg_attrdef", 2604, b'r', relations::PG_ATTRDEF, relations::pg_attrdef),
    relation("pg_sequence", 2224, b'r', relations::PG_SEQUENCE, relations::pg_sequence),
    relation("pg_depend", 2608, b'r', relations::PG_DEPEND, relations::pg_depend),
    relation("pg_description", 2609, b'r', relations::PG_DESCRIPTION, comments::pg_description),
    relation("pg_inherits", 2611, b'r', relations::PG_INHERITS, relations::pg_inherits),
    relation("pg_type", 1247, b'r', types::PG_TYPE, types::pg_type),
    relation("pg_range", 3541, b'r', types::PG_RANGE, types::pg_range),
    relation("pg_enum", 3501, b'r', types::PG_ENUM, enum_types::pg_enum),
    relation("pg_collation", 3456, b'r', types::PG_COLLATION, types::pg_collation),
    relation("pg_am", 2601, b'r', types::PG_AM, types::pg_am),
    relation("pg_proc", 1255, b'r', types::PG_PROC, types::pg_proc),
    relation("pg_operator", 2617, b'r', types::PG_OPERATOR, types::pg_operator),
    relation("pg_extension", 3079, b'r', types::PG_EXTENSION, types::pg_extension),
    relation("pg_database", 1262, b'r', cluster::PG_DATABASE, cluster::pg_database),
    relation("pg_authid", 1260, b'r', cluster::PG_AUTHID, cluster::pg_authid),
    relation("pg_roles", 12001, b'v', cluster::PG_ROLES, cluster::pg_roles),
    relation("pg_user", 12002, b'v', cluster::PG_USER, cluster::pg_user),
    relation("pg_tablespace", 1213, b'r', cluster::PG_TABLESPACE, cluster::pg_tablespace),
    relation("pg_stat_activity", 12003, b'v', cluster::PG_STAT_ACTIVITY, cluster::pg_stat_activity),
    relation("pg_locks", 12004, b'v', cluster::PG_LOCKS, no_rows),
    relation("pg_settings", 12009, b'v', cluster::PG_SETTINGS, cluster::pg_settings),
    relation("pg_timezone_names", 12010, b'v', time_zones::PG_TIMEZONE_NAMES, time_zones::pg_timezone_names),
    relation("pg_tables", 12005, b'v', views::PG_TABLES, views::pg_tables),
    relation("pg_views", 12006, b'v', views::PG_VIEWS, views::pg_views),
    relation("pg_indexes", 12007, b'v', views::PG_INDEXES, views::pg_indexes),
    relation("pg_sequences", 12008, b'v', views::PG_SEQUENCES, views::pg_sequences),
    relation("pg_policy", 3256, b'r', unused_features::PG_POLICY, no_rows),
    relation("pg_statistic_ext", 3381, b'r', unused_features::PG_STATISTIC_EXT, no_rows),
    relation("pg_publication", 6104, b'r', unused_features::PG_PUBLICATION, no_rows),
    relation("pg_publication_namespace", 6237, b'r', unused_features::PG_PUBLICATION_NAMESPACE, no_rows),
    relation("pg_publication_rel", 6106, b'r', unused_features::PG_PUBLICATION_REL, no_rows),
    relation("pg_trigger", 2620, b'r', unused_features::PG_TRIGGER, no_rows),
    relation("pg_rewrite", 2618, b'r', relations::PG_REWRITE, relations::pg_rewrite),
    relation("pg_auth_members", 1261, b'r', cluster::PG_AUTH_MEMBERS, cluster::pg_auth_members),
    relation("pg_shdescription", 2396, b'r', unused_features::PG_SHDESCRIPTION, comments::pg_shdescription),
    relation("pg_foreign_table", 3118, b'r', foreign::PG_FOREIGN_TABLE, foreign::pg_foreign_table),
    relation("pg_partitioned_table", 3350, b'r', unused_features::PG_PARTITIONED_TABLE, relations::pg_partitioned_table),
    relation("pg_event_trigger", 3466, b'r', unused_features::PG_EVENT_TRIGGER, no_rows),
    relation("pg_init_privs", 3394, b'r', relations::PG_INIT_PRIVS, relations::pg_init_privs),
    relation("pg_opclass", 2616, b'r', unused_features::PG_OPCLASS, no_rows),
    relation("pg_opfamily", 2753, b'r', unused_features::PG_OPFAMILY, no_rows),
    relation("pg_amop", 2602, b'r', unused_features::PG_AMOP, no_rows),
    relation("pg_amproc", 2603, b'r', unused_features::PG_AMPROC, no_rows),
    relation("pg_ts_parser", 3601, b'r', unused_features::PG_TS_PARSER, no_rows),
    relation("pg_ts_template", 3764, b'r', unused_features::PG_TS_TEMPLATE, no_rows),
    relation("pg_ts_dict", 3600, b'r', unused_features::PG_TS_DICT, no_rows),
    relation("pg_ts_config", 3602, b'r', unused_features::PG_TS_CONFIG, no_rows),
    relation("pg_foreign_data_wrapper", 2328, b'r', foreign::PG_FOREIGN_DATA_WRAPPER, foreign::pg_foreign_data_wrapper),
    relation("pg_foreign_server", 1417, b'r', foreign::PG_FOREIGN_SERVER, foreign::pg_foreign_server),
    relation("pg_user_mapping", 1418, b'r', foreign::PG_USER_MAPPING, foreign::pg_user_mapping),
    relation("pg_user_mappings", 12060, b'v', foreign::PG_USER_MAPPINGS, foreign::pg_user_mappings),
    relation("pg_default_acl", 826, b'r', unused_features::PG_DEFAULT_ACL, no_rows),
    relation("pg_conversion", 2607, b'r', unused_features::PG_CONVERSION, no_rows),
    relation("pg_cast", 2605, b'r', unused_features::PG_CAST, no_rows),
    relation("pg_transform", 3576, b'r', unused_features::PG_TRANSFORM, no_rows),
    relation("pg_subscription", 6100, b'r', unused_features::PG_SUBSCRIPTION, no_rows),
    relation("pg_largeobject_metadata", 2995, b'r', unused_features::PG_LARGEOBJECT_METADATA, no_rows),
    relation("pg_seclabels", 12011, b'v', unused_features::PG_SECLABELS, no_rows),
    relation("pg_shseclabel", 3592, b'r', unused_features::PG_SHSECLABEL, no_rows),
    relation("pg_db_role_setting", 2964, b'r', cluster::PG_DB_ROLE_SETTING, cluster::pg_db_role_setting),
    relation("pg_cursors", 12012, b'v', cluster::PG_CURSORS, cluster::pg_cursors),
    relation("pg_prepared_statements", 12095, b'v', cluster::PG_PREPARED_STATEMENTS, cluster::pg_prepared_statements),
    relation("pg_matviews", 12050, b'v', views::PG_MATVIEWS, views::pg_matviews),
    relation("pg_language", 2612, b'r', types::PG_LANGUAGE, types::pg_language),
    relation("pg_available_extensions", 12013, b'v', types::PG_AVAILABLE_EXTENSIONS, types::pg_available_extensions),
    information_schema("schemata", 13101, is::SCHEMATA, information_schema::schemata),
    information_schema("tables", 13102, is::TABLES, information_schema::tables),
    information_schema("columns", 13103, is::COLUMNS, information_schema::columns),
    information_schema("views", 13104, is::VIEWS, information_schema::views),
    information_schema("table_constraints", 13105, is::TABLE_CONSTRAINTS, information_schema::table_constraints),
    information_schema("key_column_usage", 13106, is::KEY_COLUMN_USAGE, information_schema::key_column_usage),
    information_schema("referential_constraints", 13107, is::REFERENTIAL_CONSTRAINTS, information_schema::referential_constraints),
    information_schema("constraint_column_usage", 13108, is::CONSTRAINT_COLUMN_USAGE, information_schema::constraint_column_usage),
    information_schema("sequences", 13109, is::SEQUENCES, information_schema::sequences),
    information_schema("routines", 13110, is::ROUTINES, no_rows),
    information_schema("parameters", 13111, is::PARAMETERS, no_rows),
    information_schema("check_constraints", 13112, is::CHECK_CONSTRAINTS, information_schema::check_constraints),
    information_schema("domains", 13140, information_schema::domains::DOMAINS, information_schema::domains::domains),
    information_schema("domain_constraints", 13141, information_schema::domains::DOMAIN_CONSTRAINTS, information_schema::domains::domain_constraints),
    information_schema("table_privileges", 13113, is::TABLE_PRIVILEGES, information_schema::table_privileges),
    information_schema("role_table_grants", 13114, is::TABLE_PRIVILEGES, information_schema::role_table_grants),
    information_schema("column_privileges", 13190, is::COLUMN_PRIVILEGES, information_schema::column_privileges),
    information_schema("foreign_data_wrappers", 13170, isf::FOREIGN_DATA_WRAPPERS, isf::foreign_data_wrappers),
    information_schema("foreign_servers", 13171, isf::FOREIGN_SERVERS, isf::foreign_servers),
    information_schema("foreign_server_options", 13172, isf::FOREIGN_SERVER_OPTIONS, isf::foreign_server_options),
    information_schema("foreign_tables", 13173, isf::FOREIGN_TABLES, isf::foreign_tables),
    information_schema("foreign_table_options", 13174, isf::FOREIGN_TABLE_OPTIONS, isf::foreign_table_options),
    information_schema("column_options", 13175, isf::COLUMN_OPTIONS, isf::column_options),
    information_schema("user_mappings", 13176, isf::USER_MAPPINGS, isf::user_mappings),
    information_schema("user_mapping_options", 13177, isf::USER_MAPPING_OPTIONS, isf::user_mapping_options),
];

use information_schema::columns as is;
use information_schema::foreign as isf;

/// A relation that is empty here: what it lists (comments, inheritance, enums, locks held
/// by others) does not exist in KestrelDB.
fn no_rows(_: &CatalogSnapshot) -> Rows {
    Vec::new()
}
