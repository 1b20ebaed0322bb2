//! VALUES rows (and the single empty row under a SELECT without FROM).

use std::sync::Arc;

use super::expression::evaluate_constant;
use super::{ExecContext, Operator};
use crate::error::Result;
use crate::plan::ScalarExpr;
use crate::types::DataType;
use crate::vector::{Batch, Vector, BATCH_SIZE};

pub struct ValuesExec {
    rows: Arc<Vec<Vec<ScalarExpr>>>,
    types: Vec<DataType>,
    next_row: usize,
}

impl ValuesExec {
    pub fn new(rows: Arc<Vec<Vec<ScalarExpr>>>, types: Vec<DataType>) -> ValuesExec {
        ValuesExec {
            rows,
            types,
            next_row: 0,
        }
    }
}

impl Operator for ValuesExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.next_row >= self.rows.len() {
            return Ok(None);
        }
        let end = (self.next_row + BATCH_SIZE).min(self.rows.len());
        let mut columns: Vec<Vector> = self
            .types
            .iter()
            .map(|t| Vector::with_capacity(t.physical(), end - self.next_row))
            .collect();
        for row in &self.rows[self.next_row..end] {
            for (column, expr) in columns.iter_mut().zip(row) {
                column.push_scalar(&evaluate_constant(expr, ctx)?)?;
            }
        }
        let len = end - self.next_row;
        self.next_row = end;
        Ok(ctx.read_rows(Some(Batch::new(
            columns.into_iter().map(Arc::new).collect(),
            len,
        ))))
    }
}
