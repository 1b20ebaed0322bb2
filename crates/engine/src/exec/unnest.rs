//! unnest(array) in FROM: the array's elements as rows, NULL elements included; a NULL or
//! empty array gives no rows.

use std::sync::Arc;

use super::expression::evaluate_constant;
use super::{ExecContext, Operator};
use crate::error::{Error, Result};
use crate::plan::ScalarExpr;
use crate::types::ScalarValue;
use crate::vector::{Batch, Vector, BATCH_SIZE};

pub struct UnnestExec {
    args: Vec<ScalarExpr>,
    /// The elements and the index of the next one to hand out, once evaluated.
    state: Option<(Vec<ScalarValue>, usize)>,
}

impl UnnestExec {
    pub fn new(args: Vec<ScalarExpr>) -> UnnestExec {
        UnnestExec { args, state: None }
    }
}

impl Operator for UnnestExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        let [arg] = self.args.as_slice() else {
            return Err(Error::internal("unnest takes one argument"));
        };
        if self.state.is_none() {
            let values = match evaluate_constant(arg, ctx)? {
                ScalarValue::Array(values) => values,
                // Every element, in storage order, as PostgreSQL flattens.
                ScalarValue::ShapedArray(shaped) => shaped.into_parts().1,
                _ => Vec::new(),
            };
            self.state = Some((values, 0));
        }
        let Some((values, next)) = self.state.as_mut() else {
            return Ok(None);
        };
        ctx.check_cancelled()?;
        if *next >= values.len() {
            return Ok(None);
        }
        let end = (*next + BATCH_SIZE).min(values.len());
        let elem = arg
            .ty()
            .element()
            .ok_or_else(|| Error::internal("unnest of a non-array"))?;
        let mut column = Vector::with_capacity(elem.physical(), end - *next);
        for value in &values[*next..end] {
            column.push_scalar(value)?;
        }
        let len = end - *next;
        *next = end;
        Ok(ctx.read_rows(Some(Batch::new(vec![Arc::new(column)], len))))
    }
}
