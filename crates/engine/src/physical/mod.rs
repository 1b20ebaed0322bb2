//! Lowers a logical plan to running operators, choosing an operator for each node: a hash
//! join where the condition has equality keys between the two sides, a nested loop otherwise.

use std::sync::Arc;

use crate::catalog::IndexMethod;
use crate::exec::parallel::{GatherExec, MorselScanExec};
use crate::exec::{distinct_spec, ParallelInput};
use crate::exec::{
    AggregateExec, AggregateSpec, BoxedOperator, DistinctExec, FilterExec, GenerateSeriesExec,
    HashJoinExec, HashJoinSpec, LimitExec, LockRowsExec, LockstepExec, NestedLoopJoinExec,
    OrdinalityExec, ProjectExec, RecursiveCteExec, ScanExec, SetOperationExec, SortExec,
    SystemScanExec, UnnestExec, ValuesExec, WindowExec,
};
use crate::exec::{
    FileScanExec, IndexAccess, IndexLookupExec, InstrumentedExec, KeyProbe, LateralJoinExec,
    NearestProbe, OperatorStats, SharedBuild, SharedCteExec, TopNExec, WorkTableExec, WorkerInput,
};
use crate::files::RowGroupFilter;
use crate::function::TableFunction;
use crate::plan::{JoinKind, LogicalPlan, ScalarExpr};
use crate::storage::DbState;
use crate::types::PhysicalType;

mod nearest;
pub mod parallel;

pub(crate) use nearest::{may_search_hnsw, nearest_probe};
use parallel::{is_gather_point, parallel_aggregate_input};

fn physical_types(plan: &LogicalPlan) -> Vec<PhysicalType> {
    plan.output_types().iter().map(|t| t.physical()).collect()
}

/// The most key values one index lookup probes (the product of its columns' IN lists); a
/// larger product scans and probes a hash set per row instead.
const PROBE_KEYS_MAX: usize = 65_536;

/// `Filter(Scan)` whose predicate pins every column of an index to constants or parameters
/// (`=`, or `IN` a list): lookups in the index instead of a scan, one per key value. A unique
/// key wins (one row per value at most); otherwise every CREATE INDEX index that qualifies
/// goes to the operator, which uses the most selective one for the values it is run with.
pub(crate) fn index_lookup(
    input: &LogicalPlan,
    predicate: &crate::plan::ScalarExpr,
    state: &DbState,
) -> Option<IndexLookupExec> {
    use crate::plan::ScalarExpr;
    let LogicalPlan::Scan {
        table_oid,
        table_name,
        columns,
        ..
    } = input
    else {
        return None;
    };
    let entry = state.tables.get(table_oid)?;
    let conjuncts = predicate.clone().into_conjuncts();
    // (table column, conjunct position, values, type) for each conjunct `column = value` or
    // `column IN (values)`.
    let pinned: Vec<(usize, usize, &[ScalarExpr], crate::types::DataType)> = conjuncts
        .iter()
        .enumerate()
        .filter_map(|(position, conjunct)| {
            let (column, ty, values) = conjunct.pinned_values()?;
            Some((*columns.get(column)?, position, values, ty))
        })
        .collect();
    // The probe of an index over `key_columns`, and the conjuncts it answers.
    let probe = |key_columns: &[usize]| -> Option<(KeyProbe, Vec<usize>)> {
        let found: Vec<_> = key_columns
            .iter()
            .map(|c| pinned.iter().find(|p| p.0 == *c))
            .collect::<Option<_>>()?;
        let keys = found
            .iter()
            .try_fold(1usize, |keys, p| keys.checked_mul(p.2.len()))?;
        if keys > PROBE_KEYS_MAX {
            return None;
        }
        let probe = KeyProbe {
            columns: key_columns.to_vec(),
            values: found.iter().map(|p| (p.2.to_vec(), p.3)).collect(),
        };
        Some((probe, found.iter().map(|p| p.1).collect()))
    };
    let lookup = |access, residual| {
        IndexLookupExec::new(
            *table_oid,
            table_name.clone(),
            columns.clone(),
            access,
            residual,
        )
    };
    let unique = entry
        .schema
        .unique_keys
        .iter()
        .enumerate()
        .find_map(|(key, unique)| Some((key, probe(&unique.columns)?)));
    if let Some((key, (probe, answered))) = unique {
        let rest: Vec<ScalarExpr> = conjuncts
            .into_iter()
            .enumerate()
            .filter(|(i, _)| !answered.contains(i))
            .map(|(_, c)| c)
            .collect();
        return Some(lookup(
            IndexAccess::Unique { key, probe },
            ScalarExpr::conjunction(rest),
        ));
    }
    let probes: Vec<KeyProbe> = entry
        .schema
        .indexes
        .iter()
        .filter(|index| index.serves_lookups() && !matches!(index.method, IndexMethod::Hnsw(_)))
        .filter_map(|index| Some(probe(&index.columns)?.0))
        .collect();
    if probes.is_empty() {
        return None;
    }
    // The whole predicate stays: it is cheap on the rows found, and which index answers
    // which conjuncts is decided only when the operator runs.
    Some(lookup(
        IndexAccess::Secondary(probes),
        Some(predicate.clone()),
    ))
}

