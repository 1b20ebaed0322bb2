//! Turns correlated subqueries into joins, so a subquery over N outer rows runs once, not
//! N times:
//! - `(SELECT f(agg(x)) FROM t WHERE t.k = outer.k ...)` becomes a LEFT JOIN with `t` grouped
//!   by `k` (a missing group gives what `f` gives over no rows: count's 0, NULL for sum);
//! - `[NOT] EXISTS (SELECT ... FROM t WHERE t.k = outer.k ...)` as a WHERE conjunct becomes
//!   a join with (or, negated, an anti-join against) the distinct keys of `t`, and so does
//!   `x IN (SELECT t.y ... WHERE t.k = outer.k ...)` (not negated: NOT IN's NULLs differ),
//!   with `t.y = x` one more key;
//! - a LATERAL aggregate over rows correlated by equality (`lateral_aggregate`, called by
//!   `flatten_lateral`) becomes a LEFT JOIN like a scalar aggregate subquery.
//!
//! Only shapes with equality correlation on the immediately enclosing query are rewritten;
//! everything else keeps running per row, which is slower but equally correct.

use super::{map_inputs, Rule};
use crate::error::Result;
use crate::function::AggregateFunction;
use crate::plan::{
    AggregateCall, CompareOp, JoinKind, LogicalPlan, Quantifier, ScalarExpr, Subquery, SubqueryKind,
};
use crate::storage::DbState;

pub struct Decorrelate;

impl Rule for Decorrelate {
    fn name(&self) -> &'static str {
        "decorrelate"
    }

    fn apply(&self, plan: LogicalPlan, _state: &DbState) -> Result<LogicalPlan> {
        rewrite(plan)
    }
}

fn rewrite(plan: LogicalPlan) -> Result<LogicalPlan> {
    let plan = map_inputs(plan, &mut rewrite)?;
    Ok(match plan {
        LogicalPlan::Filter { input, predicate } => rewrite_filter(*input, predicate),
        LogicalPlan::Project { input, exprs } => {
            let mut input = *input;
            let exprs = exprs
                .into_iter()
                .map(|e| replace_scalar_subqueries(e, &mut input))
                .collect();
            LogicalPlan::Project {
                input: Box::new(input),
                exprs,
            }
        }
        other => other,
    })
}

/// A subquery's equality correlation: `inner_keys[i] = outer_keys[i]` where the inner keys
/// read the subquery's input and the outer keys only the enclosing row.
struct Correlation {
    inner_keys: Vec<ScalarExpr>,
    outer_keys: Vec<ScalarExpr>,
    /// The subquery input with its uncorrelated conjuncts still applied.
    input: LogicalPlan,
}

/// Splits `Filter { predicate, input }` (the input reading no outer column) into its
/// correlation and the rest.
fn correlation(filter: &LogicalPlan) -> Option<Correlation> {
    let LogicalPlan::Filter { input, predicate } = filter else {
        return None;
    };
    if reads_outer(input) {
        return None;
    }
    let (mut inner_keys, mut outer_keys, mut rest) = (vec![], vec![], vec![]);
    for part in predicate.clone().into_conjuncts() {
        match &part {
            ScalarExpr::Compare {
                op: CompareOp::Eq,
                left,
                right,
            } => match (only_outer(left), only_outer(right)) {
                (false, true) if !mentions_outer(left) => {
                    inner_keys.push((**left).clone());
                    outer_keys.push(outer_to_columns((**right).clone()));
                }
                (true, false) if !mentions_outer(right) => {
                    inner_keys.push((**right).clone());
                    outer_keys.push(outer_to_columns((**left).clone()));
                }
                _ if !mentions_outer(&part) => rest.push(part),
                _ => return None,
            },
            _ if !mentions_outer(&part) => rest.push(part),
            _ => return None,
        }
    }
    if inner_keys.is_empty() {
        return None;
    }
    let input = match ScalarExpr::conjunction(rest) {
        Some(predicate) => LogicalPlan::Filter {
            input: input.clone(),
            predicate,
        },
        None => (**input).clone(),
    };
    Some(Correlation {
        inner_keys,
        outer_keys,
        input,
    })
}

/// Whether an expression reads the enclosing row (or runs a subquery that might).
fn mentions_outer(expr: &ScalarExpr) -> bool {
    let mut found = false;
    expr.visit(&mut |e| {
        if matches!(e, ScalarExpr::OuterColumn { .. } | ScalarExpr::Subquery(_)) {
            found = true;
        }
    });
    found
}

