//! Evaluates bound expressions over a batch, a whole column at a time: each node dispatches
//! on types once per batch and runs a typed kernel. Branches of CASE, COALESCE, AND and OR
//! are evaluated only on the rows that reach them, so `CASE WHEN x <> 0 THEN 1 / x END`
//! never divides by zero, as in PostgreSQL.

use std::sync::Arc;

use super::filter::positions_where;
use super::ExecContext;
use crate::catalog::system::{CatalogFunction, CatalogSnapshot};
use crate::error::{Error, Result, SqlState};
use crate::function::arithmetic::{arithmetic, combine_validity, negate};
use crate::function::cast::cast_vector;
use crate::function::compare::{compare, compare_with_scalar, flipped};
use crate::function::like::LikePattern;
use crate::function::{ScalarFunction, VectorFunction};
use crate::plan::{BoolTest, CompareOp, ScalarExpr};
use crate::types::{DataType, ScalarValue};
use crate::vector::{Batch, Bitmap, StringVec, Vector, VectorData};

/// The value of `expr` for every row of `batch`.
#[recursive::recursive]
pub fn evaluate(expr: &ScalarExpr, batch: &Batch, ctx: &ExecContext) -> Result<Arc<Vector>> {
    let len = batch.len();
    let result = match expr {
        ScalarExpr::Column { index, .. } => {
            return batch
                .columns
                .get(*index)
                .cloned()
                .ok_or_else(|| Error::internal(format!("column #{index} not in batch")))
        }
        ScalarExpr::Literal { value, ty } => Vector::from_scalar(value, *ty, len)?,
        ScalarExpr::Param { index, ty } => {
            let value = ctx
                .params
                .get(*index)
                // `SELECT $1` sent as a simple query has no parameter values.
                .ok_or_else(|| {
                    Error::new(
                        SqlState::UndefinedParameter,
                        format!("there is no parameter ${}", index + 1),
                    )
                })?;
            Vector::from_scalar(value, *ty, len)?
        }
        ScalarExpr::SessionInfo(info) => {
            Vector::from_scalar(&ctx.session.value(*info), info.ty(), len)?
        }
        ScalarExpr::Cast { input, to, context } => {
            let value = evaluate(input, batch, ctx)?;
            if input.ty().physical() == to.physical() && same_values(input.ty(), *to) {
                return Ok(value);
            }
            cast_vector(&value, input.ty(), *to, *context)?
        }
        ScalarExpr::Negate(input) => negate(&*evaluate(input, batch, ctx)?)?,
        ScalarExpr::Not(input) => map_bool(&*evaluate(input, batch, ctx)?, |b| !b)?,
        ScalarExpr::Arithmetic {
            op, left, right, ..
        } => arithmetic(
            *op,
            &*evaluate(left, batch, ctx)?,
            &*evaluate(right, batch, ctx)?,
        )?,
        ScalarExpr::Compare { op, left, right } => compare_exprs(*op, left, right, batch, ctx)?,
        ScalarExpr::Concat(left, right) => concat(
            &*evaluate(left, batch, ctx)?,
            &*evaluate(right, batch, ctx)?,
        )?,
        ScalarExpr::And(left, right) => and_or(left, right, batch, ctx, false)?,
        ScalarExpr::Or(left, right) => and_or(left, right, batch, ctx, true)?,
        ScalarExpr::IsNull { input, negated } => {
            let value = evaluate(input, batch, ctx)?;
            let out = (0..len).map(|r| value.is_valid(r) == *negated).collect();
            Vector::new(VectorData::Bool(out), None)
        }
        ScalarExpr::BoolTest { input, test } => {
            let value = evaluate(input, batch, ctx)?;
            bool_test(&value, *test)?
        }
        ScalarExpr::IsDistinctFrom {
            left,
            right,
            negated,
        } => {
            let (l, r) = (evaluate(left, batch, ctx)?, evaluate(right, batch, ctx)?);
            let eq = compare(CompareOp::Eq, &l, &r)?;
            let VectorData::Bool(eq_values) = &eq.data else {
                return Err(Error::internal("comparison did not return booleans"));
            };
            let out = (0..len)
                .map(|row| {
                    let distinct = match (l.is_valid(row), r.is_valid(row)) {
                        (true, true) => !eq_values[row],
                        (false, false) => false,
                        _ => true,
                    };
                    distinct != *negated
                })
                .collect();
            Vector::new(VectorData::Bool(out), None)
        }
        ScalarExpr::Like {
            input,
            pattern,
            negated,
            case_insensitive,
        } => like(input, pattern, *negated, *case_insensitive, batch, ctx)?,
        ScalarExpr::InList {
            input,
            list,
            negated,
        } => super::in_list::in_list(input, list, *negated, batch, ctx)?,
        ScalarExpr::Case {
            whens,
            else_result,
            ty,
        } => case(whens, else_result.as_deref(), *ty, batch, ctx)?,
        ScalarExpr::Coalesce { args, ty } => coalesce(args, *ty, batch, ctx)?,
        ScalarExpr::OuterColumn { depth, index, ty } => {
            let outer = ctx.outer_rows.borrow();
            let value = outer
                .len()
                .checked_sub(*depth)
                .and_then(|level| outer[level].get(*index))
                .ok_or_else(|| Error::internal("outer column reference without an outer row"))?;
            Vector::from_scalar(value, *ty, len)?
        }
        ScalarExpr::SequenceCall {
            func,
            sequence,
            args,
        } => {
            let values = args
                .iter()
                .map(|a| evaluate(a, batch, ctx))
                .collect::<Result<Vec<_>>>()?;
            super::sequence::evaluate_sequence_call(*func, sequence.as_ref(), &values, len, ctx)?
        }
        ScalarExpr::DomainCheck { input, checks } => {
            let values = evaluate(input, batch, ctx)?;
            super::check::check_domain_values(checks, &values, len, ctx)?;
            return Ok(values);
        }
        ScalarExpr::CatalogCall { func, args, ty } => {
            let values = args
                .iter()
                .map(|a| evaluate(a, batch, ctx))
                .collect::<Result<Vec<_>>>()?;
            evaluate_catalog_call(*func, &values, *ty, len, ctx)?
        }
        ScalarExpr::Subquery(subquery) => {
            let inputs = match &subquery.kind {
                crate::plan::SubqueryKind::Quantified { inputs, .. } => inputs
                    .iter()
                    .map(|input| evaluate(input, batch, ctx))
                    .collect::<Result<Vec<_>>>()?,
                _ => Vec::new(),
            };
            let inputs: Vec<&Vector> = inputs.iter().map(|input| input.as_ref()).collect();
            super::subquery::evaluate_subquery(subquery, batch, &inputs, ctx)?
        }
        ScalarExpr::Function { func, args, .. } => {
            if let ScalarFunction::Vector(func) = func {
                if let Some(out) = distance_to_constant(*func, args, batch, ctx)? {
                    return Ok(Arc::new(out));
                }
            }
            let values = args
                .iter()
                .map(|a| evaluate(a, batch, ctx).map(|v| (*v).clone()))
                .collect::<Result<Vec<_>>>()?;
            func.eval_batch(&values, len)?
        }
        ScalarExpr::DateTimeFunction { func, args, .. } => {
            let values = args
                .iter()
                .map(|a| evaluate(a, batch, ctx).map(|v| (*v).clone()))
                .collect::<Result<Vec<_>>>()?;
            func.eval(&values, len, ctx.clock)?
        }
    };
    // What a function or operator built (`s || s`, a jsonb builder, string_to_array) is
    // 53200 once the batch of it no longer fits the statement's memory, before a next
    // step doubles it again; also while constants are folded, before `ctx` exists.
    crate::interrupt::check_value_bytes(result.approximate_bytes())?;
    Ok(Arc::new(result))
}

