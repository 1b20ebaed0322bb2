//! Rule-based rewrites of logical plans. Each rule is named and can be switched off
//! (`SET kestrel.disabled_optimizer_rules = 'push_down_filter'`); after each rule the plan is
//! checked to still produce the same column types. Constant folding comes first and is not
//! a rule: PostgreSQL raises the errors of constant expressions while planning, so whether
//! a query fails cannot depend on the rules switched off.

mod cardinality;
mod decorrelate;
mod flatten_lateral;
mod fold_constants;
mod inline_ctes;
mod prune_columns;
mod push_down_aggregate;
mod push_down_filter;
mod reorder_joins;

pub(crate) use cardinality::estimate_rows;

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::plan::{AggregateCall, LogicalPlan, ScalarExpr, SortKey, TableFunctionCall, WindowCall};
use crate::storage::DbState;

/// A named rewrite.
pub trait Rule {
    fn name(&self) -> &'static str;
    /// `state` gives the table sizes estimates start from; the result must be right for any.
    fn apply(&self, plan: LogicalPlan, state: &DbState) -> Result<LogicalPlan>;
}

fn rules() -> [&'static dyn Rule; 7] {
    [
        &inline_ctes::InlineCtes,
        &flatten_lateral::FlattenLateral,
        &decorrelate::Decorrelate,
        &push_down_filter::PushDownFilter,
        &reorder_joins::ReorderJoins,
        &push_down_aggregate::PushDownAggregate,
        &prune_columns::PruneColumns,
    ]
}

/// The names of every rule, in the order they run.
pub fn rule_names() -> Vec<&'static str> {
    rules().iter().map(|r| r.name()).collect()
}

pub(crate) use fold_constants::fold_statement;

/// Runs every rule not in `disabled`, estimating from the tables in `state`.
pub fn optimize(mut plan: LogicalPlan, disabled: &[&str], state: &DbState) -> Result<LogicalPlan> {
    // VALUES rows of literals (a plain INSERT's) leave no rule anything to rewrite.
    if plan.is_literal_values() {
        return Ok(plan);
    }
    // Every rule keeps the output types, so each result is checked against the input's.
    let types = plan.output_types();
    plan = fold_constants::fold_plan(plan)?;
    for rule in rules() {
        if disabled.contains(&rule.name()) {
            continue;
        }
        plan = rule.apply(plan, state)?;
        if plan.output_types() != types {
            return Err(Error::internal(format!(
                "optimizer rule {} changed the plan's output types",
                rule.name()
            )));
        }
    }
    Ok(plan)
}

/// Rebuilds `plan` with `f` applied to each direct input.
#[recursive::recursive]
pub(crate) fn map_inputs(
    plan: LogicalPlan,
    f: &mut dyn FnMut(LogicalPlan) -> Result<LogicalPlan>,
) -> Result<LogicalPlan> {
    let mut boxed = |p: Box<LogicalPlan>| f(*p).map(Box::new);
    Ok(match plan {
        leaf @ (LogicalPlan::Scan { .. }
        | LogicalPlan::Values { .. }
        | LogicalPlan::SystemScan { .. }
        | LogicalPlan::FileScan { .. }
        | LogicalPlan::TableFunction { .. }
        | LogicalPlan::WorkTable { .. }) => leaf,
        LogicalPlan::Filter { input, predicate } => LogicalPlan::Filter {
            input: boxed(input)?,
            predicate,
        },
        LogicalPlan::Project { input, exprs } => LogicalPlan::Project {
            input: boxed(input)?,
            exprs,
        },
        LogicalPlan::Aggregate {
            input,
            group_by,
            aggregates,
            grouping_sets,
            grouping_calls,
        } => LogicalPlan::Aggregate {
            input: boxed(input)?,
            group_by,
            aggregates,
            grouping_sets,
            grouping_calls,
        },
        LogicalPlan::Sort { input, keys } => LogicalPlan::Sort {
            input: boxed(input)?,
            keys,
        },
        LogicalPlan::Limit {
            input,
            limit,
            offset,
            ties,
        } => LogicalPlan::Limit {
            input: boxed(input)?,
            limit,
            offset,
            ties,
        },
        LogicalPlan::LockRows {
            input,
            table_oid,
            table_name,
            exclusive,
            wait,
        } => LogicalPlan::LockRows {
            input: boxed(input)?,
            table_oid,
            table_name,
            exclusive,
            wait,
        },
        LogicalPlan::Distinct { input, on } => LogicalPlan::Distinct {
            input: boxed(input)?,
            on,
        },
        LogicalPlan::LateralJoin {
            left,
            right,
            kind,
            condition,
        } => LogicalPlan::LateralJoin {
            left: boxed(left)?,
            right: boxed(right)?,
            kind,
            condition,
        },
        LogicalPlan::SharedCte { id, input } => LogicalPlan::SharedCte {
            id,
            input: boxed(input)?,
        },
        LogicalPlan::Window {
            input,
            calls,
            output_order,
        } => LogicalPlan::Window {
            input: boxed(input)?,
            calls,
            output_order,
        },
        LogicalPlan::SetOperation {
            left,
            right,
            op,
            all,
        } => LogicalPlan::SetOperation {
            left: boxed(left)?,
            right: boxed(right)?,
            op,
            all,
        },
        LogicalPlan::RecursiveCte {
            id,
            base,
            recursive,
            all,
        } => LogicalPlan::RecursiveCte {
            id,
            base: boxed(base)?,
            recursive: boxed(recursive)?,
            all,
        },
        LogicalPlan::Join {
            left,
            right,
            kind,
            condition,
        } => LogicalPlan::Join {
            left: boxed(left)?,
            right: boxed(right)?,
            kind,
            condition,
        },
    })
}

