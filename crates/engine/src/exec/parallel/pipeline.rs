//! Which plan subtrees run as a parallel pipeline, and running one: a table `Scan` under
//! any `Filter`s, `Project`s and the probe side of inner and left hash joins, whose
//! expressions are the same whichever thread evaluates them (no subqueries, outer rows,
//! volatile or session functions, sequences; no row locks, which are plan nodes of their
//! own). Each worker runs its own copy of the pipeline's operators over each morsel it
//! takes, so nothing in them is shared but read-only data: a join's build side is hashed
//! once, by the first worker to need it and those waiting for it, and probed by all.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::channel;
use std::sync::Arc;

use super::morsel::{MorselDispenser, MorselPosition};
use super::pool::Admission;
use super::worker::WorkerSeed;
use super::{ForceParallel, Parallelism};
use crate::error::{Error, Result, SqlState};
use crate::exec::{BoxedOperator, ExecContext, OperatorStats, SharedBuild};
use crate::plan::{JoinKind, LogicalPlan, ScalarExpr};
use crate::storage::DbState;
use crate::vector::Batch;

/// Whether `plan` is a parallel-safe pipeline (whatever its size).
pub fn is_pipeline(plan: &LogicalPlan, state: &DbState) -> bool {
    match plan {
        LogicalPlan::Scan { .. } => true,
        LogicalPlan::Filter { input, predicate } => {
            // An index lookup answers it better than any number of workers.
            crate::physical::index_lookup(input, predicate, state).is_none()
                && predicate.is_parallel_safe()
                && is_pipeline(input, state)
        }
        LogicalPlan::Project { input, exprs } => {
            exprs.iter().all(ScalarExpr::is_parallel_safe) && is_pipeline(input, state)
        }
        LogicalPlan::Join { condition, .. } => match probe_join(plan, state) {
            // Each probe row's output depends on that row alone (no RIGHT/FULL padding of
            // build rows no worker matched), and any worker may hash the build side.
            Some(join) => {
                matches!(join.kind, JoinKind::Inner | JoinKind::Left)
                    && condition.as_ref().is_none_or(ScalarExpr::is_parallel_safe)
                    && self_contained(join.build)
                    && is_pipeline(join.probe, state)
            }
            None => false,
        },
        _ => false,
    }
}

/// A plan any worker can run from the statement's shared context: nothing that reads what
/// only the statement's own context holds (outer rows, subquery results, CTE rows, the
/// session's cursors) or changes the session.
fn self_contained(plan: &LogicalPlan) -> bool {
    let mut contained = true;
    plan.visit_all(&mut |p| {
        contained &= !matches!(
            p,
            LogicalPlan::WorkTable { .. }
                | LogicalPlan::SharedCte { .. }
                | LogicalPlan::RecursiveCte { .. }
                | LogicalPlan::SystemScan { .. }
                | LogicalPlan::LockRows { .. }
                | LogicalPlan::LateralJoin { .. }
        ) && p
            .expressions()
            .into_iter()
            .all(ScalarExpr::is_parallel_safe);
    });
    contained
}

/// A hash join of a pipeline: its probe and build inputs, and its kind seen from the probe.
struct ProbeJoin<'p> {
    probe: &'p LogicalPlan,
    build: &'p LogicalPlan,
    kind: JoinKind,
}

/// `plan`'s inputs as physical/ runs it, when it is a hash join (equality keys).
fn probe_join<'p>(plan: &'p LogicalPlan, state: &DbState) -> Option<ProbeJoin<'p>> {
    let LogicalPlan::Join {
        left,
        right,
        kind,
        condition,
    } = plan
    else {
        return None;
    };
    let width = left.output_types().len();
    if crate::physical::join_key_count(condition.clone(), width) == 0 {
        return None;
    }
    let left_is_build = crate::physical::builds_left(left, right, state);
    let (probe, build) = match left_is_build {
        true => (right, left),
        false => (left, right),
    };
    Some(ProbeJoin {
        probe,
        build,
        kind: crate::physical::probe_kind(*kind, left_is_build),
    })
}

/// The hash joins on a pipeline's probe chain, in pre-order (physical/'s build order).
fn probe_chain_joins<'p>(plan: &'p LogicalPlan, state: &DbState) -> Vec<ProbeJoin<'p>> {
    match plan {
        LogicalPlan::Filter { input, .. } | LogicalPlan::Project { input, .. } => {
            probe_chain_joins(input, state)
        }
        LogicalPlan::Join { .. } => match probe_join(plan, state) {
            Some(join) => {
                let below = probe_chain_joins(join.probe, state);
                std::iter::once(join).chain(below).collect()
            }
            None => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// Whether the physical plan puts a Gather over `plan`: a pipeline that computes something
/// (a bare scan only hands out shared chunks, which one thread does as fast).
pub fn is_gather_point(plan: &LogicalPlan, state: &DbState) -> bool {
    !matches!(plan, LogicalPlan::Scan { .. }) && is_pipeline(plan, state)
}

/// Some(estimated input rows) when `plan` is a parallel-safe pipeline and the session
/// allows parallelism for it (more than one worker and at least `min_rows` rows, or
/// force_parallel_mode on); None otherwise.
pub fn parallel_pipeline(
    plan: &LogicalPlan,
    state: &DbState,
    parallelism: &Parallelism,
) -> Option<usize> {
    if !is_pipeline(plan, state) {
        return None;
    }
    let (table_oid, _, _) = pipeline_scan(plan, state)?;
    let rows = state
        .tables
        .get(&table_oid)
        .map_or(0, |t| t.data.live_rows());
    let allowed = match parallelism.forced {
        ForceParallel::On | ForceParallel::Regress => true,
        ForceParallel::Off => parallelism.workers > 1 && rows as u64 >= parallelism.min_rows,
    };
    allowed.then_some(rows)
}

/// The table scan at the bottom of a pipeline's probe chain: its table, name and columns.
fn pipeline_scan<'p>(
    plan: &'p LogicalPlan,
    state: &DbState,
) -> Option<(u32, &'p str, &'p [usize])> {
    match plan {
        LogicalPlan::Scan {
            table_oid,
            table_name,
            columns,
            ..
        } => Some((*table_oid, table_name, columns)),
        LogicalPlan::Filter { input, .. } | LogicalPlan::Project { input, .. } => {
            pipeline_scan(input, state)
        }
        LogicalPlan::Join { .. } => pipeline_scan(probe_join(plan, state)?.probe, state),
        _ => None,
    }
}

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
