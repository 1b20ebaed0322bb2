//! Comparison operators over two vectors of the same physical type, and the total order used
//! by ORDER BY. Text compares bytewise (the C collation).

use std::cmp::Ordering;

use super::arithmetic::combine_validity;
use crate::error::{Error, Result};
use crate::plan::CompareOp;
use crate::types::array_shape::{compare_array_dims, plain_dims};
use crate::types::{float, float_vector, json, Interval, ScalarValue};
use crate::vector::{ListVec, StructVec, Vector, VectorData};

/// Whether two values ordered `ord` satisfy `op`.
#[inline]
pub(crate) fn matches(op: CompareOp, ord: Ordering) -> bool {
    match op {
        CompareOp::Eq => ord == Ordering::Equal,
        CompareOp::NotEq => ord != Ordering::Equal,
        CompareOp::Lt => ord == Ordering::Less,
        CompareOp::LtEq => ord != Ordering::Greater,
        CompareOp::Gt => ord == Ordering::Greater,
        CompareOp::GtEq => ord != Ordering::Less,
    }
}

fn compare_slices<T>(
    op: CompareOp,
    l: &[T],
    r: &[T],
    cmp: impl Fn(&T, &T) -> Ordering,
) -> Vec<bool> {
    l.iter()
        .zip(r)
        .map(|(a, b)| matches(op, cmp(a, b)))
        .collect()
}

/// The same for totally ordered primitives, one tight loop per operator so that it
/// vectorizes.
fn compare_ord<T: Ord + Copy>(op: CompareOp, l: &[T], r: &[T]) -> Vec<bool> {
    let pairs = l.iter().zip(r);
    match op {
        CompareOp::Eq => pairs.map(|(a, b)| a == b).collect(),
        CompareOp::NotEq => pairs.map(|(a, b)| a != b).collect(),
        CompareOp::Lt => pairs.map(|(a, b)| a < b).collect(),
        CompareOp::LtEq => pairs.map(|(a, b)| a <= b).collect(),
        CompareOp::Gt => pairs.map(|(a, b)| a > b).collect(),
        CompareOp::GtEq => pairs.map(|(a, b)| a >= b).collect(),
    }
}

/// Every value of `l` against one constant.
fn compare_ord_scalar<T: Ord + Copy>(op: CompareOp, l: &[T], c: T) -> Vec<bool> {
    let values = l.iter();
    match op {
        CompareOp::Eq => values.map(|&a| a == c).collect(),
        CompareOp::NotEq => values.map(|&a| a != c).collect(),
        CompareOp::Lt => values.map(|&a| a < c).collect(),
        CompareOp::LtEq => values.map(|&a| a <= c).collect(),
        CompareOp::Gt => values.map(|&a| a > c).collect(),
        CompareOp::GtEq => values.map(|&a| a >= c).collect(),
    }
}

/// `left op constant` as a boolean vector (NULL where `left` is); `None` when the pair of
/// types has no fast path and the caller should broadcast the constant instead.
pub fn compare_with_scalar(op: CompareOp, left: &Vector, right: &ScalarValue) -> Option<Vector> {
    let out = match (&left.data, right) {
        (VectorData::Int16(l), ScalarValue::Int16(c)) => compare_ord_scalar(op, l, *c),
        (VectorData::Int32(l), ScalarValue::Int32(c)) => compare_ord_scalar(op, l, *c),
        (VectorData::Int64(l), ScalarValue::Int64(c)) => compare_ord_scalar(op, l, *c),
        (VectorData::Date(l), ScalarValue::Date(c)) => compare_ord_scalar(op, l, *c),
        (VectorData::Timestamp(l), ScalarValue::Timestamp(c)) => compare_ord_scalar(op, l, *c),
        (VectorData::Bool(l), ScalarValue::Bool(c)) => compare_ord_scalar(op, l, *c),
        (VectorData::Float64(l), ScalarValue::Float64(c)) => l
            .iter()
            .map(|a| matches(op, float::total_cmp_f64(*a, *c)))
            .collect(),
        (VectorData::Numeric(l), ScalarValue::Numeric(c)) => {
            l.iter().map(|a| matches(op, a.cmp(c))).collect()
        }
        (VectorData::Text(l), ScalarValue::Text(c)) => {
            let c = c.as_bytes();
            (0..l.len())
                .map(|i| matches(op, l.get_bytes(i).cmp(c)))
                .collect()
        }
        _ => return None,
    };
    Some(Vector::new(VectorData::Bool(out), left.validity.clone()))
}

