//! Turns LATERAL joins into ordinary joins where the right side is a projection, filter or
//! join over the left row (`a, b JOIN LATERAL (VALUES (a.x)) v ON ...`,
//! `a, LATERAL (SELECT b.y FROM b WHERE b.k = a.k) s`), as PostgreSQL's pull_up_subqueries
//! does: the left row's columns are joined in where the right side reads them, so the right
//! side runs once instead of once per left row. An aggregate over rows equal to the left
//! row's columns (`LATERAL (SELECT count(*), max(y) FROM b WHERE b.k = a.k)`) becomes a join
//! with its input grouped by them, as `decorrelate` does for scalar subqueries. GROUP BY,
//! LIMIT, DISTINCT, set operations, several VALUES rows, functions in FROM reading the left
//! row, volatile expressions and subqueries keep running per row.

use super::{map_expressions, map_inputs, Rule};
use crate::error::Result;
use crate::plan::{JoinKind, LogicalPlan, ScalarExpr};
use crate::storage::DbState;

pub struct FlattenLateral;

impl Rule for FlattenLateral {
    fn name(&self) -> &'static str {
        "flatten_lateral"
    }

    fn apply(&self, plan: LogicalPlan, _state: &DbState) -> Result<LogicalPlan> {
        rewrite(plan)
    }
}

/// Bottom-up, so a lateral join inside another's right side is flattened first.
fn rewrite(plan: LogicalPlan) -> Result<LogicalPlan> {
    Ok(match map_inputs(plan, &mut rewrite)? {
        LogicalPlan::LateralJoin {
            left,
            right,
            kind,
            condition,
        } => match flatten(&left, &right, kind, condition.as_ref()) {
            Some(flat) => flat,
            None => LogicalPlan::LateralJoin {
                left,
                right,
                kind,
                condition,
            },
        },
        other => other,
    })
}

/// `left [LEFT] JOIN LATERAL right ON condition` without the per-row loop, if it can be.
fn flatten(
    left: &LogicalPlan,
    right: &LogicalPlan,
    kind: JoinKind,
    condition: Option<&ScalarExpr>,
) -> Option<LogicalPlan> {
    if !movable(right) || condition.is_some_and(ScalarExpr::is_volatile) {
        return None;
    }
    if !reads_left_row(right) {
        return Some(join(left.clone(), one_level_up(right)?, kind, condition));
    }
    let (joined, one_row) = match dependent_join(left, right) {
        Some(joined) => (joined, single_row(right)),
        None => (super::decorrelate::lateral_aggregate(left, right)?, true),
    };
    match (kind, condition) {
        (JoinKind::Inner, None) => Some(joined),
        (JoinKind::Inner, Some(condition)) => Some(LogicalPlan::Filter {
            input: Box::new(joined),
            predicate: condition.clone(),
        }),
        // One right row per left row: the left join keeps it, with the right columns NULL
        // where the condition does not hold. They are computed before the condition is
        // tested, so their errors are raised as the per-row join raises them.
        (JoinKind::Left, _) if one_row => {
            let width = left.output_types().len();
            let types = joined.output_types();
            let exprs = types
                .iter()
                .enumerate()
                .map(|(index, &ty)| {
                    let column = ScalarExpr::Column { index, ty };
                    match condition {
                        Some(condition) if index >= width => ScalarExpr::Case {
                            whens: vec![(condition.clone(), column)],
                            else_result: None,
                            ty,
                        },
                        _ => column,
                    }
                })
                .collect();
            Some(LogicalPlan::Project {
                input: Box::new(joined),
                exprs,
            })
        }
        _ => None,
    }
}

/// Whether the right side may run once for all left rows: nothing in it pushes rows of its
/// own for what it encloses (lateral joins, subqueries), is computed once per statement
/// (WITH queries), locks rows, or gives another answer when run again.
fn movable(plan: &LogicalPlan) -> bool {
    let mut movable = true;
    plan.visit_all(&mut |node| {
        movable &= !matches!(
            node,
            LogicalPlan::LateralJoin { .. }
                | LogicalPlan::SharedCte { .. }
                | LogicalPlan::RecursiveCte { .. }
                | LogicalPlan::WorkTable { .. }
                | LogicalPlan::LockRows { .. }
        ) && !node.expressions().into_iter().any(ScalarExpr::is_volatile);
    });
    movable
}

/// Whether any node of `plan` reads the left row (an outer column of depth 1).
fn reads_left_row(plan: &LogicalPlan) -> bool {
    let mut found = false;
    plan.visit_all(&mut |node| {
        for expr in node.expressions() {
            expr.visit(&mut |e| {
                found |= matches!(e, ScalarExpr::OuterColumn { depth: 1, .. });
            });
        }
    });
    found
}

/// Whether `plan` gives exactly one row.
fn single_row(plan: &LogicalPlan) -> bool {
    match plan {
        LogicalPlan::Values { rows, .. } => rows.len() == 1,
        LogicalPlan::Project { input, .. } => single_row(input),
        _ => false,
    }
}