/// Whether an expression reads only the immediately enclosing row: outer columns of depth 1
/// and constants.
fn only_outer(expr: &ScalarExpr) -> bool {
    let mut outer = false;
    let mut other = false;
    expr.visit(&mut |e| match e {
        ScalarExpr::OuterColumn { depth: 1, .. } => outer = true,
        ScalarExpr::Column { .. } | ScalarExpr::OuterColumn { .. } | ScalarExpr::Subquery(_) => {
            other = true
        }
        _ => {}
    });
    outer && !other && !expr.is_volatile()
}

/// Outer column references of depth 1 as columns of the enclosing row.
fn outer_to_columns(expr: ScalarExpr) -> ScalarExpr {
    match expr {
        ScalarExpr::OuterColumn { index, ty, .. } => ScalarExpr::Column { index, ty },
        other => {
            let fallback = other.clone();
            other
                .try_map_children(&mut |e| Ok(outer_to_columns(e)))
                .unwrap_or(fallback)
        }
    }
}

/// Whether any expression of the plan reads an enclosing query.
fn reads_outer(plan: &LogicalPlan) -> bool {
    let mut found = false;
    plan.visit_all(&mut |p| {
        for expr in p.expressions() {
            if mentions_outer(expr) {
                found = true;
            }
        }
    });
    found
}

fn shift(expr: ScalarExpr, by: usize) -> ScalarExpr {
    expr.map_columns(&|i| i + by)
}

/// `(SELECT f(aggs), ... FROM ... WHERE correlation)` as a derived table grouped by the
/// correlation's inner keys: its key columns, then one column per value.
struct Grouped {
    derived: LogicalPlan,
    outer_keys: Vec<ScalarExpr>,
    /// Per value: what the subquery gives over no rows, which a missing group stands for.
    over_no_rows: Vec<ScalarExpr>,
}

/// `plan` (an aggregate without GROUP BY over a correlated filter, under its select list)
/// grouped by its correlation, if what each of its aggregates gives over no rows is known.
fn grouped_subquery(plan: &LogicalPlan) -> Option<Grouped> {
    let LogicalPlan::Project { input, exprs } = plan else {
        return None;
    };
    let LogicalPlan::Aggregate {
        input: filter,
        group_by,
        aggregates,
        grouping_sets,
        grouping_calls,
    } = input.as_ref()
    else {
        return None;
    };
    if !group_by.is_empty()
        || !grouping_sets.is_empty()
        || !grouping_calls.is_empty()
        || exprs.iter().any(mentions_outer)
    {
        return None;
    }
    if aggregates.iter().any(|a| {
        a.args.iter().any(mentions_outer)
            || a.filter.as_ref().is_some_and(mentions_outer)
            || a.order_by.iter().any(|k| mentions_outer(&k.expr))
    }) {
        return None;
    }
    let over_no_rows = exprs
        .iter()
        .map(|value| over_no_rows(value.clone(), aggregates).map(ScalarExpr::fold_strict_nulls))
        .collect::<Option<Vec<_>>>()?;
    let correlation = correlation(filter)?;
    let keys = correlation.inner_keys.len();
    let derived_exprs = correlation
        .inner_keys
        .iter()
        .enumerate()
        .map(|(index, key)| ScalarExpr::Column {
            index,
            ty: key.ty(),
        })
        .chain(exprs.iter().map(|value| shift(value.clone(), keys)))
        .collect();
    let derived = LogicalPlan::Project {
        input: Box::new(LogicalPlan::Aggregate {
            input: Box::new(correlation.input),
            group_by: correlation.inner_keys,
            aggregates: aggregates.clone(),
            grouping_sets: Vec::new(),
            grouping_calls: Vec::new(),
        }),
        exprs: derived_exprs,
    };
    Some(Grouped {
        derived,
        outer_keys: correlation.outer_keys,
        over_no_rows,
    })
}

/// `value` (over the aggregates' results) over no rows: count's 0, NULL for the aggregates
/// that give it. `None` for the others (regr_count, ordered-set and hypothetical ones).
fn over_no_rows(value: ScalarExpr, aggregates: &[AggregateCall]) -> Option<ScalarExpr> {
    match value {
        ScalarExpr::Column { index, ty } => match aggregates.get(index)?.func {
            AggregateFunction::Count | AggregateFunction::CountStar => {
                Some(ScalarExpr::literal(crate::types::ScalarValue::Int64(0), ty))
            }
            AggregateFunction::Sum
            | AggregateFunction::Avg
            | AggregateFunction::Min
            | AggregateFunction::Max
            | AggregateFunction::StringAgg
            | AggregateFunction::ArrayAgg
            | AggregateFunction::JsonAgg { .. }
            | AggregateFunction::JsonObjectAgg { .. }
            | AggregateFunction::BoolAnd
            | AggregateFunction::BoolOr
            | AggregateFunction::BitAnd
            | AggregateFunction::BitOr
            | AggregateFunction::BitXor
            | AggregateFunction::VarSamp
            | AggregateFunction::VarPop
            | AggregateFunction::StddevSamp
            | AggregateFunction::StddevPop => Some(ScalarExpr::null(ty)),
            AggregateFunction::OrderedSet(_)
            | AggregateFunction::Regression(_)
            | AggregateFunction::Hypothetical(_) => None,
        },
        other => {
            let mut known = true;
            let mapped = other.try_map_children(&mut |e| match over_no_rows(e, aggregates) {
                Some(e) => Ok(e),
                None => {
                    known = false;
                    Err(crate::error::Error::internal("unknown over no rows"))
                }
            });
            mapped.ok().filter(|_| known)
        }
    }
}

