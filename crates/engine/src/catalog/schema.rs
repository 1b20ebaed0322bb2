//! A table's schema: what CREATE TABLE declared, resolved to types.

use super::{ForeignKey, QualifiedName};
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
    /// GENERATED ALWAYS AS (expr) STORED: computed from the rest of the row on every write.
    pub generated: Option<StoredExpr>,
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
}

/// A constraint that owns no index (PRIMARY KEY and UNIQUE, which do, are `unique_keys`):
/// CHECK, with a kind per constraint type so others (FOREIGN KEY) sit next to it. Its name
/// is unique among the table's constraints, as PostgreSQL requires.
#[derive(Debug, Clone, PartialEq)]
pub struct Constraint {
    pub name: String,
    pub kind: ConstraintKind,
    /// False after ADD CONSTRAINT ... NOT VALID until VALIDATE CONSTRAINT: the rows already
    /// there were not checked; new and updated rows always are.
    pub validated: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ConstraintKind {
    Check(CheckConstraint),
}

/// CHECK (expr): a row passes unless the expression is false (NULL passes).
#[derive(Debug, Clone, PartialEq)]
pub struct CheckConstraint {
    pub expr: StoredExpr,
    /// NO INHERIT: recorded for the catalog; there are no child tables to skip.
    pub no_inherit: bool,
}

/// An expression over a table's row kept in its schema (a CHECK, a generated column's).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredExpr {
    /// SQL text over the table's column names; bound again over the row where a write
    /// needs it, like a DEFAULT.
    pub sql: String,
    /// As PostgreSQL prints it back (pg_get_constraintdef, pg_get_expr), plain and pretty
    /// (psql's \d), computed from the bound expression when it is created or its columns
    /// change.
    pub definition: String,
    pub definition_pretty: String,
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
    /// The constraints other than unique keys, in creation order.
    pub constraints: Vec<Constraint>,
    pub foreign_keys: Vec<ForeignKey>,
    /// CREATE UNLOGGED TABLE: its rows skip the write-ahead log and are gone after a
    /// restart (the table itself stays, empty), as in PostgreSQL after a crash.
    pub unlogged: bool,
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

    pub fn constraint(&self, name: &str) -> Option<&Constraint> {
        self.constraints.iter().find(|c| c.name == name)
    }

    /// The names of all the table's constraints: unique keys and the others.
    pub fn constraint_names(&self) -> impl Iterator<Item = &str> {
        self.unique_keys
            .iter()
            .filter(|k| k.constraint)
            .map(|k| k.name.as_str())
            .chain(self.constraints.iter().map(|c| c.name.as_str()))
    }

    /// The names of the table's indexes, those of its constraints included.
    pub fn index_names(&self) -> impl Iterator<Item = &str> {
        self.unique_keys
            .iter()
            .map(|k| k.name.as_str())
            .chain(self.indexes.iter().map(|i| i.name.as_str()))
    }
}
