//! Projection: computes the output expressions of each batch.

use std::sync::Arc;

use super::expression::evaluate;
use super::{BoxedOperator, ExecContext, Operator};
use crate::error::Result;
use crate::plan::ScalarExpr;
use crate::vector::{Batch, Vector};

pub struct ProjectExec {
    input: BoxedOperator,
    exprs: Vec<ScalarExpr>,
    /// More than one output calls a sequence function (an INSERT's `nextval` default and
    /// a `currval` one): PostgreSQL computes a row's outputs together, row after row, so
    /// each row's currval sees that row's nextval. Such batches go a row at a time.
    row_at_a_time: bool,
}

impl ProjectExec {
    pub fn new(input: BoxedOperator, exprs: Vec<ScalarExpr>) -> ProjectExec {
        let calls_sequence = |e: &ScalarExpr| {
            let mut found = false;
            e.visit(&mut |node| found |= matches!(node, ScalarExpr::SequenceCall { .. }));
            found
        };
        let row_at_a_time = exprs.iter().filter(|e| calls_sequence(e)).count() > 1;
        ProjectExec {
            input,
            exprs,
            row_at_a_time,
        }
    }

    fn row_by_row(&self, batch: &Batch, ctx: &ExecContext) -> Result<Vec<Arc<Vector>>> {
        let mut columns: Vec<Vector> = self
            .exprs
            .iter()
            .map(|e| Vector::with_capacity(e.ty().physical(), batch.len()))
            .collect();
        for row in 0..batch.len() as u32 {
            let one = batch.gather(&[row]);
            for (column, expr) in columns.iter_mut().zip(&self.exprs) {
                column.extend(evaluate(expr, &one, ctx)?.as_ref())?;
            }
        }
        Ok(columns.into_iter().map(Arc::new).collect())
    }
}

impl Operator for ProjectExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        let Some(batch) = self.input.next(ctx)? else {
            return Ok(None);
        };
        if self.row_at_a_time && batch.len() > 1 {
            let columns = self.row_by_row(&batch, ctx)?;
            return Ok(Some(Batch::new(columns, batch.len())));
        }
        let columns = self
            .exprs
            .iter()
            .map(|e| evaluate(e, &batch, ctx))
            .collect::<Result<Vec<_>>>()?;
        Ok(Some(Batch::new(columns, batch.len())))
    }
}
