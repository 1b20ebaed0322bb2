//! The relations that describe tables, views, sequences and indexes: pg_namespace, pg_class,
//! pg_attribute, pg_index, pg_constraint, pg_attrdef, pg_sequence, pg_depend, pg_rewrite
//! (each view's `_RETURN` rule), pg_init_privs, and the always-empty pg_description and
//! pg_inherits.
//!
//! Indexes, constraints and column defaults have no OID in our catalog; they get one derived
//! from their table's OID and position ([`derived_oid`]), stable across restarts as long as
//! the table's definition is.

use super::views::quote_identifier;
use super::{
    boolean, char, int2, int2_vector, int4, oid, oid_vector, text, CatalogSnapshot, Rows, ACL,
    BOOL, CHAR, FLOAT4, INFORMATION_SCHEMA_OID, INT2, INT2VECTOR, INT4, NAME, NULL, OID, OIDVECTOR,
    OPAQUE, PG_CATALOG_OID, PUBLIC_OID, RELATIONS, SUPERUSER_OID, TEXT, TEXT_ARRAY,
};
use crate::catalog::{
    acl_text, row_type_oid, AclItem, ForeignKey, IndexExpr, IndexMethod, StoredExpr, TableSchema,
};
use crate::storage::FIRST_USER_OID;
use crate::types::{bit_string, text_io, DataType, ScalarValue};

pub(super) const PG_NAMESPACE: &[(&str, DataType)] = &[
    ("oid", OID),
    ("nspname", NAME),
    ("nspowner", OID),
    ("nspacl", ACL),
];

/// The role PostgreSQL 15 makes the owner of `public`: whoever owns the database.
pub(super) const DATABASE_OWNER_ROLE_OID: u32 = crate::catalog::DATABASE_OWNER;

/// Owners and ACLs as `privilege.rs` keeps them: initdb's schemas have an ACL where
/// everyone may use them; CREATE SCHEMA grants nothing (a NULL nspacl).
pub(super) fn pg_namespace(snapshot: &CatalogSnapshot) -> Rows {
    snapshot
        .namespaces()
        .into_iter()
        .map(|(id, name)| {
            let (owner, acl) = match snapshot.state.schemas.get(&id) {
                Some(schema) => {
                    let privileges = snapshot.state.roles.schema_privileges(schema);
                    let acl = acl_value(snapshot, privileges.acl.as_deref());
                    (privileges.owner, acl)
                }
                // initdb grants on the system schemas it makes.
                None if matches!(id, PG_CATALOG_OID | INFORMATION_SCHEMA_OID) => {
                    let owner_name = snapshot.role_name(SUPERUSER_OID);
                    let acl = ScalarValue::Array(vec![
                        text(&format!("{owner_name}=UC/{owner_name}")),
                        text(&format!("=U/{owner_name}")),
                    ]);
                    (SUPERUSER_OID, acl)
                }
                None => (SUPERUSER_OID, NULL),
            };
            vec![oid(id), text(&name), oid(owner), acl]
        })
        .collect()
}

/// An ACL as an aclitem[] prints, NULL for the default one.
pub(super) fn acl_value(snapshot: &CatalogSnapshot, acl: Option<&[AclItem]>) -> ScalarValue {
    match acl {
        None => NULL,
        Some(acl) => {
            let name = |oid| quote_identifier(&snapshot.role_name(oid));
            ScalarValue::Array(
                acl_text(acl, &name)
                    .into_iter()
                    .map(ScalarValue::Text)
                    .collect(),
            )
        }
    }
}

pub(super) const PG_INIT_PRIVS: &[(&str, DataType)] = &[
    ("objoid", OID),
    ("classoid", OID),
    ("objsubid", INT4),
    ("privtype", CHAR),
    ("initprivs", ACL),
];

/// The privileges initdb set (pg_dump dumps only changes from these): those of
/// pg_catalog and public, the schemas initdb makes with grants (information_schema's
/// are the SQL script's, so not initial).
pub(super) fn pg_init_privs(snapshot: &CatalogSnapshot) -> Rows {
    const PG_NAMESPACE_OID: u32 = 2615;
    pg_namespace(snapshot)
        .into_iter()
        .filter(|row| matches!(row[0], ScalarValue::Int64(id) if id == i64::from(PG_CATALOG_OID) || id == i64::from(PUBLIC_OID)))
        .map(|mut row| {
            let acl = row.swap_remove(3);
            vec![row[0].clone(), oid(PG_NAMESPACE_OID), int4(0), char(b'i'), acl]
        })
        .collect()
}

/// Which derived OID: each kind of object of a table has its own range.
#[derive(Clone, Copy)]
pub(super) enum Derived {
    Index,
    Constraint,
    Default,
    /// A view's `_RETURN` rule: position 0 of the view's default block, which no column
    /// default uses (theirs start at 1, and views have none).
    Rule,
}

/// The OID of a table's index, constraint or column default at `position` (index and
/// constraint positions count the unique keys first, then the other indexes; a default's
/// is its column's). The ranges start far above the OIDs the catalog hands out, one block
/// of 2,048 per table per kind, so they never meet one.
pub(super) fn derived_oid(table_oid: u32, kind: Derived, position: usize) -> u32 {
    let base: u32 = match kind {
        Derived::Index => 0x4000_0000,
        Derived::Constraint => 0x8000_0000,
        Derived::Default | Derived::Rule => 0xC000_0000,
    };
    let block = table_oid.saturating_sub(16384).saturating_mul(2048);
    let position = u32::try_from(position).unwrap_or(u32::MAX);
    base.saturating_add(block).saturating_add(position)
}

