//! Sort: each worker (or the one thread) gathers its share of the input with the keys
//! evaluated once into a sorted run (sorted_runs.rs, on normalized keys from sort_key.rs).
//! Several runs are cut into stretches of the merged order, which the pool's workers merge
//! and copy out at once, so no step of a parallel sort goes through one thread row by row;
//! the output is the stretches one after the other, in the serial sort's order.

use std::sync::Arc;

use super::expression::evaluate;
use super::parallel::{run_tasks, Task};
use super::sorted_runs::{cut_runs, merge_stretch, RowOrigin, RunBuilder, SortedRun};
use super::worker_input::Work;
use super::{ExecContext, Operator, WorkerInput};
use crate::error::Result;
use crate::plan::SortKey;
use crate::types::PhysicalType;
use crate::vector::Batch;

pub struct SortExec {
    input: WorkerInput,
    keys: Vec<SortKey>,
    physical: Vec<PhysicalType>,
    output: Option<std::vec::IntoIter<Batch>>,
}

/// Stretches per worker a parallel sort's merge is cut into: a few, so that one stretch
/// longer than the others (the cuts are sampled) does not keep the rest waiting.
const STRETCHES_PER_WORKER: usize = 4;

/// The sort keys of `batch`, evaluated.
pub(super) fn evaluate_keys(keys: &[SortKey], batch: &Batch, ctx: &ExecContext) -> Result<Batch> {
    let key_columns = keys
        .iter()
        .map(|k| evaluate(&k.expr, batch, ctx))
        .collect::<Result<Vec<_>>>()?;
    Ok(Batch::new(key_columns, batch.len()))
}

pub(super) fn key_types(keys: &[SortKey]) -> Vec<PhysicalType> {
    keys.iter().map(|k| k.expr.ty().physical()).collect()
}

/// A worker's sort: its batches and their evaluated keys (charged to working memory) in a
/// sorted run.
fn sort_run(keys: Vec<SortKey>, physical: Vec<PhysicalType>) -> Arc<Work<SortedRun>> {
    let key_physical = key_types(&keys);
    Arc::new(move |source, ctx| {
        let mut run = RunBuilder::new();
        while let Some((position, batch)) = source()? {
            ctx.check_cancelled()?;
            let batch_keys = evaluate_keys(&keys, &batch, ctx)?;
            ctx.memory
                .charge(batch.approximate_bytes() + batch_keys.approximate_bytes())?;
            run.push(RowOrigin::batch(position), batch, batch_keys);
        }
        run.finish(&keys, &physical, &key_physical)
    })
}

impl SortExec {
    pub fn new(input: WorkerInput, keys: Vec<SortKey>, physical: Vec<PhysicalType>) -> SortExec {
        SortExec {
            input,
            keys,
            physical,
            output: None,
        }
    }

    fn run(&mut self, ctx: &ExecContext) -> Result<Vec<Batch>> {
        let runs = self
            .input
            .run(ctx, sort_run(self.keys.clone(), self.physical.clone()))?;
        // The runs' rows, and the sorted copy made from them.
        let bytes: usize = runs.iter().map(|r| r.rows.approximate_bytes()).sum();
        ctx.memory.charge(2 * bytes)?;
        let stretches = match runs.len() {
            1 => 1,
            _ => STRETCHES_PER_WORKER * ctx.parallelism.workers,
        };
        let cuts = Arc::new(cut_runs(&self.keys, &runs, stretches));
        let stretches = cuts.len() - 1;
        let (keys, physical, runs) = (self.keys.clone(), self.physical.clone(), Arc::new(runs));
        let merge: Arc<Task<Vec<Batch>>> = Arc::new(move |s| {
            merge_stretch(&keys, &runs, &cuts[s], &cuts[s + 1], &physical, usize::MAX)
        });
        Ok(run_tasks(ctx.parallelism.workers, stretches, merge)?
            .into_iter()
            .flatten()
            .collect())
    }
}

impl Operator for SortExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.output.is_none() {
            self.output = Some(self.run(ctx)?.into_iter());
        }
        Ok(self.output.as_mut().and_then(Iterator::next))
    }
}
