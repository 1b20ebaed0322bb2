//! Arithmetic operators (`+ - * / %` and unary minus) over vectors of one numeric type, with
//! PostgreSQL's overflow and division-by-zero errors. NULL rows are skipped, never checked.

use crate::error::{Error, Result};
use crate::plan::ArithmeticOp;
use crate::types::Decimal;
use crate::vector::{Bitmap, Vector, VectorData};

/// Validity of a binary operation: valid where both inputs are.
pub fn combine_validity(left: &Vector, right: &Vector) -> Option<Bitmap> {
    match (&left.validity, &right.validity) {
        (None, None) => None,
        (Some(v), None) | (None, Some(v)) => Some(v.clone()),
        (Some(a), Some(b)) => Some(a.and(b)),
    }
}

/// Applies `op` to every valid row pair; NULL rows get `T::null_slot()` and are not checked.
fn int_op<T: NullSlot>(
    left: &[T],
    right: &[T],
    validity: &Option<Bitmap>,
    op: impl Fn(T, T) -> Result<T>,
) -> Result<Vec<T>> {
    let mut out = Vec::with_capacity(left.len());
    match validity {
        None => {
            for (&a, &b) in left.iter().zip(right) {
                out.push(op(a, b)?);
            }
        }
        Some(valid) => {
            for (row, (&a, &b)) in left.iter().zip(right).enumerate() {
                out.push(if valid.get(row) {
                    op(a, b)?
                } else {
                    T::null_slot()
                });
            }
        }
    }
    Ok(out)
}

/// The value stored in the slot of a NULL row.
trait NullSlot: Copy {
    fn null_slot() -> Self;
}

macro_rules! null_slot_default {
    ($($t:ty),*) => {$(impl NullSlot for $t { fn null_slot() -> Self { <$t>::default() } })*};
}
null_slot_default!(i16, i32, i64, f32, f64);

impl NullSlot for Decimal {
    fn null_slot() -> Self {
        Decimal::ZERO
    }
}

macro_rules! int_arith {
    ($op:expr, $l:expr, $r:expr, $validity:expr, $ty:ty, $name:literal) => {{
        let overflow = || Error::out_of_range(concat!($name, " out of range"));
        match $op {
            ArithmeticOp::Add => int_op($l, $r, $validity, |a: $ty, b| {
                a.checked_add(b).ok_or_else(overflow)
            }),
            ArithmeticOp::Sub => int_op($l, $r, $validity, |a: $ty, b| {
                a.checked_sub(b).ok_or_else(overflow)
            }),
            ArithmeticOp::Mul => int_op($l, $r, $validity, |a: $ty, b| {
                a.checked_mul(b).ok_or_else(overflow)
            }),
            ArithmeticOp::Div => int_op($l, $r, $validity, |a: $ty, b| {
                if b == 0 {
                    return Err(Error::division_by_zero());
                }
                a.checked_div(b).ok_or_else(overflow)
            }),
            ArithmeticOp::Mod => int_op($l, $r, $validity, |a: $ty, b| {
                if b == 0 {
                    return Err(Error::division_by_zero());
                }
                // MIN % -1 is 0 in PostgreSQL, not an overflow.
                Ok(a.checked_rem(b).unwrap_or(0))
            }),
        }
    }};
}

fn float_check(result: f64, a: f64, b: f64, op: ArithmeticOp) -> Result<f64> {
    if result.is_infinite() && !a.is_infinite() && !b.is_infinite() {
        return Err(Error::out_of_range("value out of range: overflow"));
    }
    if result == 0.0
        && matches!(op, ArithmeticOp::Mul | ArithmeticOp::Div)
        && a != 0.0
        && !b.is_infinite()
        && (op == ArithmeticOp::Div || b != 0.0)
    {
        return Err(Error::out_of_range("value out of range: underflow"));
    }
    Ok(result)
}

