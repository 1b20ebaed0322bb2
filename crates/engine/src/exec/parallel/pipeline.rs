//! Running a parallel pipeline (which plan subtrees are one is decided in
//! `physical/parallel.rs`: a table `Scan` under any `Filter`s, `Project`s and the probe side
//! of inner and left hash joins, whose expressions are the same whichever thread evaluates
//! them; no subqueries, outer rows, volatile or session functions, sequences; no row locks,
//! which are plan nodes of their own). Each worker runs its own copy of the pipeline's operators over each morsel it
//! takes, so nothing in them is shared but read-only data: a join's build side is hashed
//! once, by the first worker to need it and those waiting for it, and probed by all.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::channel;
use std::sync::Arc;

use super::morsel::{MorselDispenser, MorselPosition};
use super::pool::Admission;
use super::worker::WorkerSeed;
use crate::error::{Error, Result, SqlState};
use crate::exec::{BoxedOperator, ExecContext, OperatorStats, SharedBuild};
use crate::physical::parallel::{pipeline_scan, probe_chain_joins};
use crate::plan::{JoinKind, LogicalPlan};
use crate::vector::Batch;

/// EXPLAIN ANALYZE's counters of a pipeline's operators in pre-order, shared by every
/// worker's copy of them, so they sum over workers.
pub type PipelineStats = Arc<[Arc<OperatorStats>]>;

/// EXPLAIN ANALYZE's counters of an operator that runs a pipeline on the workers (a
/// Gather, a parallel aggregate): its own, which count the helpers launched, and its
/// pipeline's.
pub type PipelineCounters = (Arc<OperatorStats>, PipelineStats);

/// One run of a pipeline: its morsels and what every worker reads.
pub(super) struct PipelineRun {
    pub(super) plan: Arc<LogicalPlan>,
    pub(super) dispenser: MorselDispenser,
    pub(super) seed: WorkerSeed,
    stats: Option<PipelineStats>,
    /// Rows the helpers' scans read (the caller counts its own in its context).
    helper_rows: AtomicU64,
    /// The build tables of the hash joins on the probe chain, hashed once for all.
    shared_builds: Vec<Arc<SharedBuild>>,
}

impl PipelineRun {
    pub(super) fn start(
        ctx: &ExecContext,
        plan: Arc<LogicalPlan>,
        stats: Option<PipelineStats>,
    ) -> Result<PipelineRun> {
        let Some((table_oid, table_name, columns)) = pipeline_scan(&plan, &ctx.state) else {
            return Err(Error::new(
                SqlState::InternalError,
                "a parallel pipeline must read a table",
            ));
        };
        let joins = probe_chain_joins(&plan, &ctx.state);
        // A LEFT join pads a probe batch's unmatched rows after its matches: whole chunks
        // as morsels keep the serial batches, hence the serial order.
        let pads = joins.iter().any(|j| j.kind == JoinKind::Left);
        let morsel_rows = match pads {
            true => ctx.parallelism.morsel_rows.max(crate::vector::BATCH_SIZE),
            false => ctx.parallelism.morsel_rows,
        };
        let shared_builds = joins
            .iter()
            .map(|_| Arc::new(SharedBuild::new(ctx.parallelism.workers)))
            .collect();
        let dispenser =
            MorselDispenser::new(ctx, table_oid, table_name, columns.to_vec(), morsel_rows)?;
        Ok(PipelineRun {
            dispenser,
            seed: WorkerSeed::of(ctx),
            stats,
            helper_rows: AtomicU64::new(0),
            shared_builds,
            plan,
        })
    }

    /// Adds what a helper's scans read to the statement's count (see `rows_read`).
    pub(super) fn count_helper_rows(&self, worker: &ExecContext) {
        self.helper_rows
            .fetch_add(worker.rows_read.replace(0), Ordering::Relaxed);
    }

    pub(super) fn add_helper_rows_to(&self, ctx: &ExecContext) {
        let rows = self.helper_rows.swap(0, Ordering::Relaxed);
        ctx.rows_read.set(ctx.rows_read.get() + rows);
    }
}

/// One worker's side of a pipeline run: the batches its copy of the pipeline yields over
/// the morsels it takes, each with its position.
pub struct WorkerStream<'a> {
    run: &'a PipelineRun,
    ctx: &'a ExecContext,
    /// The morsel being run and the operators running it.
    current: Option<(u64, BoxedOperator)>,
    seq: u32,
    /// The last morsel taken: where an error of the consumer is placed.
    last_morsel: u64,
}

