//! Sort: each worker (or the one thread) gathers its share of the input with the keys
//! evaluated once; the rows are then sorted in runs of equal sizes, one pool task each
//! (sorted_runs.rs, on normalized keys from sort_key.rs, in one layout for all runs so the
//! merge compares their bytes too). Several runs are cut into
//! stretches of the merged order, which the pool's workers merge and copy out at once, so
//! no step of a parallel sort goes through one thread row by row; the output is the
//! stretches one after the other, in the serial sort's order.

use std::sync::{Arc, Mutex};

use super::expression::evaluate;
use super::parallel::{run_tasks, Task};
use super::sorted_runs::{cut_runs, merge_stretch, RowOrigin, RunBuilder, SortedRun};
use super::worker_input::Work;
use super::{ExecContext, Operator, WorkerInput};
use crate::error::{Error, Result};
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

/// A worker's share of a sort: its batches and their evaluated keys (charged to working
/// memory), to be sorted once every worker is done.
fn collect_run(keys: Vec<SortKey>) -> Arc<Work<RunBuilder>> {
    Arc::new(move |source, ctx| {
        let mut run = RunBuilder::new();
        while let Some((position, batch)) = source()? {
            ctx.check_cancelled()?;
            let batch_keys = evaluate_keys(&keys, &batch, ctx)?;
            ctx.memory
                .charge(batch.approximate_bytes() + batch_keys.approximate_bytes())?;
            run.push(RowOrigin::batch(position), batch, batch_keys);
        }
        Ok(run)
    })
}

/// The collected rows as sorted runs. Rows several workers collected are dealt out again
/// into as many runs of equal row counts, each sorted by its own pool task: the workers
/// rarely scan equal shares, and a worker sorting a longer run keeps the others waiting.
fn sort_runs(
    ctx: &ExecContext,
    collected: Vec<RunBuilder>,
    keys: &[SortKey],
    physical: &[PhysicalType],
) -> Result<Vec<SortedRun>> {
    let key_physical = key_types(keys);
    // One layout for every run, so that the merge compares their encoded keys' bytes.
    let layout = RunBuilder::layout(&collected);
    if collected.len() < 2 {
        return collected
            .into_iter()
            .map(|run| run.finish(&layout, keys, physical, &key_physical))
            .collect();
    }
    let runs = collected.len();
    let pending: Vec<Mutex<Option<RunBuilder>>> = RunBuilder::balance(collected, runs)
        .into_iter()
        .map(|run| Mutex::new(Some(run)))
        .collect();
    let tasks = pending.len();
    let (keys, physical) = (keys.to_vec(), physical.to_vec());
    let sort: Arc<Task<SortedRun>> = Arc::new(move |r| {
        let run = pending[r]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .ok_or_else(|| Error::internal("a sort run was taken twice"))?;
        run.finish(&layout, &keys, &physical, &key_physical)
    });
    run_tasks(ctx.parallelism.workers, tasks, sort)
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
        let collected = self.input.run(ctx, collect_run(self.keys.clone()))?;
        let runs = sort_runs(ctx, collected, &self.keys, &self.physical)?;
        // The runs' rows, the sorted copy made from them, and their encoded keys.
        let bytes: usize = runs.iter().map(|r| r.rows.approximate_bytes()).sum();
        let encoded: usize = runs.iter().map(|r| r.encoded.approximate_bytes()).sum();
        ctx.memory.charge(2 * bytes + encoded)?;
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