fn key_equalities(outer_keys: Vec<ScalarExpr>, width: usize) -> Option<ScalarExpr> {
    let parts = outer_keys
        .into_iter()
        .enumerate()
        .map(|(i, outer)| ScalarExpr::Compare {
            op: CompareOp::Eq,
            right: Box::new(ScalarExpr::Column {
                index: width + i,
                ty: outer.ty(),
            }),
            left: Box::new(outer),
        })
        .collect();
    ScalarExpr::conjunction(parts)
}

/// `input` LEFT JOIN the grouped subquery on its correlation (`input`'s columns keep their
/// positions), and per value of the subquery the expression giving it for an input row.
fn join_grouped(input: LogicalPlan, grouped: Grouped) -> (LogicalPlan, Vec<ScalarExpr>) {
    let width = input.output_types().len();
    let keys = grouped.outer_keys.len();
    let types = grouped.derived.output_types();
    let joined = LogicalPlan::Join {
        left: Box::new(input),
        right: Box::new(grouped.derived),
        kind: JoinKind::Left,
        condition: key_equalities(grouped.outer_keys, width),
    };
    // A matched row's first key is not NULL: it equalled the outer key.
    let matched = ScalarExpr::IsNull {
        input: Box::new(ScalarExpr::Column {
            index: width,
            ty: types[0],
        }),
        negated: true,
    };
    let values = grouped
        .over_no_rows
        .into_iter()
        .enumerate()
        .map(|(i, over_no_rows)| {
            let ty = types[keys + i];
            let value = ScalarExpr::Column {
                index: width + keys + i,
                ty,
            };
            match over_no_rows {
                ScalarExpr::Literal {
                    value: crate::types::ScalarValue::Null,
                    ..
                } => value,
                over_no_rows => ScalarExpr::Case {
                    whens: vec![(matched.clone(), value)],
                    else_result: Some(Box::new(over_no_rows)),
                    ty,
                },
            }
        })
        .collect();
    (joined, values)
}

/// `left JOIN LATERAL (SELECT aggs FROM ... WHERE correlation)`, which gives one row per left
/// row, as `left` LEFT JOIN the subquery grouped by its correlation: `left`'s columns, then
/// the subquery's.
pub(super) fn lateral_aggregate(left: &LogicalPlan, right: &LogicalPlan) -> Option<LogicalPlan> {
    let grouped = grouped_subquery(right)?;
    let width = left.output_types().len();
    let (joined, values) = join_grouped(left.clone(), grouped);
    let types = joined.output_types();
    let exprs = (0..width)
        .map(|index| ScalarExpr::Column {
            index,
            ty: types[index],
        })
        .chain(values)
        .collect();
    Some(LogicalPlan::Project {
        input: Box::new(joined),
        exprs,
    })
}

/// Replaces correlated scalar aggregate subqueries in `expr` by columns of LEFT JOINs added
/// to `input` (whose existing columns keep their positions).
fn replace_scalar_subqueries(expr: ScalarExpr, input: &mut LogicalPlan) -> ScalarExpr {
    match expr {
        ScalarExpr::Subquery(subquery)
            if subquery.correlated && matches!(subquery.kind, SubqueryKind::Scalar(_)) =>
        {
            let grouped = grouped_subquery(&subquery.plan).filter(|g| g.over_no_rows.len() == 1);
            let Some(grouped) = grouped else {
                return ScalarExpr::Subquery(subquery);
            };
            let taken = std::mem::replace(
                input,
                LogicalPlan::Values {
                    rows: Default::default(),
                    types: vec![],
                },
            );
            let (joined, mut values) = join_grouped(taken, grouped);
            *input = joined;
            // One value, as checked above.
            values.pop().unwrap_or(ScalarExpr::Subquery(subquery))
        }
        other => {
            let fallback = other.clone();
            other
                .try_map_children(&mut |e| Ok(replace_scalar_subqueries(e, input)))
                .unwrap_or(fallback)
        }
    }
}

