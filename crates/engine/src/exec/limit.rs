//! LIMIT / OFFSET.

use super::{BoxedOperator, ExecContext, Operator};
use crate::error::{Error, Result, SqlState};
use crate::plan::ScalarExpr;
use crate::types::ScalarValue;
use crate::vector::Batch;

pub struct LimitExec {
    input: BoxedOperator,
    limit_expr: Option<ScalarExpr>,
    offset_expr: Option<ScalarExpr>,
    /// (rows still to skip, rows still to return); computed on the first batch.
    remaining: Option<(u64, Option<u64>)>,
}

impl LimitExec {
    pub fn new(
        input: BoxedOperator,
        limit: Option<ScalarExpr>,
        offset: Option<ScalarExpr>,
    ) -> LimitExec {
        LimitExec {
            input,
            limit_expr: limit,
            offset_expr: offset,
            remaining: None,
        }
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
        }
        let Some((skip, left)) = &mut self.remaining else {
            return Ok(None);
        };
        loop {
            if *left == Some(0) {
                return Ok(None);
            }
            let Some(batch) = self.input.next(ctx)? else {
                return Ok(None);
            };
            let len = batch.len() as u64;
            if *skip >= len {
                *skip -= len;
                continue;
            }
            let start = *skip;
            *skip = 0;
            let mut end = len;
            if let Some(l) = left {
                end = end.min(start + *l);
                *l -= end - start;
            }
            if start == 0 && end == len {
                return Ok(Some(batch));
            }
            let rows: Vec<u32> = (start as u32..end as u32).collect();
            return Ok(Some(batch.gather(&rows)));
        }
    }
}
