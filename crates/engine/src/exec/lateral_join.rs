//! LATERAL: the right side runs once per left row, with that row visible to it as its
//! enclosing row.

use super::join::JoinState;
use super::{collect, BoxedOperator, ExecContext, Operator};
use crate::error::Result;
use crate::physical::create_operator;
use crate::plan::{JoinKind, LogicalPlan, ScalarExpr};
use crate::types::{PhysicalType, ScalarValue};
use crate::vector::{concat_batches, split_batch, Batch};

pub struct LateralJoinExec {
    left: BoxedOperator,
    right: LogicalPlan,
    right_types: Vec<PhysicalType>,
    kind: JoinKind,
    condition: Option<ScalarExpr>,
    pending: Vec<Batch>,
}

impl LateralJoinExec {
    pub fn new(
        left: BoxedOperator,
        right: LogicalPlan,
        right_types: Vec<PhysicalType>,
        kind: JoinKind,
        condition: Option<ScalarExpr>,
    ) -> LateralJoinExec {
        LateralJoinExec {
            left,
            right,
            right_types,
            kind,
            condition,
            pending: Vec::new(),
        }
    }

    /// The right side's rows for one left row.
    fn right_rows(&self, outer: Vec<ScalarValue>, ctx: &ExecContext) -> Result<Batch> {
        ctx.outer_rows.borrow_mut().push(outer);
        let rows = collect(create_operator(&self.right, &ctx.state).as_mut(), ctx);
        ctx.outer_rows.borrow_mut().pop();
        concat_batches(&self.right_types, &rows?)
    }
}

impl Operator for LateralJoinExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        loop {
            if let Some(batch) = self.pending.pop() {
                return Ok(Some(batch));
            }
            let Some(left) = self.left.next(ctx)? else {
                return Ok(None);
            };
            let mut out = Vec::new();
            for row in 0..left.len() {
                ctx.check_cancelled()?;
                let outer = left.columns.iter().map(|c| c.get_scalar(row)).collect();
                let right = self.right_rows(outer, ctx)?;
                let probe = left.gather(&[row as u32]);
                let mut state =
                    JoinState::new(self.kind, self.condition.clone(), right.len(), false);
                let pairs = right.len();
                let joined = state.emit(
                    &probe,
                    &right,
                    vec![0; pairs],
                    (0..pairs as u32).collect(),
                    ctx,
                )?;
                if !joined.is_empty() {
                    out.push(joined);
                }
            }
            if !out.is_empty() {
                let all_types: Vec<PhysicalType> = left
                    .columns
                    .iter()
                    .map(|c| c.data.physical())
                    .chain(self.right_types.iter().copied())
                    .collect();
                let mut batches = split_batch(concat_batches(&all_types, &out)?);
                batches.reverse();
                self.pending = batches;
            }
        }
    }
}
