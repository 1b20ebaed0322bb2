//! Parallel hash aggregation (issue 16): when an aggregate (or a DISTINCT, a GROUP BY of
//! every column without aggregates) reads a parallel-safe pipeline and the partial states
//! of all its calls merge exactly, every worker aggregates the morsels it takes into a
//! [`GroupTable`] of its own, and the tables are folded into one. Anything else (DISTINCT
//! or ORDER BY in a call, grouping sets, float sums, keys whose equal values can differ,
//! such as 1.0 and 1.00) aggregates serially over the pipeline's ordered Gather.
//!
//! Few groups fold into the largest table on the statement's thread. Many groups would
//! make that one thread the bottleneck, so each worker's groups are split into partitions
//! (ranges of a single integer key every table holds in a direct index, read off the index
//! in key order; otherwise a hash of the keys), and each partition is merged, into a table
//! sized for it, and finished apart, one task per partition on the pool; the output is the
//! partitions one after the other.
//! PostgreSQL promises no order for a HashAggregate's rows, and neither does this.

use std::sync::{Arc, Mutex};

use super::aggregate::{AggregateSpec, GroupTable};
use super::group_keys::Partitioner;
use super::parallel::{
    is_pipeline, parallel_pipeline, run_pipeline_counted, run_tasks, PipelineCounters, Task,
    WorkerStream,
};
use super::ExecContext;
use crate::error::{Error, Result};
use crate::function::aggregate::identical_when_equal;
use crate::plan::{LogicalPlan, ScalarExpr};
use crate::storage::DbState;
use crate::vector::Batch;

/// Radix partitions of a partitioned merge: enough for the tasks to share out evenly over
/// the workers, few enough that each stays worth a task.
const MERGE_PARTITIONS: usize = 32;

/// From this many groups over all workers' tables, the merge is partitioned: below it the
/// one-thread merge costs less than hashing every group into its partition. A first
/// guess (bench/scaling.py's group_by has 1,000 groups, the high-cardinality stress query
/// 100K): not yet measured on a quiet machine.
const PARTITIONED_MERGE_GROUPS_MIN: usize = 50_000;

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

/// A DISTINCT as an aggregation: every column of its input a key, no aggregates.
pub fn distinct_spec(input: &LogicalPlan) -> AggregateSpec {
    AggregateSpec {
        group_by: input
            .output_types()
            .into_iter()
            .enumerate()
            .map(|(index, ty)| ScalarExpr::Column { index, ty })
            .collect(),
        aggregates: Vec::new(),
        grouping_sets: Vec::new(),
        grouping_calls: Vec::new(),
    }
}

/// The input pipeline of an aggregate that may run on the workers, and EXPLAIN ANALYZE's
/// counters for it when they are collected.
pub struct ParallelInput {
    pub plan: LogicalPlan,
    pub counters: Option<PipelineCounters>,
}

impl ParallelInput {
    /// The aggregate's output when the session lets the pipeline run in parallel; None to
    /// run it serially.
    pub(super) fn run(
        &self,
        ctx: &ExecContext,
        spec: &Arc<AggregateSpec>,
    ) -> Option<Result<Vec<Batch>>> {
        parallel_pipeline(&self.plan, &ctx.state, &ctx.parallelism)?;
        Some(run_parallel(ctx, &self.plan, spec, self.counters.as_ref()))
    }
}

/// Aggregates the pipeline `plan` on the workers and merges their tables.
fn run_parallel(
    ctx: &ExecContext,
    plan: &LogicalPlan,
    spec: &Arc<AggregateSpec>,
    counters: Option<&PipelineCounters>,
) -> Result<Vec<Batch>> {
    let worker_spec = Arc::clone(spec);
    let mut partials = run_pipeline_counted(
        ctx,
        plan,
        counters,
        Arc::new(move |stream: &mut WorkerStream, worker: &ExecContext| {
            let mut table = GroupTable::new(&worker_spec, worker)?;
            while let Some((_, batch)) = stream.next_batch()? {
                table.add_batch(&worker_spec, &batch, worker)?;
            }
            table.size_states();
            Ok(table)
        }),
    )?;
    let groups: usize = partials.iter().map(|t| t.groups.len()).sum();
    if groups >= PARTITIONED_MERGE_GROUPS_MIN && partials.len() > 1 {
        return merge_partitioned(ctx, partials, spec);
    }
    // Into the largest table: the fewest groups to insert.
    let largest = (0..partials.len()).max_by_key(|&i| partials[i].groups.len());
    let Some(mut merged) = largest.map(|i| partials.swap_remove(i)) else {
        return GroupTable::new(spec, ctx)?.finish(spec);
    };
    for partial in &partials {
        ctx.check_cancelled()?;
        let all: Vec<u32> = (0..partial.groups.len() as u32).collect();
        merged.merge(partial, &all)?;
    }
    merged.finish(spec)
}

/// Merges and finishes each partition of the workers' tables as a task of its own.
fn merge_partitioned(
    ctx: &ExecContext,
    partials: Vec<GroupTable>,
    spec: &Arc<AggregateSpec>,
) -> Result<Vec<Batch>> {
    let workers = ctx.parallelism.workers;
    let partitioner = Arc::new(Partitioner::new(
        partials.iter().map(|t| &t.groups),
        MERGE_PARTITIONS,
    ));
    let partials = Arc::new(partials);
    // Each worker's table split into partitions, by as many tasks.
    let (tables, split_by) = (Arc::clone(&partials), Arc::clone(&partitioner));
    let split: Arc<Task<Vec<Vec<u32>>>> = Arc::new(move |t| tables[t].groups.partitions(&split_by));
    let partition_groups = Arc::new(run_tasks(workers, partials.len(), split)?);
    // The empty tables the partitions merge into, sized for the groups the workers hold,
    // made here since making one needs the statement's context; each task takes its own.
    let targets: Arc<Vec<Mutex<Option<GroupTable>>>> = Arc::new(
        (0..MERGE_PARTITIONS)
            .map(|p| {
                let mut target = GroupTable::new(spec, ctx)?;
                let groups = partition_groups.iter().map(|lists| lists[p].len()).sum();
                target.groups.reserve(&partitioner, p, groups);
                Ok(Mutex::new(Some(target)))
            })
            .collect::<Result<_>>()?,
    );
    let (spec, interrupt) = (Arc::clone(spec), Arc::clone(&ctx.interrupt));
    let merge: Arc<Task<Vec<Batch>>> = Arc::new(move |p| {
        let target = targets[p].lock().ok().and_then(|mut t| t.take());
        let mut merged = target.ok_or_else(|| Error::internal("a merge partition ran twice"))?;
        for (partial, groups) in partials.iter().zip(partition_groups.iter()) {
            interrupt.check()?;
            merged.merge(partial, &groups[p])?;
        }
        merged.finish(&spec)
    });
    Ok(run_tasks(workers, MERGE_PARTITIONS, merge)?
        .into_iter()
        .flatten()
        .collect())
}
