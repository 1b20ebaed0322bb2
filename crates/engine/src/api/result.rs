//! What executing a statement produces.

use std::sync::{Arc, OnceLock};

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
    /// For a result kept in the result cache: where a front end may keep its encoding of
    /// the rows (the wire server keeps the text DataRow messages). Every later hit shares
    /// the slot, so repeated rows are encoded once (DESIGN §5.2).
    pub encoded: Option<Arc<OnceLock<Arc<[u8]>>>>,
}

impl StatementResult {
    pub fn command(tag: impl Into<String>) -> StatementResult {
        StatementResult {
            columns: None,
            batches: Vec::new(),
            tag: tag.into(),
            encoded: None,
        }
    }

    /// A result with rows (possibly none) of `columns`.
    pub fn rows(
        columns: Arc<[ColumnInfo]>,
        batches: Vec<Batch>,
        tag: impl Into<String>,
    ) -> StatementResult {
        StatementResult {
            columns: Some(columns),
            batches,
            tag: tag.into(),
            encoded: None,
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
