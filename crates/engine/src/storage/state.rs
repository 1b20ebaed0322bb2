//! An immutable version of the whole database: its tables by name and OID.

use std::sync::Arc;

use super::{Map, SecondaryIndexes, Sequence, TableData, UniqueIndex};
use crate::catalog::{TableSchema, ViewDef};

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

/// The maps a row write leaves alone (names, sequences, views) sit behind `Arc`s, so the
/// state a commit or a transaction's view builds copies them only when they change.
#[derive(Debug, Clone, Default)]
pub struct DbState {
    /// Lower-case table name → OID.
    pub names: Arc<Map<String, u32>>,
    pub tables: Map<u32, Arc<TableEntry>>,
    /// Sequences by lower-case name.
    pub sequences: Arc<Map<String, Arc<Sequence>>>,
    /// Views by lower-case name.
    pub views: Arc<Map<String, Arc<ViewDef>>>,
    /// Bumped by every commit that changes a schema, a name or a sequence: cached plans
    /// are valid while it stays the same.
    pub catalog_version: u64,
    /// For a transaction's view: the committed state it was built on, kept alive with it so
    /// that the store counts that version as still read (see `Store::oldest_live_state`).
    pub(crate) base: Option<Arc<DbState>>,
}

impl DbState {
    pub fn table_by_name(&self, name: &str) -> Option<&Arc<TableEntry>> {
        self.names.get(name).and_then(|oid| self.tables.get(oid))
    }
}
