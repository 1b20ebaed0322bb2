//! Table scan: hands out the live rows of each chunk, sharing the chunk's vectors.

use std::sync::Arc;

use super::{ExecContext, Operator};
use crate::error::{Error, Result, SqlState};
use crate::storage::{Chunk, TableData, ROW_ID_COLUMN};
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
            self.data = Some(table_data(ctx, self.table_oid, &self.table_name)?);
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
            let batch = chunk_batch(chunk, self.next_chunk - 1, &self.columns);
            if !batch.is_empty() {
                return Ok(ctx.read_rows(Some(batch)));
            }
        }
    }
}

/// The rows of the table the statement reads; 42P01 if it was dropped meanwhile.
pub(crate) fn table_data(ctx: &ExecContext, table_oid: u32, name: &str) -> Result<Arc<TableData>> {
    let entry = ctx.state.tables.get(&table_oid).ok_or_else(|| {
        Error::new(
            SqlState::UndefinedTable,
            format!("relation \"{name}\" does not exist"),
        )
    })?;
    Ok(entry.data.clone())
}

/// The live rows of chunk `chunk_idx` as a batch of `columns` (which may ask for row ids).
pub(crate) fn chunk_batch(chunk: &Chunk, chunk_idx: usize, columns: &[usize]) -> Batch {
    match columns.contains(&ROW_ID_COLUMN) {
        true => chunk.to_batch_with_row_ids(chunk_idx, columns),
        false => chunk.to_batch(columns),
    }
}
