//! Parallel hash aggregation (issue 16): when an aggregate reads a parallel-safe pipeline
//! and the partial states of all its calls merge exactly, every worker aggregates the
//! morsels it takes into a [`GroupTable`] of its own, and the tables are folded into one.
//! The merged groups are then put in the order serial execution creates them (by the
//! position of the batch that brought each group first), so the result, and even its row
//! order, are the serial ones. Anything else (DISTINCT or ORDER BY in a call, grouping
//! sets, float sums, keys whose equal values can differ, such as 1.0 and 1.00) aggregates
//! serially over the pipeline's ordered Gather.

use std::sync::Arc;

use super::aggregate::{AggregateSpec, GroupTable};
use super::parallel::{is_pipeline, run_pipeline, MorselPosition, WorkerStream};
use super::ExecContext;
use crate::error::Result;
use crate::function::aggregate::identical_when_equal;
use crate::plan::{LogicalPlan, ScalarExpr};
use crate::storage::DbState;
use crate::vector::Batch;

/// The input of `plan` when `plan` is an aggregate that can run on the workers: its input
/// is a parallel-safe pipeline, and the partial states of its calls merge into exactly the
/// serial result. Whether it does is decided when it runs, from the session's parallelism.
pub fn parallel_aggregate_input<'a>(
    plan: &'a LogicalPlan,
    state: &DbState,
) -> Option<&'a LogicalPlan> {
    let LogicalPlan::Aggregate {
        input,
        group_by,
        aggregates,
        grouping_sets,
        grouping_calls,
    } = plan
    else {
        return None;
    };
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

/// One worker's partial aggregate, with where each of its groups first appeared: the
/// position of the batch, then the group's id (ids grow in row order within a batch, and
/// one batch is one worker's, so the pair orders groups as serial execution creates them).
struct Partial {
    table: GroupTable,
    first_seen: Vec<(MorselPosition, u32)>,
}

/// Aggregates the pipeline `plan` on the workers and merges their tables.
pub(super) fn run_parallel(
    ctx: &ExecContext,
    plan: &LogicalPlan,
    spec: &Arc<AggregateSpec>,
) -> Result<Vec<Batch>> {
    let worker_spec = Arc::clone(spec);
    let mut partials = run_pipeline(
        ctx,
        plan,
        Arc::new(move |stream: &mut WorkerStream, worker: &ExecContext| {
            let mut table = GroupTable::new(&worker_spec, worker)?;
            // The group of a set without keys exists before any row.
            let start = MorselPosition { morsel: 0, seq: 0 };
            let mut first_seen: Vec<(MorselPosition, u32)> =
                (0..table.groups.len() as u32).map(|g| (start, g)).collect();
            while let Some((position, batch)) = stream.next_batch()? {
                table.add_batch(&worker_spec, &batch, worker)?;
                let known = first_seen.len() as u32;
                first_seen.extend((known..table.groups.len() as u32).map(|g| (position, g)));
            }
            Ok(Partial { table, first_seen })
        }),
    )?;
    // Into the largest table: the fewest groups to insert.
    let largest = (0..partials.len()).max_by_key(|&i| partials[i].table.groups.len());
    let Some(mut merged) = largest.map(|i| partials.swap_remove(i)) else {
        return GroupTable::new(spec, ctx)?.finish(spec, None);
    };
    for partial in partials {
        ctx.check_cancelled()?;
        let map = merged.table.merge(partial.table)?;
        let never = (
            MorselPosition {
                morsel: u64::MAX,
                seq: u32::MAX,
            },
            u32::MAX,
        );
        merged.first_seen.resize(merged.table.groups.len(), never);
        for (theirs, &group) in partial.first_seen.iter().zip(&map) {
            let ours = &mut merged.first_seen[group as usize];
            *ours = (*ours).min(*theirs);
        }
    }
    let mut order: Vec<u32> = (0..merged.first_seen.len() as u32).collect();
    order.sort_unstable_by_key(|&g| merged.first_seen[g as usize]);
    let in_order = order.iter().enumerate().all(|(i, &g)| i as u32 == g);
    merged
        .table
        .finish(spec, (!in_order).then_some(order.as_slice()))
}