/// One index of a table, unique keys (with their constraints) and CREATE INDEX alike.
pub(super) struct IndexInfo<'a> {
    pub oid: u32,
    pub name: &'a str,
    pub columns: &'a [usize],
    pub unique: bool,
    pub primary: bool,
    /// The PRIMARY KEY or UNIQUE constraint it implements, if any.
    pub constraint: bool,
    pub method: IndexMethod,
    /// COMMENT ON INDEX, and COMMENT ON CONSTRAINT of its constraint.
    pub comment: Option<&'a str>,
    pub constraint_comment: Option<&'a str>,
    /// The keys that are expressions, and a partial index's WHERE.
    pub expressions: &'a [IndexExpr],
    pub predicate: Option<&'a StoredExpr>,
}

impl IndexInfo<'_> {
    /// pg_index.indkey: each key's column number, 0 for an expression.
    pub fn key_numbers(&self) -> Vec<i16> {
        let mut columns = self.columns.iter();
        (0..self.columns.len() + self.expressions.len())
            .map(|key| match self.expressions.iter().any(|e| e.key == key) {
                true => 0,
                false => columns
                    .next()
                    .map_or(0, |&c| i16::try_from(c + 1).unwrap_or(i16::MAX)),
            })
            .collect()
    }
}

pub(super) fn indexes(schema: &TableSchema) -> Vec<IndexInfo<'_>> {
    let unique = schema.unique_keys.iter().map(|k| IndexInfo {
        oid: 0,
        name: k.name.as_str(),
        columns: k.columns.as_slice(),
        unique: true,
        primary: k.primary,
        constraint: k.constraint,
        method: IndexMethod::Btree,
        comment: k.index_comment.as_deref(),
        constraint_comment: k.constraint_comment.as_deref(),
        expressions: &[],
        predicate: None,
    });
    let other = schema.indexes.iter().map(|i| IndexInfo {
        oid: 0,
        name: i.name.as_str(),
        columns: i.columns.as_slice(),
        unique: false,
        primary: false,
        constraint: false,
        method: i.method,
        comment: i.comment.as_deref(),
        constraint_comment: None,
        expressions: &i.expressions,
        predicate: i.predicate.as_ref(),
    });
    unique
        .chain(other)
        .enumerate()
        .map(|(position, index)| IndexInfo {
            oid: derived_oid(schema.oid, Derived::Index, position),
            ..index
        })
        .collect()
}

/// pg_am's OIDs.
pub(super) const HEAP_AM: u32 = 2;
pub(super) const BTREE_AM: u32 = 403;
pub(super) const HASH_AM: u32 = 405;
/// pgvector's hnsw, which an extension gets at CREATE EXTENSION; a fixed OID here, below
/// those of user objects.
pub(super) const HNSW_AM: u32 = 9_700;

pub(super) fn access_method(method: IndexMethod) -> u32 {
    match method {
        IndexMethod::Btree => BTREE_AM,
        IndexMethod::Hash => HASH_AM,
        IndexMethod::Hnsw(_) => HNSW_AM,
    }
}

pub(super) const PG_CLASS: &[(&str, DataType)] = &[
    ("oid", OID),
    ("relname", NAME),
    ("relnamespace", OID),
    ("reltype", OID),
    ("reloftype", OID),
    ("relowner", OID),
    ("relam", OID),
    ("relfilenode", OID),
    ("reltablespace", OID),
    ("relpages", INT4),
    ("reltuples", FLOAT4),
    ("relallvisible", INT4),
    ("reltoastrelid", OID),
    ("relhasindex", BOOL),
    ("relisshared", BOOL),
    ("relpersistence", CHAR),
    ("relkind", CHAR),
    ("relnatts", INT2),
    ("relchecks", INT2),
    ("relhasrules", BOOL),
    ("relhastriggers", BOOL),
    ("relhassubclass", BOOL),
    ("relrowsecurity", BOOL),
    ("relforcerowsecurity", BOOL),
    ("relispopulated", BOOL),
    ("relreplident", CHAR),
    ("relispartition", BOOL),
    ("relrewrite", OID),
    ("relfrozenxid", OPAQUE),
    ("relminmxid", OPAQUE),
    ("relacl", ACL),
    ("reloptions", TEXT_ARRAY),
    ("relpartbound", OPAQUE),
];

/// What differs between pg_class rows.
struct ClassRow<'a> {
    oid: u32,
    /// The relation whose owner owns it: itself, or an index's table.
    owned_with: u32,
    name: &'a str,
    namespace: u32,
    kind: u8,
    columns: usize,
    has_index: bool,
    /// relchecks: how many CHECK constraints (psql lists them only when there are some).
    checks: usize,
    /// A table with foreign keys, or referenced by one (PostgreSQL's triggers enforce them).
    has_triggers: bool,
    /// relpersistence: 'p'ermanent, 'u'nlogged or 't'emporary.
    persistence: u8,
    /// pg_am's OID: heap for tables, the index's method for indexes.
    am: u32,
    /// relispopulated: false for a materialized view WITH NO DATA.
    populated: bool,
    /// A partition's bound as pg_get_expr prints relpartbound (relispartition).
    partition_bound: Option<String>,
    /// relhassubclass: a partitioned table with partitions.
    has_subclass: bool,
}

