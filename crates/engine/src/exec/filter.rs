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
    if values.len() != batch.len() {
        return Err(Error::internal("filter mask and batch differ in length"));
    }
    // Branch-free: every position is written and the end advances only past kept rows, so
    // a selectivity near 50 % costs no mispredictions (it was a fifth of a filtered scan).
    let mut rows = vec![0u32; values.len()];
    let mut kept = 0;
    match &mask.validity {
        None => {
            for (row, &keep) in values.iter().enumerate() {
                rows[kept] = row as u32;
                kept += keep as usize;
            }
        }
        Some(_) => {
            for (row, &keep) in values.iter().enumerate() {
                rows[kept] = row as u32;
                kept += (keep && mask.is_valid(row)) as usize;
            }
        }
    }
    rows.truncate(kept);
    Ok(rows)
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
