//! DISTINCT and DISTINCT ON: passes on the first occurrence of each row, or of each value of
//! the DISTINCT ON columns (the input arrives sorted by ORDER BY, so it is the first row of
//! its group in that order). A DISTINCT over a parallel-safe pipeline may instead run on
//! the workers as an aggregate of every column (`aggregate_parallel.rs`).

use std::sync::Arc;

use super::aggregate::AggregateSpec;
use super::group_keys::Groups;
use super::{BoxedOperator, ExecContext, Operator, ParallelInput};
use crate::error::Result;
use crate::vector::Batch;

pub struct DistinctExec {
    input: BoxedOperator,
    /// The columns that identify duplicates; all when empty.
    on: Vec<usize>,
    /// The distinct keys so far, as group ids (built from the first batch's column types).
    seen: Option<Groups>,
    ids: Vec<u32>,
    /// The input pipeline, when the workers may aggregate it, and the aggregation; taken
    /// when the DISTINCT starts.
    parallel: Option<(ParallelInput, AggregateSpec)>,
    /// The rows the workers' aggregation returned.
    parallel_output: Option<std::vec::IntoIter<Batch>>,
}

impl DistinctExec {
    pub fn new(
        input: BoxedOperator,
        on: Vec<usize>,
        parallel: Option<(ParallelInput, AggregateSpec)>,
    ) -> DistinctExec {
        DistinctExec {
            input,
            on,
            seen: None,
            ids: Vec::new(),
            parallel,
            parallel_output: None,
        }
    }
}

impl Operator for DistinctExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if let Some((input, spec)) = self.parallel.take() {
            if let Some(output) = input.run(ctx, &Arc::new(spec)) {
                self.parallel_output = Some(output?.into_iter());
            }
        }
        if let Some(output) = &mut self.parallel_output {
            return Ok(output.next());
        }
        while let Some(batch) = self.input.next(ctx)? {
            ctx.check_cancelled()?;
            if self.on.is_empty() {
                self.on = (0..batch.columns.len()).collect();
            }
            let seen = self.seen.get_or_insert_with(|| {
                let types: Vec<_> = self
                    .on
                    .iter()
                    .map(|&i| batch.columns[i].data.physical())
                    .collect();
                Groups::new(&types, &[&(0..types.len()).collect::<Vec<_>>()])
            });
            let keys: Vec<_> = self.on.iter().map(|&i| batch.columns[i].clone()).collect();
            let all_keys: Vec<usize> = (0..keys.len()).collect();
            let mut next_new = seen.len() as u32;
            self.ids.clear();
            seen.assign(0, &all_keys, &keys, batch.len(), &mut self.ids)?;
            // Ids are handed out in row order, so a key's first row carries the next new id.
            let mut rows = Vec::new();
            for (row, &id) in self.ids.iter().enumerate() {
                if id == next_new {
                    rows.push(row as u32);
                    next_new += 1;
                }
            }
            if !rows.is_empty() {
                return Ok(Some(batch.gather(&rows)));
            }
        }
        Ok(None)
    }
}