impl ClassRow<'_> {
    /// The row; a table's, view's, materialized view's or sequence's owner and ACL are
    /// `snapshot`'s, and an index has its table's owner.
    fn values(&self, snapshot: &CatalogSnapshot) -> Vec<ScalarValue> {
        let roles = &snapshot.state.roles;
        let (owner, acl) = match self.kind {
            b'r' | b'v' | b'm' | b'S' | b'p' => {
                let privileges = match self.kind {
                    b'S' => roles.sequence_privileges(self.oid),
                    _ => roles.relation_privileges(self.oid),
                };
                let acl = acl_value(snapshot, privileges.acl.as_deref());
                (privileges.owner, acl)
            }
            _ => (roles.relation_privileges(self.owned_with).owner, NULL),
        };
        // Tables and materialized views: relations with heap storage.
        let heap = matches!(self.kind, b'r' | b'm');
        let replident = if heap || self.kind == b'p' {
            b'd'
        } else {
            b'n'
        };
        let storage = !matches!(self.kind, b'v' | b'c' | b'p' | b'I');
        // Tables, views and composite types of users have a row type (the system
        // relations' are not listed).
        let row_type = match self.kind {
            b'r' | b'v' | b'm' | b'c' | b'p' if self.oid >= FIRST_USER_OID => {
                row_type_oid(self.oid)
            }
            _ => 0,
        };
        vec![
            oid(self.oid),
            text(self.name),
            oid(self.namespace),
            oid(row_type),
            oid(0),
            oid(owner),
            oid(self.am),
            oid(if storage { self.oid } else { 0 }),
            oid(0),
            int4(0),
            ScalarValue::Float32(if storage { -1.0 } else { 0.0 }),
            int4(0),
            oid(0),
            boolean(self.has_index),
            boolean(false),
            char(self.persistence),
            char(self.kind),
            int2(i16::try_from(self.columns).unwrap_or(i16::MAX)),
            int2(i16::try_from(self.checks).unwrap_or(i16::MAX)),
            boolean(self.kind == b'v'),
            boolean(self.has_triggers),
            boolean(self.has_subclass),
            boolean(false),
            boolean(false),
            boolean(self.populated),
            char(replident),
            boolean(self.partition_bound.is_some()),
            oid(0),
            text("0"),
            text(if heap { "1" } else { "0" }),
            acl,
            NULL,
            self.partition_bound.as_deref().map_or(NULL, text),
        ]
    }
}

/// relpartbound of a partition, as pg_get_expr prints it.
fn partition_bound(state: &crate::storage::DbState, schema: &TableSchema) -> Option<String> {
    let of = schema.partition_of.as_ref()?;
    let parent = state.tables.get(&of.parent)?;
    let key = parent.schema.partition_key.as_ref()?;
    let ty = parent.schema.columns.get(key.column)?.data_type;
    Some(crate::catalog::partition::bound_definition(&of.bound, ty))
}

pub(super) fn pg_class(snapshot: &CatalogSnapshot) -> Rows {
    let mut rows = Vec::new();
    for relation in RELATIONS {
        rows.push(ClassRow {
            oid: relation.oid,
            owned_with: relation.oid,
            name: relation.name,
            namespace: relation.schema.oid(),
            kind: relation.kind,
            columns: relation.columns.len(),
            has_index: false,
            checks: 0,
            has_triggers: false,
            persistence: b'p',
            am: if relation.kind == b'r' { HEAP_AM } else { 0 },
            populated: true,
            partition_bound: None,
            has_subclass: false,
        });
    }
    let state = snapshot.state;
    let temporary = state.temporary_schemas();
    let persistence = |namespace: u32, unlogged: bool| {
        if temporary.contains(&namespace) {
            b't'
        } else if unlogged {
            b'u'
        } else {
            b'p'
        }
    };
    for entry in state.tables.values() {
        let schema = &entry.schema;
        let namespace = schema.namespace;
        let table_indexes = indexes(schema);
        rows.push(ClassRow {
            oid: schema.oid,
            owned_with: schema.oid,
            name: &schema.name,
            namespace,
            kind: match (&schema.materialized, &schema.foreign) {
                (Some(_), _) => b'm',
                (None, Some(_)) => b'f',
                (None, None) if schema.partition_key.is_some() => b'p',
                (None, None) => b'r',
            },
            columns: schema.columns.len(),
            has_index: !table_indexes.is_empty(),
            checks: super::constraints::check_count(schema),
            has_triggers: !schema.foreign_keys.is_empty()
                || state
                    .tables
                    .values()
                    .any(|e| e.schema.foreign_keys_to(schema.oid).next().is_some()),
            persistence: persistence(namespace, schema.unlogged),
            // A foreign table and a partitioned table have no access method.
            am: if schema.foreign.is_some() || schema.partition_key.is_some() {
                0
            } else {
                HEAP_AM
            },
            populated: schema.materialized.as_ref().is_none_or(|m| m.populated),
            partition_bound: partition_bound(state, schema),
            has_subclass: schema.partition_key.is_some()
                && (state.tables.values()).any(|t| {
                    t.schema
                        .partition_of
                        .as_ref()
                        .is_some_and(|p| p.parent == schema.oid)
                }),
        });
        rows.extend(table_indexes.iter().map(|index| ClassRow {
            oid: index.oid,
            owned_with: schema.oid,
            name: index.name,
            namespace,
            // A partitioned table's index is a partitioned index.
            kind: if schema.partition_key.is_some() {
                b'I'
            } else {
                b'i'
            },
            columns: index.columns.len(),
            has_index: false,
            checks: 0,
            has_triggers: false,
            persistence: persistence(namespace, schema.unlogged),
            am: access_method(index.method),
            populated: true,
            partition_bound: None,
            has_subclass: false,
        }));
    }
    let views = (state.views.values()).map(|view| {
        (
            b'v',
            view.oid,
            view.name.as_str(),
            view.namespace,
            &view.columns,
        )
    });
    let composite_types = (state.composite_types.values())
        .map(|c| (b'c', c.oid, c.name.name.as_str(), c.name.schema, &c.fields));
    rows.extend(
        views
            .chain(composite_types)
            .map(|(kind, oid, name, namespace, columns)| ClassRow {
                oid,
                owned_with: oid,
                name,
                namespace,
                kind,
                columns: columns.len(),
                has_index: false,
                checks: 0,
                has_triggers: false,
                persistence: persistence(namespace, false),
                am: 0,
                populated: true,
                partition_bound: None,
                has_subclass: false,
            }),
    );
    rows.extend(state.sequences.values().map(|sequence| ClassRow {
        oid: sequence.oid,
        owned_with: sequence.oid,
        name: &sequence.name.name,
        namespace: sequence.name.schema,
        kind: b'S',
        columns: 3,
        has_index: false,
        checks: 0,
        has_triggers: false,
        persistence: persistence(sequence.name.schema, false),
        am: 0,
        populated: true,
        partition_bound: None,
        has_subclass: false,
    }));
    rows.iter().map(|row| row.values(snapshot)).collect()
}

