//! The input of an operator that does its own work on every worker (a sort's runs, a
//! top-N's best rows, a hash join's build rows): when the input is a parallel-safe pipeline
//! and the statement may run it in parallel, each worker runs the work over its share of
//! the morsels (`parallel::run_pipeline`); otherwise the work runs once, on this thread,
//! over the serial operators' batches. Either way the work sees each batch with the
//! position a serial scan gives it, so it can restore serial order.

use std::sync::Arc;

use super::parallel::{parallel_pipeline, run_pipeline, Consume, MorselPosition};
use super::{BoxedOperator, ExecContext};
use crate::error::Result;
use crate::plan::LogicalPlan;
use crate::vector::Batch;

/// The next batch of a worker's share of the input with its position, None at the end.
pub type BatchSource<'a> = dyn FnMut() -> Result<Option<(MorselPosition, Batch)>> + 'a;

/// What each worker does with its share; the context is the worker's own.
pub type Work<T> = dyn Fn(&mut BatchSource, &ExecContext) -> Result<T> + Send + Sync;

pub struct WorkerInput {
    serial: BoxedOperator,
    /// The input's plan when it is a parallel-safe pipeline.
    pipeline: Option<Arc<LogicalPlan>>,
}

impl WorkerInput {
    pub fn new(serial: BoxedOperator, pipeline: Option<Arc<LogicalPlan>>) -> WorkerInput {
        WorkerInput { serial, pipeline }
    }

    /// Runs `work` over the input: one result per worker that ran (one when serial).
    pub fn run<T: Send + 'static>(
        &mut self,
        ctx: &ExecContext,
        work: Arc<Work<T>>,
    ) -> Result<Vec<T>> {
        if let Some(plan) = &self.pipeline {
            if parallel_pipeline(plan, &ctx.state, &ctx.parallelism).is_some() {
                let consume: Arc<Consume<T>> =
                    Arc::new(move |stream, worker| work(&mut || stream.next_batch(), worker));
                return run_pipeline(ctx, plan, consume);
            }
        }
        let serial = &mut self.serial;
        let mut seq = 0;
        let mut source = || -> Result<Option<(MorselPosition, Batch)>> {
            let Some(batch) = serial.next(ctx)? else {
                return Ok(None);
            };
            let position = MorselPosition { morsel: 0, seq };
            seq += 1;
            Ok(Some((position, batch)))
        };
        Ok(vec![work(&mut source, ctx)?])
    }
}
