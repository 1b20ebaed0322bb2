//! Sort: gathers the input with its keys evaluated once into a sorted run (sorted_runs.rs,
//! on normalized keys from sort_key.rs), then hands the rows out a batch at a time in the
//! run's order.

use super::expression::evaluate;
use super::sorted_runs::{RowOrigin, RunBuilder, RunMerger};
use super::{BoxedOperator, ExecContext, Operator};
use crate::error::Result;
use crate::plan::SortKey;
use crate::types::PhysicalType;
use crate::vector::{Batch, BATCH_SIZE};

pub struct SortExec {
    input: BoxedOperator,
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

/// Adds `batch` with its evaluated keys to a sort's run, charging both to working memory.
pub(super) fn add_to_run(
    run: &mut RunBuilder,
    keys: &[SortKey],
    origin: RowOrigin,
    batch: Batch,
    ctx: &ExecContext,
) -> Result<()> {
    ctx.check_cancelled()?;
    let keys = evaluate_keys(keys, &batch, ctx)?;
    ctx.memory
        .charge(batch.approximate_bytes() + keys.approximate_bytes())?;
    run.push(origin, batch, keys);
    Ok(())
}

impl SortExec {
    pub fn new(input: BoxedOperator, keys: Vec<SortKey>, physical: Vec<PhysicalType>) -> SortExec {
        SortExec {
            input,
            keys,
            physical,
            output: None,
        }
    }

    fn key_physical(&self) -> Vec<PhysicalType> {
        self.keys.iter().map(|k| k.expr.ty().physical()).collect()
    }

    fn run(&mut self, ctx: &ExecContext) -> Result<SortedOutput> {
        let mut run = RunBuilder::new();
        let mut sequence = 0;
        while let Some(batch) = self.input.next(ctx)? {
            add_to_run(
                &mut run,
                &self.keys,
                RowOrigin::batch(0, sequence),
                batch,
                ctx,
            )?;
            sequence += 1;
        }
        let run = run.finish(&self.keys, &self.physical, &self.key_physical())?;
        // The concatenated copy, and the sorted one made from it a batch at a time.
        ctx.memory.charge(2 * run.rows.approximate_bytes())?;
        let merger = RunMerger::new(self.keys.clone(), vec![run]);
        Ok(SortedOutput {
            rows: merger.rows(&self.physical)?,
            merger,
        })
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
