//! Eager aggregation (Yan & Larson): `GROUP BY` dimension columns over a join of a large
//! fact input with a dimension table on one of its unique keys is computed by first grouping
//! the fact rows by their join key, then joining the (few) groups with the dimension and
//! combining the partial results:
//!
//! ```text
//! Aggregate[d.g; sum(f.x)]                Aggregate[d.g; sum(s)]
//!   Join f.k = d.id             =>          Join k = d.id
//!     f (500K rows)                           Aggregate[f.k; sum(f.x) AS s]
//!     d (10K rows, id unique)                   f
//!                                             d
//! ```
//!
//! Each fact row meets at most one dimension row (the key is unique), so every fact row
//! still counts exactly once. Only aggregates whose partial results combine exactly qualify:
//! count, sum over integers and NUMERIC (never floats: their sums depend on the order), min
//! and max, none with DISTINCT, FILTER or ORDER BY. The final results keep their types: a
//! sum of partial counts is cast back to bigint.

use super::cardinality::estimate_rows;
use super::{map_inputs, Rule};
use crate::error::Result;
use crate::function::cast::CastContext;
use crate::function::AggregateFunction;
use crate::plan::{
    split_condition, AggregateCall, ColumnSide, CompareOp, JoinKind, LogicalPlan, ScalarExpr,
};
use crate::storage::DbState;
use crate::types::DataType;

pub struct PushDownAggregate;

impl Rule for PushDownAggregate {
    fn name(&self) -> &'static str {
        "push_down_aggregate"
    }

    fn apply(&self, plan: LogicalPlan, state: &DbState) -> Result<LogicalPlan> {
        rewrite(plan, state)
    }
}

/// The fact input must be this many times larger than the dimension (estimated) for the
/// partial grouping to pay for itself.
const FACT_TO_DIMENSION_MIN: f64 = 4.0;

#[recursive::recursive]
fn rewrite(plan: LogicalPlan, state: &DbState) -> Result<LogicalPlan> {
    let plan = map_inputs(plan, &mut |p| rewrite(p, state))?;
    Ok(match eager(&plan, state) {
        Some(rewritten) => rewritten,
        None => plan,
    })
}

/// Which join input is the dimension, and the join's key pairs as (fact, dimension)
/// positions within their own inputs.
struct Shape {
    dimension_is_left: bool,
    keys: Vec<(usize, usize)>,
}

fn eager(plan: &LogicalPlan, state: &DbState) -> Option<LogicalPlan> {
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
    let LogicalPlan::Join {
        left,
        right,
        kind: JoinKind::Inner,
        condition: Some(condition),
    } = input.as_ref()
    else {
        return None;
    };
    if group_by.is_empty() || !grouping_sets.is_empty() || !grouping_calls.is_empty() {
        return None;
    }
    let left_width = left.output_types().len();
    let pairs = key_pairs(condition, left_width)?;
    // The dimension side holds every group key; the fact side every aggregate argument.
    let side_of_groups = one_side(group_by.iter(), left_width)?;
    let dimension_is_left = side_of_groups == ColumnSide::Left;
    let args = aggregates.iter().flat_map(|a| a.args.iter());
    let fact_side = if dimension_is_left {
        ColumnSide::Right
    } else {
        ColumnSide::Left
    };
    let reads_fact_only = |a: &ScalarExpr| {
        !a.is_volatile() && [fact_side, ColumnSide::Neither].contains(&a.side(left_width))
    };
    if !args.clone().all(reads_fact_only) {
        return None;
    }
    let (fact, dimension) = if dimension_is_left {
        (right.as_ref(), left.as_ref())
    } else {
        (left.as_ref(), right.as_ref())
    };
    let shape = Shape {
        dimension_is_left,
        keys: pairs
            .iter()
            .map(|&(l, r)| if dimension_is_left { (r, l) } else { (l, r) })
            .collect(),
    };
    let dimension_keys: Vec<usize> = shape.keys.iter().map(|k| k.1).collect();
    if !is_unique(dimension, &dimension_keys, state)
        || estimate_rows(fact, state) < FACT_TO_DIMENSION_MIN * estimate_rows(dimension, state)
    {
        return None;
    }
    let partials: Vec<Partial> = aggregates.iter().map(Partial::of).collect::<Option<_>>()?;
    Some(build(
        &shape,
        fact.clone(),
        dimension.clone(),
        left_width,
        group_by,
        aggregates,
        &partials,
    ))
}

