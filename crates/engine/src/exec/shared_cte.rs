//! A WITH query read several times: the first reader runs it and keeps its rows for the rest
//! of the statement; later readers replay them.

use std::sync::Arc;

use super::{materialize, ExecContext, Operator};
use crate::error::Result;
use crate::physical::create_operator;
use crate::plan::LogicalPlan;
use crate::vector::Batch;

pub struct SharedCteExec {
    id: usize,
    plan: LogicalPlan,
    rows: Option<(Arc<Vec<Batch>>, usize)>,
}

impl SharedCteExec {
    pub fn new(id: usize, plan: LogicalPlan) -> SharedCteExec {
        SharedCteExec {
            id,
            plan,
            rows: None,
        }
    }
}

impl Operator for SharedCteExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.rows.is_none() {
            let cached = ctx.shared_ctes.borrow().get(&self.id).cloned();
            let rows = match cached {
                Some(rows) => rows,
                None => {
                    let rows = Arc::new(materialize(
                        create_operator(&self.plan, &ctx.state).as_mut(),
                        ctx,
                    )?);
                    ctx.shared_ctes.borrow_mut().insert(self.id, rows.clone());
                    rows
                }
            };
            self.rows = Some((rows, 0));
        }
        let Some((rows, next)) = self.rows.as_mut() else {
            return Ok(None);
        };
        let batch = rows.get(*next).cloned();
        *next += 1;
        Ok(batch)
    }
}
