//! An immutable version of the whole database: its schemas, and its tables by name and OID.

use std::sync::Arc;

use super::{Map, RelationKind, SecondaryIndexes, Sequence, TableData, UniqueIndex};
use crate::catalog::{
    CompositeType, Domain, EnumType, Extension, ForeignServer, FunctionDef, QualifiedName,
    RoleCatalog, SchemaDef, TableSchema, ViewDef,
};

/// One version of one table.
#[derive(Debug, Clone)]
pub struct TableEntry {
    pub schema: Arc<TableSchema>,
    pub data: Arc<TableData>,
    /// Bumped on every committed change of the table; caches key on it.
    pub generation: u64,
    /// One per `schema.unique_keys`, shared by all versions of the table.
    pub unique_indexes: Arc<Vec<UniqueIndex>>,
    /// The CREATE INDEX indexes, shared by all versions of the table; they check themselves
    /// against the version they are read with, so no write has to maintain them.
    pub secondary_indexes: Arc<SecondaryIndexes>,
}

/// The maps a row write leaves alone (schemas, names, sequences, views) sit behind `Arc`s,
/// so the state a commit or a transaction's view builds copies them only when they change.
#[derive(Debug, Clone)]
pub struct DbState {
    /// Schemas by OID.
    pub schemas: Arc<Map<u32, Arc<SchemaDef>>>,
    /// Table name (in its schema) → OID.
    pub names: Arc<Map<QualifiedName, u32>>,
    pub tables: Map<u32, Arc<TableEntry>>,
    /// Sequences by name.
    pub sequences: Arc<Map<QualifiedName, Arc<Sequence>>>,
    /// Views by name.
    pub views: Arc<Map<QualifiedName, Arc<ViewDef>>>,
    /// Enum types by OID (columns name them by OID, which a rename keeps).
    pub enum_types: Arc<Map<u32, Arc<EnumType>>>,
    /// Domains by OID (columns name them by OID, which a rename keeps).
    pub domains: Arc<Map<u32, Arc<Domain>>>,
    /// Composite types by pg_class OID (columns name them by their row type's OID).
    pub composite_types: Arc<Map<u32, Arc<CompositeType>>>,
    /// Roles and their memberships (cluster-wide in PostgreSQL; one database here).
    pub roles: Arc<RoleCatalog>,
    /// SQL functions by OID (overloads share a name).
    pub functions: Arc<Map<u32, Arc<FunctionDef>>>,
    /// Installed extensions by name.
    pub extensions: Arc<Map<String, Arc<Extension>>>,
    /// CREATE SERVER's foreign servers by name.
    pub foreign_servers: Arc<Map<String, Arc<ForeignServer>>>,
    /// Bumped by every commit that changes a schema, a name or a sequence: cached plans
    /// are valid while it stays the same.
    pub catalog_version: u64,
    /// For a transaction's view: the committed state it was built on, kept alive with it so
    /// that the store counts that version as still read (see `Store::oldest_live_state`).
    pub(crate) base: Option<Arc<DbState>>,
}

/// An empty database: the schemas it starts with and nothing in them.
impl Default for DbState {
    fn default() -> Self {
        let schemas = SchemaDef::builtin()
            .into_iter()
            .map(|s| (s.oid, Arc::new(s)))
            .collect();
        DbState {
            schemas: Arc::new(schemas),
            names: Arc::default(),
            tables: Map::default(),
            sequences: Arc::default(),
            views: Arc::default(),
            enum_types: Arc::default(),
            domains: Arc::default(),
            composite_types: Arc::default(),
            roles: Arc::default(),
            functions: Arc::default(),
            extensions: Arc::new(
                Extension::initial()
                    .into_iter()
                    .map(|e| (e.name.clone(), Arc::new(e)))
                    .collect(),
            ),
            foreign_servers: Arc::default(),
            catalog_version: 0,
            base: None,
        }
    }
}