impl<'a> WorkerStream<'a> {
    pub(super) fn new(run: &'a PipelineRun, ctx: &'a ExecContext) -> WorkerStream<'a> {
        WorkerStream {
            run,
            ctx,
            current: None,
            seq: 0,
            last_morsel: u64::MAX,
        }
    }

    /// The next non-empty batch and its position, or None when no morsel is left.
    pub fn next_batch(&mut self) -> Result<Option<(MorselPosition, Batch)>> {
        loop {
            if let Some((morsel, operator)) = &mut self.current {
                match operator.next(self.ctx) {
                    Ok(Some(batch)) if batch.is_empty() => continue,
                    Ok(Some(batch)) => {
                        let position = MorselPosition {
                            morsel: *morsel,
                            seq: self.seq,
                        };
                        self.seq += 1;
                        return Ok(Some((position, batch)));
                    }
                    Ok(None) => self.current = None,
                    Err(error) => {
                        self.run.dispenser.stop_after(*morsel);
                        return Err(error);
                    }
                }
            }
            let Some(morsel) = self.run.dispenser.take() else {
                return Ok(None);
            };
            self.last_morsel = morsel;
            let operator = self.start_morsel(morsel).inspect_err(|_| {
                self.run.dispenser.stop_after(morsel);
            })?;
            self.current = Some((morsel, operator));
            self.seq = 0;
        }
    }

    fn start_morsel(&self, morsel: u64) -> Result<BoxedOperator> {
        let batches = self.run.dispenser.read(morsel, self.ctx)?;
        Ok(crate::physical::create_pipeline_operator(
            &self.run.plan,
            &self.ctx.state,
            batches,
            self.run.stats.as_deref(),
            &self.run.shared_builds,
        ))
    }

    /// The whole output of morsel `morsel` (taken from the dispenser), for an
    /// order-preserving consumer.
    pub(super) fn run_morsel(&mut self, morsel: u64) -> Result<Vec<Batch>> {
        let output = || -> Result<Vec<Batch>> {
            let mut operator = self.start_morsel(morsel)?;
            let mut batches = Vec::new();
            while let Some(batch) = operator.next(self.ctx)? {
                if !batch.is_empty() {
                    batches.push(batch);
                }
            }
            Ok(batches)
        };
        output().inspect_err(|_| self.run.dispenser.stop_after(morsel))
    }
}

/// What a worker does with its stream (a thread-local aggregate, a sorted run, ...); the
/// context is the worker's own.
pub type Consume<T> = dyn Fn(&mut WorkerStream, &ExecContext) -> Result<T> + Send + Sync;

/// Runs the parallel-safe pipeline `plan` on up to ctx's degree of workers (the caller is
/// one); each worker gets its own ExecContext and a stream of (position, batch); returns
/// one T per worker that ran. The error reported is the one of the earliest morsel, as
/// serial execution would meet it first. With `counters`, EXPLAIN ANALYZE counts the rows
/// of the pipeline's operators over every worker and the helpers launched.
pub fn run_pipeline_counted<T: Send + 'static>(
    ctx: &ExecContext,
    plan: &LogicalPlan,
    counters: Option<&PipelineCounters>,
    consume: Arc<Consume<T>>,
) -> Result<Vec<T>> {
    let pipeline_stats = counters.map(|(_, stats)| stats.clone());
    let run = Arc::new(PipelineRun::start(
        ctx,
        Arc::new(plan.clone()),
        pipeline_stats,
    )?);
    let mut admission = Admission::request(ctx.parallelism.workers.saturating_sub(1));
    if let Some((operator, _)) = counters {
        let helpers = admission.helpers() as u64;
        operator.workers.fetch_add(helpers, Ordering::Relaxed);
    }
    let (sender, receiver) = channel();
    for _ in 0..admission.helpers() {
        let (run, consume, sender) = (run.clone(), consume.clone(), sender.clone());
        admission.spawn(move || {
            let worker = run.seed.context();
            let mut stream = WorkerStream::new(&run, &worker);
            let result = catch_unwind(AssertUnwindSafe(|| consume(&mut stream, &worker)))
                .unwrap_or_else(|_| Err(worker_panicked()));
            let at = stream.last_morsel;
            run.count_helper_rows(&worker);
            let _ = sender.send((at, result));
        });
    }
    drop(sender);
    let mut stream = WorkerStream::new(&run, ctx);
    let own = consume(&mut stream, ctx);
    let mut results = vec![(stream.last_morsel, own)];
    if results[0].1.is_err() {
        run.dispenser.stop_after(results[0].0);
    }
    results.extend(receiver.iter());
    drop(admission);
    run.add_helper_rows_to(ctx);
    let first_error = results
        .iter()
        .enumerate()
        .filter(|(_, (_, r))| r.is_err())
        .min_by_key(|(_, (at, _))| *at)
        .map(|(i, _)| i);
    if let Some(index) = first_error {
        if let (_, Err(error)) = results.swap_remove(index) {
            return Err(error);
        }
    }
    Ok(results.into_iter().filter_map(|(_, r)| r.ok()).collect())
}

/// A helper's panic, reported as the statement's internal error (the helper lives on).
pub(super) fn worker_panicked() -> Error {
    Error::new(SqlState::InternalError, "a parallel worker panicked")
}
