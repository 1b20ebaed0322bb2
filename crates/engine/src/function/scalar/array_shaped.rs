//! The array functions where dimensions matter: over multi-dimensional arrays and arrays
//! with lower bounds other than 1 ([`crate::types::array_shape`]), and the ones that build
//! or take apart dimensions whatever their input: `ARRAY[...]` of arrays, several
//! subscripts, slices. Plain one-dimensional arrays otherwise stay on the simpler path in
//! [`super::array`]. Functions that ignore the shape (`@>`, `ANY`, `array_to_string`) run
//! there over the flattened elements, as PostgreSQL's do.

use super::array::ArrayFunction;
use crate::error::{Error, Result, SqlState};
use crate::types::array_shape::{
    array_parts, too_many_dims, write_dims, ArrayDim, ShapedArray, MAX_DIMS,
};
use crate::types::ScalarValue;

/// Whether `func` over `args` must go through [`eval_row`]. Runs once per row: the
/// constructors of plain arrays, whose arguments are never arrays, look at none of them.
pub(super) fn needs_shape(func: ArrayFunction, args: &[ScalarValue]) -> bool {
    use ArrayFunction as A;
    let shaped = |arg: &ScalarValue| matches!(arg, ScalarValue::ShapedArray(_));
    match func {
        A::Nest | A::Slice { .. } | A::Trim => true,
        A::Construct | A::StringToArray | A::AssignElement | A::AssignSlice { .. } => false,
        A::Subscript => args.len() != 2 || args.first().is_some_and(shaped),
        A::Length
        | A::Cardinality
        | A::Upper
        | A::Lower
        | A::Ndims
        | A::Dims
        | A::Position
        | A::Positions
        | A::ToString
        | A::Append
        | A::Prepend
        | A::Cat
        | A::Contains
        | A::ContainedBy
        | A::Overlap
        | A::Quantified { .. }
        | A::QuantifiedMatch { .. }
        | A::Remove
        | A::Replace
        | A::OptionParts { .. } => args.iter().any(shaped),
    }
}

pub(super) fn eval_row(func: ArrayFunction, args: &[ScalarValue]) -> Result<ScalarValue> {
    use ArrayFunction as A;
    use ScalarValue as S;
    let arg = |i: usize| args.get(i).unwrap_or(&S::Null);
    let dim_of = |i: usize| -> Option<ArrayDim> {
        let (dims, _) = array_parts(arg(0))?;
        let S::Int32(d) = arg(i) else { return None };
        dims.get(usize::try_from(*d).ok()?.checked_sub(1)?).copied()
    };
    Ok(match func {
        A::Nest => nest(args)?,
        A::Subscript => match array_parts(arg(0)) {
            Some((dims, elements)) => element_at(&dims, elements, &args[1..]),
            None => S::Null,
        },
        A::Slice { dims, lower, upper } => match array_parts(arg(0)) {
            Some((array_dims, elements)) => {
                let bounds = Bounds {
                    count: usize::from(dims),
                    lower,
                    upper,
                    values: &args[1..],
                };
                slice(&array_dims, elements, &bounds)
            }
            None => S::Null,
        },
        A::Length => dim_of(1).map_or(S::Null, |d| S::Int32(d.len)),
        A::Lower => dim_of(1).map_or(S::Null, |d| S::Int32(d.lower)),
        A::Upper => dim_of(1).map_or(S::Null, |d| S::Int32(d.upper() as i32)),
        A::Cardinality => match array_parts(arg(0)) {
            Some((_, elements)) => S::Int32(elements.len() as i32),
            None => S::Null,
        },
        A::Ndims => match array_parts(arg(0)) {
            Some((dims, _)) if !dims.is_empty() => S::Int32(dims.len() as i32),
            _ => S::Null,
        },
        A::Dims => match array_parts(arg(0)) {
            Some((dims, _)) if !dims.is_empty() => {
                let mut out = Vec::new();
                write_dims(&dims, &mut out);
                S::Text(String::from_utf8_lossy(&out).into_owned())
            }
            _ => S::Null,
        },
        A::AssignElement | A::AssignSlice { .. } => super::array_assign::assign(func, args)?,
        // The elements replaced in storage order; the shape stays.
        A::Replace => match (array_parts(arg(0)), func.eval_plain(&flattened(args))?) {
            (Some((dims, _)), S::Array(replaced)) => ShapedArray::value(dims, replaced),
            (_, other) => other,
        },
        A::Trim => trim(arg(0), arg(1))?,
        A::Cat => concatenate(arg(0), arg(1))?,
        A::Append => push(arg(0), arg(1).clone(), false)?,
        A::Prepend => push(arg(1), arg(0).clone(), true)?,
        A::Position | A::Positions => {
            let lower = one_dimensional(arg(0), "searching for elements in")?;
            match func.eval_plain(&flattened(args))? {
                S::Int32(i) => S::Int32(i + lower - 1),
                S::Array(positions) => S::Array(
                    positions
                        .into_iter()
                        .map(|p| match p {
                            S::Int32(i) => S::Int32(i + lower - 1),
                            other => other,
                        })
                        .collect(),
                ),
                other => other,
            }
        }
        A::Remove => {
            let lower = one_dimensional(arg(0), "removing elements from")?;
            match func.eval_plain(&flattened(args))? {
                S::Array(kept) => {
                    let dims = vec![ArrayDim {
                        lower,
                        len: kept.len() as i32,
                    }];
                    ShapedArray::value(dims, kept)
                }
                other => other,
            }
        }
        A::Construct
        | A::ToString
        | A::StringToArray
        | A::Contains
        | A::ContainedBy
        | A::Overlap
        | A::Quantified { .. }
        | A::QuantifiedMatch { .. }
        | A::OptionParts { .. } => func.eval_plain(&flattened(args))?,
    })
}

