//! Row-count estimates from table sizes and fixed selectivities (no statistics yet): enough
//! to order joins and to pick the smaller side of a hash join to build.

use crate::plan::{LogicalPlan, ScalarExpr};
use crate::storage::DbState;
use crate::types::ScalarValue;

/// The fraction of rows a filter is assumed to keep.
pub(crate) const FILTER_SELECTIVITY: f64 = 0.25;

/// A rough row count of `plan`'s output, from table sizes: enough to pick the smaller side
/// of a join to hash.
pub fn estimate_rows(plan: &LogicalPlan, state: &DbState) -> f64 {
    match plan {
        LogicalPlan::Scan { table_oid, .. } => state
            .tables
            .get(table_oid)
            .map_or(0.0, |t| t.data.live_rows() as f64),
        LogicalPlan::Values { rows, .. } => rows.len() as f64,
        LogicalPlan::FileScan { source, .. } => source.rows_estimate() as f64,
        LogicalPlan::SystemScan { .. }
        | LogicalPlan::TableFunction { .. }
        | LogicalPlan::RecursiveCte { .. } => 1000.0,
        LogicalPlan::WorkTable { .. } => 100.0,
        LogicalPlan::Filter { input, .. } => estimate_rows(input, state) * FILTER_SELECTIVITY,
        LogicalPlan::Project { input, .. }
        | LogicalPlan::LockRows { input, .. }
        | LogicalPlan::SharedCte { input, .. }
        | LogicalPlan::Sort { input, .. }
        | LogicalPlan::Window { input, .. } => estimate_rows(input, state),
        LogicalPlan::Aggregate { group_by, .. } if group_by.is_empty() => 1.0,
        LogicalPlan::Aggregate { input, .. } => (estimate_rows(input, state) / 10.0).max(1.0),
        LogicalPlan::Distinct { input, .. } => (estimate_rows(input, state) / 2.0).max(1.0),
        LogicalPlan::Limit { input, limit, .. } => {
            let input = estimate_rows(input, state);
            match limit {
                Some(ScalarExpr::Literal {
                    value: ScalarValue::Int64(n),
                    ..
                }) => input.min(*n as f64),
                _ => input,
            }
        }
        LogicalPlan::SetOperation { left, right, .. } => {
            estimate_rows(left, state) + estimate_rows(right, state)
        }
        LogicalPlan::Join { left, right, .. } => {
            estimate_rows(left, state).max(estimate_rows(right, state))
        }
        LogicalPlan::LateralJoin { left, .. } => estimate_rows(left, state) * 10.0,
    }
}
