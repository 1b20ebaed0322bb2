//! A table's schema: what CREATE TABLE declared, resolved to types.

use super::QualifiedName;
use crate::types::DataType;

#[derive(Debug, Clone, PartialEq)]
pub struct ColumnDef {
    pub name: String,
    pub data_type: DataType,
    pub not_null: bool,
    /// The DEFAULT expression as SQL text; bound again when an INSERT needs it.
    pub default_sql: Option<String>,
    /// GENERATED ALWAYS AS IDENTITY: only DEFAULT may be written to it.
    pub identity_always: bool,
    /// COMMENT ON COLUMN.
    pub comment: Option<String>,
}

/// A PRIMARY KEY or UNIQUE constraint, or a CREATE UNIQUE INDEX, over column positions. Each
/// owns an index of its name, which lives in the relation namespace as in PostgreSQL.
#[derive(Debug, Clone, PartialEq)]
pub struct UniqueKey {
    pub name: String,
    pub columns: Vec<usize>,
    pub primary: bool,
    /// False for a CREATE UNIQUE INDEX: an index but no constraint, so DROP INDEX drops it
    /// while DROP CONSTRAINT and ON CONFLICT ON CONSTRAINT do not see it.
    pub constraint: bool,
    /// COMMENT ON CONSTRAINT (when `constraint`) and COMMENT ON INDEX: two objects in
    /// PostgreSQL, each with its own comment.
    pub constraint_comment: Option<String>,
    pub index_comment: Option<String>,
}

/// How a non-unique index is organised, as CREATE INDEX ... USING named it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexMethod {
    Btree,
    Hash,
}

/// A non-unique CREATE INDEX: recorded for index scans; it never changes a result.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexDef {
    pub name: String,
    pub columns: Vec<usize>,
    pub method: IndexMethod,
    /// COMMENT ON INDEX.
    pub comment: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TableSchema {
    pub oid: u32,
    /// The OID of the schema (namespace) the table and its indexes live in.
    pub namespace: u32,
    pub name: String,
    pub columns: Vec<ColumnDef>,
    pub unique_keys: Vec<UniqueKey>,
    pub indexes: Vec<IndexDef>,
    /// CREATE UNLOGGED TABLE: its rows skip the write-ahead log and are gone after a
    /// restart (the table itself stays, empty), as in PostgreSQL after a crash.
    pub unlogged: bool,
    /// COMMENT ON TABLE.
    pub comment: Option<String>,
}

impl TableSchema {
    pub fn qualified_name(&self) -> QualifiedName {
        QualifiedName::new(self.namespace, self.name.as_str())
    }

    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    pub fn column_types(&self) -> Vec<DataType> {
        self.columns.iter().map(|c| c.data_type).collect()
    }

    /// The names of the table's indexes, those of its constraints included.
    pub fn index_names(&self) -> impl Iterator<Item = &str> {
        self.unique_keys
            .iter()
            .map(|k| k.name.as_str())
            .chain(self.indexes.iter().map(|i| i.name.as_str()))
    }
}
