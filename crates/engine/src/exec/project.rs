//! Projection: computes the output expressions of each batch.

use super::expression::evaluate;
use super::{BoxedOperator, ExecContext, Operator};
use crate::error::Result;
use crate::plan::ScalarExpr;
use crate::vector::Batch;

pub struct ProjectExec {
    input: BoxedOperator,
    exprs: Vec<ScalarExpr>,
}

impl ProjectExec {
    pub fn new(input: BoxedOperator, exprs: Vec<ScalarExpr>) -> ProjectExec {
        ProjectExec { input, exprs }
    }
}

impl Operator for ProjectExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        let Some(batch) = self.input.next(ctx)? else {
            return Ok(None);
        };
        let columns = self
            .exprs
            .iter()
            .map(|e| evaluate(e, &batch, ctx))
            .collect::<Result<Vec<_>>>()?;
        Ok(Some(Batch::new(columns, batch.len())))
    }
}