/// Rebuilds `plan` with `f` applied to each of its own expressions (those `expressions()`
/// lists, not its inputs').
pub(crate) fn map_expressions(
    plan: LogicalPlan,
    f: &mut dyn FnMut(ScalarExpr) -> Result<ScalarExpr>,
) -> Result<LogicalPlan> {
    Ok(match plan {
        plan @ (LogicalPlan::Scan { .. }
        | LogicalPlan::SystemScan { .. }
        | LogicalPlan::FileScan { .. }
        | LogicalPlan::WorkTable { .. }
        | LogicalPlan::Distinct { .. }
        | LogicalPlan::LockRows { .. }
        | LogicalPlan::SharedCte { .. }
        | LogicalPlan::SetOperation { .. }
        | LogicalPlan::RecursiveCte { .. }) => plan,
        LogicalPlan::Values { rows, types } => LogicalPlan::Values {
            rows: Arc::new(
                Arc::unwrap_or_clone(rows)
                    .into_iter()
                    .map(|row| map_all(row, f))
                    .collect::<Result<_>>()?,
            ),
            types,
        },
        LogicalPlan::TableFunction { calls, ordinality } => LogicalPlan::TableFunction {
            calls: calls
                .into_iter()
                .map(|call| {
                    Ok(TableFunctionCall {
                        args: map_all(call.args, f)?,
                        ..call
                    })
                })
                .collect::<Result<_>>()?,
            ordinality,
        },
        LogicalPlan::Filter { input, predicate } => LogicalPlan::Filter {
            input,
            predicate: f(predicate)?,
        },
        LogicalPlan::Project { input, exprs } => LogicalPlan::Project {
            input,
            exprs: map_all(exprs, f)?,
        },
        LogicalPlan::Aggregate {
            input,
            group_by,
            aggregates,
            grouping_sets,
            grouping_calls,
        } => LogicalPlan::Aggregate {
            input,
            group_by: map_all(group_by, f)?,
            aggregates: aggregates
                .into_iter()
                .map(|call| {
                    Ok(AggregateCall {
                        args: map_all(call.args, f)?,
                        filter: call.filter.map(&mut *f).transpose()?,
                        order_by: map_keys(call.order_by, f)?,
                        ..call
                    })
                })
                .collect::<Result<_>>()?,
            grouping_sets,
            grouping_calls,
        },
        LogicalPlan::Sort { input, keys } => LogicalPlan::Sort {
            input,
            keys: map_keys(keys, f)?,
        },
        LogicalPlan::Limit {
            input,
            limit,
            offset,
            ties,
        } => LogicalPlan::Limit {
            input,
            limit: limit.map(&mut *f).transpose()?,
            offset: offset.map(&mut *f).transpose()?,
            ties: map_keys(ties, f)?,
        },
        LogicalPlan::Window {
            input,
            calls,
            output_order,
        } => LogicalPlan::Window {
            input,
            calls: calls
                .into_iter()
                .map(|call| {
                    Ok(WindowCall {
                        args: map_all(call.args, f)?,
                        filter: call.filter.map(&mut *f).transpose()?,
                        partition_by: map_all(call.partition_by, f)?,
                        order_by: map_keys(call.order_by, f)?,
                        ..call
                    })
                })
                .collect::<Result<_>>()?,
            output_order,
        },
        LogicalPlan::Join {
            left,
            right,
            kind,
            condition,
        } => LogicalPlan::Join {
            left,
            right,
            kind,
            condition: condition.map(&mut *f).transpose()?,
        },
        LogicalPlan::LateralJoin {
            left,
            right,
            kind,
            condition,
        } => LogicalPlan::LateralJoin {
            left,
            right,
            kind,
            condition: condition.map(&mut *f).transpose()?,
        },
    })
}

fn map_all(
    exprs: Vec<ScalarExpr>,
    f: &mut dyn FnMut(ScalarExpr) -> Result<ScalarExpr>,
) -> Result<Vec<ScalarExpr>> {
    exprs.into_iter().map(f).collect()
}

fn map_keys(
    keys: Vec<SortKey>,
    f: &mut dyn FnMut(ScalarExpr) -> Result<ScalarExpr>,
) -> Result<Vec<SortKey>> {
    keys.into_iter()
        .map(|key| {
            Ok(SortKey {
                expr: f(key.expr)?,
                ..key
            })
        })
        .collect()
}