pub(super) const PG_ATTRIBUTE: &[(&str, DataType)] = &[
    ("attrelid", OID),
    ("attname", NAME),
    ("atttypid", OID),
    ("attstattarget", INT4),
    ("attlen", INT2),
    ("attnum", INT2),
    ("attndims", INT4),
    ("attcacheoff", INT4),
    ("atttypmod", INT4),
    ("attbyval", BOOL),
    ("attalign", CHAR),
    ("attstorage", CHAR),
    ("attcompression", CHAR),
    ("attnotnull", BOOL),
    ("atthasdef", BOOL),
    ("atthasmissing", BOOL),
    ("attidentity", CHAR),
    ("attgenerated", CHAR),
    ("attisdropped", BOOL),
    ("attislocal", BOOL),
    ("attinhcount", INT4),
    ("attcollation", OID),
    ("attacl", ACL),
    ("attoptions", TEXT_ARRAY),
    ("attfdwoptions", TEXT_ARRAY),
    ("attmissingval", OPAQUE),
];

/// What differs between pg_attribute rows.
struct AttributeRow<'a> {
    relation: u32,
    name: &'a str,
    ty: DataType,
    number: usize,
    not_null: bool,
    has_default: bool,
    identity: u8,
    /// A generated column (attgenerated 's').
    generated: bool,
    /// The column's domain: its atttypid, with no typmod of its own.
    domain: Option<u32>,
    /// A foreign table's column's OPTIONS.
    fdw_options: &'a [(String, String)],
}

impl AttributeRow<'_> {
    fn values(&self, snapshot: &CatalogSnapshot) -> Vec<ScalarValue> {
        let number = i16::try_from(self.number).unwrap_or(i16::MAX);
        let columns = &snapshot.state.roles.privileges.columns;
        let acl = columns.0.get(&(self.relation, number)).map(Vec::as_slice);
        let builtin = super::types::builtin(self.ty.oid());
        let (by_value, align, storage) =
            builtin.map_or((false, b'i', b'x'), |t| (t.by_value, t.align, t.storage));
        vec![
            oid(self.relation),
            text(self.name),
            oid(self.domain.unwrap_or(self.ty.oid())),
            int4(-1),
            int2(self.ty.type_len()),
            int2(number),
            int4(i32::from(self.ty.element().is_some())),
            int4(-1),
            int4(match self.domain {
                Some(_) => -1,
                None => self.ty.typmod(),
            }),
            boolean(by_value),
            char(align),
            char(storage),
            char(0),
            boolean(self.not_null),
            boolean(self.has_default),
            boolean(false),
            char(self.identity),
            char(if self.generated { b's' } else { 0 }),
            boolean(false),
            boolean(true),
            int4(0),
            oid(collation(self.ty)),
            acl_value(snapshot, acl),
            NULL,
            super::foreign::options(self.fdw_options),
            NULL,
        ]
    }
}

/// The collation of a column of type `ty`: "default" (100) for strings, none otherwise.
pub(super) fn collation(ty: DataType) -> u32 {
    let base = ty.element().unwrap_or(ty);
    if base.is_string() {
        100
    } else {
        0
    }
}

/// A column's identity kind: 'a' ALWAYS, 'd' BY DEFAULT, none (0) otherwise.
fn identity(column: &crate::catalog::ColumnDef) -> u8 {
    match column.identity {
        Some(crate::catalog::Identity::Always) => b'a',
        Some(crate::catalog::Identity::ByDefault) => b'd',
        None => 0,
    }
}

