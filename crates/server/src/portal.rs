//! A portal: a bound statement with its parameter values and result formats. Its
//! statement runs at the first Execute; the whole result is kept so that Execute with a
//! row limit can hand it out in pieces (PortalSuspended) without running it again.

use std::sync::Arc;

use kestrel::types::ScalarValue;
use kestrel::{ColumnInfo, PreparedStatement, StatementResult};

use crate::protocol::output::Output;
use crate::values::{write_data_rows, Format};

pub(crate) struct Portal {
    pub statement: PreparedStatement,
    pub params: Vec<ScalarValue>,
    /// One per result column.
    pub formats: Vec<Format>,
    /// `None` until the first Execute.
    pub run: Option<PortalRun>,
}

/// A result being sent, and where the next Execute continues.
pub(crate) struct PortalRun {
    result: StatementResult,
    batch_idx: usize,
    row_idx: usize,
}

/// What one Execute sent.
pub(crate) struct Sent {
    pub rows: usize,
    pub finished: bool,
}

impl Portal {
    pub(crate) fn columns(&self) -> Option<&Arc<[ColumnInfo]>> {
        self.statement.columns()
    }
}

impl PortalRun {
    pub(crate) fn new(result: StatementResult) -> PortalRun {
        PortalRun {
            result,
            batch_idx: 0,
            row_idx: 0,
        }
    }

    /// Sends up to `rows_max` more rows as DataRows. Like PostgreSQL, a piece that
    /// reaches the limit is reported unfinished even if no rows are left.
    pub(crate) fn send_rows(
        &mut self,
        out: &mut Output,
        formats: &[Format],
        rows_max: usize,
    ) -> Sent {
        let mut rows = 0;
        while rows < rows_max {
            let Some(batch) = self.result.batches.get(self.batch_idx) else {
                break;
            };
            let end = batch
                .len()
                .min(self.row_idx.saturating_add(rows_max - rows));
            let columns = self.result.columns.as_deref().unwrap_or_default();
            write_data_rows(&mut out.buf, batch, self.row_idx..end, formats, columns);
            rows += end - self.row_idx;
            self.row_idx = end;
            if self.row_idx >= batch.len() {
                self.batch_idx += 1;
                self.row_idx = 0;
            }
            out.flush_if_full();
        }
        Sent {
            rows,
            finished: rows < rows_max,
        }
    }

    /// CommandComplete's tag for an Execute that finished after sending `rows`: a SELECT
    /// run in pieces reports the rows of the last piece, as PostgreSQL does.
    pub(crate) fn completion_tag(&self, rows: usize) -> String {
        match self.result.tag.strip_prefix("SELECT ") {
            Some(_) if self.result.columns.is_some() => format!("SELECT {rows}"),
            _ => self.result.tag.clone(),
        }
    }
}
