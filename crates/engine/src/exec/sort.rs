//! Sort: each worker (or the one thread) gathers its share of the input with the keys
//! evaluated once into a sorted run (sorted_runs.rs, on normalized keys from sort_key.rs).
//! A single run is handed out a batch at a time in its order; several are cut into one
//! stretch of the merged order per worker, which the workers merge and copy out at once,
//! so no step of a parallel sort goes through one thread row by row.

use std::sync::Arc;

use super::expression::evaluate;
use super::parallel::{run_tasks, Task};
use super::sorted_runs::{cut_runs, merged_rows, RowOrigin, RunBuilder, RunMerger, SortedRun};
use super::worker_input::Work;
use super::{ExecContext, Operator, WorkerInput};
use crate::error::Result;
use crate::plan::SortKey;
use crate::types::PhysicalType;
use crate::vector::{Batch, BATCH_SIZE};

pub struct SortExec {
    input: WorkerInput,
    keys: Vec<SortKey>,
    physical: Vec<PhysicalType>,
    output: Option<SortedOutput>,
}

/// A sort's rows in order.
enum SortedOutput {
    /// A single run, copied out in order a batch at a time as they are asked for.
    Run { merger: RunMerger, rows: Batch },
    /// The parallel merge's batches.
    Merged(std::vec::IntoIter<Batch>),
}

impl SortedOutput {
    fn next(&mut self) -> Option<Batch> {
        match self {
            SortedOutput::Run { merger, rows } => {
                let order = merger.next_rows(BATCH_SIZE);
                (!order.is_empty()).then(|| rows.gather(&order))
            }
            SortedOutput::Merged(batches) => batches.next(),
        }
    }
}

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
fn sort_run(keys: Vec<SortKey>) -> Arc<Work<SortedRun>> {
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
        let run = run.finish(&keys, &key_physical)?;
        // The normalized keys the merge compares.
        let words = run.normalized.as_ref().map_or(0, |n| n.words.len());
        ctx.memory.charge(words * std::mem::size_of::<u128>())?;
        Ok(run)
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

    fn run(&mut self, ctx: &ExecContext) -> Result<SortedOutput> {
        let runs = self.input.run(ctx, sort_run(self.keys.clone()))?;
        let rows = merged_rows(&runs, &self.physical)?;
        // The concatenated copy, and the sorted one made from it a batch at a time.
        ctx.memory.charge(2 * rows.approximate_bytes())?;
        if runs.len() == 1 {
            let merger = RunMerger::new(self.keys.clone(), runs);
            return Ok(SortedOutput::Run { merger, rows });
        }
        let batches = merge_in_parallel(ctx, self.keys.clone(), runs.into(), rows)?;
        Ok(SortedOutput::Merged(batches.into_iter()))
    }
}

/// The batches of the merge of `runs` (whose rows are `rows`), one stretch of the merged
/// order per worker that sorted a run, put end to end.
fn merge_in_parallel(
    ctx: &ExecContext,
    keys: Vec<SortKey>,
    runs: Arc<[SortedRun]>,
    rows: Batch,
) -> Result<Vec<Batch>> {
    let workers = runs.len();
    let cuts = cut_runs(&keys, &runs, workers);
    let parts = cuts.len();
    let interrupt = ctx.interrupt.clone();
    let merge_part: Arc<Task<Vec<Batch>>> = Arc::new(move |part| {
        let mut merger = RunMerger::over(keys.clone(), runs.clone(), cuts[part].clone());
        let mut batches = Vec::new();
        loop {
            interrupt.check()?;
            let order = merger.next_rows(BATCH_SIZE);
            if order.is_empty() {
                return Ok(batches);
            }
            batches.push(rows.gather(&order));
        }
    });
    let merged = run_tasks(workers, parts, merge_part)?;
    Ok(merged.into_iter().flatten().collect())
}

impl Operator for SortExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.output.is_none() {
            self.output = Some(self.run(ctx)?);
        }
        Ok(self.output.as_mut().and_then(SortedOutput::next))
    }
}