/// LIMIT + OFFSET when both are constants small enough for a top-N.
pub(crate) fn top_n_rows(
    limit: &Option<crate::plan::ScalarExpr>,
    offset: &Option<crate::plan::ScalarExpr>,
) -> Option<usize> {
    use crate::plan::ScalarExpr;
    use crate::types::ScalarValue;
    const TOP_N_MAX_ROWS: i64 = 100_000;
    let constant = |e: &Option<ScalarExpr>| match e {
        None => Some(0),
        Some(ScalarExpr::Literal {
            value: ScalarValue::Int64(n),
            ..
        }) if *n >= 0 => Some(*n),
        _ => None,
    };
    let limit = match limit {
        None => return None,
        some => constant(some)?,
    };
    let total = limit.checked_add(constant(offset)?)?;
    (total <= TOP_N_MAX_ROWS).then_some(total as usize)
}

/// The join cache identity of a build side: only plans that read nothing but tables
/// (no parameters, outer rows, subqueries or volatile functions) qualify. A recursive
/// query's working table is not a table: its rows change every round while the stored
/// tables beside it keep their generations.
fn build_cache_key(
    build: &LogicalPlan,
    keys: &[crate::plan::ScalarExpr],
) -> Option<(String, Vec<u32>)> {
    use crate::plan::ScalarExpr;
    let mut cacheable = build.is_deterministic();
    let mut check = |e: &ScalarExpr| {
        e.visit(&mut |x| {
            if matches!(
                x,
                ScalarExpr::Param { .. } | ScalarExpr::OuterColumn { .. } | ScalarExpr::Subquery(_)
            ) {
                cacheable = false;
            }
        })
    };
    let mut reads_work_table = false;
    build.visit_all(&mut |p| {
        reads_work_table |= matches!(p, LogicalPlan::WorkTable { .. });
        p.expressions().into_iter().for_each(&mut check);
    });
    keys.iter().for_each(&mut check);
    let tables = build.tables_read();
    (cacheable && !reads_work_table && !tables.is_empty())
        .then(|| (format!("{build:?}|{keys:?}"), tables))
}

/// How many hash keys a join on `condition` gets (0: a nested loop).
pub fn join_key_count(condition: Option<crate::plan::ScalarExpr>, left_width: usize) -> usize {
    crate::plan::split_condition(condition, left_width)
        .left_keys
        .len()
}

pub fn create_operator(plan: &LogicalPlan, state: &DbState) -> BoxedOperator {
    build(plan, &mut Lowering::new(state, None))
}

/// The operators of `plan` each wrapped to count rows and time, and their statistics in the
/// plan's pre-order (EXPLAIN ANALYZE). A Gather has a slot of its own, before its pipeline's.
pub fn create_instrumented(
    plan: &LogicalPlan,
    state: &DbState,
) -> (BoxedOperator, Vec<Arc<OperatorStats>>) {
    let mut lowering = Lowering::new(state, Some(StatsSlots::default()));
    let operator = build(plan, &mut lowering);
    (
        operator,
        lowering.stats.map(|s| s.slots).unwrap_or_default(),
    )
}

