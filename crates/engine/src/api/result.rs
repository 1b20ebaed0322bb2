//! What executing a statement produces.

use std::sync::Arc;

use crate::error::SqlState;
use crate::types::DataType;
use crate::vector::Batch;

/// One output column, as RowDescription describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnInfo {
    pub name: String,
    pub data_type: DataType,
    /// OID of the table the column comes from, 0 if it is computed.
    pub table_oid: u32,
    /// Attribute number in that table (1-based), 0 if computed.
    pub column_attnum: i16,
}

/// The outcome of one statement.
#[derive(Debug, Clone)]
pub struct StatementResult {
    /// `Some` for statements that return rows (even zero rows): SELECT, SHOW, VALUES.
    pub columns: Option<Arc<[ColumnInfo]>>,
    pub batches: Vec<Batch>,
    /// The CommandComplete tag: `SELECT 3`, `INSERT 0 1`, `CREATE TABLE`, ...
    pub tag: String,
}

impl StatementResult {
    pub fn command(tag: impl Into<String>) -> StatementResult {
        StatementResult {
            columns: None,
            batches: Vec::new(),
            tag: tag.into(),
        }
    }

    pub fn row_count(&self) -> usize {
        self.batches.iter().map(|b| b.len()).sum()
    }
}

/// A NOTICE or WARNING raised while executing (e.g. COMMIT outside a transaction).
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    /// `WARNING`, `NOTICE`, ...
    pub severity: &'static str,
    pub state: SqlState,
    pub message: String,
}
