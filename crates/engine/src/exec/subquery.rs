//! Subqueries inside expressions. An uncorrelated subquery runs once per statement and its
//! result is kept; a correlated one runs once per outer row, with that row pushed where its
//! outer column references read it, unless an earlier row with the same values it reads
//! already ran it (`subquery_memo.rs`).

use std::sync::Arc;

use hashbrown::HashSet;

use super::subquery_memo::MemoUse;
use super::{collect, ExecContext};
use crate::error::{Error, Result, SqlState};
use crate::function::aggregate::accumulate_arrays;
use crate::function::compare::compare;
use crate::physical::create_operator;
use crate::plan::{CompareOp, Subquery, SubqueryKind};
use crate::types::{DataType, PhysicalType, ScalarValue};
use crate::vector::{concat_batches, encode_row_key, Batch, Bitmap, Vector, VectorData};

/// The rows a subquery returns, as one batch.
fn run(subquery: &Subquery, ctx: &ExecContext) -> Result<Arc<Batch>> {
    if !subquery.correlated {
        if let Some(cached) = ctx.subquery_results.borrow().get(&subquery.id) {
            return Ok(cached.clone());
        }
    }
    let mut op = create_operator(&subquery.plan, &ctx.state);
    let batches = collect(op.as_mut(), ctx)?;
    let physical: Vec<_> = subquery
        .plan
        .output_types()
        .iter()
        .map(|t| t.physical())
        .collect();
    let rows = Arc::new(concat_batches(&physical, &batches)?);
    if !subquery.correlated {
        ctx.subquery_results
            .borrow_mut()
            .insert(subquery.id, rows.clone());
    }
    Ok(rows)
}

/// The subquery's value for every row of `batch`; `input` is the evaluated left side of a
/// quantified comparison.
pub fn evaluate_subquery(
    subquery: &Subquery,
    batch: &Batch,
    input: Option<&Vector>,
    ctx: &ExecContext,
) -> Result<Vector> {
    if !subquery.correlated {
        let rows = run(subquery, ctx)?;
        return match (&subquery.kind, input) {
            (
                SubqueryKind::Quantified {
                    op: CompareOp::Eq,
                    all: false,
                    ..
                },
                Some(input),
            ) => Ok(in_set(input, &rows)),
            _ => {
                let mut out = Vector::with_capacity(result_type(subquery).physical(), batch.len());
                for row in 0..batch.len() {
                    out.push_scalar(&row_result(subquery, &rows, input, row)?)?;
                }
                Ok(out)
            }
        };
    }
    let mut out = Vector::with_capacity(result_type(subquery).physical(), batch.len());
    let mut memo = MemoUse::start(subquery, batch, ctx)?;
    for row in 0..batch.len() {
        if let Some(rows) = memo.as_mut().and_then(|memo| memo.find(batch, row, ctx)) {
            out.push_scalar(&row_result(subquery, &rows, input, row)?)?;
            continue;
        }
        let outer: Vec<ScalarValue> = batch.columns.iter().map(|c| c.get_scalar(row)).collect();
        ctx.outer_rows.borrow_mut().push(outer);
        let rows = run(subquery, ctx);
        ctx.outer_rows.borrow_mut().pop();
        let rows = rows?;
        if let Some(memo) = &memo {
            memo.keep(&rows, ctx)?;
        }
        out.push_scalar(&row_result(subquery, &rows, input, row)?)?;
    }
    Ok(out)
}

fn result_type(subquery: &Subquery) -> DataType {
    match &subquery.kind {
        SubqueryKind::Scalar(ty) | SubqueryKind::Array(ty) | SubqueryKind::Column { ty, .. } => *ty,
        SubqueryKind::Exists | SubqueryKind::Quantified { .. } => DataType::Bool,
    }
}

/// The value for outer row `row` given the subquery's rows.
fn row_result(
    subquery: &Subquery,
    rows: &Batch,
    input: Option<&Vector>,
    row: usize,
) -> Result<ScalarValue> {
    Ok(match &subquery.kind {
        SubqueryKind::Scalar(_) | SubqueryKind::Column { .. } => match rows.len() {
            0 => ScalarValue::Null,
            1 => {
                let index = match subquery.kind {
                    SubqueryKind::Column { index, .. } => index,
                    _ => 0,
                };
                match rows.columns.get(index) {
                    Some(column) => column.get_scalar(0),
                    None => return Err(Error::internal("subquery column out of range")),
                }
            }
            _ => {
                return Err(Error::new(
                    SqlState::CardinalityViolation,
                    "more than one row returned by a subquery used as an expression",
                ))
            }
        },
        SubqueryKind::Exists => ScalarValue::Bool(!rows.is_empty()),
        SubqueryKind::Array(_) => {
            let values = (0..rows.len()).map(|i| rows.columns[0].get_scalar(i));
            // Rows of arrays make an array of one more dimension.
            match rows.columns[0].data.physical() {
                PhysicalType::List(_) => accumulate_arrays(&values.collect::<Vec<_>>())?,
                _ => ScalarValue::Array(values.collect()),
            }
        }
        SubqueryKind::Quantified {
            op,
            all,
            input: expr,
        } => {
            let Some(input) = input else {
                return Err(Error::internal("quantified subquery without its input"));
            };
            if rows.is_empty() {
                return Ok(ScalarValue::Bool(*all));
            }
            let value = Vector::from_scalar(&input.get_scalar(row), expr.ty(), rows.len())?;
            let compared = compare(*op, &value, &rows.columns[0])?;
            let VectorData::Bool(results) = &compared.data else {
                return Err(Error::internal("comparison did not return booleans"));
            };
            let decisive = !*all;
            let mut saw_null = false;
            for (i, &result) in results.iter().enumerate() {
                if !compared.is_valid(i) {
                    saw_null = true;
                } else if result == decisive {
                    return Ok(ScalarValue::Bool(decisive));
                }
            }
            if saw_null {
                ScalarValue::Null
            } else {
                ScalarValue::Bool(!decisive)
            }
        }
    })
}

/// `input IN (rows)` with a hash set: TRUE if found; NULL if not found and the input is NULL
/// or the rows hold a NULL; FALSE otherwise (and always FALSE for no rows).
fn in_set(input: &Vector, rows: &Batch) -> Vector {
    let column = rows.columns[0].as_ref();
    let mut set: HashSet<Vec<u8>> = HashSet::with_capacity(rows.len());
    let mut has_null = false;
    for row in 0..rows.len() {
        let mut key = Vec::new();
        if encode_row_key(&[column], row, &mut key) {
            has_null = true;
        } else {
            set.insert(key);
        }
    }
    let mut values = Vec::with_capacity(input.len());
    let mut validity = Bitmap::new(input.len(), true);
    let mut key = Vec::new();
    for row in 0..input.len() {
        key.clear();
        let input_null = encode_row_key(&[input], row, &mut key);
        let found = !input_null && set.contains(&key);
        values.push(found);
        if !found && !rows.is_empty() && (input_null || has_null) {
            validity.set(row, false);
        }
    }
    let validity = if validity.all_set() {
        None
    } else {
        Some(validity)
    };
    Vector::new(VectorData::Bool(values), validity)
}