/// A worker's copy of the parallel pipeline `plan` over the batches of one morsel, which
/// its table scan returns; `stats` are the pipeline's shared EXPLAIN ANALYZE counters.
pub(crate) fn create_pipeline_operator(
    plan: &LogicalPlan,
    state: &DbState,
    morsel: Vec<crate::vector::Batch>,
    stats: Option<&[Arc<OperatorStats>]>,
    shared_builds: &[Arc<SharedBuild>],
) -> BoxedOperator {
    let slots = stats.map(|s| StatsSlots {
        slots: s.to_vec(),
        next: 0,
    });
    let mut lowering = Lowering::new(state, slots);
    lowering.morsel = Some(morsel);
    lowering.in_pipeline = true;
    lowering.shared_builds = shared_builds;
    build(plan, &mut lowering)
}

/// What lowering one plan carries along.
struct Lowering<'a> {
    state: &'a DbState,
    stats: Option<StatsSlots>,
    /// A worker's morsel: what the pipeline's table scan returns instead of the table.
    morsel: Option<Vec<crate::vector::Batch>>,
    /// Inside a gathered pipeline, which gets no Gather of its own.
    in_pipeline: bool,
    /// A worker's copy of a pipeline: the build tables its hash joins share with the
    /// other workers', one per join on the probe chain, in pre-order.
    shared_builds: &'a [Arc<SharedBuild>],
    /// Not inside the build side of a hash join of the pipeline.
    on_probe_chain: bool,
}

