//! WITH RECURSIVE evaluation: the base rows, then rounds of the recursive term over the
//! previous round's new rows, until a round adds nothing (or the iteration limit is hit).

use std::sync::Arc;

use hashbrown::HashSet;

use super::{materialize, ExecContext, Operator};
use crate::error::{Error, Result, SqlState};
use crate::physical::create_operator;
use crate::plan::LogicalPlan;
use crate::vector::{encode_row_key, Batch, Vector};

pub struct RecursiveCteExec {
    id: usize,
    base: LogicalPlan,
    recursive: LogicalPlan,
    all: bool,
    output: Option<std::vec::IntoIter<Batch>>,
}

impl RecursiveCteExec {
    pub fn new(
        id: usize,
        base: LogicalPlan,
        recursive: LogicalPlan,
        all: bool,
    ) -> RecursiveCteExec {
        RecursiveCteExec {
            id,
            base,
            recursive,
            all,
            output: None,
        }
    }

    /// Keeps the rows not seen before (UNION); all of them for UNION ALL.
    fn new_rows(&self, batches: Vec<Batch>, seen: &mut HashSet<Vec<u8>>) -> Vec<Batch> {
        if self.all {
            return batches;
        }
        let mut out = Vec::new();
        for batch in batches {
            let columns: Vec<&Vector> = batch.columns.iter().map(|c| c.as_ref()).collect();
            let rows: Vec<u32> = (0..batch.len())
                .filter(|&row| {
                    let mut key = Vec::new();
                    encode_row_key(&columns, row, &mut key);
                    seen.insert(key)
                })
                .map(|row| row as u32)
                .collect();
            if !rows.is_empty() {
                out.push(batch.gather(&rows));
            }
        }
        out
    }

    /// The WITH queries inside the recursive term that read this CTE's rows: their kept
    /// result belongs to one round, so each round computes them again.
    fn round_ctes(&self) -> Vec<usize> {
        let mut ids = Vec::new();
        self.recursive.visit_all(&mut |plan| {
            if let LogicalPlan::SharedCte { id, input } = plan {
                let mut reads_round = false;
                input.visit_all(&mut |p| {
                    reads_round |= matches!(p, LogicalPlan::WorkTable { id, .. } if *id == self.id)
                });
                if reads_round {
                    ids.push(*id);
                }
            }
        });
        ids
    }

    fn run(&mut self, ctx: &ExecContext) -> Result<Vec<Batch>> {
        let round_ctes = self.round_ctes();
        let mut seen = HashSet::new();
        let base = materialize(create_operator(&self.base, &ctx.state).as_mut(), ctx)?;
        let mut working = self.new_rows(base, &mut seen);
        let mut result = working.clone();
        let mut rounds = 0u64;
        while !working.is_empty() {
            rounds += 1;
            if rounds > ctx.max_recursive_rounds {
                return Err(Error::new(
                    SqlState::ProgramLimitExceeded,
                    format!(
                        "recursive query exceeded {} iterations",
                        ctx.max_recursive_rounds
                    ),
                )
                .with_hint("Raise kestrel.max_recursive_iterations, or check the query's termination condition."));
            }
            ctx.check_cancelled()?;
            ctx.work_tables
                .borrow_mut()
                .insert(self.id, Arc::new(working));
            let mut shared = ctx.shared_ctes.borrow_mut();
            for id in &round_ctes {
                shared.remove(id);
            }
            drop(shared);
            let produced = materialize(create_operator(&self.recursive, &ctx.state).as_mut(), ctx)?;
            working = self.new_rows(produced, &mut seen);
            result.extend(working.iter().cloned());
        }
        ctx.work_tables.borrow_mut().remove(&self.id);
        Ok(result)
    }
}

impl Operator for RecursiveCteExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.output.is_none() {
            self.output = Some(self.run(ctx)?.into_iter());
        }
        Ok(self.output.as_mut().and_then(|o| o.next()))
    }
}

/// The current round's rows of a recursive CTE.
pub struct WorkTableExec {
    id: usize,
    rows: Option<std::vec::IntoIter<Batch>>,
}

impl WorkTableExec {
    pub fn new(id: usize) -> WorkTableExec {
        WorkTableExec { id, rows: None }
    }
}

impl Operator for WorkTableExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.rows.is_none() {
            let rows = ctx
                .work_tables
                .borrow()
                .get(&self.id)
                .map(|b| b.as_ref().clone())
                .unwrap_or_default();
            self.rows = Some(rows.into_iter());
        }
        Ok(ctx.read_rows(self.rows.as_mut().and_then(|r| r.next())))
    }
}