pub(super) fn pg_attribute(snapshot: &CatalogSnapshot) -> Rows {
    let mut rows = Vec::new();
    for relation in RELATIONS {
        rows.extend(
            relation
                .columns
                .iter()
                .enumerate()
                .map(|(i, (name, ty))| AttributeRow {
                    relation: relation.oid,
                    name,
                    ty: *ty,
                    number: i + 1,
                    not_null: false,
                    has_default: false,
                    identity: 0,
                    generated: false,
                    domain: None,
                    fdw_options: &[],
                }),
        );
    }
    let state = snapshot.state;
    for entry in state.tables.values() {
        let schema = &entry.schema;
        rows.extend(
            schema
                .columns
                .iter()
                .enumerate()
                .map(|(i, c)| AttributeRow {
                    relation: schema.oid,
                    name: &c.name,
                    ty: c.data_type,
                    number: i + 1,
                    not_null: c.not_null,
                    // An identity column's sequence is not a default in PostgreSQL.
                    has_default: (c.default_sql.is_some() && c.identity.is_none())
                        || c.generated.is_some(),
                    identity: identity(c),
                    generated: c.generated.is_some(),
                    domain: c.domain,
                    fdw_options: &c.fdw_options,
                }),
        );
        for index in indexes(schema) {
            rows.extend(index.columns.iter().enumerate().filter_map(|(i, &c)| {
                let column = schema.columns.get(c)?;
                Some(AttributeRow {
                    relation: index.oid,
                    name: &column.name,
                    ty: column.data_type,
                    number: i + 1,
                    not_null: false,
                    has_default: false,
                    identity: 0,
                    generated: false,
                    domain: None,
                    fdw_options: &[],
                })
            }));
        }
    }
    // Views and composite types: columns with nothing but a name and a type.
    let views = (state.views.values()).map(|view| (view.oid, &view.columns));
    let composite_types = (state.composite_types.values()).map(|c| (c.oid, &c.fields));
    for (relation, columns) in views.chain(composite_types) {
        rows.extend(
            columns
                .iter()
                .enumerate()
                .map(|(i, (name, ty))| AttributeRow {
                    relation,
                    name,
                    ty: *ty,
                    number: i + 1,
                    not_null: false,
                    has_default: false,
                    identity: 0,
                    generated: false,
                    domain: None,
                    fdw_options: &[],
                }),
        );
    }
    for sequence in state.sequences.values() {
        rows.extend(
            [
                ("last_value", DataType::Int64),
                ("log_cnt", DataType::Int64),
                ("is_called", DataType::Bool),
            ]
            .into_iter()
            .enumerate()
            .map(|(i, (name, ty))| AttributeRow {
                relation: sequence.oid,
                name,
                ty,
                number: i + 1,
                not_null: true,
                has_default: false,
                identity: 0,
                generated: false,
                domain: None,
                fdw_options: &[],
            }),
        );
    }
    rows.iter().map(|row| row.values(snapshot)).collect()
}

pub(super) const PG_INDEX: &[(&str, DataType)] = &[
    ("indexrelid", OID),
    ("indrelid", OID),
    ("indnatts", INT2),
    ("indnkeyatts", INT2),
    ("indisunique", BOOL),
    ("indnullsnotdistinct", BOOL),
    ("indisprimary", BOOL),
    ("indisexclusion", BOOL),
    ("indimmediate", BOOL),
    ("indisclustered", BOOL),
    ("indisvalid", BOOL),
    ("indcheckxmin", BOOL),
    ("indisready", BOOL),
    ("indislive", BOOL),
    ("indisreplident", BOOL),
    ("indkey", INT2VECTOR),
    ("indcollation", OIDVECTOR),
    ("indclass", OIDVECTOR),
    ("indoption", INT2VECTOR),
    ("indexprs", OPAQUE),
    ("indpred", OPAQUE),
];

pub(super) fn pg_index(snapshot: &CatalogSnapshot) -> Rows {
    let mut rows = Vec::new();
    for entry in snapshot.state.tables.values() {
        let schema = &entry.schema;
        for index in indexes(schema) {
            let key_numbers = index.key_numbers();
            let count = int2(i16::try_from(key_numbers.len()).unwrap_or(i16::MAX));
            // An expression key's collation is its type's; only columns' are known here.
            let key_collations = || {
                key_numbers.iter().map(|&number| {
                    usize::try_from(number - 1)
                        .ok()
                        .and_then(|c| schema.columns.get(c))
                        .map_or(0, |c| collation(c.data_type))
                })
            };
            let opaque = |present: bool| match present {
                true => text("(expression)"),
                false => NULL,
            };
            rows.push(vec![
                oid(index.oid),
                oid(schema.oid),
                count.clone(),
                count,
                boolean(index.unique),
                boolean(false),
                boolean(index.primary),
                boolean(false),
                boolean(true),
                boolean(false),
                boolean(true),
                boolean(false),
                boolean(true),
                boolean(true),
                boolean(false),
                int2_vector(key_numbers.iter().copied()),
                oid_vector(key_collations()),
                oid_vector(key_numbers.iter().map(|_| 0)),
                int2_vector(key_numbers.iter().map(|_| 0)),
                opaque(!index.expressions.is_empty()),
                opaque(index.predicate.is_some()),
            ]);
        }
    }
    rows
}

pub(super) const PG_CONSTRAINT: &[(&str, DataType)] = &[
    ("oid", OID),
    ("conname", NAME),
    ("connamespace", OID),
    ("contype", CHAR),
    ("condeferrable", BOOL),
    ("condeferred", BOOL),
    ("convalidated", BOOL),
    ("conrelid", OID),
    ("contypid", OID),
    ("conindid", OID),
    ("conparentid", OID),
    ("confrelid", OID),
    ("confupdtype", CHAR),
    ("confdeltype", CHAR),
    ("confmatchtype", CHAR),
    ("conislocal", BOOL),
    ("coninhcount", INT4),
    ("connoinherit", BOOL),
    ("conkey", DataType::Array(&DataType::Int16)),
    ("confkey", DataType::Array(&DataType::Int16)),
    ("conpfeqop", OPAQUE),
    ("conppeqop", OPAQUE),
    ("conffeqop", OPAQUE),
    ("confdelsetcols", OPAQUE),
    ("conexclop", OPAQUE),
    ("conbin", OPAQUE),
];

pub(super) fn pg_constraint(snapshot: &CatalogSnapshot) -> Rows {
    let mut rows = Vec::new();
    for entry in snapshot.state.tables.values() {
        let schema = &entry.schema;
        for (position, index) in indexes(schema).iter().enumerate() {
            if !index.constraint {
                continue;
            }
            rows.push(
                ConstraintRow {
                    oid: derived_oid(schema.oid, Derived::Constraint, position),
                    name: index.name,
                    index: index.oid,
                    columns: index.columns,
                    ..ConstraintRow::new(schema, if index.primary { b'p' } else { b'u' })
                }
                .into_row(),
            );
        }
        super::constraints::pg_constraint_rows(schema, &mut rows);
        for (position, key) in schema.foreign_keys.iter().enumerate() {
            rows.push(foreign_key_row(snapshot, schema, position, key));
        }
    }
    super::domains::pg_constraint_rows(snapshot, &mut rows);
    rows
}