/// The arguments with every array made a plain one of its elements in storage order.
fn flattened(args: &[ScalarValue]) -> Vec<ScalarValue> {
    args.iter()
        .map(|arg| match arg {
            ScalarValue::ShapedArray(shaped) => ScalarValue::Array(shaped.elements().to_vec()),
            other => other.clone(),
        })
        .collect()
}

/// The lower bound of a one-dimensional (or empty, or NULL) array; PostgreSQL's 0A000 for
/// searching or editing more dimensions.
fn one_dimensional(array: &ScalarValue, doing: &str) -> Result<i32> {
    match array_parts(array) {
        Some((dims, _)) if dims.len() > 1 => Err(Error::new(
            SqlState::FeatureNotSupported,
            format!("{doing} multidimensional arrays is not supported"),
        )),
        Some((dims, _)) => Ok(dims.first().map_or(1, |d| d.lower)),
        None => Ok(1),
    }
}

fn mismatched_subarrays() -> Error {
    Error::new(
        SqlState::ArraySubscriptError,
        "multidimensional arrays must have array expressions with matching dimensions",
    )
}

/// `ARRAY[a, b, ...]` of arrays, as ExecEvalArrayExpr: NULL and empty sub-arrays count as
/// empty, which is only allowed when all are; the others must agree in lengths and lower
/// bounds.
fn nest(args: &[ScalarValue]) -> Result<ScalarValue> {
    let mut sub_dims: Option<Vec<ArrayDim>> = None;
    let (mut have_empty, mut count) = (false, 0i32);
    let mut elements = Vec::new();
    for arg in args {
        let Some((dims, values)) = array_parts(arg).filter(|(dims, _)| !dims.is_empty()) else {
            have_empty = true;
            continue;
        };
        match &sub_dims {
            None if dims.len() >= MAX_DIMS => return Err(too_many_dims(dims.len() + 1)),
            None => sub_dims = Some(dims),
            Some(first) if *first != dims => return Err(mismatched_subarrays()),
            Some(_) => {}
        }
        elements.extend_from_slice(values);
        count += 1;
    }
    let Some(sub_dims) = sub_dims else {
        return Ok(ScalarValue::Array(Vec::new()));
    };
    if have_empty {
        return Err(mismatched_subarrays());
    }
    let mut dims = vec![ArrayDim {
        lower: 1,
        len: count,
    }];
    dims.extend(sub_dims);
    Ok(ShapedArray::value(dims, elements))
}