/// A vector distance between an expression and a constant or parameter (`embedding <->
/// $1`, the nearest-neighbour sort key): the column is read in place and the query vector
/// is not repeated for every row. `None` for other calls.
fn distance_to_constant(
    func: VectorFunction,
    args: &[ScalarExpr],
    batch: &Batch,
    ctx: &ExecContext,
) -> Result<Option<Vector>> {
    let constant = |expr: &ScalarExpr| match expr {
        ScalarExpr::Literal { value, .. } => Some(value.clone()),
        ScalarExpr::Param { index, .. } => ctx.params.get(*index).cloned(),
        _ => None,
    };
    // Every distance is symmetric, so the constant may be on either side.
    let (column, query) = match args {
        [column, query] if constant(query).is_some() => (column, constant(query)),
        [query, column] if constant(query).is_some() => (column, constant(query)),
        _ => return Ok(None),
    };
    let Some(ScalarValue::FloatVector(query)) = query else {
        return Ok(None);
    };
    let values = evaluate(column, batch, ctx)?;
    func.distance_to(&values, &query).transpose()
}

/// A comparison, against a constant without broadcasting it where a kernel exists.
fn compare_exprs(
    op: CompareOp,
    left: &ScalarExpr,
    right: &ScalarExpr,
    batch: &Batch,
    ctx: &ExecContext,
) -> Result<Vector> {
    match (left, right) {
        (other, ScalarExpr::Literal { value, .. }) if !value.is_null() => {
            let values = evaluate(other, batch, ctx)?;
            if let Some(out) = compare_with_scalar(op, &values, value) {
                return Ok(out);
            }
            compare(op, &values, &*evaluate(right, batch, ctx)?)
        }
        (ScalarExpr::Literal { value, .. }, other) if !value.is_null() => {
            let values = evaluate(other, batch, ctx)?;
            if let Some(out) = compare_with_scalar(flipped(op), &values, value) {
                return Ok(out);
            }
            compare(op, &*evaluate(left, batch, ctx)?, &values)
        }
        _ => compare(
            op,
            &*evaluate(left, batch, ctx)?,
            &*evaluate(right, batch, ctx)?,
        ),
    }
}