fn float_apply(op: ArithmeticOp, a: f64, b: f64) -> Result<f64> {
    let result = match op {
        ArithmeticOp::Add => a + b,
        ArithmeticOp::Sub => a - b,
        ArithmeticOp::Mul => a * b,
        ArithmeticOp::Div => {
            if b == 0.0 {
                return Err(Error::division_by_zero());
            }
            a / b
        }
        ArithmeticOp::Mod => return Err(Error::internal("float modulo is not an operator")),
    };
    float_check(result, a, b, op)
}

fn float32_apply(op: ArithmeticOp, a: f32, b: f32) -> Result<f32> {
    let result = match op {
        ArithmeticOp::Add => a + b,
        ArithmeticOp::Sub => a - b,
        ArithmeticOp::Mul => a * b,
        ArithmeticOp::Div => {
            if b == 0.0 {
                return Err(Error::division_by_zero());
            }
            a / b
        }
        ArithmeticOp::Mod => return Err(Error::internal("float modulo is not an operator")),
    };
    float_check(result as f64, a as f64, b as f64, op)?;
    Ok(result)
}

fn numeric_apply(op: ArithmeticOp, a: Decimal, b: Decimal) -> Result<Decimal> {
    match op {
        ArithmeticOp::Add => a.checked_add(&b),
        ArithmeticOp::Sub => a.checked_sub(&b),
        ArithmeticOp::Mul => a.checked_mul(&b),
        ArithmeticOp::Div => a.checked_div(&b),
        ArithmeticOp::Mod => a.checked_rem(&b),
    }
}

/// `left op right`, both of the same numeric physical type.
pub fn arithmetic(op: ArithmeticOp, left: &Vector, right: &Vector) -> Result<Vector> {
    let validity = combine_validity(left, right);
    let data = match (&left.data, &right.data) {
        (VectorData::Int16(l), VectorData::Int16(r)) => {
            VectorData::Int16(int_arith!(op, l, r, &validity, i16, "smallint")?)
        }
        (VectorData::Int32(l), VectorData::Int32(r)) => {
            VectorData::Int32(int_arith!(op, l, r, &validity, i32, "integer")?)
        }
        (VectorData::Int64(l), VectorData::Int64(r)) => {
            VectorData::Int64(int_arith!(op, l, r, &validity, i64, "bigint")?)
        }
        (VectorData::Float32(l), VectorData::Float32(r)) => {
            VectorData::Float32(int_op(l, r, &validity, |a, b| float32_apply(op, a, b))?)
        }
        (VectorData::Float64(l), VectorData::Float64(r)) => {
            VectorData::Float64(int_op(l, r, &validity, |a, b| float_apply(op, a, b))?)
        }
        (VectorData::Numeric(l), VectorData::Numeric(r)) => {
            VectorData::Numeric(int_op(l, r, &validity, |a, b| numeric_apply(op, a, b))?)
        }
        (l, r) => {
            return Err(Error::internal(format!(
                "arithmetic on {:?} and {:?}",
                l.physical(),
                r.physical()
            )))
        }
    };
    Ok(Vector::new(data, validity))
}

/// Unary minus.
pub fn negate(input: &Vector) -> Result<Vector> {
    let validity = input.validity.clone();
    let neg_int = |name: &'static str| move || Error::out_of_range(format!("{name} out of range"));
    let data = match &input.data {
        VectorData::Int16(v) => VectorData::Int16(int_op(v, v, &validity, |a: i16, _| {
            a.checked_neg().ok_or_else(neg_int("smallint"))
        })?),
        VectorData::Int32(v) => VectorData::Int32(int_op(v, v, &validity, |a: i32, _| {
            a.checked_neg().ok_or_else(neg_int("integer"))
        })?),
        VectorData::Int64(v) => VectorData::Int64(int_op(v, v, &validity, |a: i64, _| {
            a.checked_neg().ok_or_else(neg_int("bigint"))
        })?),
        VectorData::Float32(v) => VectorData::Float32(v.iter().map(|x| -x).collect()),
        VectorData::Float64(v) => VectorData::Float64(v.iter().map(|x| -x).collect()),
        VectorData::Numeric(v) => VectorData::Numeric(v.iter().map(|x| x.neg()).collect()),
        other => return Err(Error::internal(format!("negate {:?}", other.physical()))),
    };
    Ok(Vector::new(data, validity))
}