/// array_get_element: NULL unless there is one subscript per dimension, each in bounds.
fn element_at(dims: &[ArrayDim], elements: &[ScalarValue], indices: &[ScalarValue]) -> ScalarValue {
    if indices.len() != dims.len() {
        return ScalarValue::Null;
    }
    let mut offset = 0usize;
    for (dim, index) in dims.iter().zip(indices) {
        let ScalarValue::Int32(i) = *index else {
            return ScalarValue::Null;
        };
        if i < dim.lower || i64::from(i) > dim.upper() {
            return ScalarValue::Null;
        }
        offset = offset * dim.len as usize + (i - dim.lower) as usize;
    }
    elements.get(offset).cloned().unwrap_or(ScalarValue::Null)
}

/// The subscripts of a slice (see [`ArrayFunction::Slice`]).
struct Bounds<'a> {
    count: usize,
    lower: u8,
    upper: u8,
    values: &'a [ScalarValue],
}

/// array_get_slice: each subscript's range clipped to the array's bounds, dimensions past
/// the subscripts taken whole; empty when there are more subscripts than dimensions or a
/// range is empty. The result counts from 1 in every dimension.
fn slice(dims: &[ArrayDim], elements: &[ScalarValue], bounds: &Bounds<'_>) -> ScalarValue {
    if dims.is_empty() || bounds.count > dims.len() {
        return ScalarValue::Array(Vec::new());
    }
    let mut values = bounds.values.iter().map(|v| match v {
        ScalarValue::Int32(i) => i64::from(*i),
        _ => 0,
    });
    // Per dimension, the first offset taken and the result's length.
    let mut ranges = Vec::with_capacity(dims.len());
    for (d, dim) in dims.iter().enumerate() {
        let (mut from, mut to) = (i64::from(dim.lower), dim.upper());
        if d < bounds.count {
            if bounds.lower & (1 << d) != 0 {
                from = from.max(values.next().unwrap_or(from));
            }
            if bounds.upper & (1 << d) != 0 {
                to = to.min(values.next().unwrap_or(to));
            }
        }
        if from > to {
            return ScalarValue::Array(Vec::new());
        }
        ranges.push((
            (from - i64::from(dim.lower)) as usize,
            (to - from + 1) as usize,
        ));
    }
    let mut out = Vec::with_capacity(ranges.iter().map(|&(_, len)| len).product());
    gather(dims, elements, &ranges, 0, 0, &mut out);
    let result_dims = ranges
        .iter()
        .map(|&(_, len)| ArrayDim {
            lower: 1,
            len: len as i32,
        })
        .collect();
    ShapedArray::value(result_dims, out)
}

/// Appends the elements of `ranges` from dimension `d` on, under the flat offset `base` of
/// the dimensions before it.
fn gather(
    dims: &[ArrayDim],
    elements: &[ScalarValue],
    ranges: &[(usize, usize)],
    d: usize,
    base: usize,
    out: &mut Vec<ScalarValue>,
) {
    let (first, len) = ranges[d];
    let width = dims[d].len as usize;
    for i in first..first + len {
        let offset = base * width + i;
        match d + 1 == dims.len() {
            true => out.push(elements[offset].clone()),
            false => gather(dims, elements, ranges, d + 1, offset, out),
        }
    }
}

fn incompatible(detail: &str) -> Error {
    Error::new(
        SqlState::ArraySubscriptError,
        "cannot concatenate incompatible arrays",
    )
    .with_detail(detail)
}

fn too_large() -> Error {
    Error::new(
        SqlState::ProgramLimitExceeded,
        "array size exceeds the maximum allowed (134217727)",
    )
}

