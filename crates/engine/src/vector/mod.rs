//! Typed column vectors and batches: the unit of data every operator consumes and produces.

mod batch;
mod bitmap;
mod bytes;
mod float_vectors;
mod list;
mod record;
mod row_key;
mod strings;

pub use batch::{concat_batches, split_batch, Batch, BATCH_SIZE};
pub use bitmap::Bitmap;
pub use bytes::BytesVec;
pub use float_vectors::FloatVectors;
pub use list::{ListVec, RowShape};
pub use record::StructVec;
pub use row_key::encode_row_key;
#[cfg(test)]
pub(crate) use row_key::int_key;
pub use strings::{utf8_width, StringVec};

use crate::error::{Error, Result};
use crate::types::inet::Inet;
use crate::types::{
    array_shape, bytea, datetime, float, float_vector, inet, timetz, uuid, DataType, Decimal,
    Interval, PhysicalType, ScalarValue,
};

/// A value of one physical type written into a vector of another: a bug of the caller, an
/// internal error rather than a NULL that would look like data.
fn type_mismatch(vector: &VectorData, value: impl std::fmt::Debug) -> Error {
    Error::internal(format!(
        "invariant: a value {value:?} written into a {:?} vector",
        vector.physical()
    ))
}

/// The values of one column, laid out by physical type. Slots of NULL rows hold a default.
#[derive(Debug, Clone, PartialEq)]
pub enum VectorData {
    Bool(Vec<bool>),
    Int16(Vec<i16>),
    Int32(Vec<i32>),
    Int64(Vec<i64>),
    Float32(Vec<f32>),
    Float64(Vec<f64>),
    Numeric(Vec<Decimal>),
    Text(StringVec),
    Date(Vec<i32>),
    Timestamp(Vec<i64>),
    TimestampTz(Vec<i64>),
    /// time: microseconds since midnight.
    Time(Vec<i64>),
    /// time with time zone, packed ([`crate::types::timetz`]).
    TimeTz(Vec<i64>),
    Interval(Vec<Interval>),
    Bytes(BytesVec),
    Uuid(Vec<u128>),
    /// inet and cidr values ([`crate::types::inet`]).
    Inet(Vec<Inet>),
    Jsonb(StringVec),
    List(ListVec),
    FloatVector(FloatVectors),
    /// Records: a child vector per field ([`StructVec`]).
    Struct(StructVec),
}

/// A column vector: values plus validity. `validity == None` means no NULLs.
#[derive(Debug, Clone, PartialEq)]
pub struct Vector {
    pub data: VectorData,
    pub validity: Option<Bitmap>,
}

impl VectorData {
    pub fn with_capacity(physical: PhysicalType, rows: usize) -> VectorData {
        match physical {
            PhysicalType::Bool => VectorData::Bool(Vec::with_capacity(rows)),
            PhysicalType::Int16 => VectorData::Int16(Vec::with_capacity(rows)),
            PhysicalType::Int32 => VectorData::Int32(Vec::with_capacity(rows)),
            PhysicalType::Int64 => VectorData::Int64(Vec::with_capacity(rows)),
            PhysicalType::Float32 => VectorData::Float32(Vec::with_capacity(rows)),
            PhysicalType::Float64 => VectorData::Float64(Vec::with_capacity(rows)),
            PhysicalType::Numeric => VectorData::Numeric(Vec::with_capacity(rows)),
            PhysicalType::Text => VectorData::Text(StringVec::with_capacity(rows, rows * 8)),
            PhysicalType::Date => VectorData::Date(Vec::with_capacity(rows)),
            PhysicalType::Timestamp => VectorData::Timestamp(Vec::with_capacity(rows)),
            PhysicalType::TimestampTz => VectorData::TimestampTz(Vec::with_capacity(rows)),
            PhysicalType::Time => VectorData::Time(Vec::with_capacity(rows)),
            PhysicalType::TimeTz => VectorData::TimeTz(Vec::with_capacity(rows)),
            PhysicalType::Interval => VectorData::Interval(Vec::with_capacity(rows)),
            PhysicalType::Bytes => VectorData::Bytes(BytesVec::with_capacity(rows, rows * 8)),
            PhysicalType::Uuid => VectorData::Uuid(Vec::with_capacity(rows)),
            PhysicalType::Inet => VectorData::Inet(Vec::with_capacity(rows)),
            PhysicalType::Jsonb => VectorData::Jsonb(StringVec::with_capacity(rows, rows * 16)),
            PhysicalType::List(elem) => VectorData::List(ListVec::with_capacity(*elem, rows)),
            PhysicalType::FloatVector => {
                VectorData::FloatVector(FloatVectors::with_capacity(rows, 0))
            }
            PhysicalType::Struct(record) => {
                VectorData::Struct(StructVec::with_capacity(record, rows))
            }
        }
    }

