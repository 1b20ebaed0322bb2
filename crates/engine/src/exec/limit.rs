//! LIMIT / OFFSET, and FETCH ... WITH TIES: after the limit, the rows equal to the last one
//! in the ORDER BY keys (the input comes sorted by them).

use std::cmp::Ordering;
use std::sync::Arc;

use super::expression::evaluate;
use super::sort_key::compare_key_rows;
use super::{BoxedOperator, ExecContext, Operator};
use crate::error::{Error, Result, SqlState};
use crate::plan::{ScalarExpr, SortKey};
use crate::types::ScalarValue;
use crate::vector::{Batch, Vector};

pub struct LimitExec {
    input: BoxedOperator,
    limit_expr: Option<ScalarExpr>,
    offset_expr: Option<ScalarExpr>,
    ties: Vec<SortKey>,
    /// (rows still to skip, rows still to return); computed on the first batch.
    remaining: Option<(u64, Option<u64>)>,
    /// WITH TIES, once the limit is reached: the keys of the last row returned (the row
    /// index in them), which the rows that follow must equal to be returned too.
    last_keys: Option<(Vec<Arc<Vector>>, usize)>,
}

impl LimitExec {
    pub fn new(
        input: BoxedOperator,
        limit: Option<ScalarExpr>,
        offset: Option<ScalarExpr>,
        ties: Vec<SortKey>,
    ) -> LimitExec {
        LimitExec {
            input,
            limit_expr: limit,
            offset_expr: offset,
            ties,
            remaining: None,
            last_keys: None,
        }
    }

    fn start(&mut self, ctx: &ExecContext) -> Result<()> {
        let limit = count_value(
            &self.limit_expr,
            ctx,
            "LIMIT",
            SqlState::InvalidRowCountInLimitClause,
        )?;
        let offset = count_value(
            &self.offset_expr,
            ctx,
            "OFFSET",
            SqlState::InvalidRowCountInResultOffsetClause,
        )?
        .unwrap_or(0);
        self.remaining = Some((offset, limit));
        Ok(())
    }

    fn keys(&self, batch: &Batch, ctx: &ExecContext) -> Result<Vec<Arc<Vector>>> {
        self.ties
            .iter()
            .map(|k| evaluate(&k.expr, batch, ctx))
            .collect()
    }

    /// How many rows of `keys` from `start` on tie with row `row` of `last`.
    fn tied_rows(
        &self,
        last: &[Arc<Vector>],
        row: usize,
        keys: &[Arc<Vector>],
        start: usize,
    ) -> usize {
        let len = keys.first().map_or(0, |k| k.len());
        (start..len)
            .take_while(|&i| compare_key_rows(&self.ties, last, row, keys, i) == Ordering::Equal)
            .count()
    }

    /// WITH TIES once the limit is reached: the leading rows of `batch` that tie with the
    /// last row returned.
    fn next_ties(&mut self, batch: Batch, ctx: &ExecContext) -> Result<Option<Batch>> {
        let Some((last, row)) = self.last_keys.take() else {
            return Ok(None);
        };
        let keys = self.keys(&batch, ctx)?;
        let tied = self.tied_rows(&last, row, &keys, 0);
        if tied == batch.len() {
            self.last_keys = Some((last, row));
            return Ok(Some(batch));
        }
        Ok((tied > 0).then(|| batch.gather(&(0..tied as u32).collect::<Vec<_>>())))
    }
}

fn count_value(
    expr: &Option<ScalarExpr>,
    ctx: &ExecContext,
    what: &str,
    state: SqlState,
) -> Result<Option<u64>> {
    let Some(expr) = expr else { return Ok(None) };
    match super::expression::evaluate_constant(expr, ctx)? {
        ScalarValue::Null => Ok(None),
        ScalarValue::Int64(n) if n >= 0 => Ok(Some(n as u64)),
        ScalarValue::Int64(_) => Err(Error::new(state, format!("{what} must not be negative"))),
        other => Err(Error::internal(format!("{what} evaluated to {other:?}"))),
    }
}

impl Operator for LimitExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.remaining.is_none() {
            self.start(ctx)?;
        }
        loop {
            let Some((skip, left)) = self.remaining else {
                return Ok(None);
            };
            if left == Some(0) && self.last_keys.is_none() {
                return Ok(None);
            }
            let Some(batch) = self.input.next(ctx)? else {
                return Ok(None);
            };
            if left == Some(0) {
                return self.next_ties(batch, ctx);
            }
            let len = batch.len() as u64;
            if skip >= len {
                self.remaining = Some((skip - len, left));
                continue;
            }
            let start = skip;
            let mut end = left.map_or(len, |l| len.min(start + l));
            let left = left.map(|l| l - (end - start));
            self.remaining = Some((0, left));
            if left == Some(0) && !self.ties.is_empty() && end > start {
                let keys = self.keys(&batch, ctx)?;
                let last = end as usize - 1;
                end += self.tied_rows(&keys, last, &keys, end as usize) as u64;
                if end == len {
                    self.last_keys = Some((keys, last));
                }
            }
            if start == 0 && end == len {
                return Ok(Some(batch));
            }
            let rows: Vec<u32> = (start as u32..end as u32).collect();
            return Ok(Some(batch.gather(&rows)));
        }
    }
}