/// Whether a cast between these types leaves every value as it is (text to text without a
/// length limit, numeric to unconstrained numeric).
fn same_values(from: DataType, to: DataType) -> bool {
    match (from, to) {
        // character(n) loses its padding on the way to text, so it is not among these.
        (_, DataType::Text | DataType::Varchar(None)) => {
            matches!(
                from,
                DataType::Text | DataType::Varchar(_) | DataType::Unknown
            )
        }
        (DataType::Numeric(_), DataType::Numeric(None)) => true,
        // The OID types are binary-coercible to one another.
        (DataType::Oid(_), DataType::Oid(_)) => true,
        (a, b) => a == b,
    }
}

/// Evaluates `expr` on the rows `rows` of `batch` only.
fn evaluate_on(
    expr: &ScalarExpr,
    batch: &Batch,
    rows: &[u32],
    ctx: &ExecContext,
) -> Result<Arc<Vector>> {
    if rows.len() == batch.len() {
        return evaluate(expr, batch, ctx);
    }
    evaluate(expr, &batch.gather(rows), ctx)
}

pub(super) fn bools(vector: &Vector) -> Result<&[bool]> {
    match &vector.data {
        VectorData::Bool(v) => Ok(v),
        other => Err(Error::internal(format!(
            "expected booleans, got {:?}",
            other.physical()
        ))),
    }
}

fn map_bool(input: &Vector, f: impl Fn(bool) -> bool) -> Result<Vector> {
    let out = bools(input)?.iter().map(|&b| f(b)).collect();
    Ok(Vector::new(VectorData::Bool(out), input.validity.clone()))
}

/// Three-valued AND (`is_or` false) or OR. The right side is evaluated only on rows the left
/// side does not decide.
fn and_or(
    left: &ScalarExpr,
    right: &ScalarExpr,
    batch: &Batch,
    ctx: &ExecContext,
    is_or: bool,
) -> Result<Vector> {
    let l = evaluate(left, batch, ctx)?;
    let l_values = bools(&l)?;
    if l_values.len() != batch.len() {
        return Err(Error::internal("AND/OR operand and batch differ in length"));
    }
    // The left side decides a row when it is non-NULL and equals `is_or` (TRUE for OR); the
    // rest are undecided.
    let undecided = match &l.validity {
        None => positions_where(batch.len(), |row| l_values[row] != is_or),
        Some(_) => positions_where(batch.len(), |row| {
            !(l.is_valid(row) && l_values[row] == is_or)
        }),
    };
    let mut values = l_values.to_vec();
    // Tentatively the left's: a decided row is valid, an undecided one as valid as its left.
    let mut validity = l.validity.clone();
    if !undecided.is_empty() {
        let rv = evaluate_on(right, batch, &undecided, ctx)?;
        let r_values = bools(&rv)?;
        for (i, &row) in undecided.iter().enumerate() {
            let row = row as usize;
            let right_valid = rv.is_valid(i);
            if right_valid && r_values[i] == is_or {
                values[row] = is_or;
                if let Some(validity) = &mut validity {
                    validity.set(row, true);
                }
            } else if !right_valid {
                validity
                    .get_or_insert_with(|| Bitmap::new(batch.len(), true))
                    .set(row, false);
            } else {
                values[row] = !is_or;
                // Left NULL stays NULL; left neutral + right neutral is neutral.
            }
        }
    }
    let validity = validity.filter(|v| !v.all_set());
    Ok(Vector::new(VectorData::Bool(values), validity))
}