/// Where the constraints that own no index start in a table's block of derived constraint
/// OIDs (the unique keys take the positions below): CHECKs, then foreign keys.
pub(super) const CHECK_OID_OFFSET: usize = 1024;
const FOREIGN_KEY_OID_OFFSET: usize = 1536;

/// The constraint OID of a table's foreign key at `position`.
pub(super) fn foreign_key_oid(schema: &TableSchema, position: usize) -> u32 {
    derived_oid(
        schema.oid,
        Derived::Constraint,
        FOREIGN_KEY_OID_OFFSET + position,
    )
}

fn foreign_key_row(
    snapshot: &CatalogSnapshot,
    schema: &TableSchema,
    position: usize,
    key: &ForeignKey,
) -> Vec<ScalarValue> {
    // conindid: the referenced table's unique index the key is checked against.
    let index = snapshot
        .state
        .tables
        .get(&key.referenced_table)
        .and_then(|e| e.schema.unique_key_over(&key.referenced_columns))
        .map_or(0, |k| derived_oid(key.referenced_table, Derived::Index, k));
    ConstraintRow {
        oid: foreign_key_oid(schema, position),
        name: &key.name,
        deferrable: key.deferrable,
        deferred: key.initially_deferred,
        validated: key.validated,
        index,
        referenced: Some((key.referenced_table, &key.referenced_columns)),
        actions: [
            key.on_update.code(),
            key.on_delete.code(),
            if key.match_full { b'f' } else { b's' },
        ],
        columns: &key.columns,
        ..ConstraintRow::new(schema, b'f')
    }
    .into_row()
}

/// One pg_constraint row: what tells the kinds of constraint apart, the rest being what
/// PostgreSQL has for a constraint of a table without inheritance.
pub(super) struct ConstraintRow<'a> {
    pub oid: u32,
    pub name: &'a str,
    pub schema: &'a TableSchema,
    pub contype: u8,
    pub deferrable: bool,
    pub deferred: bool,
    pub validated: bool,
    /// conindid: the index the constraint owns or (a foreign key) is checked against.
    pub index: u32,
    /// A foreign key's referenced table and columns.
    pub referenced: Option<(u32, &'a [usize])>,
    /// confupdtype, confdeltype and confmatchtype.
    pub actions: [u8; 3],
    pub no_inherit: bool,
    /// conkey's columns, as positions.
    pub columns: &'a [usize],
    pub conbin: ScalarValue,
}

