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

/// Row positions where `predicate` is TRUE. A conjunction runs as PostgreSQL's ExecQual runs
/// a qual list: a row leaves at its first conjunct that is not TRUE (NULL too, where a plain
/// AND would go on), so the later conjuncts never run on it and raise no error there.
pub fn selected_rows(batch: &Batch, predicate: &ScalarExpr, ctx: &ExecContext) -> Result<Vec<u32>> {
    if let ScalarExpr::And(left, right) = predicate {
        let rows = selected_rows(batch, left, ctx)?;
        if rows.len() == batch.len() || rows.is_empty() {
            return match rows.is_empty() {
                true => Ok(rows),
                false => selected_rows(batch, right, ctx),
            };
        }
        let kept = selected_rows(&batch.gather(&rows), right, ctx)?;
        return Ok(kept.into_iter().map(|i| rows[i as usize]).collect());
    }
    let mask = evaluate(predicate, batch, ctx)?;
    let VectorData::Bool(values) = &mask.data else {
        return Err(Error::internal("filter predicate is not boolean"));
    };
    if values.len() != batch.len() {
        return Err(Error::internal("filter mask and batch differ in length"));
    }
    Ok(match &mask.validity {
        None => positions_where(values.len(), |row| values[row]),
        Some(_) => positions_where(values.len(), |row| values[row] && mask.is_valid(row)),
    })
}

/// The positions in `0..len` where `keep` holds, branch-free: every position is written and
/// the end advances only past kept ones, so a selectivity near 50 % costs no mispredictions
/// (a data-dependent branch here was a fifth of a filtered scan).
#[inline]
pub fn positions_where(len: usize, keep: impl Fn(usize) -> bool) -> Vec<u32> {
    let mut rows = vec![0u32; len];
    let mut kept = 0;
    for row in 0..len {
        rows[kept] = row as u32;
        kept += keep(row) as usize;
    }
    rows.truncate(kept);
    rows
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
