//! Filter: keeps the rows whose predicate is TRUE (not FALSE, not NULL).

use super::expression::evaluate;
use super::{BoxedOperator, ExecContext, Operator};
use crate::error::{Error, Result};
use crate::plan::ScalarExpr;
use crate::vector::{Batch, VectorData};

pub struct FilterExec {
    input: BoxedOperator,
    predicate: ScalarExpr,
}

impl FilterExec {
    pub fn new(input: BoxedOperator, predicate: ScalarExpr) -> FilterExec {
        FilterExec { input, predicate }
    }
}

/// Row positions where `mask` is TRUE.
pub fn selected_rows(batch: &Batch, predicate: &ScalarExpr, ctx: &ExecContext) -> Result<Vec<u32>> {
    let mask = evaluate(predicate, batch, ctx)?;
    let VectorData::Bool(values) = &mask.data else {
        return Err(Error::internal("filter predicate is not boolean"));
    };
    Ok((0..batch.len() as u32)
        .filter(|&r| values[r as usize] && mask.is_valid(r as usize))
        .collect())
}

impl Operator for FilterExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        while let Some(batch) = self.input.next(ctx)? {
            let rows = selected_rows(&batch, &self.predicate, ctx)?;
            if rows.len() == batch.len() {
                return Ok(Some(batch));
            }
            if !rows.is_empty() {
                return Ok(Some(batch.gather(&rows)));
            }
        }
        Ok(None)
    }
}
