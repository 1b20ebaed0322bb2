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
//!
//! A worker whose table holds nearly a group per row, past its first morsel, in a hash
//! table (not a direct index: see `ROWS_PER_GROUP_MIN`) stops building it: the merge
//! would redo the whole aggregation. It copies its rows to partitions by the hash of
//! their keys instead (`partitioned_rows.rs`), and each partition task also aggregates the
//! rows of its partition, in a table of a 32nd of the groups that no other task touches;
//! the tables' groups then split by the same hash.
//! PostgreSQL promises no order for a HashAggregate's rows, and neither does this.

use std::sync::Arc;

use super::aggregate::{evaluate_keys, AggregateSpec, GroupTable};
use super::group_keys::Partitioner;
use super::parallel::{
    run_pipeline_counted, run_tasks, run_tasks_in_context, ContextTask, PipelineCounters, Task,
    WorkerStream,
};
use super::partitioned_rows::PartitionedRows;
use super::ExecContext;
use crate::error::Result;
use crate::physical::parallel::{parallel_pipeline, MORSEL_ROWS};
use crate::plan::{LogicalPlan, ScalarExpr};
use crate::vector::Batch;

/// Radix partitions of a partitioned merge: enough for the tasks to share out evenly over
/// the workers, few enough that each stays worth a task.
const MERGE_PARTITIONS: usize = 32;

/// From this many groups over all workers' tables, the merge is partitioned: below it the
/// one-thread merge costs less than hashing every group into its partition. A first
/// guess (bench/scaling.py's group_by has 1,000 groups, the high-cardinality stress query
/// 100K): not yet measured on a quiet machine.
const PARTITIONED_MERGE_GROUPS_MIN: usize = 50_000;

/// From this many rows on (one morsel) a worker judges how well its table reduces them.
const REDUCTION_PROBE_ROWS: usize = MORSEL_ROWS;

/// A worker whose table has fewer rows per group than this partitions its rows instead:
/// its table would hold nearly every group, and the merge redo the aggregation. Not while
/// the table is a direct index: there a local group costs an array read, cheaper than
/// copying the row to its partition (1M rows into 100K groups took 1.6x the CPU that
/// way), so such a worker switches only once its keys outgrow the index.
const ROWS_PER_GROUP_MIN: usize = 4;

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

/// What one worker aggregated: its table, and the rows it partitioned instead once the
/// table proved to reduce them poorly.
struct WorkerPartial {
    table: GroupTable,
    rows: Option<PartitionedRows>,
    rows_seen: usize,
}

impl WorkerPartial {
    fn add(&mut self, spec: &AggregateSpec, batch: &Batch, ctx: &ExecContext) -> Result<()> {
        if let Some(rows) = &mut self.rows {
            return rows.add(batch, &evaluate_keys(spec, batch, ctx)?, ctx);
        }
        self.table.add_batch(spec, batch, ctx)?;
        self.rows_seen += batch.len();
        let poor_reduction = self.rows_seen >= REDUCTION_PROBE_ROWS
            && self.table.groups.len() * ROWS_PER_GROUP_MIN > self.rows_seen;
        if poor_reduction && !self.table.groups.is_direct() {
            self.rows = Some(PartitionedRows::new(MERGE_PARTITIONS));
        }
        Ok(())
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
    let partials = run_pipeline_counted(
        ctx,
        plan,
        counters,
        Arc::new(move |stream: &mut WorkerStream, worker: &ExecContext| {
            let mut partial = WorkerPartial {
                table: GroupTable::new(&worker_spec, worker)?,
                rows: None,
                rows_seen: 0,
            };
            while let Some((_, batch)) = stream.next_batch()? {
                partial.add(&worker_spec, &batch, worker)?;
            }
            partial.table.size_states();
            Ok(partial)
        }),
    )?;
    let groups: usize = partials.iter().map(|p| p.table.groups.len()).sum();
    let partitioned_rows = partials.iter().any(|p| p.rows.is_some());
    let (mut tables, rows): (Vec<GroupTable>, Vec<Option<PartitionedRows>>) =
        partials.into_iter().map(|p| (p.table, p.rows)).unzip();
    if partitioned_rows || (groups >= PARTITIONED_MERGE_GROUPS_MIN && tables.len() > 1) {
        let rows = rows
            .into_iter()
            .flatten()
            .map(PartitionedRows::finish)
            .collect::<Result<_>>()?;
        return merge_partitioned(ctx, tables, rows, spec);
    }
    // Into the largest table: the fewest groups to insert.
    let largest = (0..tables.len()).max_by_key(|&i| tables[i].groups.len());
    let Some(mut merged) = largest.map(|i| tables.swap_remove(i)) else {
        return GroupTable::new(spec, ctx)?.finish(spec);
    };
    for table in &tables {
        ctx.check_cancelled()?;
        let all: Vec<u32> = (0..table.groups.len() as u32).collect();
        merged.merge(table, &all)?;
    }
    merged.finish(spec)
}

/// Merges and finishes each partition of the workers' tables, and aggregates the rows
/// workers partitioned (`rows`: per worker, per partition), as a task per partition.
fn merge_partitioned(
    ctx: &ExecContext,
    tables: Vec<GroupTable>,
    rows: Vec<Vec<Vec<Batch>>>,
    spec: &Arc<AggregateSpec>,
) -> Result<Vec<Batch>> {
    // Rows were split by hash: the tables' groups must split alike.
    let partitioner = Arc::new(if rows.is_empty() {
        Partitioner::new(tables.iter().map(|t| &t.groups), MERGE_PARTITIONS)
    } else {
        Partitioner::Hash {
            count: MERGE_PARTITIONS,
        }
    });
    let tables = Arc::new(tables);
    // Each worker's table split into partitions, by as many tasks.
    let (split_tables, split_by) = (Arc::clone(&tables), Arc::clone(&partitioner));
    let split: Arc<Task<Vec<Vec<u32>>>> =
        Arc::new(move |t| split_tables[t].groups.partitions(&split_by));
    let partition_groups = run_tasks(ctx.parallelism.workers, tables.len(), split)?;
    let spec = Arc::clone(spec);
    let merge: Arc<ContextTask<Vec<Batch>>> = Arc::new(move |p, ctx| {
        let mut merged = GroupTable::new(&spec, ctx)?;
        let groups = partition_groups.iter().map(|lists| lists[p].len()).sum();
        merged.groups.reserve(&partitioner, p, groups);
        for (table, groups) in tables.iter().zip(&partition_groups) {
            ctx.check_cancelled()?;
            merged.merge(table, &groups[p])?;
        }
        for batch in rows.iter().flat_map(|worker| &worker[p]) {
            ctx.check_cancelled()?;
            merged.add_batch(&spec, batch, ctx)?;
        }
        merged.finish(&spec)
    });
    Ok(run_tasks_in_context(ctx, MERGE_PARTITIONS, merge)?
        .into_iter()
        .flatten()
        .collect())
}
