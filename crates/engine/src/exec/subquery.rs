//! Subqueries inside expressions. An uncorrelated subquery runs once per statement and its
//! result is kept; a correlated one runs once per outer row, with that row pushed where its
//! outer column references read it, unless an earlier row with the same values it reads
//! already ran it (`subquery_memo.rs`).

use std::sync::Arc;

use hashbrown::HashSet;

use super::subquery_memo::MemoUse;
use super::{materialize, ExecContext};
use crate::error::{Error, Result, SqlState};
use crate::function::aggregate::accumulate_arrays;
use crate::function::compare::compare;
use crate::physical::create_operator;
use crate::plan::{CompareOp, Quantifier, Subquery, SubqueryKind};
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
    // Charged as they come, so a subquery of any size fails with 53200; a correlated
    // subquery's rows, dropped after their outer row, are given back once collected.
    let batches = materialize(op.as_mut(), ctx)?;
    if subquery.correlated {
        ctx.memory
            .release(batches.iter().map(Batch::approximate_bytes).sum());
    }
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

/// The subquery's value for every row of `batch`; `inputs` are the evaluated fields of the
/// left side of a quantified comparison (none for other kinds).
pub fn evaluate_subquery(
    subquery: &Subquery,
    batch: &Batch,
    inputs: &[&Vector],
    ctx: &ExecContext,
) -> Result<Vector> {
    if !subquery.correlated {
        let rows = run(subquery, ctx)?;
        return match &subquery.kind {
            SubqueryKind::Quantified {
                op: CompareOp::Eq,
                quantifier: Quantifier::Any,
                ..
            } => Ok(in_set(inputs, &rows)),
            _ => {
                let mut out = Vector::with_capacity(result_type(subquery).physical(), batch.len());
                for row in 0..batch.len() {
                    out.push_scalar(&row_result(subquery, &rows, inputs, row)?)?;
                }
                Ok(out)
            }
        };
    }
    let mut out = Vector::with_capacity(result_type(subquery).physical(), batch.len());
    let mut memo = MemoUse::start(subquery, batch, ctx)?;
    for row in 0..batch.len() {
        if let Some(rows) = memo.as_mut().and_then(|memo| memo.find(batch, row, ctx)) {
            out.push_scalar(&row_result(subquery, &rows, inputs, row)?)?;
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
        out.push_scalar(&row_result(subquery, &rows, inputs, row)?)?;
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
    inputs: &[&Vector],
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
            _ => return Err(more_than_one_row()),
        },
        SubqueryKind::Exists => ScalarValue::Bool(!rows.is_empty()),
        SubqueryKind::Array(_) => {
            // The array holds each row again, as a value of its own.
            let array_bytes = rows.len() * std::mem::size_of::<ScalarValue>();
            crate::interrupt::check_value_bytes(array_bytes)?;
            let values = (0..rows.len()).map(|i| rows.columns[0].get_scalar(i));
            // Rows of arrays make an array of one more dimension.
            match rows.columns[0].data.physical() {
                PhysicalType::List(_) => accumulate_arrays(&values.collect::<Vec<_>>())?,
                _ => ScalarValue::Array(values.collect()),
            }
        }
        SubqueryKind::Quantified {
            inputs: fields,
            op,
            quantifier,
        } => {
            let all = match quantifier {
                Quantifier::Any => false,
                Quantifier::All => true,
                Quantifier::Single if rows.len() > 1 => return Err(more_than_one_row()),
                Quantifier::Single => false,
            };
            if rows.is_empty() {
                return Ok(match quantifier {
                    Quantifier::Single => ScalarValue::Null,
                    _ => ScalarValue::Bool(all),
                });
            }
            let types: Vec<DataType> = fields.iter().map(|field| field.ty()).collect();
            let compared = compare_with_rows(*op, inputs, &types, row, rows)?;
            let decisive = !all;
            let mut saw_null = false;
            for result in compared {
                match result {
                    None => saw_null = true,
                    Some(result) if result == decisive => return Ok(ScalarValue::Bool(decisive)),
                    Some(_) => {}
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

fn more_than_one_row() -> Error {
    Error::new(
        SqlState::CardinalityViolation,
        "more than one row returned by a subquery used as an expression",
    )
}

/// The left side's fields at outer row `row` compared with every subquery row, as
/// PostgreSQL compares rows: `=` is the AND of the fields' equalities and `<>` the OR of
/// their inequalities; an ordering operator is decided by the first pair that is unequal
/// (by that pair) or NULL (then NULL), and by whether it admits equality when all are equal.
/// `None` is NULL; `types` are the inputs' types.
fn compare_with_rows(
    op: CompareOp,
    inputs: &[&Vector],
    types: &[DataType],
    row: usize,
    rows: &Batch,
) -> Result<Vec<Option<bool>>> {
    let fields = |op: CompareOp| -> Result<Vec<Vector>> {
        inputs
            .iter()
            .zip(types)
            .zip(&rows.columns)
            .map(|((input, ty), column)| {
                let value = Vector::from_scalar(&input.get_scalar(row), *ty, rows.len())?;
                compare(op, &value, column)
            })
            .collect()
    };
    let at = |compared: &Vector, i: usize| -> Result<Option<bool>> {
        let VectorData::Bool(results) = &compared.data else {
            return Err(Error::internal("comparison did not return booleans"));
        };
        Ok(compared.is_valid(i).then(|| results[i]))
    };
    let mut out = Vec::with_capacity(rows.len());
    match op {
        // A single field is its own comparison, whatever the operator.
        _ if inputs.len() == 1 || matches!(op, CompareOp::Eq | CompareOp::NotEq) => {
            // `=` (and one field) is decided by a FALSE field, `<>` by a TRUE one;
            // otherwise a NULL field leaves the row NULL.
            let decisive = op == CompareOp::NotEq;
            let compared = fields(op)?;
            for i in 0..rows.len() {
                let mut result = Some(!decisive);
                for field in &compared {
                    match at(field, i)? {
                        Some(value) if value == decisive => {
                            result = Some(decisive);
                            break;
                        }
                        Some(_) => {}
                        None => result = None,
                    }
                }
                out.push(result);
            }
        }
        _ => {
            let equal = fields(CompareOp::Eq)?;
            let ordered = fields(op)?;
            let all_equal = matches!(op, CompareOp::LtEq | CompareOp::GtEq);
            for i in 0..rows.len() {
                let mut result = Some(all_equal);
                for (equal, ordered) in equal.iter().zip(&ordered) {
                    match at(equal, i)? {
                        Some(true) => {}
                        Some(false) => {
                            result = at(ordered, i)?;
                            break;
                        }
                        None => {
                            result = None;
                            break;
                        }
                    }
                }
                out.push(result);
            }
        }
    }
    Ok(out)
}

/// `inputs IN (rows)` with a hash set of the subquery rows that hold no NULL: a left side
/// found there is TRUE. One that is not is NULL when some subquery row could still equal it
/// (every field pair equal, or NULL on either side), else FALSE; always FALSE for no rows.
fn in_set(inputs: &[&Vector], rows: &Batch) -> Vector {
    let columns: Vec<&Vector> = rows.columns.iter().map(|c| c.as_ref()).collect();
    let mut set: HashSet<Vec<u8>> = HashSet::with_capacity(rows.len());
    let mut rows_with_null = Vec::new();
    for row in 0..rows.len() {
        let mut key = Vec::new();
        if encode_row_key(&columns, row, &mut key) {
            rows_with_null.push(row);
        } else {
            set.insert(key);
        }
    }
    let len = inputs.first().map_or(0, |input| input.len());
    let mut values = Vec::with_capacity(len);
    let mut validity = Bitmap::new(len, true);
    let mut key = Vec::new();
    for row in 0..len {
        key.clear();
        let input_null = encode_row_key(inputs, row, &mut key);
        let found = !input_null && set.contains(&key);
        values.push(found);
        let candidates = if input_null {
            0..rows.len()
        } else {
            0..rows_with_null.len()
        };
        let could_equal = !found
            && candidates.into_iter().any(|i| {
                let other = if input_null { i } else { rows_with_null[i] };
                fields_could_equal(inputs, row, &columns, other)
            });
        if could_equal {
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

/// Whether no field pair of `left[row]` and `right[other]` is known to differ: each is equal
/// or has a NULL side.
fn fields_could_equal(left: &[&Vector], row: usize, right: &[&Vector], other: usize) -> bool {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    left.iter().zip(right).all(|(l, r)| {
        a.clear();
        b.clear();
        encode_row_key(&[l], row, &mut a) || encode_row_key(&[r], other, &mut b) || a == b
    })
}