/// The distinct correlation keys of an EXISTS subquery, as a derived table.
fn exists_keys(subquery: &Subquery) -> Option<(LogicalPlan, Vec<ScalarExpr>)> {
    // EXISTS ignores the select list: look through the projection.
    let body = match subquery.plan.as_ref() {
        LogicalPlan::Project { input, .. } => input.as_ref(),
        other => other,
    };
    Some(distinct_keys(correlation(body)?))
}

/// `inputs IN (SELECT values FROM ... WHERE correlation)` as a WHERE conjunct is
/// `EXISTS (... WHERE correlation AND values = inputs)`: a NULL comparison filters the row
/// out either way.
fn in_keys(subquery: &Subquery, inputs: &[ScalarExpr]) -> Option<(LogicalPlan, Vec<ScalarExpr>)> {
    let LogicalPlan::Project { input, exprs } = subquery.plan.as_ref() else {
        return None;
    };
    let comparable = exprs.len() == inputs.len()
        && exprs.iter().zip(inputs).all(|(value, input)| {
            value.ty() == input.ty()
                && !mentions_outer(value)
                && !mentions_outer(input)
                && !input.is_volatile()
        });
    if !comparable {
        return None;
    }
    let mut correlation = correlation(input)?;
    correlation.inner_keys.extend(exprs.iter().cloned());
    correlation.outer_keys.extend(inputs.iter().cloned());
    Some(distinct_keys(correlation))
}

fn distinct_keys(correlation: Correlation) -> (LogicalPlan, Vec<ScalarExpr>) {
    let derived = LogicalPlan::Distinct {
        input: Box::new(LogicalPlan::Project {
            input: Box::new(correlation.input),
            exprs: correlation.inner_keys,
        }),
        on: Vec::new(),
    };
    (derived, correlation.outer_keys)
}

/// WHERE with `[NOT] EXISTS (correlated)` conjuncts: joins against the subquery's keys.
fn rewrite_filter(input: LogicalPlan, predicate: ScalarExpr) -> LogicalPlan {
    let width = input.output_types().len();
    let mut plan = input;
    let mut rest = Vec::new();
    let mut added_columns = false;
    for part in predicate.into_conjuncts() {
        let (subquery, negated) = match &part {
            ScalarExpr::Subquery(s) => (s, false),
            ScalarExpr::Not(inner) => match inner.as_ref() {
                ScalarExpr::Subquery(s) => (s, true),
                _ => {
                    rest.push(part);
                    continue;
                }
            },
            _ => {
                rest.push(part);
                continue;
            }
        };
        let keys = match (&subquery.kind, subquery.correlated, negated) {
            (SubqueryKind::Exists, true, _) => exists_keys(subquery),
            (
                SubqueryKind::Quantified {
                    inputs,
                    op: CompareOp::Eq,
                    quantifier: Quantifier::Any,
                },
                true,
                false,
            ) => in_keys(subquery, inputs),
            _ => None,
        };
        let Some((derived, outer_keys)) = keys else {
            rest.push(part);
            continue;
        };
        let current_width = plan.output_types().len();
        let key_count = outer_keys.len();
        let condition = key_equalities(outer_keys, current_width);
        let kind = if negated {
            JoinKind::Left
        } else {
            JoinKind::Inner
        };
        plan = LogicalPlan::Join {
            left: Box::new(plan),
            right: Box::new(derived),
            kind,
            condition,
        };
        added_columns |= key_count > 0;
        if negated {
            // No partner row: the first key column of the (left-joined) keys is NULL.
            let first_key = ScalarExpr::Column {
                index: current_width,
                ty: plan.output_types()[current_width],
            };
            plan = LogicalPlan::Filter {
                input: Box::new(plan),
                predicate: ScalarExpr::IsNull {
                    input: Box::new(first_key),
                    negated: false,
                },
            };
        }
    }
    // Conjuncts that stay refer to the original columns, which keep their positions.
    let rest: Vec<ScalarExpr> = rest
        .into_iter()
        .map(|e| replace_scalar_subqueries(e, &mut plan))
        .collect();
    if let Some(predicate) = ScalarExpr::conjunction(rest) {
        plan = LogicalPlan::Filter {
            input: Box::new(plan),
            predicate,
        };
    }
    if plan.output_types().len() == width && !added_columns {
        return plan;
    }
    let types = plan.output_types();
    LogicalPlan::Project {
        input: Box::new(plan),
        exprs: (0..width)
            .map(|index| ScalarExpr::Column {
                index,
                ty: types[index],
            })
            .collect(),
    }
}
