//! Bound DDL statements beyond CREATE and DROP TABLE: indexes, TRUNCATE, ALTER TABLE and
//! views. Names of the objects created or dropped stay names (they are what the statement
//! is about); the columns they refer to are positions.

use crate::catalog::IndexMethod;

/// CREATE [UNIQUE] INDEX over columns of one table.
#[derive(Debug, Clone)]
pub struct CreateIndex {
    /// `None`: PostgreSQL's generated name, `table_col_idx`, chosen when the statement runs.
    pub name: Option<String>,
    pub table_name: String,
    pub table_oid: u32,
    pub columns: Vec<usize>,
    pub unique: bool,
    pub method: IndexMethod,
    pub if_not_exists: bool,
}
