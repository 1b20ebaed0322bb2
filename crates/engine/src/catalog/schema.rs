//! A table's schema: what CREATE TABLE declared, resolved to types.

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
}

/// A PRIMARY KEY or UNIQUE constraint over column positions.
#[derive(Debug, Clone, PartialEq)]
pub struct UniqueKey {
    pub name: String,
    pub columns: Vec<usize>,
    pub primary: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TableSchema {
    pub oid: u32,
    pub name: String,
    pub columns: Vec<ColumnDef>,
    pub unique_keys: Vec<UniqueKey>,
}

impl TableSchema {
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    pub fn column_types(&self) -> Vec<DataType> {
        self.columns.iter().map(|c| c.data_type).collect()
    }
}
