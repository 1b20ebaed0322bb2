//! The loops every kernel shares: typed access to argument vectors, the validity of a strict
//! function's result, and filling a result column row by row without allocating per row.
//! Rows that are NULL in any argument hold a default value and are never computed, so a
//! function that can fail never fails on a NULL row's placeholder value.

use crate::error::{Error, Result};
use crate::types::inet::Inet;
use crate::types::{Decimal, PhysicalType, ScalarValue};
use crate::vector::{Bitmap, BytesVec, StringVec, Vector, VectorData};

/// Element types a kernel can read out of a vector.
pub(super) trait Element: Sized + Copy + Default {
    fn slice(data: &VectorData) -> Option<&[Self]>;
    fn wrap(values: Vec<Self>) -> VectorData;
}

macro_rules! element {
    ($ty:ty, $variant:ident) => {
        impl Element for $ty {
            fn slice(data: &VectorData) -> Option<&[Self]> {
                match data {
                    VectorData::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn wrap(values: Vec<Self>) -> VectorData {
                VectorData::$variant(values)
            }
        }
    };
}
element!(bool, Bool);
element!(i16, Int16);
element!(i32, Int32);
element!(i64, Int64);
element!(f32, Float32);
element!(f64, Float64);
element!(Decimal, Numeric);
element!(u128, Uuid);
element!(Inet, Inet);

impl Default for Decimal {
    fn default() -> Self {
        Decimal::ZERO
    }
}

/// Argument `idx`, which the binder guarantees exists.
pub(super) fn arg(args: &[Vector], idx: usize) -> Result<&Vector> {
    args.get(idx)
        .ok_or_else(|| Error::internal(format!("missing function argument {}", idx + 1)))
}

/// The values of argument `idx` as `T`s (an internal error if the binder coerced otherwise).
pub(super) fn values<T: Element>(args: &[Vector], idx: usize) -> Result<&[T]> {
    let vector = arg(args, idx)?;
    T::slice(&vector.data).ok_or_else(|| {
        Error::internal(format!(
            "function argument {} is {:?}, not {}",
            idx + 1,
            vector.data.physical(),
            std::any::type_name::<T>()
        ))
    })
}

pub(super) fn texts(args: &[Vector], idx: usize) -> Result<&StringVec> {
    match &arg(args, idx)?.data {
        VectorData::Text(s) => Ok(s),
        other => Err(Error::internal(format!(
            "function argument {} is {:?}, not text",
            idx + 1,
            other.physical()
        ))),
    }
}

/// The rows valid in every argument: where a strict function has a result.
pub(super) fn strict_validity(args: &[Vector]) -> Option<Bitmap> {
    args.iter().fold(None, |acc, v| match (acc, &v.validity) {
        (None, None) => None,
        (Some(a), None) => Some(a),
        (None, Some(b)) => Some(b.clone()),
        (Some(a), Some(b)) => Some(a.and(b)),
    })
}

#[inline]
pub(super) fn is_valid(validity: &Option<Bitmap>, row: usize) -> bool {
    validity.as_ref().is_none_or(|v| v.get(row))
}

/// The number of rows of a call with at least one argument.
pub(super) fn row_count(args: &[Vector]) -> usize {
    args.first().map_or(0, Vector::len)
}

/// A strict function with a fixed-width result: `f(row)` for every row valid in all
/// arguments.
pub(super) fn map_rows<T: Element>(
    args: &[Vector],
    mut f: impl FnMut(usize) -> Result<T>,
) -> Result<Vector> {
    let validity = strict_validity(args);
    let rows = row_count(args);
    let mut out = Vec::with_capacity(rows);
    match &validity {
        None => {
            for row in 0..rows {
                out.push(f(row)?);
            }
        }
        Some(bitmap) => {
            for row in 0..rows {
                out.push(if bitmap.get(row) {
                    f(row)?
                } else {
                    T::default()
                });
            }
        }
    }
    Ok(Vector::new(T::wrap(out), validity))
}

/// Appends one value per row: `null(out)` where a strict argument is NULL, `value(row, out)`
/// elsewhere; the first error stops the loop.
pub(super) fn fill_strict_rows<Out>(
    validity: &Option<Bitmap>,
    rows: usize,
    out: &mut Out,
    mut null: impl FnMut(&mut Out),
    mut value: impl FnMut(usize, &mut Out) -> Result<()>,
) -> Result<()> {
    for row in 0..rows {
        match is_valid(validity, row) {
            true => value(row, out)?,
            false => null(out),
        }
    }
    Ok(())
}

/// How many bytes of text a function writes between looks at the statement's interrupt
/// and memory.
const INTERRUPT_CHECK_BYTES: usize = 16 << 20;

/// A strict function with a text result: `f(row, out)` appends row `row`'s value to the
/// column's byte buffer.
pub(super) fn map_text_rows(
    args: &[Vector],
    mut f: impl FnMut(usize, &mut Vec<u8>) -> Result<()>,
) -> Result<Vector> {
    let validity = strict_validity(args);
    let rows = row_count(args);
    let mut out = StringVec::with_capacity(rows, rows * 8);
    let mut checked_bytes = 0;
    fill_strict_rows(
        &validity,
        rows,
        &mut out,
        |out| out.push(""),
        |row, out| {
            let mut result = Ok(());
            out.push_with(|buf| result = f(row, buf));
            // A batch of huge values (repeat, lpad) takes seconds and may outgrow the
            // statement's memory: look for a cancel and for room.
            if out.heap_bytes() - checked_bytes >= INTERRUPT_CHECK_BYTES {
                checked_bytes = out.heap_bytes();
                crate::interrupt::check_value_bytes(checked_bytes)?;
            }
            result
        },
    )?;
    Ok(Vector::new(VectorData::Text(out), validity))
}

/// A text result that may be NULL where the arguments are not (`substring` without a
/// match): `f` returns false for NULL, having written nothing.
pub(super) fn map_text_rows_nullable(
    args: &[Vector],
    mut f: impl FnMut(usize, &mut Vec<u8>) -> Result<bool>,
) -> Result<Vector> {
    let input_validity = strict_validity(args);
    let rows = row_count(args);
    let mut out = StringVec::with_capacity(rows, rows * 8);
    let mut validity = Bitmap::new(rows, true);
    let mut error = None;
    for row in 0..rows {
        let mut valid = false;
        if is_valid(&input_validity, row) {
            out.push_with(|buf| match f(row, buf) {
                Ok(v) => valid = v,
                Err(e) => error = Some(e),
            });
        } else {
            out.push("");
        }
        if let Some(e) = error.take() {
            return Err(e);
        }
        if !valid {
            validity.set(row, false);
        }
    }
    let validity = (!validity.all_set()).then_some(validity);
    Ok(Vector::new(VectorData::Text(out), validity))
}

/// Byte offset of the `n`th character of `s` (its length if `s` is shorter).
#[inline]
pub(super) fn char_offset(s: &str, n: usize) -> usize {
    if n >= s.len() {
        return s.len();
    }
    if s.is_ascii() {
        return n;
    }
    s.char_indices().nth(n).map_or(s.len(), |(i, _)| i)
}

/// The number of characters of `s`.
#[inline]
pub(super) fn char_count(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

pub(super) fn bytes(args: &[Vector], idx: usize) -> Result<&BytesVec> {
    match &arg(args, idx)?.data {
        VectorData::Bytes(b) => Ok(b),
        other => Err(Error::internal(format!(
            "function argument {} is {:?}, not bytea",
            idx + 1,
            other.physical()
        ))),
    }
}

/// A strict function with a bytea result: `f(row, out)` appends row `row`'s value.
pub(super) fn map_bytes_rows(
    args: &[Vector],
    mut f: impl FnMut(usize, &mut Vec<u8>) -> Result<()>,
) -> Result<Vector> {
    let validity = strict_validity(args);
    let rows = row_count(args);
    let mut out = BytesVec::with_capacity(rows, rows * 8);
    let mut error = None;
    for row in 0..rows {
        if !is_valid(&validity, row) {
            out.push(&[]);
            continue;
        }
        out.push_with(|buf| {
            if let Err(e) = f(row, buf) {
                error = Some(e);
            }
        });
        if let Some(e) = error.take() {
            return Err(e);
        }
    }
    Ok(Vector::new(VectorData::Bytes(out), validity))
}

/// A strict function of any result type, one row at a time through scalar values: for
/// functions whose work per row (parsing a document) dwarfs the value copies. `f` gets the
/// row's arguments and may return NULL.
pub(super) fn map_scalar_rows(
    args: &[Vector],
    rows: usize,
    result: PhysicalType,
    mut f: impl FnMut(&[ScalarValue]) -> Result<ScalarValue>,
) -> Result<Vector> {
    let validity = strict_validity(args);
    let mut out = Vector::with_capacity(result, rows);
    let mut row_args = Vec::with_capacity(args.len());
    for row in 0..rows {
        if !is_valid(&validity, row) {
            out.push_null();
            continue;
        }
        row_args.clear();
        row_args.extend(args.iter().map(|a| a.get_scalar(row)));
        out.push_scalar(&f(&row_args)?)?;
    }
    Ok(out)
}
