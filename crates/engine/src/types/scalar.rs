//! A single SQL value: constants in plans, parameters, and values pulled out of vectors.

use std::cmp::Ordering;

use super::array_shape::{array_parts, compare_array_dims, ShapedArray};
use super::inet::Inet;
use super::{Decimal, Interval, PhysicalType};

/// One value. A NULL carries no type; the expression that produced it does.
#[derive(Debug, Clone, PartialEq)]
pub enum ScalarValue {
    Null,
    Bool(bool),
    Int16(i16),
    Int32(i32),
    Int64(i64),
    Float32(f32),
    Float64(f64),
    Numeric(Decimal),
    Text(String),
    /// Days since 2000-01-01 (PostgreSQL's epoch).
    Date(i32),
    /// Microseconds since 2000-01-01 00:00:00.
    Timestamp(i64),
    /// Microseconds since 2000-01-01 00:00:00 UTC.
    TimestampTz(i64),
    /// Microseconds since midnight.
    Time(i64),
    /// A packed time with time zone ([`crate::types::timetz`]).
    TimeTz(i64),
    /// An inet or cidr ([`crate::types::inet`]).
    Inet(Inet),
    Interval(Interval),
    Bytea(Vec<u8>),
    /// The 16 bytes read big-endian.
    Uuid(u128),
    /// A jsonb document in its canonical text (see [`super::json`]).
    Jsonb(String),
    /// A one-dimensional array numbered from 1 (or an empty one); elements may be NULL. The
    /// element type is the expression's.
    Array(Vec<ScalarValue>),
    /// Any other array: multi-dimensional or with lower bounds other than 1
    /// ([`super::array_shape`]). Boxed so that values other than arrays stay small.
    ShapedArray(Box<ShapedArray>),
    /// A pgvector `vector`.
    FloatVector(Vec<f32>),
    /// A composite value, a value or NULL per field of the expression's record type.
    Record(Vec<ScalarValue>),
}

impl ScalarValue {
    pub fn is_null(&self) -> bool {
        matches!(self, ScalarValue::Null)
    }

    /// The physical type of a non-NULL value.
    pub fn physical(&self) -> Option<PhysicalType> {
        Some(match self {
            ScalarValue::Null => return None,
            ScalarValue::Bool(_) => PhysicalType::Bool,
            ScalarValue::Int16(_) => PhysicalType::Int16,
            ScalarValue::Int32(_) => PhysicalType::Int32,
            ScalarValue::Int64(_) => PhysicalType::Int64,
            ScalarValue::Float32(_) => PhysicalType::Float32,
            ScalarValue::Float64(_) => PhysicalType::Float64,
            ScalarValue::Numeric(_) => PhysicalType::Numeric,
            ScalarValue::Text(_) => PhysicalType::Text,
            ScalarValue::Date(_) => PhysicalType::Date,
            ScalarValue::Timestamp(_) => PhysicalType::Timestamp,
            ScalarValue::TimestampTz(_) => PhysicalType::TimestampTz,
            ScalarValue::Time(_) => PhysicalType::Time,
            ScalarValue::TimeTz(_) => PhysicalType::TimeTz,
            ScalarValue::Inet(_) => PhysicalType::Inet,
            ScalarValue::Interval(_) => PhysicalType::Interval,
            ScalarValue::Bytea(_) => PhysicalType::Bytes,
            ScalarValue::Uuid(_) => PhysicalType::Uuid,
            ScalarValue::Jsonb(_) => PhysicalType::Jsonb,
            ScalarValue::Array(values) => {
                let elem = values.iter().find_map(ScalarValue::physical)?;
                PhysicalType::List(elem.as_static())
            }
            ScalarValue::ShapedArray(shaped) => {
                let elem = shaped.elements().iter().find_map(ScalarValue::physical)?;
                PhysicalType::List(elem.as_static())
            }
            ScalarValue::FloatVector(_) => PhysicalType::FloatVector,
            // Its field names are the expression's type, not the value's.
            ScalarValue::Record(_) => return None,
        })
    }

    /// Total order of two non-NULL values of the same physical type, PostgreSQL's: NaN sorts
    /// above every other float and equals itself. `None` for mismatched types.
    pub fn compare(&self, other: &ScalarValue) -> Option<Ordering> {
        use ScalarValue as S;
        Some(match (self, other) {
            (S::Bool(a), S::Bool(b)) => a.cmp(b),
            (S::Int16(a), S::Int16(b)) => a.cmp(b),
            (S::Int32(a), S::Int32(b)) => a.cmp(b),
            (S::Int64(a), S::Int64(b)) => a.cmp(b),
            (S::Float32(a), S::Float32(b)) => super::float::total_cmp_f32(*a, *b),
            (S::Float64(a), S::Float64(b)) => super::float::total_cmp_f64(*a, *b),
            (S::Numeric(a), S::Numeric(b)) => a.cmp(b),
            (S::Text(a), S::Text(b)) => a.as_bytes().cmp(b.as_bytes()),
            (S::Date(a), S::Date(b)) => a.cmp(b),
            (S::Timestamp(a), S::Timestamp(b)) => a.cmp(b),
            (S::TimestampTz(a), S::TimestampTz(b)) => a.cmp(b),
            (S::Time(a), S::Time(b)) | (S::TimeTz(a), S::TimeTz(b)) => a.cmp(b),
            (S::Inet(a), S::Inet(b)) => a.cmp(b),
            (S::Interval(a), S::Interval(b)) => a.cmp_span(b),
            (S::Bytea(a), S::Bytea(b)) => a.cmp(b),
            (S::Uuid(a), S::Uuid(b)) => a.cmp(b),
            (S::Jsonb(a), S::Jsonb(b)) => super::json::compare_canonical(a, b),
            // Plain arrays of as many elements have the same shape.
            (S::Record(a), S::Record(b)) | (S::Array(a), S::Array(b)) => {
                return compare_elements(a, b)
            }
            (S::Array(_) | S::ShapedArray(_), S::Array(_) | S::ShapedArray(_)) => {
                return compare_arrays(self, other)
            }
            (S::FloatVector(a), S::FloatVector(b)) => super::float_vector::compare(a, b),
            _ => return None,
        })
    }
}

/// PostgreSQL's `array_cmp`: the elements in storage order, then (when one is a prefix of
/// the other or they are equal) the element count, the number of dimensions, the lengths
/// and the lower bounds.
fn compare_arrays(a: &ScalarValue, b: &ScalarValue) -> Option<Ordering> {
    let ((a_dims, a), (b_dims, b)) = (array_parts(a)?, array_parts(b)?);
    Some(compare_elements(a, b)?.then_with(|| compare_array_dims(&a_dims, &b_dims)))
}

/// Element by element (`record_cmp` too, whose rows have as many fields): a NULL element
/// equal to another NULL and above every value; when one list is a prefix of the other, the
/// shorter sorts first.
fn compare_elements(a: &[ScalarValue], b: &[ScalarValue]) -> Option<Ordering> {
    for (x, y) in a.iter().zip(b) {
        let ord = match (x.is_null(), y.is_null()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => x.compare(y)?,
        };
        if ord != Ordering::Equal {
            return Some(ord);
        }
    }
    Some(a.len().cmp(&b.len()))
}
