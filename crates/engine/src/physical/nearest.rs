//! Nearest-neighbour searches through an hnsw index: a top-N whose one sort key is a distance
//! between a table's vector column and a constant (or parameter), computed in a projection
//! below, with the operator of an hnsw index on that column, reads its input from the index
//! instead of the whole table. The projections and filters between the sort and the scan
//! stay; the scan alone is replaced.

use crate::catalog::IndexMethod;
use crate::exec::NearestProbe;
use crate::function::{ScalarFunction, VectorFunction};
use crate::plan::{LogicalPlan, ScalarExpr, SortKey};
use crate::storage::DbState;
use crate::types::DataType;

/// The hnsw search that can feed a top-N of `rows` rows over `sorted` by `keys`, and the name
/// of its index.
pub(crate) fn nearest_probe(
    sorted: &LogicalPlan,
    keys: &[SortKey],
    rows: usize,
    state: &DbState,
) -> Option<(NearestProbe, String)> {
    let [key] = keys else {
        return None;
    };
    // Ascending, NULLs last: the order an index scan gives (NULL distances come last).
    if key.descending || key.nulls_first {
        return None;
    }
    let (distance, column_expr, query, below) = distance_to_constant(&key.expr, sorted)?;
    let ScalarExpr::Column { index, .. } = without_typmod_cast(column_expr) else {
        return None;
    };
    let (table_oid, column) = table_column(below, *index)?;
    let entry = state.tables.get(&table_oid)?;
    let DataType::FloatVector(Some(dims)) = entry.schema.columns.get(column)?.data_type else {
        return None;
    };
    entry
        .schema
        .indexes
        .iter()
        .find_map(|index| match index.method {
            IndexMethod::Hnsw(options)
                if index.columns == [column] && options.opclass.distance() == distance =>
            {
                let probe = NearestProbe {
                    column,
                    dims: dims as usize,
                    options,
                    query: query.clone(),
                    rows,
                };
                Some((probe, index.name.clone()))
            }
            IndexMethod::Btree | IndexMethod::Hash | IndexMethod::Hnsw(_) => None,
        })
}

/// Whether `plan` may search an hnsw index (any sort it could serve): its answer then depends
/// on `hnsw.ef_search`, so the result cache must not keep it.
pub(crate) fn may_search_hnsw(plan: &LogicalPlan, state: &DbState) -> bool {
    let mut found = false;
    plan.visit_all(&mut |node| {
        if let LogicalPlan::Sort { input, keys } = node {
            found = found || nearest_probe(input, keys, 1, state).is_some();
        }
    });
    found
}

/// A vector distance between an expression and a constant.
type DistanceCall<'a> = (
    VectorFunction,
    &'a ScalarExpr,
    &'a ScalarExpr,
    &'a LogicalPlan,
);

/// `expr` (over `plan`'s output) as a vector distance between an expression and a constant,
/// looking through the projections that computed it; with the plan whose output the
/// distance's arguments read.
fn distance_to_constant<'a>(
    expr: &'a ScalarExpr,
    plan: &'a LogicalPlan,
) -> Option<DistanceCall<'a>> {
    match (expr, plan) {
        (
            ScalarExpr::Function {
                func: ScalarFunction::Vector(func),
                args,
                ..
            },
            _,
        ) => match args.as_slice() {
            [column, query] | [query, column] if is_constant(query) => {
                Some((*func, column, query, plan))
            }
            _ => None,
        },
        (ScalarExpr::Column { index, .. }, LogicalPlan::Project { input, exprs }) => {
            distance_to_constant(exprs.get(*index)?, input)
        }
        (ScalarExpr::Column { .. }, LogicalPlan::Filter { input, .. }) => {
            distance_to_constant(expr, input)
        }
        _ => None,
    }
}

/// `expr` without the casts from `vector(n)` to `vector` that calls of the distance
/// functions add: they change no value.
fn without_typmod_cast(expr: &ScalarExpr) -> &ScalarExpr {
    match expr {
        ScalarExpr::Cast {
            input,
            to: DataType::FloatVector(_),
            ..
        } if matches!(input.ty(), DataType::FloatVector(_)) => without_typmod_cast(input),
        _ => expr,
    }
}

/// A value known before any row is read: a literal or parameter, possibly cast.
fn is_constant(expr: &ScalarExpr) -> bool {
    match expr {
        ScalarExpr::Literal { .. } | ScalarExpr::Param { .. } => true,
        ScalarExpr::Cast { input, .. } => is_constant(input),
        _ => false,
    }
}

/// The table and table column behind output column `index` of `plan`, when `plan` is a scan
/// under nothing but filters and projections.
fn table_column(plan: &LogicalPlan, index: usize) -> Option<(u32, usize)> {
    match plan {
        LogicalPlan::Scan {
            table_oid, columns, ..
        } => Some((*table_oid, *columns.get(index)?)),
        LogicalPlan::Filter { input, .. } => table_column(input, index),
        LogicalPlan::Project { input, exprs } => match exprs.get(index)? {
            ScalarExpr::Column { index, .. } => table_column(input, *index),
            _ => None,
        },
        _ => None,
    }
}
