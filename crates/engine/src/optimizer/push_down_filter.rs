//! Moves filter conjuncts as close to the scans as the semantics allow: through projections,
//! sorts and DISTINCT, into the sides of joins, and into inner join conditions (where an
//! equality between the sides becomes a hash join key). Volatile conjuncts stay put.

use super::{map_inputs, Rule};
use crate::error::Result;
use crate::plan::{ColumnSide, JoinKind, LogicalPlan, ScalarExpr};
use crate::storage::DbState;

pub struct PushDownFilter;

impl Rule for PushDownFilter {
    fn name(&self) -> &'static str {
        "push_down_filter"
    }

    fn apply(&self, plan: LogicalPlan, _state: &DbState) -> Result<LogicalPlan> {
        push(plan)
    }
}

fn push(plan: LogicalPlan) -> Result<LogicalPlan> {
    match plan {
        LogicalPlan::Filter { input, predicate } => {
            let input = push(*input)?;
            Ok(push_into(input, predicate.into_conjuncts()))
        }
        LogicalPlan::Join {
            left,
            right,
            kind,
            condition,
        } => {
            let left = push(*left)?;
            let right = push(*right)?;
            Ok(push_join_condition(left, right, kind, condition))
        }
        other => map_inputs(other, &mut push),
    }
}

fn filter(input: LogicalPlan, predicates: Vec<ScalarExpr>) -> LogicalPlan {
    match ScalarExpr::conjunction(predicates) {
        None => input,
        Some(predicate) => LogicalPlan::Filter {
            input: Box::new(input),
            predicate,
        },
    }
}

/// Places `predicates` (over `plan`'s output) as deep into `plan` as they may go.
fn push_into(plan: LogicalPlan, predicates: Vec<ScalarExpr>) -> LogicalPlan {
    if predicates.is_empty() {
        return plan;
    }
    let (movable, fixed): (Vec<_>, Vec<_>) = predicates.into_iter().partition(|p| !p.is_volatile());
    let plan = match plan {
        LogicalPlan::Filter { input, predicate } => {
            let mut all = predicate.into_conjuncts();
            all.extend(movable);
            push_into(*input, all)
        }
        LogicalPlan::Join {
            left,
            right,
            kind,
            condition,
        } => push_into_join(*left, *right, kind, condition, movable),
        LogicalPlan::Project { input, exprs } => {
            // Rewrite over the projection's input where every referenced output is a plain
            // deterministic expression.
            let (below, above): (Vec<_>, Vec<_>) = movable.into_iter().partition(|p| {
                let mut ok = true;
                p.visit(&mut |e| {
                    if let ScalarExpr::Column { index, .. } = e {
                        ok &= exprs.get(*index).is_some_and(|x| !x.is_volatile());
                    }
                });
                ok
            });
            let below = below.into_iter().map(|p| substitute(p, &exprs)).collect();
            filter(
                LogicalPlan::Project {
                    input: Box::new(push_into(*input, below)),
                    exprs,
                },
                above,
            )
        }
        LogicalPlan::Sort { input, keys } => LogicalPlan::Sort {
            input: Box::new(push_into(*input, movable)),
            keys,
        },
        // Not through DISTINCT ON: filtering first could make another row the first.
        LogicalPlan::Distinct { input, on } if on.is_empty() => LogicalPlan::Distinct {
            input: Box::new(push_into(*input, movable)),
            on,
        },
        other => filter(other, movable),
    };
    filter(plan, fixed)
}

/// Replaces output column references by the projection's expressions.
fn substitute(expr: ScalarExpr, exprs: &[ScalarExpr]) -> ScalarExpr {
    match expr {
        ScalarExpr::Column { index, .. } => exprs[index].clone(),
        other => {
            let fallback = other.clone();
            other
                .try_map_children(&mut |e| Ok(substitute(e, exprs)))
                .unwrap_or(fallback)
        }
    }
}

/// A WHERE conjunct over a join's output: into a side when it reads only that side and the
/// join keeps that side's rows as they are, into an inner join's condition otherwise.
fn push_into_join(
    left: LogicalPlan,
    right: LogicalPlan,
    kind: JoinKind,
    condition: Option<ScalarExpr>,
    predicates: Vec<ScalarExpr>,
) -> LogicalPlan {
    let width = left.output_types().len();
    let (mut to_left, mut to_right, mut to_condition, mut above) = (vec![], vec![], vec![], vec![]);
    for p in predicates {
        match (p.side(width), kind) {
            (ColumnSide::Left, JoinKind::Inner | JoinKind::Left) => to_left.push(p),
            (ColumnSide::Right, JoinKind::Inner | JoinKind::Right) => {
                to_right.push(p.shift_columns_left(width))
            }
            (_, JoinKind::Inner) => to_condition.push(p),
            _ => above.push(p),
        }
    }
    let mut parts = condition.map(|c| c.into_conjuncts()).unwrap_or_default();
    parts.extend(to_condition);
    let joined = push_join_condition(
        push_into(left, to_left),
        push_into(right, to_right),
        kind,
        ScalarExpr::conjunction(parts),
    );
    filter(joined, above)
}

/// An ON condition's conjuncts that read one side only filter that side's input where the
/// join allows it (both sides of an inner join; the inner side of an outer join).
fn push_join_condition(
    left: LogicalPlan,
    right: LogicalPlan,
    kind: JoinKind,
    condition: Option<ScalarExpr>,
) -> LogicalPlan {
    let width = left.output_types().len();
    let (mut to_left, mut to_right, mut keep) = (vec![], vec![], vec![]);
    for p in condition.map(|c| c.into_conjuncts()).unwrap_or_default() {
        if p.is_volatile() {
            keep.push(p);
            continue;
        }
        match (p.side(width), kind) {
            (ColumnSide::Left, JoinKind::Inner | JoinKind::Right) => to_left.push(p),
            (ColumnSide::Right, JoinKind::Inner | JoinKind::Left) => {
                to_right.push(p.shift_columns_left(width))
            }
            _ => keep.push(p),
        }
    }
    LogicalPlan::Join {
        left: Box::new(push_into(left, to_left)),
        right: Box::new(push_into(right, to_right)),
        kind,
        condition: ScalarExpr::conjunction(keep),
    }
}
