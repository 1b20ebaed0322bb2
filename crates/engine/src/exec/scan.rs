//! Table scan: hands out the live rows of each chunk, sharing the chunk's vectors.

use std::sync::Arc;

use super::{ExecContext, Operator};
use crate::error::{Error, Result, SqlState};
use crate::storage::{TableData, ROW_ID_COLUMN};
use crate::vector::Batch;

pub struct ScanExec {
    table_oid: u32,
    table_name: String,
    columns: Vec<usize>,
    data: Option<Arc<TableData>>,
    next_chunk: usize,
}

impl ScanExec {
    pub fn new(table_oid: u32, table_name: String, columns: Vec<usize>) -> ScanExec {
        ScanExec {
            table_oid,
            table_name,
            columns,
            data: None,
            next_chunk: 0,
        }
    }
}

impl Operator for ScanExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.data.is_none() {
            let entry = ctx.state.tables.get(&self.table_oid).ok_or_else(|| {
                Error::new(
                    SqlState::UndefinedTable,
                    format!("relation \"{}\" does not exist", self.table_name),
                )
            })?;
            self.data = Some(entry.data.clone());
        }
        let Some(data) = &self.data else {
            return Ok(None);
        };
        loop {
            let Some(chunk) = data.chunk(self.next_chunk) else {
                return Ok(None);
            };
            self.next_chunk += 1;
            ctx.check_cancelled()?;
            let batch = match self.columns.contains(&ROW_ID_COLUMN) {
                true => chunk.to_batch_with_row_ids(self.next_chunk - 1, &self.columns),
                false => chunk.to_batch(&self.columns),
            };
            if !batch.is_empty() {
                return Ok(ctx.read_rows(Some(batch)));
            }
        }
    }
}
