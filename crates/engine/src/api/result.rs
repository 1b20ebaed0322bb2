//! What executing a statement produces.

use std::sync::Arc;

use super::ColumnInfo;
use crate::error::SqlState;
use crate::vector::Batch;

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
