//! Point lookups through a unique index: `WHERE key = constant` finds its row without a scan.

use std::sync::Arc;

use super::expression::evaluate_constant;
use super::filter::selected_rows;
use super::{ExecContext, Operator};
use crate::error::{Error, Result, SqlState};
use crate::plan::ScalarExpr;
use crate::types::DataType;
use crate::vector::{encode_row_key, Batch, Vector, BATCH_SIZE};

pub struct IndexLookupExec {
    table_oid: u32,
    table_name: String,
    columns: Vec<usize>,
    /// Which of the table's unique keys, and the type of its single column.
    key: usize,
    key_type: DataType,
    value: ScalarExpr,
    residual: Option<ScalarExpr>,
    done: bool,
}

impl IndexLookupExec {
    pub fn new(
        table_oid: u32,
        table_name: String,
        columns: Vec<usize>,
        key: (usize, DataType),
        value: ScalarExpr,
        residual: Option<ScalarExpr>,
    ) -> IndexLookupExec {
        IndexLookupExec {
            table_oid,
            table_name,
            columns,
            key: key.0,
            key_type: key.1,
            value,
            residual,
            done: false,
        }
    }
}

impl Operator for IndexLookupExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.done {
            return Ok(None);
        }
        self.done = true;
        let entry = ctx.state.tables.get(&self.table_oid).ok_or_else(|| {
            Error::new(
                SqlState::UndefinedTable,
                format!("relation \"{}\" does not exist", self.table_name),
            )
        })?;
        let value = evaluate_constant(&self.value, ctx)?;
        if value.is_null() {
            return Ok(None);
        }
        let (Some(unique), Some(index)) = (
            entry.schema.unique_keys.get(self.key),
            entry.unique_indexes.get(self.key),
        ) else {
            return Err(Error::internal("index lookup on a missing unique key"));
        };
        let probe = Vector::from_scalar(&value, self.key_type, 1);
        let mut key = Vec::new();
        encode_row_key(&[&probe], 0, &mut key);
        let Some(row_id) = index.lookup(&key, &entry.data, &unique.columns) else {
            return Ok(None);
        };
        let chunk = &entry.data.chunks[row_id as usize / BATCH_SIZE];
        let offset = [(row_id as usize % BATCH_SIZE) as u32];
        let batch = Batch::new(
            self.columns
                .iter()
                .map(|&c| Arc::new(chunk.columns[c].gather(&offset)))
                .collect(),
            1,
        );
        match &self.residual {
            Some(residual) if selected_rows(&batch, residual, ctx)?.is_empty() => Ok(None),
            _ => Ok(Some(batch)),
        }
    }
}