/// `a = b AND c = d ...` between plain columns of the two sides, as (left, right) positions.
fn key_pairs(condition: &ScalarExpr, left_width: usize) -> Option<Vec<(usize, usize)>> {
    let split = split_condition(Some(condition.clone()), left_width);
    if split.residual.is_some() {
        return None;
    }
    split
        .left_keys
        .iter()
        .zip(&split.right_keys)
        .map(|pair| match pair {
            (ScalarExpr::Column { index: l, ty: lt }, ScalarExpr::Column { index: r, ty: rt })
                if lt == rt =>
            {
                Some((*l, *r))
            }
            _ => None,
        })
        .collect()
}

/// The one join side every expression reads (all plain columns of it).
fn one_side<'a>(
    exprs: impl Iterator<Item = &'a ScalarExpr>,
    left_width: usize,
) -> Option<ColumnSide> {
    let mut side = None;
    for expr in exprs {
        let ScalarExpr::Column { .. } = expr else {
            return None;
        };
        let this = expr.side(left_width);
        if side.is_some_and(|s| s != this) {
            return None;
        }
        side = Some(this);
    }
    side
}

/// Whether `plan` (a table scan, perhaps filtered) has at most one row per value of the
/// columns at `positions`: they cover one of the table's unique keys.
fn is_unique(plan: &LogicalPlan, positions: &[usize], state: &DbState) -> bool {
    let (table_oid, columns) = match plan {
        LogicalPlan::Scan {
            table_oid, columns, ..
        } => (table_oid, columns),
        LogicalPlan::Filter { input, .. } => match input.as_ref() {
            LogicalPlan::Scan {
                table_oid, columns, ..
            } => (table_oid, columns),
            _ => return false,
        },
        _ => return false,
    };
    let Some(entry) = state.tables.get(table_oid) else {
        return false;
    };
    let key_columns: Vec<usize> = positions
        .iter()
        .filter_map(|&p| columns.get(p).copied())
        .collect();
    entry
        .schema
        .unique_keys
        .iter()
        .any(|key| key.columns.iter().all(|c| key_columns.contains(c)))
}

/// How one aggregate splits into a partial (over fact rows) and a final (over partials).
struct Partial {
    partial: AggregateFunction,
    combine: AggregateFunction,
    /// The combined result's type before the cast back to the original type, if they differ.
    combined_ty: DataType,
}

impl Partial {
    fn of(call: &AggregateCall) -> Option<Partial> {
        use AggregateFunction as F;
        if call.distinct || call.filter.is_some() || !call.order_by.is_empty() {
            return None;
        }
        let arg_ty = call.args.first().map(|a| a.ty());
        let combine = match (call.func, arg_ty) {
            (F::CountStar, None) | (F::Count, Some(_)) => F::Sum,
            (F::Sum, Some(DataType::Int16 | DataType::Int32 | DataType::Int64))
            | (F::Sum, Some(DataType::Numeric(_))) => F::Sum,
            (F::Min, Some(_)) => F::Min,
            (F::Max, Some(_)) => F::Max,
            _ => return None,
        };
        let (_, combined_ty) = combine.signature(&[call.ty])?;
        Some(Partial {
            partial: call.func,
            combine,
            combined_ty,
        })
    }
}

