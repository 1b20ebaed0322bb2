//! The rows of files read in place: each file's batches (decoded, or shared from the file
//! cache) handed out in file order, only the columns the plan uses, the Parquet row groups
//! the pushed-down comparisons rule out never read.

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
    next_file: usize,
    ready: VecDeque<Batch>,
}

impl FileScanExec {
    pub fn new(source: Arc<FileSource>, columns: Vec<usize>, filter: RowGroupFilter) -> Self {
        FileScanExec {
            source,
            columns,
            filter,
            next_file: 0,
            ready: VecDeque::new(),
        }
    }
}

impl Operator for FileScanExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        while self.ready.is_empty() && self.next_file < self.source.paths.len() {
            ctx.check_cancelled()?;
            let batches = self
                .source
                .read(self.next_file, &self.columns, &self.filter)?;
            self.ready.extend(batches);
            self.next_file += 1;
        }
        Ok(ctx.read_rows(self.ready.pop_front()))
    }
}