fn bool_test(value: &Vector, test: BoolTest) -> Result<Vector> {
    let values = bools(value)?;
    let out = (0..value.len())
        .map(|r| {
            let v = if value.is_valid(r) {
                Some(values[r])
            } else {
                None
            };
            match test {
                BoolTest::IsTrue => v == Some(true),
                BoolTest::IsNotTrue => v != Some(true),
                BoolTest::IsFalse => v == Some(false),
                BoolTest::IsNotFalse => v != Some(false),
                BoolTest::IsUnknown => v.is_none(),
                BoolTest::IsNotUnknown => v.is_some(),
            }
        })
        .collect();
    Ok(Vector::new(VectorData::Bool(out), None))
}

fn concat(left: &Vector, right: &Vector) -> Result<Vector> {
    let (VectorData::Text(l), VectorData::Text(r)) = (&left.data, &right.data) else {
        return Err(Error::internal("|| on non-text vectors"));
    };
    let mut out = StringVec::with_capacity(l.len(), 0);
    for row in 0..l.len() {
        out.push_with(|buf| {
            buf.extend_from_slice(l.get_bytes(row));
            buf.extend_from_slice(r.get_bytes(row));
        });
    }
    Ok(Vector::new(
        VectorData::Text(out),
        combine_validity(left, right),
    ))
}

fn like(
    input: &ScalarExpr,
    pattern: &ScalarExpr,
    negated: bool,
    case_insensitive: bool,
    batch: &Batch,
    ctx: &ExecContext,
) -> Result<Vector> {
    let value = evaluate(input, batch, ctx)?;
    let VectorData::Text(text) = &value.data else {
        return Err(Error::internal("LIKE on non-text"));
    };
    let mut scratch = String::new();
    // A literal pattern (the common case) is compiled once, without a vector of copies.
    if let ScalarExpr::Literal { value: literal, .. } = pattern {
        let literal = match literal {
            ScalarValue::Null => return Vector::from_scalar(literal, DataType::Bool, text.len()),
            ScalarValue::Text(literal) => literal,
            _ => return Err(Error::internal("LIKE pattern not text")),
        };
        let compiled = LikePattern::compile(literal, case_insensitive)?;
        let out = (0..text.len())
            .map(|row| compiled.matches(text.get_bytes(row), &mut scratch) != negated)
            .collect();
        return Ok(Vector::new(VectorData::Bool(out), value.validity.clone()));
    }
    let patterns = evaluate(pattern, batch, ctx)?;
    let VectorData::Text(pattern_text) = &patterns.data else {
        return Err(Error::internal("LIKE pattern not text"));
    };
    let validity = combine_validity(&value, &patterns);
    let mut out = Vec::with_capacity(text.len());
    let mut compiled: Option<(&str, LikePattern)> = None;
    for row in 0..text.len() {
        if !validity.as_ref().is_none_or(|v| v.get(row)) {
            out.push(false);
            continue;
        }
        let source = pattern_text.get(row);
        if compiled.as_ref().is_none_or(|(last, _)| *last != source) {
            compiled = Some((source, LikePattern::compile(source, case_insensitive)?));
        }
        let matched = compiled
            .as_ref()
            .is_some_and(|(_, p)| p.matches(text.get_bytes(row), &mut scratch));
        out.push(matched != negated);
    }
    Ok(Vector::new(VectorData::Bool(out), validity))
}

/// Builds a vector of `ty` whose row r is row `pos[r]` of `parts[part[r]]` (NULL if `part[r]`
/// is `None`).
fn assemble(
    ty: DataType,
    len: usize,
    picks: &[Option<(usize, usize)>],
    parts: &[Arc<Vector>],
) -> Result<Vector> {
    let mut out = Vector::with_capacity(ty.physical(), len);
    for pick in picks {
        match pick {
            Some((part, pos)) => out.push_from(&parts[*part], *pos),
            None => {
                out.push_null();
                Ok(())
            }
        }?;
    }
    Ok(out)
}

fn case(
    whens: &[(ScalarExpr, ScalarExpr)],
    else_result: Option<&ScalarExpr>,
    ty: DataType,
    batch: &Batch,
    ctx: &ExecContext,
) -> Result<Vector> {
    let len = batch.len();
    let mut picks: Vec<Option<(usize, usize)>> = vec![None; len];
    let mut parts = Vec::new();
    let mut remaining: Vec<u32> = (0..len as u32).collect();
    for (when, then) in whens {
        if remaining.is_empty() {
            break;
        }
        let cond = evaluate_on(when, batch, &remaining, ctx)?;
        let cond_values = bools(&cond)?;
        let mut rows = Vec::new();
        let mut rest = Vec::new();
        for (i, &row) in remaining.iter().enumerate() {
            if cond.is_valid(i) && cond_values[i] {
                rows.push(row);
            } else {
                rest.push(row);
            }
        }
        if !rows.is_empty() {
            let result = evaluate_on(then, batch, &rows, ctx)?;
            for (pos, &row) in rows.iter().enumerate() {
                picks[row as usize] = Some((parts.len(), pos));
            }
            parts.push(result);
        }
        remaining = rest;
    }
    if let (Some(else_result), false) = (else_result, remaining.is_empty()) {
        let result = evaluate_on(else_result, batch, &remaining, ctx)?;
        for (pos, &row) in remaining.iter().enumerate() {
            picks[row as usize] = Some((parts.len(), pos));
        }
        parts.push(result);
    }
    assemble(ty, len, &picks, &parts)
}

