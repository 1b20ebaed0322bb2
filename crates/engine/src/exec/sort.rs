//! Sort: each worker (or the one thread) gathers its share of the input with the keys
//! evaluated once into a sorted run (sorted_runs.rs, on normalized keys from sort_key.rs);
//! the runs' merge then hands the rows out a batch at a time in the serial sort's order.

use std::sync::Arc;

use super::expression::evaluate;
use super::sorted_runs::{RowOrigin, RunBuilder, RunMerger, SortedRun};
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

/// The merged runs of a sort and the rows their order points into.
struct SortedOutput {
    merger: RunMerger,
    rows: Batch,
}

impl SortedOutput {
    fn next(&mut self) -> Option<Batch> {
        let order = self.merger.next_rows(BATCH_SIZE);
        (!order.is_empty()).then(|| self.rows.gather(&order))
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
        run.finish(&keys, &key_physical)
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
        let merger = RunMerger::new(self.keys.clone(), runs);
        let rows = merger.rows(&self.physical)?;
        // The concatenated copy, and the sorted one made from it a batch at a time.
        ctx.memory.charge(2 * rows.approximate_bytes())?;
        Ok(SortedOutput { merger, rows })
    }
}

impl Operator for SortExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.output.is_none() {
            self.output = Some(self.run(ctx)?);
        }
        Ok(self.output.as_mut().and_then(SortedOutput::next))
    }
}