impl DbState {
    pub fn table_by_name(&self, name: &QualifiedName) -> Option<&Arc<TableEntry>> {
        self.names.get(name).and_then(|oid| self.tables.get(oid))
    }

    /// The schema called `name`, if any.
    pub fn schema_by_name(&self, name: &str) -> Option<&Arc<SchemaDef>> {
        self.schemas.values().find(|s| s.name == name)
    }

    /// Every schema, by OID: what pg_namespace lists.
    pub fn schema_list(&self) -> Vec<Arc<SchemaDef>> {
        let mut list: Vec<Arc<SchemaDef>> = self.schemas.values().cloned().collect();
        list.sort_by_key(|s| s.oid);
        list
    }

    /// The OIDs of the sessions' temporary schemas.
    pub fn temporary_schemas(&self) -> Vec<u32> {
        self.schemas
            .values()
            .filter(|s| s.is_temporary())
            .map(|s| s.oid)
            .collect()
    }

    /// This state without the temporary schemas and what is in them: what a checkpoint
    /// writes.
    pub fn without_temporary(&self) -> DbState {
        let temporary = self.temporary_schemas();
        let mut state = self.clone();
        if temporary.is_empty() {
            return state;
        }
        let kept = |schema: &u32| !temporary.contains(schema);
        Arc::make_mut(&mut state.schemas).retain(|oid, _| kept(oid));
        Arc::make_mut(&mut state.names).retain(|name, _| kept(&name.schema));
        state.tables.retain(|_, t| kept(&t.schema.namespace));
        Arc::make_mut(&mut state.sequences).retain(|name, _| kept(&name.schema));
        Arc::make_mut(&mut state.views).retain(|name, _| kept(&name.schema));
        Arc::make_mut(&mut state.enum_types).retain(|_, t| kept(&t.name.schema));
        Arc::make_mut(&mut state.domains).retain(|_, d| kept(&d.name.schema));
        Arc::make_mut(&mut state.composite_types).retain(|_, c| kept(&c.name.schema));
        state
    }

    /// The names of every relation in schema `oid`, with what they are: what DROP SCHEMA
    /// finds depending on it.
    pub fn relations_in(&self, oid: u32) -> Vec<(QualifiedName, RelationKind)> {
        let mut found: Vec<(QualifiedName, RelationKind)> = Vec::new();
        found.extend(
            self.names
                .keys()
                .filter(|n| n.schema == oid)
                .filter_map(|n| Some((n.clone(), self.relation_kind(n)?))),
        );
        found.extend(
            self.sequences
                .keys()
                .filter(|n| n.schema == oid)
                .map(|n| (n.clone(), RelationKind::Sequence)),
        );
        found.extend(
            self.views
                .keys()
                .filter(|n| n.schema == oid)
                .map(|n| (n.clone(), RelationKind::View)),
        );
        found.extend(
            (self.composite_types.values())
                .filter(|c| c.name.schema == oid)
                .map(|c| (c.name.clone(), RelationKind::CompositeType)),
        );
        found
    }

    /// The views (not among `roots`) reading one of `roots` directly or through other views,
    /// each with the relation it reads that led here, in creation order.
    pub fn dependent_views(&self, roots: &[QualifiedName]) -> Vec<(Arc<ViewDef>, QualifiedName)> {
        let mut found: Vec<(Arc<ViewDef>, QualifiedName)> = Vec::new();
        let mut frontier: Vec<QualifiedName> = roots.to_vec();
        while let Some(name) = frontier.pop() {
            for (view_name, view) in self.views.iter() {
                let new =
                    !roots.contains(view_name) && !found.iter().any(|(v, _)| v.oid == view.oid);
                if new && view.depends_on.contains(&name) {
                    found.push((view.clone(), name.clone()));
                    frontier.push(view_name.clone());
                }
            }
        }
        found.sort_by_key(|(view, _)| view.oid);
        found
    }
}