/// array_cat: arrays of as many dimensions end to end along the first; an array of one
/// dimension fewer as one more item of the other. A NULL or empty side gives the other.
fn concatenate(a: &ScalarValue, b: &ScalarValue) -> Result<ScalarValue> {
    let (a_dims, a_elements, b_dims, b_elements) = match (array_parts(a), array_parts(b)) {
        (None, None) => return Ok(ScalarValue::Null),
        (None, Some(_)) => return Ok(b.clone()),
        (Some(_), None) => return Ok(a.clone()),
        (Some((a_dims, _)), Some((b_dims, _))) if a_dims.is_empty() && !b_dims.is_empty() => {
            return Ok(b.clone())
        }
        (Some(_), Some((b_dims, _))) if b_dims.is_empty() => return Ok(a.clone()),
        (Some((a_dims, a_elements)), Some((b_dims, b_elements))) => {
            (a_dims, a_elements, b_dims, b_elements)
        }
    };
    let (n_a, n_b) = (a_dims.len(), b_dims.len());
    let differing = "Arrays with differing dimensions are not compatible for concatenation.";
    let mut dims = if n_a == n_b {
        if a_dims[1..] != b_dims[1..] {
            return Err(incompatible(
                "Arrays with differing element dimensions are not compatible for concatenation.",
            ));
        }
        let mut dims = a_dims.clone();
        dims[0].len = dims[0]
            .len
            .checked_add(b_dims[0].len)
            .ok_or_else(too_large)?;
        dims
    } else if n_a + 1 == n_b {
        if a_dims[..] != b_dims[1..] {
            return Err(incompatible(differing));
        }
        b_dims.clone()
    } else if n_a == n_b + 1 {
        if a_dims[1..] != b_dims[..] {
            return Err(incompatible(differing));
        }
        a_dims.clone()
    } else {
        return Err(incompatible(&format!(
            "Arrays of {n_a} and {n_b} dimensions are not compatible for concatenation."
        )));
    };
    if n_a != n_b {
        dims[0].len = dims[0].len.checked_add(1).ok_or_else(too_large)?;
    }
    Ok(ShapedArray::value(dims, [a_elements, b_elements].concat()))
}

/// array_append (`front` false) and array_prepend of one element to a one-dimensional array
/// with its own lower bound, which the result keeps.
fn push(array: &ScalarValue, element: ScalarValue, front: bool) -> Result<ScalarValue> {
    let (dims, elements) = array_parts(array).unwrap_or_default();
    let dim = match dims.as_slice() {
        [] => ArrayDim { lower: 1, len: 0 },
        [dim] => *dim,
        _ => {
            return Err(Error::new(
                SqlState::DataException,
                "argument must be empty or one-dimensional array",
            ))
        }
    };
    // The new element's subscript must exist, though prepending then renumbers from the
    // old lower bound again.
    let fits = match front {
        true => dim.lower.checked_sub(1).is_some(),
        false => dim.lower.checked_add(dim.len).is_some(),
    };
    if !fits {
        return Err(Error::new(
            SqlState::NumericValueOutOfRange,
            "integer out of range",
        ));
    }
    let lower = dim.lower;
    let mut values = Vec::with_capacity(elements.len() + 1);
    values.extend_from_slice(elements);
    match front {
        true => values.insert(0, element),
        false => values.push(element),
    }
    let dims = vec![ArrayDim {
        lower,
        len: values.len() as i32,
    }];
    Ok(ShapedArray::value(dims, values))
}

/// trim_array: the slice without the last `n` items of the first dimension, counted from 1
/// as any slice.
fn trim(array: &ScalarValue, n: &ScalarValue) -> Result<ScalarValue> {
    let (Some((dims, elements)), ScalarValue::Int32(n)) = (array_parts(array), n) else {
        return Ok(ScalarValue::Null);
    };
    let length = dims.first().map_or(0, |d| d.len);
    if *n < 0 || *n > length {
        return Err(Error::new(
            SqlState::ArraySubscriptError,
            format!("number of elements to trim must be between 0 and {length}"),
        ));
    }
    let Some(first) = dims.first() else {
        return Ok(ScalarValue::Array(Vec::new()));
    };
    let upper = first.upper() - i64::from(*n);
    let bounds = Bounds {
        count: 1,
        lower: 0,
        upper: 1,
        values: &[ScalarValue::Int32(upper as i32)],
    };
    Ok(slice(&dims, elements, &bounds))
}
