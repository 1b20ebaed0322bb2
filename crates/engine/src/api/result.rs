//! What executing a statement produces.

use std::sync::{Arc, OnceLock};

use super::ColumnInfo;
use crate::error::SqlState;
use crate::types::int_vector;
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
    /// Rows FETCHed from a BINARY cursor: the simple query protocol sends them in binary
    /// format (the extended protocol's Bind chooses formats itself), as PostgreSQL does.
    pub binary: bool,
}

impl StatementResult {
    pub fn command(tag: impl Into<String>) -> StatementResult {
        StatementResult {
            columns: None,
            batches: Vec::new(),
            tag: tag.into(),
            encoded: None,
            binary: false,
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
            binary: false,
        }
    }

    pub fn row_count(&self) -> usize {
        self.batches.iter().map(|b| b.len()).sum()
    }

    /// Each row as one line: its values in PostgreSQL's text format joined by `|`, `NULL`
    /// for NULL (for tests and quick looks, not an output format).
    pub fn text_lines(&self) -> Vec<String> {
        let mut lines = Vec::with_capacity(self.row_count());
        for batch in &self.batches {
            for row in 0..batch.len() {
                let mut line = Vec::new();
                for (i, column) in batch.columns.iter().enumerate() {
                    if i > 0 {
                        line.push(b'|');
                    }
                    let ty = self
                        .columns
                        .as_ref()
                        .and_then(|c| c.get(i))
                        .map(|c| c.data_type);
                    if !int_vector::write_text(column, row, ty, &mut line) {
                        line.extend_from_slice(b"NULL");
                    }
                }
                lines.push(String::from_utf8_lossy(&line).into_owned());
            }
        }
        lines
    }
}

/// A NOTICE or WARNING raised while executing (e.g. COMMIT outside a transaction).
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    /// `WARNING`, `NOTICE`, ...
    pub severity: &'static str,
    pub state: SqlState,
    pub message: String,
    pub detail: Option<String>,
}

impl Notice {
    /// A NOTICE such as IF [NOT] EXISTS raises on skipping (SQLSTATE 00000).
    pub fn skipped(message: String) -> Notice {
        Notice {
            severity: "NOTICE",
            state: SqlState::SuccessfulCompletion,
            message,
            detail: None,
        }
    }

    /// The NOTICE of CREATE ... IF NOT EXISTS for an object that exists: the error it
    /// would have raised (its SQLSTATE too, as PostgreSQL's), skipped.
    pub fn already_exists(error: &crate::error::Error) -> Notice {
        Notice {
            severity: "NOTICE",
            state: error.state,
            message: format!("{}, skipping", error.message),
            detail: None,
        }
    }
}
