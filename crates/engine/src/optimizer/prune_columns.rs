//! Projection push-down: every node produces only the columns some node above it reads, so
//! scans fetch fewer columns and joins, sorts and windows gather fewer. Walking down, each
//! node is told which of its output columns are needed; it keeps those (and any it cannot
//! drop), asks its inputs for what it reads, and renumbers its expressions to match.
//! Aggregates keep their outputs (they are cheap) but read only what they use; volatile
//! projections stay, so their side effects do not change. Nodes whose expressions hold a
//! correlated subquery keep their whole input row, since the subquery reads it by position,
//! and CTEs, set operations, DISTINCT and lateral joins are left as they are above their inputs.

use super::{map_inputs, Rule};
use crate::error::Result;
use crate::plan::{LogicalPlan, ScalarExpr};
use crate::storage::DbState;

pub struct PruneColumns;

impl Rule for PruneColumns {
    fn name(&self) -> &'static str {
        "prune_columns"
    }

    fn apply(&self, plan: LogicalPlan, _state: &DbState) -> Result<LogicalPlan> {
        prune_none(plan)
    }
}

/// `plan` with its inputs pruned but every one of its own outputs kept.
fn prune_none(plan: LogicalPlan) -> Result<LogicalPlan> {
    let width = plan.output_types().len();
    let (plan, kept) = prune(plan, (0..width).collect())?;
    debug_assert_eq!(kept.len(), width);
    Ok(plan)
}

/// Prunes `plan` given the sorted output columns `required` above it. Returns the new plan
/// and which of the old output columns it still produces (sorted, a superset of `required`).
fn prune(plan: LogicalPlan, mut required: Vec<usize>) -> Result<(LogicalPlan, Vec<usize>)> {
    let width = plan.output_types().len();
    // A batch of no columns would lose its row count in some operators: keep one.
    if required.is_empty() && width > 0 {
        required.push(0);
    }
    // What the node's own expressions read, numbered over its inputs' columns side by side.
    let input_width = plan.inputs().iter().map(|i| i.output_types().len()).sum();
    let own = reads(&plan.expressions(), input_width);
    Ok(match plan {
        LogicalPlan::Scan {
            table_oid,
            table_name,
            columns,
            types,
        } => {
            let plan = LogicalPlan::Scan {
                table_oid,
                table_name,
                columns: required.iter().map(|&i| columns[i]).collect(),
                types: required.iter().map(|&i| types[i]).collect(),
            };
            (plan, required)
        }
        LogicalPlan::FileScan {
            source,
            columns,
            types,
        } => {
            let plan = LogicalPlan::FileScan {
                source,
                columns: required.iter().map(|&i| columns[i]).collect(),
                types: required.iter().map(|&i| types[i]).collect(),
            };
            (plan, required)
        }
        LogicalPlan::Filter { input, predicate } => {
            let (input, kept) = prune(*input, union(required, own))?;
            let plan = LogicalPlan::Filter {
                input: Box::new(input),
                predicate: renumber(predicate, &kept),
            };
            (plan, kept)
        }
        LogicalPlan::Project { input, exprs } => {
            let (kept, exprs): (Vec<usize>, Vec<ScalarExpr>) = exprs
                .into_iter()
                .enumerate()
                .filter(|(i, e)| required.binary_search(i).is_ok() || e.is_volatile())
                .unzip();
            let needs = reads(&exprs.iter().collect::<Vec<_>>(), input_width);
            let (input, input_kept) = prune(*input, needs)?;
            (project(input, renumber_all(exprs, &input_kept)), kept)
        }
        LogicalPlan::Sort { input, keys } => {
            let (input, kept) = prune(*input, union(required, own))?;
            let keys = keys
                .into_iter()
                .map(|mut k| {
                    k.expr = renumber(k.expr, &kept);
                    k
                })
                .collect();
            let plan = LogicalPlan::Sort {
                input: Box::new(input),
                keys,
            };
            (plan, kept)
        }
        LogicalPlan::Limit {
            input,
            limit,
            offset,
            ties,
        } => {
            let (input, kept) = prune(*input, union(required, own))?;
            let ties = ties
                .into_iter()
                .map(|mut k| {
                    k.expr = renumber(k.expr, &kept);
                    k
                })
                .collect();
            let plan = LogicalPlan::Limit {
                input: Box::new(input),
                limit,
                offset,
                ties,
            };
            (plan, kept)
        }
        LogicalPlan::LockRows {
            input,
            table_oid,
            table_name,
            exclusive,
            wait,
        } => {
            // The row id, its input's last column, is always needed.
            let mut needs = required.clone();
            needs.push(input_width - 1);
            let (input, mut kept) = prune(*input, needs)?;
            kept.pop();
            let plan = LogicalPlan::LockRows {
                input: Box::new(input),
                table_oid,
                table_name,
                exclusive,
                wait,
            };
            (plan, kept)
        }
        LogicalPlan::Join {
            left,
            right,
            kind,
            condition,
        } => {
            let left_width = left.output_types().len();
            let needs = union(required, own);
            let split = needs.partition_point(|&i| i < left_width);
            let right_needs = needs[split..].iter().map(|i| i - left_width).collect();
            let (left, left_kept) = prune(*left, needs[..split].to_vec())?;
            let (right, right_kept) = prune(*right, right_needs)?;
            let mut kept = left_kept;
            kept.extend(right_kept.iter().map(|i| i + left_width));
            let plan = LogicalPlan::Join {
                left: Box::new(left),
                right: Box::new(right),
                kind,
                condition: condition.map(|c| renumber(c, &kept)),
            };
            (plan, kept)
        }
        LogicalPlan::Window {
            input,
            calls,
            output_order,
        } => {
            required.retain(|&i| i < input_width);
            let (input, mut kept) = prune(*input, union(required, own))?;
            let calls = calls
                .into_iter()
                .map(|mut call| {
                    call.args = renumber_all(call.args, &kept);
                    call.partition_by = renumber_all(call.partition_by, &kept);
                    call.filter = call.filter.map(|f| renumber(f, &kept));
                    for key in &mut call.order_by {
                        key.expr = renumber(key.expr.clone(), &kept);
                    }
                    call
                })
                .collect::<Vec<_>>();
            kept.extend(input_width..width);
            let plan = LogicalPlan::Window {
                input: Box::new(input),
                calls,
                output_order,
            };
            (plan, kept)
        }
        LogicalPlan::Aggregate {
            input,
            group_by,
            aggregates,
            grouping_sets,
            grouping_calls,
        } => {
            let (input, kept) = prune(*input, own)?;
            let aggregates = aggregates
                .into_iter()
                .map(|mut a| {
                    a.args = renumber_all(a.args, &kept);
                    a.filter = a.filter.map(|f| renumber(f, &kept));
                    for key in &mut a.order_by {
                        key.expr = renumber(key.expr.clone(), &kept);
                    }
                    a
                })
                .collect();
            let plan = LogicalPlan::Aggregate {
                input: Box::new(input),
                group_by: renumber_all(group_by, &kept),
                aggregates,
                grouping_sets,
                grouping_calls,
            };
            (plan, (0..width).collect())
        }
        // Every output column matters to these (or is read by position from elsewhere).
        other @ (LogicalPlan::Values { .. }
        | LogicalPlan::SystemScan { .. }
        | LogicalPlan::TableFunction { .. }
        | LogicalPlan::WorkTable { .. }
        | LogicalPlan::Distinct { .. }
        | LogicalPlan::SharedCte { .. }
        | LogicalPlan::RecursiveCte { .. }
        | LogicalPlan::SetOperation { .. }
        | LogicalPlan::LateralJoin { .. }) => {
            (map_inputs(other, &mut prune_none)?, (0..width).collect())
        }
    })
}

