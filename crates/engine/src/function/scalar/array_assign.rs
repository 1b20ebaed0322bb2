//! Assignment through subscripts, `UPDATE t SET a[i] = x` and `SET a[i:j] = array`, with
//! PostgreSQL's array_set_element and array_set_slice rules: a NULL array is taken as empty
//! (an element or a slice then makes a new array whose lower bounds are the subscripts), a
//! one-dimensional array grows in either direction with NULLs in the gap, a
//! multi-dimensional one only has its existing elements replaced, and a NULL subscript is an
//! error rather than a NULL result.

use super::array::ArrayFunction;
use crate::error::{Error, Result, SqlState};
use crate::types::array_shape::{
    array_parts, element_count, ArrayDim, ShapedArray, MAX_DIMS, MAX_ELEMENTS,
};
use crate::types::ScalarValue;

/// [`ArrayFunction::AssignElement`] or [`ArrayFunction::AssignSlice`] over `[array, value,
/// subscripts...]`.
pub(super) fn assign(func: ArrayFunction, args: &[ScalarValue]) -> Result<ScalarValue> {
    let (array, value, subscripts) = match args {
        [array, value, subscripts @ ..] => (array, value, subscripts),
        _ => return Err(Error::internal("an array assignment without its value")),
    };
    let subscripts = subscripts
        .iter()
        .map(|s| match s {
            ScalarValue::Int32(i) => Ok(*i),
            _ => Err(Error::new(
                SqlState::NullValueNotAllowed,
                "array subscript in assignment must not be null",
            )),
        })
        .collect::<Result<Vec<i32>>>()?;
    let (dims, elements) = array_parts(array).unwrap_or_default();
    match func {
        ArrayFunction::AssignElement => set_element(dims, elements, &subscripts, value.clone()),
        ArrayFunction::AssignSlice {
            dims: count,
            lower,
            upper,
        } => {
            if value.is_null() {
                return Ok(match array {
                    ScalarValue::Null => ScalarValue::Array(Vec::new()),
                    array => array.clone(),
                });
            }
            let source = array_parts(value).map_or(&[][..], |(_, elements)| elements);
            let mut provided = subscripts.into_iter();
            let mut bit = |set: u8, d: usize| match set & (1 << d) {
                0 => None,
                _ => provided.next(),
            };
            let bounds: Vec<(Option<i32>, Option<i32>)> = (0..usize::from(count))
                .map(|d| {
                    let from = bit(lower, d);
                    (from, bit(upper, d))
                })
                .collect();
            set_slice(dims, elements, &bounds, source)
        }
        _ => Err(Error::internal("not an array assignment")),
    }
}

fn subscript_error(message: &str) -> Error {
    Error::new(SqlState::ArraySubscriptError, message)
}

fn too_large() -> Error {
    Error::new(
        SqlState::ProgramLimitExceeded,
        format!("array size exceeds the maximum allowed ({MAX_ELEMENTS})"),
    )
}

/// ArrayGetNItems and ArrayCheckBounds over new dimensions given as (lower, length) in i64:
/// the dimensions, or PostgreSQL's 54000 (or 53200 when the statement has no room for them).
fn checked_dims(dims: &[(i64, i64)]) -> Result<Vec<ArrayDim>> {
    let mut count: i64 = 1;
    for &(_, len) in dims {
        if len < 0 || len > i64::from(i32::MAX) {
            return Err(too_large());
        }
        count = count.saturating_mul(len);
        if count > MAX_ELEMENTS as i64 {
            return Err(too_large());
        }
    }
    // `a[100000000] = 1` fills a hundred million elements: 53200 unless they fit.
    crate::interrupt::check_value_bytes(count as usize * std::mem::size_of::<ScalarValue>())?;
    dims.iter()
        .map(|&(lower, len)| {
            let lower = i32::try_from(lower).map_err(|_| too_large())?;
            if i64::from(lower) + len > i64::from(i32::MAX) {
                return Err(Error::new(
                    SqlState::ProgramLimitExceeded,
                    format!("array lower bound is too large: {lower}"),
                ));
            }
            Ok(ArrayDim {
                lower,
                len: len as i32,
            })
        })
        .collect()
}

/// array_set_element.
fn set_element(
    dims: Vec<ArrayDim>,
    elements: &[ScalarValue],
    indices: &[i32],
    value: ScalarValue,
) -> Result<ScalarValue> {
    if indices.is_empty() || indices.len() > MAX_DIMS {
        return Err(subscript_error("wrong number of array subscripts"));
    }
    if dims.is_empty() {
        let new: Vec<(i64, i64)> = indices.iter().map(|&i| (i64::from(i), 1)).collect();
        return Ok(ShapedArray::value(checked_dims(&new)?, vec![value]));
    }
    if dims.len() != indices.len() {
        return Err(subscript_error("wrong number of array subscripts"));
    }
    if let [dim] = dims.as_slice() {
        let index = i64::from(indices[0]);
        let lower = i64::from(dim.lower).min(index);
        let upper = dim.upper().max(index);
        let new = checked_dims(&[(lower, upper - lower + 1)])?;
        return Ok(ShapedArray::value(
            new,
            placed(
                elements,
                (i64::from(dim.lower) - lower) as usize,
                upper - lower + 1,
                |out| {
                    out[(index - lower) as usize] = value;
                },
            ),
        ));
    }
    let mut offset = 0usize;
    for (dim, &index) in dims.iter().zip(indices) {
        if index < dim.lower || i64::from(index) > dim.upper() {
            return Err(subscript_error("array subscript out of range"));
        }
        offset = offset * dim.len as usize + (index - dim.lower) as usize;
    }
    let mut out = elements.to_vec();
    out[offset] = value;
    Ok(ShapedArray::value(dims, out))
}