impl<'a> ConstraintRow<'a> {
    pub fn new(schema: &'a TableSchema, contype: u8) -> ConstraintRow<'a> {
        ConstraintRow {
            oid: 0,
            name: "",
            schema,
            contype,
            deferrable: false,
            deferred: false,
            validated: true,
            index: 0,
            referenced: None,
            actions: [b' '; 3],
            no_inherit: true,
            columns: &[],
            conbin: NULL,
        }
    }

    /// The row, its columns as `PG_CONSTRAINT` declares them.
    pub fn into_row(self) -> Vec<ScalarValue> {
        let positions = |columns: &[usize]| {
            ScalarValue::Array(
                columns
                    .iter()
                    .map(|c| int2(i16::try_from(c + 1).unwrap_or(i16::MAX)))
                    .collect(),
            )
        };
        let [update, delete, matching] = self.actions;
        vec![
            oid(self.oid),
            text(self.name),
            oid(self.schema.namespace),
            char(self.contype),
            boolean(self.deferrable),
            boolean(self.deferred),
            boolean(self.validated),
            oid(self.schema.oid),
            oid(0),
            oid(self.index),
            oid(0),
            oid(self.referenced.map_or(0, |(table, _)| table)),
            char(update),
            char(delete),
            char(matching),
            boolean(true),
            int4(0),
            boolean(self.no_inherit),
            positions(self.columns),
            self.referenced
                .map_or(NULL, |(_, columns)| positions(columns)),
            NULL,
            NULL,
            NULL,
            NULL,
            NULL,
            self.conbin,
        ]
    }
}

pub(super) const PG_ATTRDEF: &[(&str, DataType)] = &[
    ("oid", OID),
    ("adrelid", OID),
    ("adnum", INT2),
    ("adbin", OPAQUE),
];

pub(super) fn pg_attrdef(snapshot: &CatalogSnapshot) -> Rows {
    column_defaults(snapshot)
        .into_iter()
        .map(|d| {
            vec![
                oid(d.oid),
                oid(d.table),
                int2(i16::try_from(d.column).unwrap_or(i16::MAX)),
                text(&d.expr),
            ]
        })
        .collect()
}

/// A row of pg_attrdef, and the sequence its `nextval` reads (pg_depend lists it).
struct ColumnDefault {
    oid: u32,
    table: u32,
    column: usize,
    expr: String,
    sequence: Option<u32>,
}

/// Every column default and generation expression; identity columns have none.
fn column_defaults(snapshot: &CatalogSnapshot) -> Vec<ColumnDefault> {
    let mut defaults = Vec::new();
    for entry in snapshot.state.tables.values() {
        let schema = &entry.schema;
        for (i, column) in schema.columns.iter().enumerate() {
            // A generated column's expression, printed plain (pg_get_expr makes it pretty).
            let (expr, sequence) = match (&column.default_sql, &column.generated) {
                (_, Some(generated)) => (generated.definition.clone(), None),
                (Some(_), None) if column.identity.is_some() => continue,
                (Some(default), None) => {
                    match default_sequence(snapshot, schema.namespace, default) {
                        Some((sequence, shown)) => {
                            (format!("nextval('{shown}'::regclass)"), Some(sequence))
                        }
                        None => (deparse_default(default, column.data_type), None),
                    }
                }
                (None, None) => continue,
            };
            defaults.push(ColumnDefault {
                oid: derived_oid(schema.oid, Derived::Default, i + 1),
                table: schema.oid,
                column: i + 1,
                expr,
                sequence,
            });
        }
    }
    defaults
}

/// The sequence a `nextval('name')` default reads, and its name as regclass prints it
/// under the session's search path (schema-qualified when the bare name would not find it,
/// as pg_dump's empty search path needs).
fn default_sequence(
    snapshot: &CatalogSnapshot,
    namespace: u32,
    default: &str,
) -> Option<(u32, String)> {
    let written = default
        .strip_prefix("nextval('")
        .and_then(|rest| rest.strip_suffix("')"))?;
    let state = snapshot.state;
    let sequence = match written.split_once('.') {
        Some((schema, name)) => {
            let schema = state.schema_by_name(schema)?;
            state
                .sequences
                .get(&crate::catalog::QualifiedName::new(schema.oid, name))?
        }
        None => [namespace, crate::catalog::PUBLIC_OID]
            .into_iter()
            .find_map(|schema| {
                state
                    .sequences
                    .get(&crate::catalog::QualifiedName::new(schema, written))
            })?,
    };
    let bare = quote_identifier(&sequence.name.name);
    let shown = match snapshot.relation_visible(sequence.oid) {
        true => bare,
        false => format!(
            "{}.{bare}",
            quote_identifier(&snapshot.schema_name(sequence.name.schema))
        ),
    };
    Some((sequence.oid, shown))
}

/// A column default as PostgreSQL prints it back (pg_get_expr of adbin): a sequence named
/// as a regclass constant, a string constant cast to the column's type. Our defaults are
/// SQL text; other expressions print as they were written.
pub(super) fn deparse_default(default: &str, ty: DataType) -> String {
    if let Some(sequence) = default
        .strip_prefix("nextval('")
        .and_then(|rest| rest.strip_suffix("')"))
    {
        return format!("nextval('{sequence}'::regclass)");
    }
    // B'101' and X'1F' are constants of type bit.
    let bit_literal = match default.as_bytes() {
        [prefix @ (b'b' | b'B' | b'x' | b'X'), b'\'', .., b'\''] => {
            let digits = &default[2..default.len() - 1];
            bit_string::parse_bits(&format!("{}{digits}", char::from(*prefix))).ok()
        }
        _ => None,
    };
    if let Some(bits) = bit_literal {
        return format!("'{bits}'::\"bit\"");
    }
    let is_string_constant = default.len() >= 2
        && default.starts_with('\'')
        && default.ends_with('\'')
        && !default[1..default.len() - 1]
            .replace("''", "")
            .contains('\'');
    if !is_string_constant {
        return default.to_string();
    }
    let (type_name, base) = match ty {
        DataType::Char(_) => ("bpchar", ty),
        DataType::Bit(_) => ("\"bit\"", DataType::Bit(None)),
        DataType::VarBit(_) => ("bit varying", DataType::VarBit(None)),
        other => (other.name(), other),
    };
    // The constant prints through its output function, as PostgreSQL stored it.
    let canonical = match base {
        DataType::Bit(_) | DataType::VarBit(_) | DataType::TimeTz(_) => {
            text_io::parse_text(&default[1..default.len() - 1], base)
                .ok()
                .map(|value| {
                    let mut out = Vec::new();
                    text_io::write_scalar_text(&value, &mut out);
                    format!("'{}'", String::from_utf8_lossy(&out))
                })
        }
        _ => None,
    };
    format!("{}::{type_name}", canonical.as_deref().unwrap_or(default))
}

pub(super) const PG_SEQUENCE: &[(&str, DataType)] = &[
    ("seqrelid", OID),
    ("seqtypid", OID),
    ("seqstart", DataType::Int64),
    ("seqincrement", DataType::Int64),
    ("seqmax", DataType::Int64),
    ("seqmin", DataType::Int64),
    ("seqcache", DataType::Int64),
    ("seqcycle", BOOL),
];

pub(super) fn pg_sequence(snapshot: &CatalogSnapshot) -> Rows {
    snapshot
        .state
        .sequences
        .values()
        .map(|sequence| {
            let options = &sequence.options;
            vec![
                oid(sequence.oid),
                oid(sequence.data_type().oid()),
                ScalarValue::Int64(options.start),
                ScalarValue::Int64(options.increment),
                ScalarValue::Int64(options.max),
                ScalarValue::Int64(options.min),
                ScalarValue::Int64(1),
                boolean(options.cycle),
            ]
        })
        .collect()
}

pub(super) const PG_DEPEND: &[(&str, DataType)] = &[
    ("classid", OID),
    ("objid", OID),
    ("objsubid", INT4),
    ("refclassid", OID),
    ("refobjid", OID),
    ("refobjsubid", INT4),
    ("deptype", CHAR),
];

/// The dependencies psql shows: a SERIAL's ('a', auto) or an identity column's ('i',
/// internal) sequence on its column.
pub(super) fn pg_depend(snapshot: &CatalogSnapshot) -> Rows {
    let state = snapshot.state;
    let pg_class = 1259;
    let mut rows = owned_sequences(snapshot);
    // A default depends on its column (automatically) and on the sequence it reads, so
    // pg_dump creates the sequence before setting the default.
    for default in column_defaults(snapshot) {
        let column = i32::try_from(default.column).unwrap_or(i32::MAX);
        let mut depends = vec![(default.table, column, b'a')];
        depends.extend(default.sequence.map(|sequence| (sequence, 0, b'n')));
        rows.extend(depends.into_iter().map(|(on, on_column, kind)| {
            depend_row(PG_ATTRDEF_OID, default.oid, pg_class, on, on_column, kind)
        }));
    }
    // A view's rule belongs to the view, and depends on it (its OLD and NEW) and on the
    // relations it reads.
    for view in state.views.values() {
        let rule = derived_oid(view.oid, Derived::Rule, 0);
        rows.push(depend_row(
            PG_REWRITE_OID,
            rule,
            pg_class,
            view.oid,
            0,
            b'i',
        ));
        rows.push(depend_row(
            PG_REWRITE_OID,
            rule,
            pg_class,
            view.oid,
            0,
            b'n',
        ));
        rows.extend(view.depends_on.iter().filter_map(|name| {
            let on = match state.views.get(name) {
                Some(read) => read.oid,
                None => state.table_by_name(name)?.schema.oid,
            };
            Some(depend_row(PG_REWRITE_OID, rule, pg_class, on, 0, b'n'))
        }));
    }
    rows
}

const PG_ATTRDEF_OID: u32 = 2604;
const PG_REWRITE_OID: u32 = 2618;

fn depend_row(
    class: u32,
    object: u32,
    ref_class: u32,
    on: u32,
    on_column: i32,
    kind: u8,
) -> Vec<ScalarValue> {
    vec![
        oid(class),
        oid(object),
        int4(0),
        oid(ref_class),
        oid(on),
        int4(on_column),
        char(kind),
    ]
}

pub(super) const PG_REWRITE: &[(&str, DataType)] = &[
    ("oid", OID),
    ("rulename", NAME),
    ("ev_class", OID),
    ("ev_type", CHAR),
    ("ev_enabled", CHAR),
    ("is_instead", BOOL),
    ("ev_qual", OPAQUE),
    ("ev_action", OPAQUE),
];

/// The rules of the views: each view's `_RETURN`, whose dependencies pg_depend lists.
pub(super) fn pg_rewrite(snapshot: &CatalogSnapshot) -> Rows {
    snapshot
        .state
        .views
        .values()
        .map(|view| {
            vec![
                oid(derived_oid(view.oid, Derived::Rule, 0)),
                text("_RETURN"),
                oid(view.oid),
                char(b'1'),
                char(b'O'),
                boolean(true),
                NULL,
                NULL,
            ]
        })
        .collect()
}

/// Each partition under its parent.
pub(super) fn pg_inherits(snapshot: &CatalogSnapshot) -> Rows {
    let mut rows: Vec<(u32, u32)> = (snapshot.state.tables.values())
        .filter_map(|t| Some((t.schema.oid, t.schema.partition_of.as_ref()?.parent)))
        .collect();
    rows.sort_unstable();
    (rows.into_iter())
        .map(|(child, parent)| vec![oid(child), oid(parent), int4(1), boolean(false)])
        .collect()
}

/// Each partitioned table's key.
pub(super) fn pg_partitioned_table(snapshot: &CatalogSnapshot) -> Rows {
    let state = snapshot.state;
    let mut tables: Vec<&TableSchema> = (state.tables.values())
        .map(|t| t.schema.as_ref())
        .filter(|s| s.partition_key.is_some())
        .collect();
    tables.sort_by_key(|s| s.oid);
    let mut rows = Vec::with_capacity(tables.len());
    for schema in tables {
        let Some(key) = &schema.partition_key else {
            continue;
        };
        let tables = state.tables.values().map(|t| t.schema.as_ref());
        let default = crate::catalog::partition::partitions_of(tables, schema.oid)
            .into_iter()
            .find(|p| {
                (p.partition_of.as_ref()).is_some_and(|of| {
                    of.bound == crate::catalog::partition::PartitionBound::Default
                })
            })
            .map_or(0, |p| p.oid);
        let collation = match schema.columns[key.column].data_type {
            DataType::Text | DataType::Varchar(_) | DataType::Char(_) => "100",
            _ => "0",
        };
        rows.push(vec![
            oid(schema.oid),
            char(key.strategy.code() as u8),
            int2(1),
            oid(default),
            text(&(key.column + 1).to_string()),
            NULL,
            text(collation),
            NULL,
        ]);
    }
    rows
}

/// A sequence owned by a column (SERIAL, or an identity column's).
fn owned_sequences(snapshot: &CatalogSnapshot) -> Rows {
    let state = snapshot.state;
    let pg_class = 1259;
    state
        .sequences
        .values()
        .filter_map(|sequence| {
            let (table, column) = sequence.owned_by.as_ref()?;
            let owner = crate::catalog::QualifiedName::new(sequence.name.schema, table.as_str());
            let entry = state.table_by_name(&owner)?;
            let position = entry.schema.column_index(column)?;
            let identity = entry.schema.columns[position].identity.is_some();
            Some(vec![
                oid(pg_class),
                oid(sequence.oid),
                int4(0),
                oid(pg_class),
                oid(entry.schema.oid),
                int4(i32::try_from(position + 1).unwrap_or(i32::MAX)),
                char(if identity { b'i' } else { b'a' }),
            ])
        })
        .collect()
}

pub(super) const PG_DESCRIPTION: &[(&str, DataType)] = &[
    ("objoid", OID),
    ("classoid", OID),
    ("objsubid", INT4),
    ("description", TEXT),
];

pub(super) const PG_INHERITS: &[(&str, DataType)] = &[
    ("inhrelid", OID),
    ("inhparent", OID),
    ("inhseqno", INT4),
    ("inhdetachpending", BOOL),
];
