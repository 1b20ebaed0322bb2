//! The dimensions of arrays that are not plain one-dimensional lists numbered from 1:
//! multi-dimensional arrays (`{{1,2},{3,4}}`) and arrays with explicit lower bounds
//! (`[0:2]={1,2,3}`). The elements stay one flat list in storage order (last dimension
//! fastest, as PostgreSQL stores them); the shape rides next to it, and only arrays that need
//! one carry it, so the common one-dimensional array pays nothing.

use std::cmp::Ordering;

use super::ScalarValue;
use crate::error::{Error, SqlState};

/// PostgreSQL's MAXDIM.
pub const MAX_DIMS: usize = 6;

/// One dimension: its lower bound and its length (at least 1; empty arrays have no
/// dimensions at all).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ArrayDim {
    pub lower: i32,
    pub len: i32,
}

impl ArrayDim {
    /// The last subscript (wider than the bounds: a lower bound near `i32::MAX` plus a
    /// length may not fit).
    pub fn upper(self) -> i64 {
        i64::from(self.lower) + i64::from(self.len) - 1
    }
}

/// An array value with a shape: see the module documentation. Built only through
/// [`ShapedArray::value`], which keeps plain arrays in [`ScalarValue::Array`], so a value has
/// one representation and derived equality is PostgreSQL's.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapedArray {
    dims: Box<[ArrayDim]>,
    elements: Vec<ScalarValue>,
}

impl ShapedArray {
    /// The array of `elements` in `dims`: a plain [`ScalarValue::Array`] when the shape is
    /// one dimension from 1 or the array is empty. The caller guarantees that the element
    /// count is the product of the lengths.
    pub fn value(dims: Vec<ArrayDim>, elements: Vec<ScalarValue>) -> ScalarValue {
        debug_assert_eq!(element_count(&dims), elements.len());
        if elements.is_empty() || matches!(dims.as_slice(), [ArrayDim { lower: 1, .. }]) {
            return ScalarValue::Array(elements);
        }
        ScalarValue::ShapedArray(Box::new(ShapedArray {
            dims: dims.into_boxed_slice(),
            elements,
        }))
    }

    pub fn dims(&self) -> &[ArrayDim] {
        &self.dims
    }

    pub fn elements(&self) -> &[ScalarValue] {
        &self.elements
    }

    pub fn into_parts(self) -> (Box<[ArrayDim]>, Vec<ScalarValue>) {
        (self.dims, self.elements)
    }
}

/// PostgreSQL's MaxArraySize: the most elements an array may hold.
pub const MAX_ELEMENTS: usize = 134_217_727;

/// The number of elements an array of `dims` holds, 0 for no dimensions; `usize::MAX` when
/// the product overflows (more than [`MAX_ELEMENTS`] either way).
pub fn element_count(dims: &[ArrayDim]) -> usize {
    if dims.is_empty() {
        return 0;
    }
    dims.iter()
        .try_fold(1usize, |count, d| count.checked_mul(d.len.max(0) as usize))
        .unwrap_or(usize::MAX)
}

/// The dimensions of a plain one-dimensional array of `len` elements.
pub fn plain_dims(len: usize) -> Vec<ArrayDim> {
    if len == 0 {
        return Vec::new();
    }
    vec![ArrayDim {
        lower: 1,
        len: len as i32,
    }]
}

/// The dimensions and elements of an array value, `None` for anything else.
pub fn array_parts(value: &ScalarValue) -> Option<(Vec<ArrayDim>, &[ScalarValue])> {
    match value {
        ScalarValue::Array(elements) => Some((plain_dims(elements.len()), elements)),
        ScalarValue::ShapedArray(shaped) => Some((shaped.dims.to_vec(), &shaped.elements)),
        _ => None,
    }
}

/// The 0A000 for a path that handles only plain one-dimensional arrays.
pub fn unsupported_shape(what: &str) -> Error {
    Error::unsupported(format!(
        "{what} on multidimensional arrays or arrays with lower bounds other than 1"
    ))
}

/// The 54000 for more than [`MAX_DIMS`] dimensions.
pub fn too_many_dims(ndims: usize) -> Error {
    Error::new(
        SqlState::ProgramLimitExceeded,
        format!("number of array dimensions ({ndims}) exceeds the maximum allowed ({MAX_DIMS})"),
    )
}

/// array_out's `[1:2][0:3]` prefix, also array_dims' result.
pub fn write_dims(dims: &[ArrayDim], out: &mut Vec<u8>) {
    for d in dims {
        out.extend_from_slice(format!("[{}:{}]", d.lower, d.upper()).as_bytes());
    }
}

/// array_out of an array of `dims` whose `count` elements `write_element` writes in storage
/// order (returning false for NULL, having written nothing): braces per dimension, and the
/// explicit dimensions first when a lower bound is not 1.
pub fn write_array_text(
    dims: &[ArrayDim],
    count: usize,
    mut write_element: impl FnMut(usize, &mut Vec<u8>) -> bool,
    out: &mut Vec<u8>,
) {
    if dims.iter().any(|d| d.lower != 1) {
        write_dims(dims, out);
        out.push(b'=');
    }
    if count == 0 {
        out.extend_from_slice(b"{}");
        return;
    }
    let mut scratch = Vec::new();
    let mut element = |idx: usize, out: &mut Vec<u8>| {
        scratch.clear();
        match write_element(idx, &mut scratch) {
            true => super::array_text::write_array_element(&scratch, out),
            false => out.extend_from_slice(b"NULL"),
        }
    };
    // One dimension, the common case, needs no brace arithmetic per element.
    if dims.len() <= 1 {
        out.push(b'{');
        for idx in 0..count {
            if idx > 0 {
                out.push(b',');
            }
            element(idx, out);
        }
        out.push(b'}');
        return;
    }
    // How many elements one step of each dimension spans, to know which braces close and
    // open between two elements (a fixed array: this runs once per row of a column).
    let depth = dims.len().min(MAX_DIMS);
    let mut spans = [1usize; MAX_DIMS];
    for i in (0..depth - 1).rev() {
        spans[i] = spans[i + 1] * dims[i + 1].len.max(0) as usize;
    }
    let spans = &spans[..depth];
    out.extend(std::iter::repeat_n(b'{', depth));
    for idx in 0..count {
        if idx > 0 {
            // Dimensions whose sub-array starts here close the previous one and open anew.
            let opening = spans.iter().filter(|&&span| idx % span == 0).count() - 1;
            out.extend(std::iter::repeat_n(b'}', opening));
            out.push(b',');
            out.extend(std::iter::repeat_n(b'{', opening));
        }
        element(idx, out);
    }
    out.extend(std::iter::repeat_n(b'}', depth));
}

/// array_cmp's order of two shapes whose elements compared equal as far as both go.
pub fn compare_array_dims(a: &[ArrayDim], b: &[ArrayDim]) -> Ordering {
    element_count(a)
        .cmp(&element_count(b))
        .then(a.len().cmp(&b.len()))
        .then_with(|| a.iter().map(|d| d.len).cmp(b.iter().map(|d| d.len)))
        .then_with(|| a.iter().map(|d| d.lower).cmp(b.iter().map(|d| d.lower)))
}