/// `exprs` over `input`, merged into a projection below that only picks columns (as join
/// reordering adds), and no projection at all when it would return its input unchanged.
/// Expressions holding a correlated subquery are never merged: the subquery reads the row
/// of its projection's input by position, and merging would hand it the picked-from row
/// (renumbering reaches the expression's own columns, not the subquery's outer references).
fn project(input: LogicalPlan, exprs: Vec<ScalarExpr>) -> LogicalPlan {
    let picked = match &input {
        LogicalPlan::Project { .. } if reads_whole_row(&exprs) => None,
        LogicalPlan::Project { exprs: picks, .. } => picks
            .iter()
            .map(|e| match e {
                ScalarExpr::Column { index, .. } => Some(*index),
                _ => None,
            })
            .collect::<Option<Vec<usize>>>(),
        _ => None,
    };
    let (input, exprs) = match (input, picked) {
        (LogicalPlan::Project { input: inner, .. }, Some(picked)) => {
            let exprs = exprs
                .into_iter()
                .map(|e| e.map_columns(&|index| picked[index]))
                .collect();
            (*inner, exprs)
        }
        (input, _) => (input, exprs),
    };
    let identity = exprs.len() == input.output_types().len()
        && exprs
            .iter()
            .enumerate()
            .all(|(i, e)| matches!(e, ScalarExpr::Column { index, .. } if *index == i));
    if identity {
        return input;
    }
    LogicalPlan::Project {
        input: Box::new(input),
        exprs,
    }
}

/// The columns `exprs` read, sorted: all `width` of them when one holds a correlated
/// subquery (it reads the row by position).
fn reads(exprs: &[&ScalarExpr], width: usize) -> Vec<usize> {
    if reads_whole_row(exprs) {
        return (0..width).collect();
    }
    let mut required = Vec::new();
    for expr in exprs {
        expr.visit(&mut |e| {
            if let ScalarExpr::Column { index, .. } = e {
                required.push(*index);
            }
        });
    }
    required.sort_unstable();
    required.dedup();
    required
}

/// Whether one of `exprs` holds a correlated subquery, which reads its input row by position.
fn reads_whole_row<E: std::borrow::Borrow<ScalarExpr>>(exprs: &[E]) -> bool {
    let mut correlated = false;
    for expr in exprs {
        expr.borrow().visit(&mut |e| {
            correlated |= matches!(e, ScalarExpr::Subquery(s) if s.correlated);
        });
    }
    correlated
}

/// `expr` over an input that now produces only the old columns `kept`.
fn renumber(expr: ScalarExpr, kept: &[usize]) -> ScalarExpr {
    expr.map_columns(&|index| {
        kept.binary_search(&index)
            .expect("invariant: a pruned input keeps every column read above it")
    })
}

/// The sorted columns in either sorted list.
fn union(mut a: Vec<usize>, b: Vec<usize>) -> Vec<usize> {
    a.extend(b);
    a.sort_unstable();
    a.dedup();
    a
}

fn renumber_all(exprs: Vec<ScalarExpr>, kept: &[usize]) -> Vec<ScalarExpr> {
    exprs.into_iter().map(|e| renumber(e, kept)).collect()
}