fn coalesce(args: &[ScalarExpr], ty: DataType, batch: &Batch, ctx: &ExecContext) -> Result<Vector> {
    let len = batch.len();
    let mut picks: Vec<Option<(usize, usize)>> = vec![None; len];
    let mut parts = Vec::new();
    let mut remaining: Vec<u32> = (0..len as u32).collect();
    for arg in args {
        if remaining.is_empty() {
            break;
        }
        let value = evaluate_on(arg, batch, &remaining, ctx)?;
        let mut rest = Vec::new();
        for (pos, &row) in remaining.iter().enumerate() {
            if value.is_valid(pos) {
                picks[row as usize] = Some((parts.len(), pos));
            } else {
                rest.push(row);
            }
        }
        parts.push(value);
        remaining = rest;
    }
    assemble(ty, len, &picks, &parts)
}

/// Evaluates an expression that reads no column (LIMIT, OFFSET, VALUES items) once.
pub fn evaluate_constant(expr: &ScalarExpr, ctx: &ExecContext) -> Result<ScalarValue> {
    // A literal or parameter stored in its type's layout is its own value (every VALUES row
    // of a plain or prepared INSERT): no one-row vector to build and read back.
    let own_value = match expr {
        ScalarExpr::Literal { value, ty } => Some((value, ty)),
        ScalarExpr::Param { index, ty } => ctx.params.get(*index).map(|value| (value, ty)),
        _ => None,
    };
    if let Some((value, ty)) = own_value {
        if !matches!(value, ScalarValue::Array(_) | ScalarValue::ShapedArray(_))
            && value.physical().is_none_or(|p| p == ty.physical())
        {
            return Ok(value.clone());
        }
    }
    let one_row = Batch::new(Vec::new(), 1);
    Ok(evaluate(expr, &one_row, ctx)?.get_scalar(0))
}

/// A catalog function, a row at a time: these run over catalog rows, never over big tables.
/// The enum type of a statement's values of type `DataType::Enum(oid)`.
fn enum_type(ctx: &ExecContext, oid: u32) -> Result<&crate::catalog::EnumType> {
    ctx.state
        .enum_types
        .get(&oid)
        .map(|t| t.as_ref())
        .ok_or_else(|| crate::error::Error::internal(format!("cache lookup failed for type {oid}")))
}

fn evaluate_catalog_call(
    func: CatalogFunction,
    args: &[Arc<Vector>],
    ty: DataType,
    len: usize,
    ctx: &ExecContext,
) -> Result<Vector> {
    // An enum's labels, a vector at a time.
    match (func, args) {
        (CatalogFunction::EnumOut(oid), [values]) => {
            return enum_type(ctx, oid)?.label_vector(values)
        }
        (CatalogFunction::EnumIn(oid), [labels]) => {
            let committed = ctx.state.committed_enum_type(oid);
            return enum_type(ctx, oid)?.parse_vector(labels, committed);
        }
        _ => {}
    }
    let snapshot = CatalogSnapshot {
        state: &ctx.state,
        session: &ctx.session,
        settings: ctx.settings.as_deref().map(Vec::as_slice),
        search_path: ctx.search_path.as_deref(),
        setting_changes: &ctx.setting_changes,
        advisory: ctx.advisory.as_deref(),
        cursors: &ctx.cursors,
        prepared_statements: &ctx.prepared_statements,
    };
    let mut out = Vector::with_capacity(ty.physical(), len);
    let mut row_args = Vec::with_capacity(args.len());
    for row in 0..len {
        row_args.clear();
        row_args.extend(args.iter().map(|a| a.get_scalar(row)));
        let value = if func.is_strict() && row_args.iter().any(ScalarValue::is_null) {
            ScalarValue::Null
        } else {
            func.eval(&row_args, &snapshot)?
        };
        out.push_scalar(&value)?;
    }
    Ok(out)
}