/// Each row of `left` followed by each row `plan` gives for it: `left`'s columns, then
/// `plan`'s. `None` where a node reading the left row is not a projection, filter, join or
/// single VALUES row.
fn dependent_join(left: &LogicalPlan, plan: &LogicalPlan) -> Option<LogicalPlan> {
    let width = left.output_types().len();
    if !reads_left_row(plan) {
        return Some(join(
            left.clone(),
            one_level_up(plan)?,
            JoinKind::Inner,
            None,
        ));
    }
    let shifted = |e: &ScalarExpr| lift(e.clone(), &|i| i + width, 0);
    match plan {
        LogicalPlan::Values { rows, .. } => {
            let [row] = rows.as_slice() else {
                return None;
            };
            let exprs = columns(left, 0..width)
                .chain(row.iter().map(shifted))
                .collect();
            Some(LogicalPlan::Project {
                input: Box::new(left.clone()),
                exprs,
            })
        }
        LogicalPlan::Project { input, exprs } => {
            let input = dependent_join(left, input)?;
            let exprs = columns(&input, 0..width)
                .chain(exprs.iter().map(shifted))
                .collect();
            Some(LogicalPlan::Project {
                input: Box::new(input),
                exprs,
            })
        }
        LogicalPlan::Filter { input, predicate } => Some(LogicalPlan::Filter {
            input: Box::new(dependent_join(left, input)?),
            predicate: shifted(predicate),
        }),
        LogicalPlan::Join {
            left: join_left,
            right: join_right,
            kind,
            condition,
        } => {
            let left_width = join_left.output_types().len();
            if !reads_left_row(join_right) && matches!(kind, JoinKind::Inner | JoinKind::Left) {
                // (left, join_left) keeps the join's columns in order behind left's.
                let joined = join(
                    dependent_join(left, join_left)?,
                    one_level_up(join_right)?,
                    *kind,
                    condition.as_ref().map(shifted).as_ref(),
                );
                return Some(joined);
            }
            if !reads_left_row(join_left) && matches!(kind, JoinKind::Inner | JoinKind::Right) {
                // join_left, then (left, join_right): left's columns are moved to the front.
                let condition = condition.as_ref().map(|c| {
                    let column = |i| if i < left_width { i } else { i + width };
                    lift(c.clone(), &column, left_width)
                });
                let joined = join(
                    one_level_up(join_left)?,
                    dependent_join(left, join_right)?,
                    *kind,
                    condition.as_ref(),
                );
                let total = joined.output_types().len();
                let order = (left_width..left_width + width)
                    .chain(0..left_width)
                    .chain(left_width + width..total);
                let exprs = columns(&joined, order).collect();
                return Some(LogicalPlan::Project {
                    input: Box::new(joined),
                    exprs,
                });
            }
            None
        }
        _ => None,
    }
}

/// `plan`, reading none of the left row, moved out of the loop over it: what it read one
/// level further out is now the enclosing row.
fn one_level_up(plan: &LogicalPlan) -> Option<LogicalPlan> {
    fn up(plan: LogicalPlan) -> Result<LogicalPlan> {
        let plan = map_inputs(plan, &mut up)?;
        map_expressions(plan, &mut |e| Ok(lift(e, &|i| i, 0)))
    }
    up(plan.clone()).ok()
}

/// `expr` moved out of the loop over the left row: its own columns renumbered by `column`,
/// the left row's column `i` as column `left_at + i`, and outer columns one level closer.
fn lift(expr: ScalarExpr, column: &dyn Fn(usize) -> usize, left_at: usize) -> ScalarExpr {
    match expr {
        ScalarExpr::Column { index, ty } => ScalarExpr::Column {
            index: column(index),
            ty,
        },
        ScalarExpr::OuterColumn {
            depth: 1,
            index,
            ty,
        } => ScalarExpr::Column {
            index: left_at + index,
            ty,
        },
        ScalarExpr::OuterColumn { depth, index, ty } => ScalarExpr::OuterColumn {
            depth: depth - 1,
            index,
            ty,
        },
        other => {
            let fallback = other.clone();
            other
                .try_map_children(&mut |e| Ok(lift(e, column, left_at)))
                .unwrap_or(fallback)
        }
    }
}

/// Columns `indexes` of `plan`'s output.
fn columns(
    plan: &LogicalPlan,
    indexes: impl Iterator<Item = usize>,
) -> impl Iterator<Item = ScalarExpr> {
    let types = plan.output_types();
    indexes.map(move |index| ScalarExpr::Column {
        index,
        ty: types[index],
    })
}

fn join(
    left: LogicalPlan,
    right: LogicalPlan,
    kind: JoinKind,
    condition: Option<&ScalarExpr>,
) -> LogicalPlan {
    LogicalPlan::Join {
        left: Box::new(left),
        right: Box::new(right),
        kind,
        condition: condition.cloned(),
    }
}
