//! `WITH ORDINALITY`: appends the 1-based number of each row a table function returns.

use std::sync::Arc;

use super::{BoxedOperator, ExecContext, Operator};
use crate::error::Result;
use crate::vector::{Batch, Vector, VectorData};

pub struct OrdinalityExec {
    input: BoxedOperator,
    /// Rows handed out so far.
    rows: i64,
}

impl OrdinalityExec {
    pub fn new(input: BoxedOperator) -> OrdinalityExec {
        OrdinalityExec { input, rows: 0 }
    }
}

impl Operator for OrdinalityExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        let Some(mut batch) = self.input.next(ctx)? else {
            return Ok(None);
        };
        let numbers: Vec<i64> = (1..=batch.len() as i64).map(|i| self.rows + i).collect();
        self.rows += batch.len() as i64;
        batch
            .columns
            .push(Arc::new(Vector::new(VectorData::Int64(numbers), None)));
        Ok(Some(batch))
    }
}