/// The operator with its operands swapped: `a < b` is `b > a`.
pub fn flipped(op: CompareOp) -> CompareOp {
    match op {
        CompareOp::Eq => CompareOp::Eq,
        CompareOp::NotEq => CompareOp::NotEq,
        CompareOp::Lt => CompareOp::Gt,
        CompareOp::LtEq => CompareOp::GtEq,
        CompareOp::Gt => CompareOp::Lt,
        CompareOp::GtEq => CompareOp::LtEq,
    }
}

/// `left op right` as a boolean vector; NULL where either side is NULL.
pub fn compare(op: CompareOp, left: &Vector, right: &Vector) -> Result<Vector> {
    let validity = combine_validity(left, right);
    let out = match (&left.data, &right.data) {
        (VectorData::Bool(l), VectorData::Bool(r)) => compare_ord(op, l, r),
        (VectorData::Int16(l), VectorData::Int16(r)) => compare_ord(op, l, r),
        (VectorData::Int32(l), VectorData::Int32(r)) => compare_ord(op, l, r),
        (VectorData::Int64(l), VectorData::Int64(r)) => compare_ord(op, l, r),
        (VectorData::Float32(l), VectorData::Float32(r)) => {
            compare_slices(op, l, r, |a, b| float::total_cmp_f32(*a, *b))
        }
        (VectorData::Float64(l), VectorData::Float64(r)) => {
            compare_slices(op, l, r, |a, b| float::total_cmp_f64(*a, *b))
        }
        (VectorData::Numeric(l), VectorData::Numeric(r)) => compare_slices(op, l, r, Ord::cmp),
        (VectorData::Date(l), VectorData::Date(r)) => compare_slices(op, l, r, Ord::cmp),
        (VectorData::Timestamp(l), VectorData::Timestamp(r)) => compare_slices(op, l, r, Ord::cmp),
        (VectorData::TimestampTz(l), VectorData::TimestampTz(r))
        | (VectorData::Time(l), VectorData::Time(r))
        | (VectorData::TimeTz(l), VectorData::TimeTz(r)) => compare_slices(op, l, r, Ord::cmp),
        (VectorData::Interval(l), VectorData::Interval(r)) => {
            compare_slices(op, l, r, Interval::cmp_span)
        }
        (VectorData::Text(l), VectorData::Text(r)) => (0..l.len())
            .map(|i| matches(op, l.get_bytes(i).cmp(r.get_bytes(i))))
            .collect(),
        (VectorData::List(l), VectorData::List(r)) => (0..l.len())
            .map(|i| matches(op, compare_lists(l, i, r, i)))
            .collect(),
        (VectorData::Bytes(l), VectorData::Bytes(r)) => (0..l.len())
            .map(|i| matches(op, l.get(i).cmp(r.get(i))))
            .collect(),
        (VectorData::Uuid(l), VectorData::Uuid(r)) => compare_ord(op, l, r),
        (VectorData::Inet(l), VectorData::Inet(r)) => compare_ord(op, l, r),
        (VectorData::Jsonb(l), VectorData::Jsonb(r)) => (0..l.len())
            .map(|i| matches(op, json::compare_canonical(l.get(i), r.get(i))))
            .collect(),
        (VectorData::FloatVector(l), VectorData::FloatVector(r)) => (0..l.len())
            .map(|i| matches(op, float_vector::compare(l.get(i), r.get(i))))
            .collect(),
        (VectorData::Struct(l), VectorData::Struct(r)) => (0..l.len())
            .map(|i| matches(op, compare_records(l, i, r, i)))
            .collect(),
        (l, r) => {
            return Err(Error::internal(format!(
                "comparison of {:?} and {:?}",
                l.physical(),
                r.physical()
            )))
        }
    };
    Ok(Vector::new(VectorData::Bool(out), validity))
}

