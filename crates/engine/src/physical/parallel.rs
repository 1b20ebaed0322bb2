//! Which plans run in parallel, a property of the plan that lowering, EXPLAIN and the
//! executor decide alike: the parallel-safe pipelines (a table `Scan` under any
//! `Filter`s, `Project`s and the probe side of inner and left hash joins, whose
//! expressions are the same whichever thread evaluates them), where a Gather goes, the
//! aggregates whose workers' partial states merge exactly, and the session's
//! [`Parallelism`] that decides whether a pipeline is worth its workers.
//! `exec/parallel/` runs what is decided here.

use crate::function::aggregate::identical_when_equal;
use crate::plan::{JoinKind, LogicalPlan, ScalarExpr};
use crate::storage::DbState;

/// How a session lets its statements run in parallel (`max_parallel_workers_per_gather`,
/// `force_parallel_mode`, `kestrel.parallel_min_rows`), as [`crate::exec::ExecContext`]
/// carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parallelism {
    /// Workers a pipeline may run on, the statement's own thread included (1: serial).
    pub workers: usize,
    /// Pipelines reading fewer rows run serially: threads cost more than they save there.
    pub min_rows: u64,
    /// Rows per morsel (a multiple of the chunk size, or 1 when forced).
    pub morsel_rows: usize,
    pub forced: ForceParallel,
}

/// PostgreSQL 15's `force_parallel_mode`: `on` runs every parallel-safe pipeline through
/// the parallel path with one-row morsels, whatever its size; `regress` does the same but
/// EXPLAIN does not show the Gather, so plans print as they do serially.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForceParallel {
    Off,
    On,
    Regress,
}

/// Rows per morsel: eight chunks, enough to make a morsel's hand-out and operator set-up
/// negligible, few enough that the workers of a 100K-row scan share it evenly.
pub const MORSEL_ROWS: usize = 8 * crate::vector::BATCH_SIZE;

impl Parallelism {
    /// One worker, never forced: what statements outside a session and the helpers'
    /// own nested plans run with.
    pub const SERIAL: Parallelism = Parallelism {
        workers: 1,
        min_rows: u64::MAX,
        morsel_rows: MORSEL_ROWS,
        forced: ForceParallel::Off,
    };

    /// From the session's setting values.
    pub fn from_settings(workers_per_gather: usize, min_rows: u64, forced: ForceParallel) -> Self {
        Parallelism {
            workers: workers_per_gather
                .saturating_add(1)
                .min(crate::exec::parallel::pool_threads().max(1)),
            min_rows,
            morsel_rows: match forced {
                ForceParallel::Off => MORSEL_ROWS,
                ForceParallel::On | ForceParallel::Regress => 1,
            },
            forced,
        }
    }
}

/// Whether `plan` is a parallel-safe pipeline (whatever its size).
pub fn is_pipeline(plan: &LogicalPlan, state: &DbState) -> bool {
    match plan {
        LogicalPlan::Scan { .. } => true,
        LogicalPlan::Filter { input, predicate } => {
            // An index lookup answers it better than any number of workers.
            super::index_lookup(input, predicate, state).is_none()
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
pub(crate) struct ProbeJoin<'p> {
    pub(crate) probe: &'p LogicalPlan,
    pub(crate) build: &'p LogicalPlan,
    pub(crate) kind: JoinKind,
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
    if super::join_key_count(condition.clone(), width) == 0 {
        return None;
    }
    let left_is_build = super::builds_left(left, right, state);
    let (probe, build) = match left_is_build {
        true => (right, left),
        false => (left, right),
    };
    Some(ProbeJoin {
        probe,
        build,
        kind: super::probe_kind(*kind, left_is_build),
    })
}

/// The hash joins on a pipeline's probe chain, in pre-order (physical/'s build order).
pub(crate) fn probe_chain_joins<'p>(plan: &'p LogicalPlan, state: &DbState) -> Vec<ProbeJoin<'p>> {
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
pub(crate) fn pipeline_scan<'p>(
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

/// The input of `plan` when `plan` is an aggregate, or a DISTINCT, that can run on the
/// workers: its input is a parallel-safe pipeline, and the partial states of its calls
/// merge into exactly the serial result. Whether it does is decided when it runs, from the
/// session's parallelism.
pub fn parallel_aggregate_input<'a>(
    plan: &'a LogicalPlan,
    state: &DbState,
) -> Option<&'a LogicalPlan> {
    match plan {
        LogicalPlan::Aggregate {
            input,
            group_by,
            aggregates,
            grouping_sets,
            grouping_calls,
        } => {
            let calls_merge = aggregates.iter().all(|call| {
                let arg = call.args.first().map_or(call.ty, |e| e.ty());
                !call.distinct && call.order_by.is_empty() && call.func.merges_exactly(arg)
            });
            let mut evaluated = group_by.iter().chain(
                aggregates
                    .iter()
                    .flat_map(|c| c.args.iter().chain(&c.filter)),
            );
            let mergeable = grouping_sets.is_empty()
                && grouping_calls.is_empty()
                && calls_merge
                && group_by
                    .iter()
                    .all(|key| identical_when_equal(key.ty().physical()))
                && evaluated.all(ScalarExpr::is_parallel_safe);
            (mergeable && is_pipeline(input, state)).then_some(&**input)
        }
        // Which of equal rows DISTINCT keeps is the first one, so only keys whose equal
        // values are the same value; DISTINCT ON keeps the first row of a sorted input.
        LogicalPlan::Distinct { input, on } => {
            let keys_identical = input
                .output_types()
                .iter()
                .all(|ty| identical_when_equal(ty.physical()));
            (on.is_empty() && keys_identical && is_pipeline(input, state)).then_some(&**input)
        }
        _ => None,
    }
}
