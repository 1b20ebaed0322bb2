//! The set-returning functions whose rows are computed at once from their arguments and then
//! handed out in batches: unnest(array) (the array's elements, NULL elements included; a
//! NULL or empty array gives no rows), regexp_matches and regexp_split_to_table (none for
//! a NULL argument: they are strict).

use std::sync::Arc;

use super::expression::evaluate_constant;
use super::{ExecContext, Operator};
use crate::error::{Error, Result};
use crate::function::scalar::{regexp_matches_rows, regexp_split_rows, RegexCache};
use crate::function::TableFunction;
use crate::plan::ScalarExpr;
use crate::types::{DataType, ScalarValue};
use crate::vector::{Batch, Vector, BATCH_SIZE};

pub struct UnnestExec {
    func: TableFunction,
    args: Vec<ScalarExpr>,
    /// The type of the rows.
    ty: DataType,
    /// The rows and the index of the next one to hand out, once evaluated.
    state: Option<(Vec<ScalarValue>, usize)>,
    /// The last compiled pattern, kept across the runs of a lateral call.
    regex: RegexCache,
}

impl UnnestExec {
    pub fn new(func: TableFunction, args: Vec<ScalarExpr>, ty: DataType) -> UnnestExec {
        UnnestExec {
            func,
            args,
            ty,
            state: None,
            regex: RegexCache::default(),
        }
    }

    /// Every row of the call.
    fn rows(&mut self, ctx: &ExecContext) -> Result<Vec<ScalarValue>> {
        let args = self
            .args
            .iter()
            .map(|arg| evaluate_constant(arg, ctx))
            .collect::<Result<Vec<_>>>()?;
        let regexp = match self.func {
            TableFunction::Unnest => {
                return Ok(match args.into_iter().next() {
                    Some(ScalarValue::Array(values)) => values,
                    // Every element, in storage order, as PostgreSQL flattens.
                    Some(ScalarValue::ShapedArray(shaped)) => shaped.into_parts().1,
                    _ => Vec::new(),
                });
            }
            TableFunction::RegexpMatches => regexp_matches_rows,
            TableFunction::RegexpSplitToTable => regexp_split_rows,
            TableFunction::GenerateSeries => {
                return Err(Error::internal("generate_series has its own operator"))
            }
        };
        let text = |i: usize| match args.get(i) {
            Some(ScalarValue::Text(text)) => Some(text.as_str()),
            _ => None,
        };
        let flags = if args.len() > 2 { text(2) } else { Some("") };
        match (text(0), text(1), flags) {
            (Some(s), Some(pattern), Some(flags)) => regexp(&mut self.regex, s, pattern, flags),
            _ => Ok(Vec::new()),
        }
    }
}

impl Operator for UnnestExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.state.is_none() {
            let values = self.rows(ctx)?;
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
        let mut column = Vector::with_capacity(self.ty.physical(), end - *next);
        for value in &values[*next..end] {
            column.push_scalar(value)?;
        }
        let len = end - *next;
        *next = end;
        Ok(ctx.read_rows(Some(Batch::new(vec![Arc::new(column)], len))))
    }
}