/// `len` elements: NULLs, with `elements` copied in from offset `at`, then `change` applied.
fn placed(
    elements: &[ScalarValue],
    at: usize,
    len: i64,
    change: impl FnOnce(&mut [ScalarValue]),
) -> Vec<ScalarValue> {
    let mut out = vec![ScalarValue::Null; len as usize];
    out[at..at + elements.len()].clone_from_slice(elements);
    change(&mut out);
    out
}

/// array_set_slice: `bounds` holds each subscript's given lower and upper bound; `source`
/// is read serially whatever its shape.
fn set_slice(
    dims: Vec<ArrayDim>,
    elements: &[ScalarValue],
    bounds: &[(Option<i32>, Option<i32>)],
    source: &[ScalarValue],
) -> Result<ScalarValue> {
    let too_small = || subscript_error("source array too small");
    if dims.is_empty() {
        let mut new = Vec::with_capacity(bounds.len());
        for &(from, to) in bounds {
            let (Some(from), Some(to)) = (from, to) else {
                return Err(subscript_error("array slice subscript must provide both boundaries")
                    .with_detail(
                        "When assigning to a slice of an empty array value, slice boundaries must be fully specified.",
                    ));
            };
            new.push((i64::from(from), i64::from(to) - i64::from(from) + 1));
        }
        let new = checked_dims(&new)?;
        let count = element_count(&new);
        if source.len() < count {
            return Err(too_small());
        }
        return Ok(ShapedArray::value(new, source[..count].to_vec()));
    }
    if dims.len() < bounds.len() {
        return Err(subscript_error("wrong number of array subscripts"));
    }
    // The range of every dimension, the array's own where a bound is not given.
    let mut ranges = Vec::with_capacity(dims.len());
    for (d, dim) in dims.iter().enumerate() {
        let (from, to) = bounds.get(d).copied().unwrap_or_default();
        let from = from.map_or(i64::from(dim.lower), i64::from);
        let to = to.map_or(dim.upper(), i64::from);
        if from > to {
            return Err(subscript_error(
                "upper bound cannot be less than lower bound",
            ));
        }
        ranges.push((from, to));
    }
    if let ([dim], [(from, to)]) = (dims.as_slice(), ranges.as_slice()) {
        let (from, to) = (*from, *to);
        let lower = i64::from(dim.lower).min(from);
        let upper = dim.upper().max(to);
        let new = checked_dims(&[(lower, upper - lower + 1)])?;
        let span = (to - from + 1) as usize;
        if source.len() < span {
            return Err(too_small());
        }
        let start = (from - lower) as usize;
        let out = placed(
            elements,
            (i64::from(dim.lower) - lower) as usize,
            upper - lower + 1,
            |out| {
                out[start..start + span].clone_from_slice(&source[..span]);
            },
        );
        return Ok(ShapedArray::value(new, out));
    }
    for (dim, &(from, to)) in dims.iter().zip(&ranges) {
        if from < i64::from(dim.lower) || to > dim.upper() {
            return Err(subscript_error("array subscript out of range"));
        }
    }
    let span: usize = ranges
        .iter()
        .map(|&(from, to)| (to - from + 1) as usize)
        .product();
    if source.len() < span {
        return Err(too_small());
    }
    let mut out = elements.to_vec();
    let mut next = source.iter();
    replace(&dims, &ranges, 0, 0, &mut out, &mut next);
    Ok(ShapedArray::value(dims, out))
}

/// Overwrites the elements of `ranges` from dimension `d` on, under the flat offset `base`
/// of the dimensions before it, in storage order, with the next values of `source`.
fn replace<'s>(
    dims: &[ArrayDim],
    ranges: &[(i64, i64)],
    d: usize,
    base: usize,
    out: &mut [ScalarValue],
    source: &mut impl Iterator<Item = &'s ScalarValue>,
) {
    let (from, to) = ranges[d];
    let lower = i64::from(dims[d].lower);
    let width = dims[d].len as usize;
    for i in (from - lower) as usize..=(to - lower) as usize {
        let offset = base * width + i;
        if d + 1 == dims.len() {
            if let Some(value) = source.next() {
                out[offset] = value.clone();
            }
        } else {
            replace(dims, ranges, d + 1, offset, out, source);
        }
    }
}
