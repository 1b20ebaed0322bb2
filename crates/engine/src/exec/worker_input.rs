//! The input of an operator that does its own work on every worker (a sort's runs, a
//! top-N's best rows, a hash join's build rows): when the input is a parallel-safe pipeline
//! and the statement may run it in parallel, each worker runs the work over its share of
//! the morsels (`parallel::run_pipeline_counted`); otherwise the work runs once, on this thread,
//! over the serial operators' batches. Either way the work sees each batch with the
//! position a serial scan gives it, so it can restore serial order. EXPLAIN ANALYZE counts
//! the pipeline's rows over every worker either way.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::parallel::{run_pipeline_counted, Consume, MorselPosition, PipelineCounters};
use super::{BoxedOperator, ExecContext};
use crate::error::Result;
use crate::physical::parallel::parallel_pipeline;
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
    /// EXPLAIN ANALYZE's counters of the serial operators when they are collected: those of
    /// the Gather over the pipeline (or of nothing shown, over a bare scan) and of the
    /// pipeline's operators, which the workers' copies count in when they run instead.
    counters: Option<PipelineCounters>,
}

impl WorkerInput {
    pub fn new(
        serial: BoxedOperator,
        pipeline: Option<Arc<LogicalPlan>>,
        counters: Option<PipelineCounters>,
    ) -> WorkerInput {
        WorkerInput {
            serial,
            pipeline,
            counters,
        }
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
                let results = run_pipeline_counted(ctx, plan, self.counters.as_ref(), consume);
                // The Gather the serial plan shows passed on what the pipeline's top returned.
                if let Some((gather, pipeline)) = &self.counters {
                    let rows = pipeline
                        .first()
                        .map_or(0, |top| top.rows.load(Ordering::Relaxed));
                    gather.rows.fetch_add(rows, Ordering::Relaxed);
                }
                return results;
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