impl<'a> Lowering<'a> {
    fn new(state: &'a DbState, stats: Option<StatsSlots>) -> Lowering<'a> {
        Lowering {
            state,
            stats,
            morsel: None,
            in_pipeline: false,
            shared_builds: &[],
            on_probe_chain: true,
        }
    }

    /// The shared build table of the next hash join on a worker's probe chain.
    fn shared_build(&mut self) -> Option<Arc<SharedBuild>> {
        if !self.on_probe_chain {
            return None;
        }
        let (first, rest) = self.shared_builds.split_first()?;
        self.shared_builds = rest;
        Some(first.clone())
    }

    /// The next operator's EXPLAIN ANALYZE counters, when they are collected.
    fn stats_slot(&mut self) -> Option<Arc<OperatorStats>> {
        self.stats.as_mut().map(StatsSlots::next_slot)
    }
}

/// EXPLAIN ANALYZE's counters in the plan's pre-order: made as the operators are built,
/// or handed out again to each worker's copy of a pipeline, so they sum over workers.
#[derive(Default)]
struct StatsSlots {
    slots: Vec<Arc<OperatorStats>>,
    next: usize,
}

impl StatsSlots {
    fn next_slot(&mut self) -> Arc<OperatorStats> {
        if self.next == self.slots.len() {
            self.slots.push(Arc::default());
        }
        self.next += 1;
        self.slots[self.next - 1].clone()
    }
}

#[recursive::recursive]
fn build(plan: &LogicalPlan, lowering: &mut Lowering) -> BoxedOperator {
    let node_stats = lowering.stats_slot();
    let operator = if !lowering.in_pipeline && is_gather_point(plan, lowering.state) {
        gather(plan, lowering, node_stats.clone())
    } else {
        build_node(plan, lowering)
    };
    instrument(operator, node_stats)
}

/// The input of a constant LIMIT of `k` rows (OFFSET included): a Sort under it, through
/// projections (which keep rows as they come), keeps the best `k` rows only, and reads them
/// from an hnsw index when one answers its order. Each node takes its statistics slot in
/// plan order, as EXPLAIN walks it.
fn build_top_n(plan: &LogicalPlan, k: usize, lowering: &mut Lowering) -> BoxedOperator {
    match plan {
        LogicalPlan::Project { input, exprs } => {
            let node_stats = lowering.stats_slot();
            let input_operator = build_top_n(input, k, lowering);
            instrument(
                Box::new(ProjectExec::new(input_operator, exprs.clone())),
                node_stats,
            )
        }
        LogicalPlan::Sort {
            input: sorted,
            keys,
        } => {
            let node_stats = lowering.stats_slot();
            // An index search runs on the calling thread; anything else may run on the workers.
            let sorted_operator = match nearest_probe(sorted, keys, k, lowering.state) {
                Some((probe, _)) => {
                    WorkerInput::new(build_nearest(sorted, probe, lowering), None, None)
                }
                None => worker_input(sorted, lowering),
            };
            let top_n = TopNExec::new(sorted_operator, keys.clone(), physical_types(sorted), k);
            instrument(Box::new(top_n), node_stats)
        }
        _ => build(plan, lowering),
    }
}

/// `plan`, projections and filters over a scan, with the scan replaced by `probe`'s search.
fn build_nearest(
    plan: &LogicalPlan,
    probe: NearestProbe,
    lowering: &mut Lowering,
) -> BoxedOperator {
    let node_stats = lowering.stats_slot();
    let operator: BoxedOperator = match plan {
        LogicalPlan::Scan {
            table_oid,
            table_name,
            columns,
            ..
        } => Box::new(IndexLookupExec::new(
            *table_oid,
            table_name.clone(),
            columns.clone(),
            IndexAccess::Nearest(probe),
            None,
        )),
        LogicalPlan::Filter { input, predicate } => Box::new(FilterExec::new(
            build_nearest(input, probe, lowering),
            predicate.clone(),
        )),
        LogicalPlan::Project { input, exprs } => Box::new(ProjectExec::new(
            build_nearest(input, probe, lowering),
            exprs.clone(),
        )),
        // nearest_probe only finds scans under filters and projections.
        _ => build_node(plan, lowering),
    };
    instrument(operator, node_stats)
}

fn instrument(operator: BoxedOperator, stats: Option<Arc<OperatorStats>>) -> BoxedOperator {
    match stats {
        Some(node) => Box::new(InstrumentedExec::new(operator, node)),
        None => operator,
    }
}

/// A Gather over the pipeline `plan`, holding the pipeline's serial operators (built here,
/// with their own counters after the Gather's) for when it runs serially.
fn gather(
    plan: &LogicalPlan,
    lowering: &mut Lowering,
    gather_stats: Option<Arc<OperatorStats>>,
) -> BoxedOperator {
    let first_slot = lowering.stats.as_ref().map_or(0, |s| s.next);
    lowering.in_pipeline = true;
    let serial = build(plan, lowering);
    lowering.in_pipeline = false;
    let stats = gather_stats.zip(
        lowering
            .stats
            .as_ref()
            .map(|s| Arc::from(&s.slots[first_slot..s.next])),
    );
    Box::new(GatherExec::new(plan.clone(), serial, stats))
}

/// The input pipeline of an aggregate that may run on the workers: its serial operators,
/// without a Gather (run serially, it would run serially too, since both ask the same
/// parallel_pipeline), and the pipeline with EXPLAIN ANALYZE's counters of the aggregate
/// (the node being built, whose slot was taken last) and of the pipeline's operators.
fn aggregate_pipeline(
    pipeline: &LogicalPlan,
    lowering: &mut Lowering,
) -> (BoxedOperator, ParallelInput) {
    let own = lowering
        .stats
        .as_ref()
        .and_then(|s| s.slots.get(s.next.checked_sub(1)?).cloned());
    let first_slot = lowering.stats.as_ref().map_or(0, |s| s.next);
    let in_pipeline = lowering.in_pipeline;
    lowering.in_pipeline = true;
    let serial = build(pipeline, lowering);
    lowering.in_pipeline = in_pipeline;
    let pipeline_stats = lowering
        .stats
        .as_ref()
        .map(|s| Arc::from(&s.slots[first_slot..s.next]));
    let parallel = ParallelInput {
        plan: pipeline.clone(),
        counters: own.zip(pipeline_stats),
    };
    (serial, parallel)
}

/// The input of an operator that runs its own work on every worker (a sort's runs, a
/// top-N's best rows, a hash join's build rows): its serial operators, and its plan when it
/// is a parallel-safe pipeline.
fn worker_input(input: &LogicalPlan, lowering: &mut Lowering) -> WorkerInput {
    worker_input_built(input, lowering, |lowering| build(input, lowering))
}

/// [`worker_input`] with the serial operators made by `build_serial`, and EXPLAIN ANALYZE's
/// counters of the Gather over the pipeline (its slot is taken first) and of the pipeline's
/// operators, which the workers' copies count in when they run the pipeline instead.
fn worker_input_built(
    input: &LogicalPlan,
    lowering: &mut Lowering,
    build_serial: impl FnOnce(&mut Lowering) -> BoxedOperator,
) -> WorkerInput {
    let pipeline = worker_pipeline(input, lowering);
    let gathered = pipeline.is_some() && !matches!(input, LogicalPlan::Scan { .. });
    let first_slot = lowering.stats.as_ref().map_or(0, |s| s.next);
    let serial = build_serial(lowering);
    let counters = lowering.stats.as_ref().map(|s| {
        let slots = &s.slots[first_slot..s.next];
        match (gathered, slots.split_first()) {
            (true, Some((gather, pipeline))) => (gather.clone(), Arc::from(pipeline)),
            // A bare scan has no Gather to show what the workers launched.
            _ => (Arc::default(), Arc::from(slots)),
        }
    });
    WorkerInput::new(serial, pipeline, counters)
}

/// `input`'s plan when it is a parallel-safe pipeline outside a worker's copy of one.
fn worker_pipeline(input: &LogicalPlan, lowering: &Lowering) -> Option<Arc<LogicalPlan>> {
    let pipeline = !lowering.in_pipeline
        && (matches!(input, LogicalPlan::Scan { .. }) || is_gather_point(input, lowering.state));
    pipeline.then(|| Arc::new(input.clone()))
}

fn build_node(plan: &LogicalPlan, lowering: &mut Lowering) -> BoxedOperator {
    let state = lowering.state;
    if let (LogicalPlan::Scan { .. }, true) = (plan, lowering.on_probe_chain) {
        if let Some(morsel) = lowering.morsel.take() {
            return Box::new(MorselScanExec::new(morsel));
        }
    }
    let mut create_operator = |p: &LogicalPlan| build(p, lowering);
    match plan {
        LogicalPlan::Scan {
            table_oid,
            table_name,
            columns,
            ..
        } => Box::new(ScanExec::new(
            *table_oid,
            table_name.clone(),
            columns.clone(),
        )),
        LogicalPlan::Values { rows, types } => {
            Box::new(ValuesExec::new(Arc::clone(rows), types.clone()))
        }
        LogicalPlan::SystemScan { relation, types } => {
            Box::new(SystemScanExec::new(relation, types.clone()))
        }
        LogicalPlan::Filter { input, predicate } => match index_lookup(input, predicate, state) {
            Some(lookup) => Box::new(lookup),
            None => {
                let input_operator = match &**input {
                    LogicalPlan::FileScan {
                        source, columns, ..
                    } => Box::new(FileScanExec::new(
                        Arc::clone(source),
                        columns.clone(),
                        row_group_filter(predicate, columns),
                    )),
                    _ => create_operator(input),
                };
                Box::new(FilterExec::new(input_operator, predicate.clone()))
            }
        },
        LogicalPlan::FileScan {
            source, columns, ..
        } => Box::new(FileScanExec::new(
            Arc::clone(source),
            columns.clone(),
            RowGroupFilter::default(),
        )),
        LogicalPlan::Project { input, exprs } => {
            Box::new(ProjectExec::new(create_operator(input), exprs.clone()))
        }
        LogicalPlan::Aggregate {
            input,
            group_by,
            aggregates,
            grouping_sets,
            grouping_calls,
        } => {
            let spec = AggregateSpec {
                group_by: group_by.clone(),
                aggregates: aggregates.clone(),
                grouping_sets: grouping_sets.clone(),
                grouping_calls: grouping_calls.clone(),
            };
            let Some(pipeline) = parallel_aggregate_input(plan, state) else {
                return Box::new(AggregateExec::new(create_operator(input), spec, None));
            };
            let (serial, parallel) = aggregate_pipeline(pipeline, lowering);
            Box::new(AggregateExec::new(serial, spec, Some(parallel)))
        }
        // Each worker sorts a run of its own; the merge is cut into stretches the pool's
        // workers merge and copy out at once (exec/sorted_runs.rs).
        LogicalPlan::Sort { input, keys } => Box::new(SortExec::new(
            worker_input(input, lowering),
            keys.clone(),
            physical_types(input),
        )),
        LogicalPlan::Limit {
            input,
            limit,
            offset,
            ties,
        } => {
            // A top-N would drop the ties, which only come after the k-th row.
            let input_operator = match top_n_rows(limit, offset).filter(|_| ties.is_empty()) {
                Some(k) => build_top_n(input, k, lowering),
                None => build(input, lowering),
            };
            Box::new(LimitExec::new(
                input_operator,
                limit.clone(),
                offset.clone(),
                ties.clone(),
            ))
        }
        LogicalPlan::LockRows {
            input,
            table_oid,
            table_name,
            exclusive,
            wait,
        } => Box::new(LockRowsExec::new(
            create_operator(input),
            *table_oid,
            table_name.clone(),
            *exclusive,
            *wait,
        )),
        LogicalPlan::TableFunction { calls, ordinality } => {
            let mut functions: Vec<BoxedOperator> = calls
                .iter()
                .map(|call| -> BoxedOperator {
                    match call.func {
                        TableFunction::GenerateSeries => {
                            Box::new(GenerateSeriesExec::new(call.args.clone()))
                        }
                        TableFunction::Unnest
                        | TableFunction::RegexpMatches
                        | TableFunction::RegexpSplitToTable => {
                            Box::new(UnnestExec::new(call.func, call.args.clone(), call.ty))
                        }
                    }
                })
                .collect();
            let rows: BoxedOperator = if functions.len() == 1 {
                functions.swap_remove(0)
            } else {
                let types = calls.iter().map(|c| c.ty).collect();
                Box::new(LockstepExec::new(functions, types))
            };
            if *ordinality {
                Box::new(OrdinalityExec::new(rows))
            } else {
                rows
            }
        }
        LogicalPlan::RecursiveCte {
            id,
            base,
            recursive,
            all,
        } => Box::new(RecursiveCteExec::new(
            *id,
            (**base).clone(),
            (**recursive).clone(),
            *all,
        )),
        LogicalPlan::WorkTable { id, .. } => Box::new(WorkTableExec::new(*id)),
        LogicalPlan::LateralJoin {
            left,
            right,
            kind,
            condition,
        } => Box::new(LateralJoinExec::new(
            create_operator(left),
            (**right).clone(),
            physical_types(right),
            *kind,
            condition.clone(),
        )),
        LogicalPlan::SharedCte { id, input } => {
            Box::new(SharedCteExec::new(*id, (**input).clone()))
        }
        LogicalPlan::Window {
            input,
            calls,
            output_order,
        } => Box::new(WindowExec::new(
            create_operator(input),
            calls.clone(),
            output_order.clone(),
            physical_types(input),
        )),
        LogicalPlan::Distinct { input, on } => match parallel_aggregate_input(plan, state) {
            Some(pipeline) => {
                let (serial, parallel) = aggregate_pipeline(pipeline, lowering);
                let spec = distinct_spec(input);
                Box::new(DistinctExec::new(
                    serial,
                    on.clone(),
                    Some((parallel, spec)),
                ))
            }
            None => Box::new(DistinctExec::new(create_operator(input), on.clone(), None)),
        },
        LogicalPlan::SetOperation {
            left,
            right,
            op,
            all,
        } => Box::new(SetOperationExec::new(
            create_operator(left),
            create_operator(right),
            *op,
            *all,
        )),
        LogicalPlan::Join {
            left,
            right,
            kind,
            condition,
        } => {
            let left_width = left.output_types().len();
            let split = crate::plan::split_condition(condition.clone(), left_width);
            let types = (physical_types(left), physical_types(right));
            if split.left_keys.is_empty() {
                Box::new(NestedLoopJoinExec::new(
                    create_operator(left),
                    create_operator(right),
                    types,
                    *kind,
                    condition.clone(),
                ))
            } else {
                let left_is_build = builds_left(left, right, state);
                let shared = lowering.shared_build();
                // Each side's operators built in plan order, as EXPLAIN walks it.
                let build_side = |side: &LogicalPlan, lowering: &mut Lowering| {
                    worker_input_built(side, lowering, |l| build_input(side, l, true))
                };
                let (probe_operator, build_operator) = match left_is_build {
                    true => {
                        let build_operator = build_side(left, lowering);
                        (build_input(right, lowering, false), build_operator)
                    }
                    false => {
                        let probe_operator = build_input(left, lowering, false);
                        (probe_operator, build_side(right, lowering))
                    }
                };
                let kind = probe_kind(*kind, left_is_build);
                // (keys, types, plan) of each side, as probe and build.
                let left_side = (split.left_keys, types.0, left);
                let right_side = (split.right_keys, types.1, right);
                let (probe, build) = match left_is_build {
                    true => (right_side, left_side),
                    false => (left_side, right_side),
                };
                Box::new(HashJoinExec::new(
                    probe_operator,
                    build_operator,
                    HashJoinSpec {
                        probe_keys: probe.0,
                        cache: join_cache_key(&shared, build.2, &build.0),
                        build_keys: build.0,
                        probe_types: probe.1,
                        build_types: build.1,
                        kind,
                        residual: split.residual,
                        build_first: left_is_build,
                        shared,
                    },
                ))
            }
        }
    }
}

/// [`build_cache_key`], once for all the worker copies of a join sharing `shared`.
fn join_cache_key(
    shared: &Option<Arc<SharedBuild>>,
    build: &LogicalPlan,
    keys: &[ScalarExpr],
) -> Option<(String, Vec<u32>)> {
    match shared {
        Some(shared) => shared.cache_key(|| build_cache_key(build, keys)),
        None => build_cache_key(build, keys),
    }
}

/// Whether a hash join hashes its left input: the smaller estimated one.
pub(crate) fn builds_left(left: &LogicalPlan, right: &LogicalPlan, state: &DbState) -> bool {
    crate::optimizer::estimate_rows(left, state) < crate::optimizer::estimate_rows(right, state)
}

/// A hash join's kind seen from its probe side (mirrored when the left input is hashed).
pub(crate) fn probe_kind(kind: JoinKind, left_is_build: bool) -> JoinKind {
    match (kind, left_is_build) {
        (kind, false) => kind,
        (JoinKind::Inner, true) => JoinKind::Inner,
        (JoinKind::Left, true) => JoinKind::Right,
        (JoinKind::Right, true) => JoinKind::Left,
        (JoinKind::Full, true) => JoinKind::Full,
    }
}

/// One input of a hash join; a build side is off the pipeline's probe chain, so the
/// joins inside it hash their own tables.
fn build_input(plan: &LogicalPlan, lowering: &mut Lowering, is_build: bool) -> BoxedOperator {
    let on_probe_chain = lowering.on_probe_chain;
    lowering.on_probe_chain &= !is_build;
    let operator = build(plan, lowering);
    lowering.on_probe_chain = on_probe_chain;
    operator
}

/// The comparisons of a filter over a file scan between one of its columns and a constant,
/// for skipping Parquet row groups whose statistics rule them out (the filter still runs).
fn row_group_filter(predicate: &ScalarExpr, columns: &[usize]) -> RowGroupFilter {
    use crate::plan::CompareOp;
    let mut conjuncts = Vec::new();
    for conjunct in predicate.clone().into_conjuncts() {
        let ScalarExpr::Compare { op, left, right } = conjunct else {
            continue;
        };
        let (column, value, op) = match (&*left, &*right) {
            (ScalarExpr::Column { index, .. }, ScalarExpr::Literal { value, .. }) => {
                (*index, value, op)
            }
            (ScalarExpr::Literal { value, .. }, ScalarExpr::Column { index, .. }) => {
                let flipped = match op {
                    CompareOp::Lt => CompareOp::Gt,
                    CompareOp::LtEq => CompareOp::GtEq,
                    CompareOp::Gt => CompareOp::Lt,
                    CompareOp::GtEq => CompareOp::LtEq,
                    CompareOp::Eq | CompareOp::NotEq => op,
                };
                (*index, value, flipped)
            }
            _ => continue,
        };
        if let Some(&file_column) = columns.get(column) {
            if !value.is_null() {
                conjuncts.push((file_column, op, value.clone()));
            }
        }
    }
    RowGroupFilter { conjuncts }
}