fn build(
    shape: &Shape,
    fact: LogicalPlan,
    dimension: LogicalPlan,
    left_width: usize,
    group_by: &[ScalarExpr],
    aggregates: &[AggregateCall],
    partials: &[Partial],
) -> LogicalPlan {
    let fact_types = fact.output_types();
    let dimension_width = dimension.output_types().len();
    // Original join positions of the fact side start at `fact_offset`.
    let fact_offset = if shape.dimension_is_left {
        left_width
    } else {
        0
    };
    let key_count = shape.keys.len();
    let partial_aggregate = LogicalPlan::Aggregate {
        input: Box::new(fact),
        group_by: shape
            .keys
            .iter()
            .map(|&(f, _)| ScalarExpr::Column {
                index: f,
                ty: fact_types[f],
            })
            .collect(),
        aggregates: aggregates
            .iter()
            .zip(partials)
            .map(|(call, p)| AggregateCall {
                func: p.partial,
                args: call
                    .args
                    .iter()
                    .map(|a| a.clone().map_columns(&|i| i - fact_offset))
                    .collect(),
                distinct: false,
                filter: None,
                order_by: Vec::new(),
                ty: call.ty,
            })
            .collect(),
        grouping_sets: Vec::new(),
        grouping_calls: Vec::new(),
    };
    let partial_width = key_count + aggregates.len();
    // Positions in the new join's output.
    let (partial_at, dimension_at) = if shape.dimension_is_left {
        (dimension_width, 0)
    } else {
        (0, partial_width)
    };
    let condition = ScalarExpr::conjunction(
        shape
            .keys
            .iter()
            .enumerate()
            .map(|(i, &(f, d))| ScalarExpr::Compare {
                op: CompareOp::Eq,
                left: Box::new(ScalarExpr::Column {
                    index: partial_at + i,
                    ty: fact_types[f],
                }),
                right: Box::new(ScalarExpr::Column {
                    index: dimension_at + d,
                    ty: fact_types[f],
                }),
            })
            .collect(),
    );
    let (left, right) = if shape.dimension_is_left {
        (dimension, partial_aggregate)
    } else {
        (partial_aggregate, dimension)
    };
    let join = LogicalPlan::Join {
        left: Box::new(left),
        right: Box::new(right),
        kind: JoinKind::Inner,
        condition,
    };
    let dimension_offset = if shape.dimension_is_left {
        0
    } else {
        left_width
    };
    let final_aggregate = LogicalPlan::Aggregate {
        input: Box::new(join),
        group_by: group_by
            .iter()
            .map(|g| {
                g.clone()
                    .map_columns(&|i| i - dimension_offset + dimension_at)
            })
            .collect(),
        aggregates: aggregates
            .iter()
            .zip(partials)
            .enumerate()
            .map(|(j, (call, p))| AggregateCall {
                func: p.combine,
                args: vec![ScalarExpr::Column {
                    index: partial_at + key_count + j,
                    ty: call.ty,
                }],
                distinct: false,
                filter: None,
                order_by: Vec::new(),
                ty: p.combined_ty,
            })
            .collect(),
        grouping_sets: Vec::new(),
        grouping_calls: Vec::new(),
    };
    // The original output: group keys, then each aggregate in its own type.
    let group_types: Vec<DataType> = group_by.iter().map(|g| g.ty()).collect();
    let exprs = group_types
        .iter()
        .enumerate()
        .map(|(i, &ty)| ScalarExpr::Column { index: i, ty })
        .chain(
            aggregates
                .iter()
                .zip(partials)
                .enumerate()
                .map(|(j, (call, p))| {
                    let combined = ScalarExpr::Column {
                        index: group_types.len() + j,
                        ty: p.combined_ty,
                    };
                    if p.combined_ty == call.ty {
                        combined
                    } else {
                        ScalarExpr::Cast {
                            input: Box::new(combined),
                            to: call.ty,
                            context: CastContext::Explicit,
                        }
                    }
                }),
        )
        .collect();
    LogicalPlan::Project {
        input: Box::new(final_aggregate),
        exprs,
    }
}