/// Order of rows `a` of `left` and `b` of `right` (same type), both non-NULL. Two vectors
/// of different physical types are a bug of the caller: answering `Equal` would sort,
/// group and pick min/max silently wrong, so it panics, which the session reports as
/// XX000 (a per-row `Result` would cost every sort comparison a branch).
pub fn compare_rows(left: &Vector, a: usize, right: &Vector, b: usize) -> Ordering {
    match (&left.data, &right.data) {
        (VectorData::Bool(l), VectorData::Bool(r)) => l[a].cmp(&r[b]),
        (VectorData::Int16(l), VectorData::Int16(r)) => l[a].cmp(&r[b]),
        (VectorData::Int32(l), VectorData::Int32(r)) => l[a].cmp(&r[b]),
        (VectorData::Int64(l), VectorData::Int64(r)) => l[a].cmp(&r[b]),
        (VectorData::Float32(l), VectorData::Float32(r)) => float::total_cmp_f32(l[a], r[b]),
        (VectorData::Float64(l), VectorData::Float64(r)) => float::total_cmp_f64(l[a], r[b]),
        (VectorData::Numeric(l), VectorData::Numeric(r)) => l[a].cmp(&r[b]),
        (VectorData::Date(l), VectorData::Date(r)) => l[a].cmp(&r[b]),
        (VectorData::Timestamp(l), VectorData::Timestamp(r)) => l[a].cmp(&r[b]),
        (VectorData::TimestampTz(l), VectorData::TimestampTz(r))
        | (VectorData::Time(l), VectorData::Time(r))
        | (VectorData::TimeTz(l), VectorData::TimeTz(r)) => l[a].cmp(&r[b]),
        (VectorData::Interval(l), VectorData::Interval(r)) => l[a].cmp_span(&r[b]),
        (VectorData::Text(l), VectorData::Text(r)) => l.get_bytes(a).cmp(r.get_bytes(b)),
        (VectorData::List(l), VectorData::List(r)) => compare_lists(l, a, r, b),
        (VectorData::Bytes(l), VectorData::Bytes(r)) => l.get(a).cmp(r.get(b)),
        (VectorData::Uuid(l), VectorData::Uuid(r)) => l[a].cmp(&r[b]),
        (VectorData::Inet(l), VectorData::Inet(r)) => l[a].cmp(&r[b]),
        (VectorData::Jsonb(l), VectorData::Jsonb(r)) => json::compare_canonical(l.get(a), r.get(b)),
        (VectorData::FloatVector(l), VectorData::FloatVector(r)) => {
            float_vector::compare(l.get(a), r.get(b))
        }
        (VectorData::Struct(l), VectorData::Struct(r)) => compare_records(l, a, r, b),
        (l, r) => panic!(
            "invariant: rows of one type compared, not {:?} with {:?}",
            l.physical(),
            r.physical()
        ),
    }
}

/// PostgreSQL's `array_cmp` of row `a` of `left` and row `b` of `right`: element by
/// element, NULL elements equal to each other and above every value; then the shapes
/// ([`compare_array_dims`]), which for plain arrays is a prefix sorting first.
pub fn compare_lists(left: &ListVec, a: usize, right: &ListVec, b: usize) -> Ordering {
    let elements = compare_list_elements(left, a, right, b);
    if elements != Ordering::Equal || !(left.has_shapes() || right.has_shapes()) {
        return elements;
    }
    let dims = |list: &ListVec, row: usize| match list.shape(row) {
        Some(dims) => dims.to_vec(),
        None => plain_dims(list.range(row).len()),
    };
    compare_array_dims(&dims(left, a), &dims(right, b))
}

fn compare_list_elements(left: &ListVec, a: usize, right: &ListVec, b: usize) -> Ordering {
    let (l, r) = (left.child(), right.child());
    let (ra, rb) = (left.range(a), right.range(b));
    for (x, y) in ra.clone().zip(rb.clone()) {
        let ord = match (l.is_valid(x), r.is_valid(y)) {
            (false, false) => Ordering::Equal,
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (true, true) => compare_rows(l, x, r, y),
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    ra.len().cmp(&rb.len())
}

/// PostgreSQL's `record_cmp` (which `=` and `<` on record values use, unlike a comparison
/// of two ROW constructors): field by field, NULL fields equal to each other and above
/// every value.
pub fn compare_records(left: &StructVec, a: usize, right: &StructVec, b: usize) -> Ordering {
    for (l, r) in left.children().iter().zip(right.children()) {
        let ord = match (l.is_valid(a), r.is_valid(b)) {
            (false, false) => Ordering::Equal,
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (true, true) => compare_rows(l, a, r, b),
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    left.children().len().cmp(&right.children().len())
}

#[cfg(test)]
mod tests {
    use super::compare_rows;
    use crate::types::{DataType, ScalarValue};
    use crate::vector::Vector;

    #[test]
    #[should_panic(expected = "invariant: rows of one type compared")]
    fn rows_of_different_types_are_never_equal_silently() {
        let ints = Vector::from_scalar(&ScalarValue::Int32(1), DataType::Int32, 1);
        let texts = Vector::from_scalar(&ScalarValue::Text("1".into()), DataType::Text, 1);
        if let (Ok(ints), Ok(texts)) = (ints, texts) {
            compare_rows(&ints, 0, &texts, 0);
        }
    }
}
