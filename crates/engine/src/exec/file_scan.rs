//! The rows of files read in place: every file's batches (decoded, or shared from the file
//! cache) are gathered on the first pull, so a file that fails to read fails the
//! statement before any row is out, then handed out in file order: only the columns the
//! plan uses, the Parquet row groups the pushed-down comparisons rule out never read.

use std::collections::VecDeque;
use std::sync::Arc;

use super::{ExecContext, Operator};
use crate::error::Result;
use crate::files::{FileSource, RowGroupFilter};
use crate::vector::Batch;

pub struct FileScanExec {
    source: Arc<FileSource>,
    columns: Vec<usize>,
    filter: RowGroupFilter,
    /// Filled on the first pull.
    ready: Option<VecDeque<Batch>>,
}

impl FileScanExec {
    pub fn new(source: Arc<FileSource>, columns: Vec<usize>, filter: RowGroupFilter) -> Self {
        FileScanExec {
            source,
            columns,
            filter,
            ready: None,
        }
    }
}

impl Operator for FileScanExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.ready.is_none() {
            let mut ready = VecDeque::new();
            for file in 0..self.source.paths.len() {
                ctx.check_cancelled()?;
                ready.extend(self.source.read(file, &self.columns, &self.filter, ctx)?);
            }
            self.ready = Some(ready);
        }
        Ok(ctx.read_rows(self.ready.as_mut().and_then(VecDeque::pop_front)))
    }
}