    pub fn len(&self) -> usize {
        match self {
            VectorData::Bool(v) => v.len(),
            VectorData::Int16(v) => v.len(),
            VectorData::Int32(v) => v.len(),
            VectorData::Int64(v) => v.len(),
            VectorData::Float32(v) => v.len(),
            VectorData::Float64(v) => v.len(),
            VectorData::Numeric(v) => v.len(),
            VectorData::Text(s) => s.len(),
            VectorData::Date(v) => v.len(),
            VectorData::Timestamp(v) => v.len(),
            VectorData::TimestampTz(v) => v.len(),
            VectorData::Time(v) => v.len(),
            VectorData::TimeTz(v) => v.len(),
            VectorData::Interval(v) => v.len(),
            VectorData::Bytes(b) => b.len(),
            VectorData::Uuid(v) => v.len(),
            VectorData::Inet(v) => v.len(),
            VectorData::Jsonb(s) => s.len(),
            VectorData::List(l) => l.len(),
            VectorData::FloatVector(v) => v.len(),
            VectorData::Struct(r) => r.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Gives back the memory reserved past the values held, before a vector is stored for
    /// good (a bulk load keeps its vectors as the table's chunks).
    pub fn shrink_to_fit(&mut self) {
        match self {
            VectorData::Bool(v) => v.shrink_to_fit(),
            VectorData::Int16(v) => v.shrink_to_fit(),
            VectorData::Int32(v) | VectorData::Date(v) => v.shrink_to_fit(),
            VectorData::Int64(v)
            | VectorData::Timestamp(v)
            | VectorData::TimestampTz(v)
            | VectorData::Time(v)
            | VectorData::TimeTz(v) => v.shrink_to_fit(),
            VectorData::Float32(v) => v.shrink_to_fit(),
            VectorData::Float64(v) => v.shrink_to_fit(),
            VectorData::Numeric(v) => v.shrink_to_fit(),
            VectorData::Text(s) | VectorData::Jsonb(s) => s.shrink_to_fit(),
            VectorData::Interval(v) => v.shrink_to_fit(),
            VectorData::Bytes(b) => b.shrink_to_fit(),
            VectorData::Uuid(v) => v.shrink_to_fit(),
            VectorData::Inet(v) => v.shrink_to_fit(),
            // Lists are built to size by their parser.
            VectorData::List(_) | VectorData::Struct(_) => {}
            VectorData::FloatVector(v) => v.shrink_to_fit(),
        }
    }

    pub fn physical(&self) -> PhysicalType {
        match self {
            VectorData::Bool(_) => PhysicalType::Bool,
            VectorData::Int16(_) => PhysicalType::Int16,
            VectorData::Int32(_) => PhysicalType::Int32,
            VectorData::Int64(_) => PhysicalType::Int64,
            VectorData::Float32(_) => PhysicalType::Float32,
            VectorData::Float64(_) => PhysicalType::Float64,
            VectorData::Numeric(_) => PhysicalType::Numeric,
            VectorData::Text(_) => PhysicalType::Text,
            VectorData::Date(_) => PhysicalType::Date,
            VectorData::Timestamp(_) => PhysicalType::Timestamp,
            VectorData::TimestampTz(_) => PhysicalType::TimestampTz,
            VectorData::Time(_) => PhysicalType::Time,
            VectorData::TimeTz(_) => PhysicalType::TimeTz,
            VectorData::Interval(_) => PhysicalType::Interval,
            VectorData::Bytes(_) => PhysicalType::Bytes,
            VectorData::Uuid(_) => PhysicalType::Uuid,
            VectorData::Inet(_) => PhysicalType::Inet,
            VectorData::Jsonb(_) => PhysicalType::Jsonb,
            VectorData::List(l) => PhysicalType::List(l.elem_physical().as_static()),
            VectorData::FloatVector(_) => PhysicalType::FloatVector,
            VectorData::Struct(r) => PhysicalType::Struct(r.record()),
        }
    }
}

impl Vector {
    pub fn new(data: VectorData, validity: Option<Bitmap>) -> Vector {
        Vector { data, validity }
    }

    pub fn with_capacity(physical: PhysicalType, rows: usize) -> Vector {
        Vector {
            data: VectorData::with_capacity(physical, rows),
            validity: None,
        }
    }

    /// A vector of `len` copies of `value` (NULL if `value` is NULL), of type `ty`; a value
    /// of another type is an internal error.
    pub fn from_scalar(value: &ScalarValue, ty: DataType, len: usize) -> Result<Vector> {
        let mut one = Vector::with_capacity(ty.physical(), 1);
        one.push_scalar(value)?;
        // A long constant in every row of a batch (`repeat('x', 100000000)`, folded) is
        // 53200 unless the statement has room for all the copies.
        let copies_bytes = one.approximate_bytes().saturating_mul(len);
        crate::interrupt::check_value_bytes(copies_bytes)?;
        // Copies of the one value: a typed loop, where a push per row matched the value's
        // type and grew the validity every time (a literal in `k % 100000` took a third of
        // a GROUP BY's time).
        Ok(one.gather(&vec![0; len]))
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// About how many bytes the vector holds, in O(1): what working memory and the caches
    /// count.
    pub fn approximate_bytes(&self) -> usize {
        let values = match &self.data {
            VectorData::Text(s) | VectorData::Jsonb(s) => s.heap_bytes(),
            VectorData::Bytes(b) => b.heap_bytes(),
            VectorData::List(l) => l.heap_bytes(),
            VectorData::Struct(r) => r.heap_bytes(),
            VectorData::Numeric(v) => std::mem::size_of_val(v.as_slice()),
            VectorData::Interval(v) => std::mem::size_of_val(v.as_slice()),
            VectorData::Uuid(v) => v.len() * 16,
            VectorData::Inet(v) => v.len() * std::mem::size_of::<Inet>(),
            other => other.len() * 8,
        };
        values + self.validity.as_ref().map_or(0, |v| v.len() / 8)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    pub fn is_valid(&self, row: usize) -> bool {
        self.validity.as_ref().is_none_or(|v| v.get(row))
    }

    pub fn null_count(&self) -> usize {
        self.validity
            .as_ref()
            .map_or(0, |v| v.len() - v.count_ones())
    }

    /// Marks the last pushed row NULL (or valid), creating the bitmap on the first NULL.
    fn set_last_valid(&mut self, valid: bool) {
        let len = self.len();
        match &mut self.validity {
            Some(bitmap) => bitmap.push(valid),
            None if valid => {}
            None => {
                let mut bitmap = Bitmap::new(len - 1, true);
                bitmap.push(false);
                self.validity = Some(bitmap);
            }
        }
    }

    /// Appends a value; a value of another physical type than the vector's is an internal
    /// error of the caller (NULL is accepted by every vector).
    pub fn push_scalar(&mut self, value: &ScalarValue) -> Result<()> {
        let valid = match (&mut self.data, value) {
            (VectorData::Bool(v), ScalarValue::Bool(x)) => push_valid(v, *x),
            (VectorData::Int16(v), ScalarValue::Int16(x)) => push_valid(v, *x),
            (VectorData::Int32(v), ScalarValue::Int32(x)) => push_valid(v, *x),
            (VectorData::Int64(v), ScalarValue::Int64(x)) => push_valid(v, *x),
            (VectorData::Float32(v), ScalarValue::Float32(x)) => push_valid(v, *x),
            (VectorData::Float64(v), ScalarValue::Float64(x)) => push_valid(v, *x),
            (VectorData::Numeric(v), ScalarValue::Numeric(x)) => push_valid(v, *x),
            (VectorData::Text(v), ScalarValue::Text(x)) => {
                v.push(x);
                true
            }
            (VectorData::Date(v), ScalarValue::Date(x)) => push_valid(v, *x),
            (VectorData::Timestamp(v), ScalarValue::Timestamp(x)) => push_valid(v, *x),
            (VectorData::TimestampTz(v), ScalarValue::TimestampTz(x)) => push_valid(v, *x),
            (VectorData::Time(v), ScalarValue::Time(x)) => push_valid(v, *x),
            (VectorData::TimeTz(v), ScalarValue::TimeTz(x)) => push_valid(v, *x),
            (VectorData::Interval(v), ScalarValue::Interval(x)) => push_valid(v, *x),
            (VectorData::Bytes(v), ScalarValue::Bytea(x)) => {
                v.push(x);
                true
            }
            (VectorData::Uuid(v), ScalarValue::Uuid(x)) => push_valid(v, *x),
            (VectorData::Inet(v), ScalarValue::Inet(x)) => push_valid(v, *x),
            (VectorData::Jsonb(v), ScalarValue::Jsonb(x)) => {
                v.push(x);
                true
            }
            (VectorData::List(l), x @ (ScalarValue::Array(_) | ScalarValue::ShapedArray(_))) => {
                l.push_array(x)?
            }
            (VectorData::FloatVector(v), ScalarValue::FloatVector(x)) => {
                v.push(x);
                true
            }
            (VectorData::Struct(r), ScalarValue::Record(x)) => {
                r.push_values(x)?;
                true
            }
            (data, ScalarValue::Null) => {
                push_default(data);
                false
            }
            (data, value) => return Err(type_mismatch(data, value)),
        };
        self.set_last_valid(valid);
        Ok(())
    }

    pub fn push_null(&mut self) {
        push_default(&mut self.data);
        self.set_last_valid(false);
    }

    /// Appends row `row` of `other`, which has the same physical type.
    pub fn push_from(&mut self, other: &Vector, row: usize) -> Result<()> {
        if !other.is_valid(row) {
            self.push_null();
            return Ok(());
        }
        let valid = match (&mut self.data, &other.data) {
            (VectorData::Bool(v), VectorData::Bool(o)) => push_valid(v, o[row]),
            (VectorData::Int16(v), VectorData::Int16(o)) => push_valid(v, o[row]),
            (VectorData::Int32(v), VectorData::Int32(o)) => push_valid(v, o[row]),
            (VectorData::Int64(v), VectorData::Int64(o)) => push_valid(v, o[row]),
            (VectorData::Float32(v), VectorData::Float32(o)) => push_valid(v, o[row]),
            (VectorData::Float64(v), VectorData::Float64(o)) => push_valid(v, o[row]),
            (VectorData::Numeric(v), VectorData::Numeric(o)) => push_valid(v, o[row]),
            (VectorData::Text(v), VectorData::Text(o)) => {
                v.push(o.get(row));
                true
            }
            (VectorData::Date(v), VectorData::Date(o)) => push_valid(v, o[row]),
            (VectorData::Timestamp(v), VectorData::Timestamp(o)) => push_valid(v, o[row]),
            (VectorData::TimestampTz(v), VectorData::TimestampTz(o)) => push_valid(v, o[row]),
            (VectorData::Time(v), VectorData::Time(o)) => push_valid(v, o[row]),
            (VectorData::TimeTz(v), VectorData::TimeTz(o)) => push_valid(v, o[row]),
            (VectorData::Interval(v), VectorData::Interval(o)) => push_valid(v, o[row]),
            (VectorData::Bytes(v), VectorData::Bytes(o)) => {
                v.push(o.get(row));
                true
            }
            (VectorData::Uuid(v), VectorData::Uuid(o)) => push_valid(v, o[row]),
            (VectorData::Inet(v), VectorData::Inet(o)) => push_valid(v, o[row]),
            (VectorData::Jsonb(v), VectorData::Jsonb(o)) => {
                v.push(o.get(row));
                true
            }
            (VectorData::List(l), VectorData::List(o)) => {
                l.push_from(o, row)?;
                true
            }
            (VectorData::FloatVector(v), VectorData::FloatVector(o)) => {
                v.push(o.get(row));
                true
            }
            (VectorData::Struct(r), VectorData::Struct(o)) => {
                r.push_from(o, row)?;
                true
            }
            (data, other) => return Err(type_mismatch(data, other.physical())),
        };
        self.set_last_valid(valid);
        Ok(())
    }

    /// A copy with row `offsets[i]` (ascending) replaced by row `i` of `values`, of the same
    /// physical type. A fixed-width column is copied whole and overwritten in place: an
    /// UPDATE of one row no longer rebuilds its chunk's column value by value.
    pub fn with_rows_replaced(&self, offsets: &[u32], values: &Vector) -> Result<Vector> {
        fn overwrite<T: Copy>(mine: &mut [T], offsets: &[u32], theirs: &[T]) -> bool {
            for (&at, &value) in offsets.iter().zip(theirs) {
                mine[at as usize] = value;
            }
            true
        }
        let mut out = self.clone();
        let replaced = match (&mut out.data, &values.data) {
            (VectorData::Bool(v), VectorData::Bool(o)) => overwrite(v, offsets, o),
            (VectorData::Int16(v), VectorData::Int16(o)) => overwrite(v, offsets, o),
            (VectorData::Int32(v), VectorData::Int32(o)) => overwrite(v, offsets, o),
            (VectorData::Int64(v), VectorData::Int64(o)) => overwrite(v, offsets, o),
            (VectorData::Float32(v), VectorData::Float32(o)) => overwrite(v, offsets, o),
            (VectorData::Float64(v), VectorData::Float64(o)) => overwrite(v, offsets, o),
            (VectorData::Numeric(v), VectorData::Numeric(o)) => overwrite(v, offsets, o),
            (VectorData::Date(v), VectorData::Date(o)) => overwrite(v, offsets, o),
            (VectorData::Timestamp(v), VectorData::Timestamp(o)) => overwrite(v, offsets, o),
            (VectorData::TimestampTz(v), VectorData::TimestampTz(o)) => overwrite(v, offsets, o),
            (VectorData::Time(v), VectorData::Time(o)) => overwrite(v, offsets, o),
            (VectorData::TimeTz(v), VectorData::TimeTz(o)) => overwrite(v, offsets, o),
            (VectorData::Interval(v), VectorData::Interval(o)) => overwrite(v, offsets, o),
            (VectorData::Uuid(v), VectorData::Uuid(o)) => overwrite(v, offsets, o),
            (VectorData::Inet(v), VectorData::Inet(o)) => overwrite(v, offsets, o),
            _ => false,
        };
        if !replaced {
            // Variable-width values are rebuilt row by row (a type mismatch fails there).
            let mut rebuilt = Vector::with_capacity(self.data.physical(), self.len());
            let mut next = 0;
            for row in 0..self.len() {
                if offsets.get(next).is_some_and(|&at| at as usize == row) {
                    rebuilt.push_from(values, next)?;
                    next += 1;
                } else {
                    rebuilt.push_from(self, row)?;
                }
            }
            return Ok(rebuilt);
        }
        if out.validity.is_some() || values.validity.is_some() {
            let len = out.len();
            let bitmap = out.validity.get_or_insert_with(|| Bitmap::new(len, true));
            for (row, &at) in offsets.iter().enumerate() {
                bitmap.set(at as usize, values.is_valid(row));
            }
        }
        Ok(out)
    }

    /// The rows at `indices`, in that order.
    pub fn gather(&self, indices: &[u32]) -> Vector {
        let validity = self.validity.as_ref().map(|bitmap| {
            let mut out = Bitmap::new(indices.len(), true);
            for (i, &idx) in indices.iter().enumerate() {
                if !bitmap.get(idx as usize) {
                    out.set(i, false);
                }
            }
            out
        });
        let data = match &self.data {
            VectorData::Text(s) => VectorData::Text(s.gather(indices)),
            VectorData::Bool(v) => VectorData::Bool(gather_slice(v, indices)),
            VectorData::Int16(v) => VectorData::Int16(gather_slice(v, indices)),
            VectorData::Int32(v) => VectorData::Int32(gather_slice(v, indices)),
            VectorData::Int64(v) => VectorData::Int64(gather_slice(v, indices)),
            VectorData::Float32(v) => VectorData::Float32(gather_slice(v, indices)),
            VectorData::Float64(v) => VectorData::Float64(gather_slice(v, indices)),
            VectorData::Numeric(v) => VectorData::Numeric(gather_slice(v, indices)),
            VectorData::Date(v) => VectorData::Date(gather_slice(v, indices)),
            VectorData::Timestamp(v) => VectorData::Timestamp(gather_slice(v, indices)),
            VectorData::TimestampTz(v) => VectorData::TimestampTz(gather_slice(v, indices)),
            VectorData::Time(v) => VectorData::Time(gather_slice(v, indices)),
            VectorData::TimeTz(v) => VectorData::TimeTz(gather_slice(v, indices)),
            VectorData::Interval(v) => VectorData::Interval(gather_slice(v, indices)),
            VectorData::Bytes(b) => VectorData::Bytes(b.gather(indices)),
            VectorData::Uuid(v) => VectorData::Uuid(gather_slice(v, indices)),
            VectorData::Inet(v) => VectorData::Inet(gather_slice(v, indices)),
            VectorData::Jsonb(s) => VectorData::Jsonb(s.gather(indices)),
            VectorData::List(l) => {
                let mut out = ListVec::with_capacity(l.elem_physical(), indices.len());
                for &idx in indices {
                    out.push_from(l, idx as usize)
                        .expect("invariant: gathered into the list's own element type");
                }
                VectorData::List(out)
            }
            VectorData::FloatVector(v) => VectorData::FloatVector(v.gather(indices)),
            VectorData::Struct(r) => VectorData::Struct(r.gather(indices)),
        };
        Vector { data, validity }
    }

    /// The rows at `indices`; [`NULL_ROW`] gives a NULL (the padding of outer joins).
    pub fn gather_or_null(&self, indices: &[u32]) -> Vector {
        if !indices.contains(&NULL_ROW) {
            return self.gather(indices);
        }
        let mut out = Vector::with_capacity(self.data.physical(), indices.len());
        for &idx in indices {
            if idx == NULL_ROW {
                out.push_null();
            } else {
                out.push_from(self, idx as usize)
                    .expect("invariant: gathered into the vector's own type");
            }
        }
        out
    }

    /// Appends every row of `other` (same physical type).
    pub fn extend(&mut self, other: &Vector) -> Result<()> {
        let before = self.len();
        match (&mut self.data, &other.data) {
            (VectorData::Bool(v), VectorData::Bool(o)) => extend_slice(v, o),
            (VectorData::Int16(v), VectorData::Int16(o)) => extend_slice(v, o),
            (VectorData::Int32(v), VectorData::Int32(o)) => extend_slice(v, o),
            (VectorData::Int64(v), VectorData::Int64(o)) => extend_slice(v, o),
            (VectorData::Float32(v), VectorData::Float32(o)) => extend_slice(v, o),
            (VectorData::Float64(v), VectorData::Float64(o)) => extend_slice(v, o),
            (VectorData::Numeric(v), VectorData::Numeric(o)) => extend_slice(v, o),
            (VectorData::Date(v), VectorData::Date(o)) => extend_slice(v, o),
            (VectorData::Timestamp(v), VectorData::Timestamp(o)) => extend_slice(v, o),
            (VectorData::TimestampTz(v), VectorData::TimestampTz(o)) => extend_slice(v, o),
            (VectorData::Time(v), VectorData::Time(o)) => extend_slice(v, o),
            (VectorData::TimeTz(v), VectorData::TimeTz(o)) => extend_slice(v, o),
            (VectorData::Interval(v), VectorData::Interval(o)) => extend_slice(v, o),
            (VectorData::Text(v), VectorData::Text(o)) => v.extend_from(o),
            (VectorData::Bytes(v), VectorData::Bytes(o)) => v.extend_from(o),
            (VectorData::Uuid(v), VectorData::Uuid(o)) => extend_slice(v, o),
            (VectorData::Inet(v), VectorData::Inet(o)) => extend_slice(v, o),
            (VectorData::Jsonb(v), VectorData::Jsonb(o)) => v.extend_from(o),
            (VectorData::List(v), VectorData::List(o)) => v.extend_from(o)?,
            (VectorData::FloatVector(v), VectorData::FloatVector(o)) => v.extend_from(o),
            (VectorData::Struct(v), VectorData::Struct(o)) => v.extend_from(o)?,
            (data, other) => return Err(type_mismatch(data, other.physical())),
        }
        match (&mut self.validity, &other.validity) {
            (None, None) => {}
            (mine, Some(theirs)) if before == 0 && mine.is_none() => {
                *mine = Some(theirs.clone());
            }
            (Some(mine), None) => (0..other.len()).for_each(|_| mine.push(true)),
            (mine, Some(theirs)) => {
                let bitmap = mine.get_or_insert_with(|| Bitmap::new(before, true));
                (0..other.len()).for_each(|row| bitmap.push(theirs.get(row)));
            }
        }
        Ok(())
    }

    /// The value at `row` as a scalar (NULL if invalid). For constants and slow paths only.
    pub fn get_scalar(&self, row: usize) -> ScalarValue {
        if !self.is_valid(row) {
            return ScalarValue::Null;
        }
        match &self.data {
            VectorData::Bool(v) => ScalarValue::Bool(v[row]),
            VectorData::Int16(v) => ScalarValue::Int16(v[row]),
            VectorData::Int32(v) => ScalarValue::Int32(v[row]),
            VectorData::Int64(v) => ScalarValue::Int64(v[row]),
            VectorData::Float32(v) => ScalarValue::Float32(v[row]),
            VectorData::Float64(v) => ScalarValue::Float64(v[row]),
            VectorData::Numeric(v) => ScalarValue::Numeric(v[row]),
            VectorData::Text(s) => ScalarValue::Text(s.get(row).to_string()),
            VectorData::Date(v) => ScalarValue::Date(v[row]),
            VectorData::Timestamp(v) => ScalarValue::Timestamp(v[row]),
            VectorData::TimestampTz(v) => ScalarValue::TimestampTz(v[row]),
            VectorData::Time(v) => ScalarValue::Time(v[row]),
            VectorData::TimeTz(v) => ScalarValue::TimeTz(v[row]),
            VectorData::Interval(v) => ScalarValue::Interval(v[row]),
            VectorData::Bytes(b) => ScalarValue::Bytea(b.get(row).to_vec()),
            VectorData::Uuid(v) => ScalarValue::Uuid(v[row]),
            VectorData::Inet(v) => ScalarValue::Inet(v[row]),
            VectorData::Jsonb(s) => ScalarValue::Jsonb(s.get(row).to_string()),
            VectorData::List(l) => l.value(row),
            VectorData::FloatVector(v) => ScalarValue::FloatVector(v.get(row).to_vec()),
            VectorData::Struct(r) => ScalarValue::Record(r.values(row)),
        }
    }

    /// Writes row `row` in PostgreSQL's text output format. Returns false (writing nothing)
    /// for NULL.
    #[inline]
    pub fn write_text(&self, row: usize, out: &mut Vec<u8>) -> bool {
        if !self.is_valid(row) {
            return false;
        }
        match &self.data {
            VectorData::Bool(v) => out.push(if v[row] { b't' } else { b'f' }),
            VectorData::Int16(v) => write_int(v[row] as i64, out),
            VectorData::Int32(v) => write_int(v[row] as i64, out),
            VectorData::Int64(v) => write_int(v[row], out),
            VectorData::Float32(v) => float::write_f32(v[row], out),
            VectorData::Float64(v) => float::write_f64(v[row], out),
            VectorData::Numeric(v) => v[row].write_text(out),
            VectorData::Text(s) => out.extend_from_slice(s.get_bytes(row)),
            VectorData::Date(v) => datetime::write_date(v[row], out),
            VectorData::Timestamp(v) => datetime::write_timestamp(v[row], out),
            VectorData::TimestampTz(v) => datetime::write_timestamptz(v[row], out),
            VectorData::Time(v) => datetime::write_time(v[row], out),
            VectorData::TimeTz(v) => timetz::write_timetz(v[row], out),
            VectorData::Interval(v) => v[row].write_text(out),
            VectorData::Bytes(b) => bytea::write_output(b.get(row), out),
            VectorData::Uuid(v) => uuid::write_uuid(v[row], out),
            VectorData::Inet(v) => inet::write_inet(v[row], out),
            VectorData::Jsonb(s) => out.extend_from_slice(s.get_bytes(row)),
            VectorData::List(l) => {
                let (elements, range) = (l.child(), l.range(row));
                array_shape::write_array_text(
                    l.shape(row).unwrap_or_default(),
                    range.len(),
                    |i, out| elements.write_text(range.start + i, out),
                    out,
                )
            }
            VectorData::FloatVector(v) => float_vector::write_vector(v.get(row), out),
            VectorData::Struct(r) => r.write_text(row, out),
        }
        true
    }
}

/// A row index meaning "no row": gathers produce NULL for it.
pub const NULL_ROW: u32 = u32::MAX;

/// Writes a decimal integer without allocating.
#[inline]
pub fn write_int(value: i64, out: &mut Vec<u8>) {
    let mut buf = [0u8; 20];
    let mut pos = buf.len();
    let negative = value < 0;
    let mut magnitude = value.unsigned_abs();
    loop {
        pos -= 1;
        buf[pos] = b'0' + (magnitude % 10) as u8;
        magnitude /= 10;
        if magnitude == 0 {
            break;
        }
    }
    if negative {
        out.push(b'-');
    }
    out.extend_from_slice(&buf[pos..]);
}

fn extend_slice<T: Copy>(values: &mut Vec<T>, other: &[T]) {
    values.extend_from_slice(other);
}

#[inline]
fn push_valid<T>(values: &mut Vec<T>, value: T) -> bool {
    values.push(value);
    true
}

fn push_default(data: &mut VectorData) {
    match data {
        VectorData::Text(s) => s.push(""),
        VectorData::Bool(v) => v.push(false),
        VectorData::Int16(v) => v.push(0),
        VectorData::Int32(v) => v.push(0),
        VectorData::Int64(v) => v.push(0),
        VectorData::Float32(v) => v.push(0.0),
        VectorData::Float64(v) => v.push(0.0),
        VectorData::Numeric(v) => v.push(Decimal::ZERO),
        VectorData::Date(v) => v.push(0),
        VectorData::Timestamp(v) => v.push(0),
        VectorData::TimestampTz(v) => v.push(0),
        VectorData::Time(v) => v.push(0),
        VectorData::TimeTz(v) => v.push(0),
        VectorData::Interval(v) => v.push(Interval::ZERO),
        VectorData::Bytes(b) => b.push(&[]),
        VectorData::Uuid(v) => v.push(0),
        VectorData::Inet(v) => v.push(Inet::default()),
        VectorData::Jsonb(s) => s.push("null"),
        VectorData::List(l) => l.push_empty(),
        VectorData::FloatVector(v) => v.push_empty(),
        VectorData::Struct(r) => r.push_empty(),
    }
}

fn gather_slice<T: Copy>(values: &[T], indices: &[u32]) -> Vec<T> {
    indices.iter().map(|&idx| values[idx as usize]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(values: &[Option<i32>]) -> Vector {
        let mut v = Vector::with_capacity(PhysicalType::Int32, values.len());
        for value in values {
            let value = value.map_or(ScalarValue::Null, ScalarValue::Int32);
            assert!(v.push_scalar(&value).is_ok());
        }
        v
    }

    #[test]
    fn extend_keeps_values_and_nulls_in_every_combination() {
        type Rows<'a> = &'a [Option<i32>];
        let cases: [(Rows, Rows); 4] = [
            (&[Some(1), Some(2)], &[Some(3)]),
            (&[Some(1), None], &[Some(3)]),
            (&[Some(1)], &[None, Some(4)]),
            (&[None], &[None]),
        ];
        for (a, b) in cases {
            let mut left = ints(a);
            assert!(left.extend(&ints(b)).is_ok());
            let expected: Vec<Option<i32>> = a.iter().chain(b).copied().collect();
            let got: Vec<Option<i32>> = (0..left.len())
                .map(|r| match left.get_scalar(r) {
                    ScalarValue::Int32(x) => Some(x),
                    _ => None,
                })
                .collect();
            assert_eq!(got, expected);
        }
    }

    #[test]
    fn rows_replaced_in_place_or_rebuilt_keep_values_and_nulls() -> Result<()> {
        let old = ints(&[Some(1), None, Some(3), Some(4)]);
        let new = ints(&[Some(20), None]);
        let replaced = old.with_rows_replaced(&[1, 3], &new)?;
        let scalars: Vec<ScalarValue> = (0..4).map(|r| replaced.get_scalar(r)).collect();
        let expected = [1, 20, 3].map(ScalarValue::Int32);
        assert_eq!(scalars[..3], expected);
        assert_eq!(scalars[3], ScalarValue::Null);
        let text = |s: &str| ScalarValue::Text(s.into());
        let words = Vector::from_scalar(&text("a"), DataType::Text, 3)?;
        let replaced = words.with_rows_replaced(
            &[0],
            &Vector::from_scalar(&ScalarValue::Null, DataType::Text, 1)?,
        )?;
        let scalars: Vec<ScalarValue> = (0..3).map(|r| replaced.get_scalar(r)).collect();
        assert_eq!(scalars, [ScalarValue::Null, text("a"), text("a")]);
        Ok(())
    }

    #[test]
    fn extend_strings() -> Result<()> {
        let mut a = Vector::from_scalar(&ScalarValue::Text("ab".into()), DataType::Text, 2)?;
        a.extend(&Vector::from_scalar(
            &ScalarValue::Text("c".into()),
            DataType::Text,
            1,
        )?)?;
        let texts: Vec<ScalarValue> = (0..3).map(|r| a.get_scalar(r)).collect();
        assert_eq!(
            texts,
            ["ab", "ab", "c"].map(|t| ScalarValue::Text(t.into()))
        );
        Ok(())
    }

    #[test]
    fn a_value_of_another_type_is_an_internal_error_not_a_null() {
        let mut v = ints(&[Some(1)]);
        let pushed = v.push_scalar(&ScalarValue::Int64(2));
        assert_eq!(pushed.map_err(|e| e.sqlstate()), Err("XX000"));
        let texts = Vector::from_scalar(&ScalarValue::Text("a".into()), DataType::Text, 1);
        assert!(texts.is_ok());
        if let Ok(texts) = texts {
            assert!(v.push_from(&texts, 0).is_err());
            assert!(v.extend(&texts).is_err());
            assert!(v.with_rows_replaced(&[0], &texts).is_err());
        }
        assert!(Vector::from_scalar(&ScalarValue::Bool(true), DataType::Int32, 2).is_err());
        assert_eq!(v.len(), 1, "nothing was stored");
        assert!(
            v.push_scalar(&ScalarValue::Null).is_ok(),
            "NULL fits every type"
        );
    }
}
