//! The columnar layout of vectors, chunks and table versions in the data directory's files.
//!
//! A vector is its physical-type tag, its length, its validity, then its values as one run:
//! fixed-width values as little-endian bytes, text as end offsets then bytes, a list as end
//! offsets then its element vector (and, when some row has one, each row's array shape), a
//! float vector column end offsets then its elements. A run is taken with one bounds check and converted in
//! bulk, so a checkpoint loads at close to disk speed; what it holds is validated whole
//! (offsets, UTF-8, list ranges) before it becomes a vector.

use std::sync::Arc;

use super::bytes::{corrupt, Decoder, Encoder, Persist};
use crate::error::Result;
use crate::storage::{Chunk, TableData};
use crate::types::array_shape::{ArrayDim, MAX_DIMS};
use crate::types::inet::Inet;
use crate::types::{DataType, Decimal, Interval, PhysicalType};
use crate::vector::{
    Bitmap, BytesVec, FloatVectors, ListVec, RowShape, StringVec, StructVec, Vector, VectorData,
};

/// The tag of each physical type. The numbers are part of the on-disk format: never change
/// one, never reuse a retired one.
mod tag {
    pub const BOOL: u8 = 1;
    pub const INT16: u8 = 2;
    pub const INT32: u8 = 3;
    pub const INT64: u8 = 4;
    pub const FLOAT32: u8 = 5;
    pub const FLOAT64: u8 = 6;
    pub const NUMERIC: u8 = 7;
    pub const TEXT: u8 = 8;
    pub const DATE: u8 = 9;
    pub const TIMESTAMP: u8 = 10;
    pub const TIMESTAMPTZ: u8 = 11;
    pub const INTERVAL: u8 = 12;
    pub const LIST: u8 = 13;
    pub const BYTES: u8 = 14;
    pub const UUID: u8 = 15;
    pub const JSONB: u8 = 16;
    pub const TIME: u8 = 17;
    pub const FLOAT_VECTOR: u8 = 18;
    pub const TIMETZ: u8 = 19;
    /// inet and cidr: 18 bytes a value (see `Inet::to_stored`). From the types range.
    pub const INET: u8 = 120;
    /// Records: the field count, then a vector per field. From the records range.
    pub const STRUCT: u8 = 150;
    /// A list some of whose rows are multi-dimensional arrays or have other lower bounds:
    /// a list, then each row's shape. From the arrays range; lists without shapes keep
    /// `LIST`, so data written before reads as it did.
    pub const SHAPED_LIST: u8 = 210;
}

/// The fewest bytes a vector takes (tag, length, validity flag): bounds a count of vectors.
const MIN_VECTOR_BYTES: usize = 1 + 8 + 1;
/// The fewest bytes a chunk takes (length, column count, deletion flag).
const MIN_CHUNK_BYTES: usize = 8 + 8 + 1;

fn physical_tag(data: &VectorData) -> u8 {
    match data {
        VectorData::Bool(_) => tag::BOOL,
        VectorData::Int16(_) => tag::INT16,
        VectorData::Int32(_) => tag::INT32,
        VectorData::Int64(_) => tag::INT64,
        VectorData::Float32(_) => tag::FLOAT32,
        VectorData::Float64(_) => tag::FLOAT64,
        VectorData::Numeric(_) => tag::NUMERIC,
        VectorData::Text(_) => tag::TEXT,
        VectorData::Date(_) => tag::DATE,
        VectorData::Timestamp(_) => tag::TIMESTAMP,
        VectorData::TimestampTz(_) => tag::TIMESTAMPTZ,
        VectorData::Time(_) => tag::TIME,
        VectorData::TimeTz(_) => tag::TIMETZ,
        VectorData::Interval(_) => tag::INTERVAL,
        VectorData::List(l) if l.has_shapes() => tag::SHAPED_LIST,
        VectorData::List(_) => tag::LIST,
        VectorData::Bytes(_) => tag::BYTES,
        VectorData::Uuid(_) => tag::UUID,
        VectorData::Inet(_) => tag::INET,
        VectorData::Jsonb(_) => tag::JSONB,
        VectorData::FloatVector(_) => tag::FLOAT_VECTOR,
        VectorData::Struct(_) => tag::STRUCT,
    }
}

/// A length read from the file as a `usize`; what it may allocate is checked where it is used.
fn row_count(input: &mut Decoder<'_>) -> Result<usize> {
    let n = input.u64()?;
    usize::try_from(n).map_err(|_| corrupt(format!("row count {n}")))
}

/// The bytes of `rows` values of `width` bytes each, taken at once.
fn run<'a>(input: &mut Decoder<'a>, rows: usize, width: usize) -> Result<&'a [u8]> {
    let n = rows
        .checked_mul(width)
        .ok_or_else(|| corrupt(format!("{rows} values of {width} bytes")))?;
    input.take(n)
}

fn write_fixed<T: Copy, const W: usize>(
    out: &mut Encoder,
    values: &[T],
    to_bytes: impl Fn(T) -> [u8; W],
) {
    out.buf.reserve(values.len() * W);
    for &value in values {
        out.buf.extend_from_slice(&to_bytes(value));
    }
}

/// `rows` values of `W` bytes: one bounds check, then a loop over whole arrays that the
/// compiler vectorizes.
fn read_fixed<T, const W: usize>(
    input: &mut Decoder<'_>,
    rows: usize,
    from_bytes: impl Fn([u8; W]) -> T,
) -> Result<Vec<T>> {
    let (values, _) = run(input, rows, W)?.as_chunks::<W>();
    Ok(values.iter().map(|&bytes| from_bytes(bytes)).collect())
}

fn read_bools(input: &mut Decoder<'_>, rows: usize) -> Result<Vec<bool>> {
    let bytes = run(input, rows, 1)?;
    if bytes.iter().any(|&b| b > 1) {
        return Err(corrupt("a boolean value is neither 0 nor 1"));
    }
    Ok(bytes.iter().map(|&b| b == 1).collect())
}

/// Mantissas, then scales: two runs.
fn read_decimals(input: &mut Decoder<'_>, rows: usize) -> Result<Vec<Decimal>> {
    let mantissas = read_fixed(input, rows, i128::from_le_bytes)?;
    let (scales, _) = run(input, rows, 4)?.as_chunks::<4>();
    mantissas
        .into_iter()
        .zip(scales)
        .map(|(mantissa, &scale)| Decimal::from_parts(mantissa, u32::from_le_bytes(scale)))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| corrupt("a numeric value out of range"))
}

/// Months, days, then microseconds: three runs.
fn read_intervals(input: &mut Decoder<'_>, rows: usize) -> Result<Vec<Interval>> {
    let (months, _) = run(input, rows, 4)?.as_chunks::<4>();
    let (days, _) = run(input, rows, 4)?.as_chunks::<4>();
    let (micros, _) = run(input, rows, 8)?.as_chunks::<8>();
    Ok(months
        .iter()
        .zip(days)
        .zip(micros)
        .map(|((&m, &d), &us)| {
            Interval::new(
                i32::from_le_bytes(m),
                i32::from_le_bytes(d),
                i64::from_le_bytes(us),
            )
        })
        .collect())
}

/// Variable-width values (text, bytea, jsonb): end offsets, then the bytes.
fn write_offsets_and_bytes(out: &mut Encoder, (offsets, bytes): (&[usize], &[u8])) {
    let ends = offsets.get(1..).unwrap_or_default();
    write_fixed(out, ends, |end| (end as u64).to_le_bytes());
    out.bytes(bytes);
}

/// The offsets (with the implied leading 0) and bytes [`write_offsets_and_bytes`] wrote;
/// their shape is checked by the vector built from them.
fn read_offsets_and_bytes(input: &mut Decoder<'_>, rows: usize) -> Result<(Vec<usize>, Vec<u8>)> {
    let (ends, _) = run(input, rows, 8)?.as_chunks::<8>();
    let mut offsets = Vec::with_capacity(rows + 1);
    offsets.push(0);
    // An offset too large for usize fails the range check in `from_parts`.
    offsets.extend(
        ends.iter()
            .map(|&end| usize::try_from(u64::from_le_bytes(end)).unwrap_or(usize::MAX)),
    );
    Ok((offsets, input.bytes()?.to_vec()))
}

/// Text (and jsonb's canonical text): one UTF-8 check over all the bytes.
fn read_text(input: &mut Decoder<'_>, rows: usize) -> Result<StringVec> {
    let (offsets, bytes) = read_offsets_and_bytes(input, rows)?;
    StringVec::from_parts(offsets, bytes)
        .ok_or_else(|| corrupt("text offsets do not split UTF-8 bytes into strings"))
}

fn read_bytes(input: &mut Decoder<'_>, rows: usize) -> Result<BytesVec> {
    let (offsets, bytes) = read_offsets_and_bytes(input, rows)?;
    BytesVec::from_parts(offsets, bytes).ok_or_else(|| corrupt("bytea offsets out of order"))
}

/// End offsets (the leading 0 is implied), then the element vector, which is no list.
fn read_list(
    input: &mut Decoder<'_>,
    rows: usize,
    expected: Option<PhysicalType>,
) -> Result<ListVec> {
    let (ends, _) = run(input, rows, 4)?.as_chunks::<4>();
    let mut offsets = Vec::with_capacity(rows + 1);
    offsets.push(0);
    offsets.extend(ends.iter().map(|&end| u32::from_le_bytes(end)));
    let elem = match expected {
        Some(PhysicalType::List(elem)) => Some(*elem),
        _ => None,
    };
    let child = read_vector(input, elem, true)?;
    ListVec::from_parts(offsets, child)
        .ok_or_else(|| corrupt("list offsets outside their element vector"))
}

/// One row's shape: the number of dimensions (0 for a plain array), then each one's lower
/// bound and length as u32s.
fn write_shape(out: &mut Encoder, shape: Option<&[ArrayDim]>) {
    let dims = shape.unwrap_or_default();
    out.u8(dims.len() as u8);
    for dim in dims {
        out.u32(dim.lower as u32);
        out.u32(dim.len as u32);
    }
}

fn read_shape(input: &mut Decoder<'_>) -> Result<RowShape> {
    let ndims = usize::from(input.u8()?);
    if ndims == 0 {
        return Ok(None);
    }
    if ndims > MAX_DIMS {
        return Err(corrupt(format!("an array of {ndims} dimensions")));
    }
    let dims = (0..ndims)
        .map(|_| {
            let (lower, len) = (input.u32()? as i32, input.u32()? as i32);
            match len > 0 && lower.checked_add(len).is_some() {
                true => Ok(ArrayDim { lower, len }),
                false => Err(corrupt("an array dimension out of range")),
            }
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Some(dims.into_boxed_slice()))
}

/// The field count, then a vector per field of `rows` values, none a list or a record.
/// Only a vector of a known record type is read: the type names the fields.
fn read_struct(
    input: &mut Decoder<'_>,
    rows: usize,
    expected: Option<PhysicalType>,
) -> Result<StructVec> {
    let Some(PhysicalType::Struct(record)) = expected else {
        return Err(corrupt("a record vector of no known record type"));
    };
    let count = input.len(MIN_VECTOR_BYTES)?;
    if count != record.fields.len() {
        return Err(corrupt("a record vector of another field count"));
    }
    let children = record
        .fields
        .iter()
        .map(|field| read_vector(input, Some(field.ty.physical()), true))
        .collect::<Result<Vec<_>>>()?;
    StructVec::from_children(record, children, rows)
        .ok_or_else(|| corrupt("record fields of another length or type"))
}

/// End offsets (the leading 0 is implied), the element count, then the elements.
fn read_float_vectors(input: &mut Decoder<'_>, rows: usize) -> Result<FloatVectors> {
    let (ends, _) = run(input, rows, 4)?.as_chunks::<4>();
    let mut offsets = Vec::with_capacity(rows + 1);
    offsets.push(0);
    offsets.extend(ends.iter().map(|&end| u32::from_le_bytes(end)));
    let count = row_count(input)?;
    let values = read_fixed(input, count, f32::from_le_bytes)?;
    FloatVectors::from_parts(offsets, values)
        .ok_or_else(|| corrupt("vector offsets outside their elements"))
}

/// A vector of the physical type `expected` when the caller knows it. A list's element
/// vector (`in_list`) is refused as a list before it is read, so corrupt input cannot nest
/// deeply enough to exhaust the stack.
fn read_vector(
    input: &mut Decoder<'_>,
    expected: Option<PhysicalType>,
    in_list: bool,
) -> Result<Vector> {
    let tag = input.u8()?;
    let rows = row_count(input)?;
    let validity = input.option(Bitmap::decode)?;
    if validity.as_ref().is_some_and(|v| v.len() != rows) {
        return Err(corrupt(
            "a validity bitmap of another length than its vector",
        ));
    }
    let data = match tag {
        tag::BOOL => VectorData::Bool(read_bools(input, rows)?),
        tag::INT16 => VectorData::Int16(read_fixed(input, rows, i16::from_le_bytes)?),
        tag::INT32 => VectorData::Int32(read_fixed(input, rows, i32::from_le_bytes)?),
        tag::INT64 => VectorData::Int64(read_fixed(input, rows, i64::from_le_bytes)?),
        tag::FLOAT32 => VectorData::Float32(read_fixed(input, rows, f32::from_le_bytes)?),
        tag::FLOAT64 => VectorData::Float64(read_fixed(input, rows, f64::from_le_bytes)?),
        tag::NUMERIC => VectorData::Numeric(read_decimals(input, rows)?),
        tag::TEXT => VectorData::Text(read_text(input, rows)?),
        tag::DATE => VectorData::Date(read_fixed(input, rows, i32::from_le_bytes)?),
        tag::TIMESTAMP => VectorData::Timestamp(read_fixed(input, rows, i64::from_le_bytes)?),
        tag::TIMESTAMPTZ => VectorData::TimestampTz(read_fixed(input, rows, i64::from_le_bytes)?),
        tag::TIME => VectorData::Time(read_fixed(input, rows, i64::from_le_bytes)?),
        tag::TIMETZ => VectorData::TimeTz(read_fixed(input, rows, i64::from_le_bytes)?),
        tag::INTERVAL => VectorData::Interval(read_intervals(input, rows)?),
        tag::BYTES => VectorData::Bytes(read_bytes(input, rows)?),
        tag::UUID => VectorData::Uuid(read_fixed(input, rows, u128::from_be_bytes)?),
        tag::INET => VectorData::Inet(
            read_fixed(input, rows, Inet::from_stored)?
                .into_iter()
                .collect::<Option<_>>()
                .ok_or_else(|| corrupt("an inet value with an invalid family or mask"))?,
        ),
        tag::JSONB => VectorData::Jsonb(read_text(input, rows)?),
        tag::LIST if !in_list => VectorData::List(read_list(input, rows, expected)?),
        tag::SHAPED_LIST if !in_list => {
            let list = read_list(input, rows, expected)?;
            let shapes = (0..rows)
                .map(|_| read_shape(input))
                .collect::<Result<Vec<_>>>()?;
            VectorData::List(
                list.with_shapes(shapes)
                    .ok_or_else(|| corrupt("array dimensions that do not fit their elements"))?,
            )
        }
        tag::FLOAT_VECTOR => VectorData::FloatVector(read_float_vectors(input, rows)?),
        tag::STRUCT if !in_list => VectorData::Struct(read_struct(input, rows, expected)?),
        other => return Err(corrupt(format!("vector tag {other}"))),
    };
    match expected {
        Some(expected) if data.physical() != expected => Err(corrupt(format!(
            "a {:?} vector where {expected:?} belongs",
            data.physical()
        ))),
        _ => Ok(Vector::new(data, validity)),
    }
}

/// A vector that must have the physical type `expected`.
pub fn decode_vector_of(input: &mut Decoder<'_>, expected: PhysicalType) -> Result<Vector> {
    read_vector(input, Some(expected), false)
}

impl Persist for Bitmap {
    fn encode(&self, out: &mut Encoder) {
        out.len(self.len());
        write_fixed(out, self.words(), u64::to_le_bytes);
    }

    fn decode(input: &mut Decoder<'_>) -> Result<Bitmap> {
        let bits = row_count(input)?;
        let words = read_fixed(input, bits.div_ceil(64), u64::from_le_bytes)?;
        Bitmap::from_words(words, bits).ok_or_else(|| corrupt("bits set past a bitmap's end"))
    }
}

impl Persist for Vector {
    fn encode(&self, out: &mut Encoder) {
        out.u8(physical_tag(&self.data));
        out.len(self.len());
        out.option(self.validity.as_ref(), |out, v| v.encode(out));
        match &self.data {
            VectorData::Bool(v) => write_fixed(out, v, |b| [u8::from(b)]),
            VectorData::Int16(v) => write_fixed(out, v, i16::to_le_bytes),
            VectorData::Int32(v) => write_fixed(out, v, i32::to_le_bytes),
            VectorData::Int64(v) => write_fixed(out, v, i64::to_le_bytes),
            VectorData::Float32(v) => write_fixed(out, v, f32::to_le_bytes),
            VectorData::Float64(v) => write_fixed(out, v, f64::to_le_bytes),
            VectorData::Numeric(v) => {
                write_fixed(out, v, |d| d.mantissa().to_le_bytes());
                write_fixed(out, v, |d| d.scale().to_le_bytes());
            }
            VectorData::Text(s) | VectorData::Jsonb(s) => write_offsets_and_bytes(out, s.parts()),
            VectorData::Bytes(b) => write_offsets_and_bytes(out, b.parts()),
            // Big-endian, like the value's bytes.
            VectorData::Uuid(v) => write_fixed(out, v, u128::to_be_bytes),
            VectorData::Inet(v) => write_fixed(out, v, Inet::to_stored),
            VectorData::Date(v) => write_fixed(out, v, i32::to_le_bytes),
            VectorData::Timestamp(v) => write_fixed(out, v, i64::to_le_bytes),
            VectorData::TimestampTz(v) => write_fixed(out, v, i64::to_le_bytes),
            VectorData::Time(v) | VectorData::TimeTz(v) => write_fixed(out, v, i64::to_le_bytes),
            VectorData::Interval(v) => {
                write_fixed(out, v, |i| i.months.to_le_bytes());
                write_fixed(out, v, |i| i.days.to_le_bytes());
                write_fixed(out, v, |i| i.micros.to_le_bytes());
            }
            VectorData::List(l) => {
                let ends = l.offsets().get(1..).unwrap_or_default();
                write_fixed(out, ends, u32::to_le_bytes);
                l.child().encode(out);
                if l.has_shapes() {
                    (0..l.len()).for_each(|row| write_shape(out, l.shape(row)));
                }
            }
            VectorData::FloatVector(v) => {
                let ends = v.offsets().get(1..).unwrap_or_default();
                write_fixed(out, ends, u32::to_le_bytes);
                out.len(v.values().len());
                write_fixed(out, v.values(), f32::to_le_bytes);
            }
            VectorData::Struct(r) => {
                out.len(r.children().len());
                r.children().iter().for_each(|child| child.encode(out));
            }
        }
    }

    fn decode(input: &mut Decoder<'_>) -> Result<Vector> {
        read_vector(input, None, false)
    }
}

/// A chunk whose columns have the types `types` when the caller knows them; every column
/// and the deletion bitmap as long as the chunk.
fn read_chunk(input: &mut Decoder<'_>, types: Option<&[DataType]>) -> Result<Chunk> {
    let len = row_count(input)?;
    let count = input.len(MIN_VECTOR_BYTES)?;
    let expected: Vec<Option<PhysicalType>> = match types {
        Some(types) if types.len() != count => {
            return Err(corrupt(format!(
                "a chunk of {count} columns in a table of {}",
                types.len()
            )))
        }
        Some(types) => types.iter().map(|t| Some(t.physical())).collect(),
        None => vec![None; count],
    };
    let columns = expected
        .into_iter()
        .map(|physical| read_vector(input, physical, false).map(Arc::new))
        .collect::<Result<Vec<_>>>()?;
    let deleted = input.option(Bitmap::decode)?;
    if columns.iter().any(|c| c.len() != len) || deleted.as_ref().is_some_and(|d| d.len() != len) {
        return Err(corrupt(format!(
            "a column or deletion bitmap of a chunk of {len} rows has another length"
        )));
    }
    Ok(Chunk {
        columns,
        deleted: deleted.map(Arc::new),
        len,
    })
}

impl Persist for Chunk {
    fn encode(&self, out: &mut Encoder) {
        out.len(self.len);
        out.items(&self.columns, |out, column| column.encode(out));
        out.option(self.deleted.as_deref(), |out, d| d.encode(out));
    }

    fn decode(input: &mut Decoder<'_>) -> Result<Chunk> {
        read_chunk(input, None)
    }
}

/// A table version: its chunk count, then its chunks in order.
pub fn encode_table_data(out: &mut Encoder, data: &TableData) {
    out.len(data.chunk_count());
    for chunk in data.chunks() {
        chunk.encode(out);
    }
}

/// A table version of column types `types`, shape-checked by [`TableData::from_chunks`].
pub fn decode_table_data(input: &mut Decoder<'_>, types: &[DataType]) -> Result<TableData> {
    let chunks = input.items(MIN_CHUNK_BYTES, |input| read_chunk(input, Some(types)))?;
    TableData::from_chunks(types, chunks)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{decode_table_data, decode_vector_of, encode_table_data, tag};
    use crate::durability::bytes::encoded;
    use crate::durability::{Decoder, Encoder, Persist};
    use crate::error::Result;
    use crate::storage::{Chunk, TableData};
    use crate::types::{DataType, Decimal, Interval, IntervalTypmod, ScalarValue};
    use crate::vector::{Batch, Bitmap, Vector, BATCH_SIZE};

    /// Decodes the whole of `bytes` as one value.
    fn decoded<T: Persist>(bytes: &[u8]) -> Result<T> {
        let mut input = Decoder::new(bytes);
        let value = T::decode(&mut input)?;
        assert!(input.is_empty(), "bytes left after the value");
        Ok(value)
    }

    fn vector(ty: DataType, values: &[ScalarValue]) -> Vector {
        let mut v = Vector::with_capacity(ty.physical(), values.len());
        for value in values {
            assert!(v.push_scalar(value).is_ok(), "{value:?} is not a {ty}");
        }
        v
    }

    /// Round trips, and every strict prefix of the encoding is an error.
    fn assert_round_trip(v: &Vector) {
        let bytes = encoded(v);
        assert_eq!(decoded::<Vector>(&bytes).ok().as_ref(), Some(v));
        assert_eq!(
            decode_vector_of(&mut Decoder::new(&bytes), v.data.physical()).ok(),
            Some(v.clone())
        );
        for cut in 0..bytes.len() {
            let got = decoded::<Vector>(&bytes[..cut]);
            assert_eq!(got.map_err(|e| e.sqlstate()), Err("XX001"), "prefix {cut}");
        }
    }

    /// Values of every physical type, NULL-free.
    fn samples() -> Vec<(DataType, Vec<ScalarValue>)> {
        use ScalarValue as S;
        let text = |s: &str| S::Text(s.into());
        let ints = |xs: &[i32]| S::Array(xs.iter().map(|&x| S::Int32(x)).collect());
        vec![
            (DataType::Bool, vec![S::Bool(true), S::Bool(false)]),
            (DataType::Int16, vec![S::Int16(-3), S::Int16(i16::MAX)]),
            (DataType::Int32, vec![S::Int32(7), S::Int32(i32::MIN)]),
            (DataType::Int64, vec![S::Int64(i64::MAX), S::Int64(-1)]),
            (DataType::Float32, vec![S::Float32(1.5), S::Float32(-0.0)]),
            (
                DataType::Float64,
                vec![S::Float64(f64::INFINITY), S::Float64(2.25)],
            ),
            (
                DataType::Numeric(None),
                vec![
                    S::Numeric(Decimal::new(-12345, 2)),
                    S::Numeric(Decimal::new(i128::MAX, 0)),
                ],
            ),
            (DataType::Text, vec![text("héllo"), text(""), text("日本")]),
            (DataType::Date, vec![S::Date(-1), S::Date(19000)]),
            (DataType::Timestamp(None), vec![S::Timestamp(1 << 40)]),
            (DataType::TimestampTz(None), vec![S::TimestampTz(-5)]),
            (
                DataType::Interval(IntervalTypmod::NONE),
                vec![S::Interval(Interval::new(1, -2, 3_000_000))],
            ),
            (
                DataType::Bytea,
                vec![S::Bytea(vec![0, 0xff]), S::Bytea(Vec::new())],
            ),
            (DataType::Uuid, vec![S::Uuid(u128::MAX), S::Uuid(1 << 100)]),
            (
                DataType::Jsonb,
                vec![
                    S::Jsonb(r#"{"a": [1, "é"]}"#.into()),
                    S::Jsonb("null".into()),
                ],
            ),
            (
                DataType::array_of(DataType::Int32).unwrap_or(DataType::Unknown),
                vec![
                    ints(&[1, 2]),
                    ints(&[]),
                    S::Array(vec![S::Null, S::Int32(4)]),
                ],
            ),
        ]
    }

    #[test]
    fn every_physical_type_round_trips_with_and_without_nulls_and_empty() {
        for (ty, values) in samples() {
            assert_round_trip(&vector(ty, &values));
            assert_round_trip(&vector(ty, &[]));
            let mut with_nulls = vec![ScalarValue::Null];
            for value in &values {
                with_nulls.push(value.clone());
                with_nulls.push(ScalarValue::Null);
            }
            let v = vector(ty, &with_nulls);
            assert!(v.validity.is_some());
            assert_round_trip(&v);
        }
    }

    #[test]
    fn a_list_of_text_round_trips() {
        use ScalarValue as S;
        let ty = DataType::array_of(DataType::Text).unwrap_or(DataType::Unknown);
        let words = |xs: &[&str]| S::Array(xs.iter().map(|&x| S::Text(x.into())).collect());
        let v = vector(
            ty,
            &[
                words(&["a", "βγ"]),
                S::Null,
                words(&[]),
                S::Array(vec![S::Null, S::Text("z".into())]),
            ],
        );
        assert_round_trip(&v);
    }

    #[test]
    fn a_chunk_with_a_deletion_bitmap_round_trips() -> Result<()> {
        let mut deleted = Bitmap::new(3, false);
        deleted.set(1, true);
        let ids = vector(DataType::Int32, &[1, 2, 3].map(ScalarValue::Int32));
        let notes = vector(
            DataType::Text,
            &[
                ScalarValue::Null,
                ScalarValue::Text("b".into()),
                ScalarValue::Text("c".into()),
            ],
        );
        let chunk = Chunk {
            columns: vec![Arc::new(ids), Arc::new(notes)],
            deleted: Some(Arc::new(deleted)),
            len: 3,
        };
        let bytes = encoded(&chunk);
        let back: Chunk = decoded(&bytes)?;
        assert_eq!(back.len, 3);
        assert_eq!(back.columns, chunk.columns);
        assert_eq!(back.deleted, chunk.deleted);
        for cut in 0..bytes.len() {
            assert!(decoded::<Chunk>(&bytes[..cut]).is_err(), "prefix {cut}");
        }
        Ok(())
    }

    fn table(rows: usize) -> Result<TableData> {
        let types = [DataType::Int64, DataType::Text];
        let mut data = TableData::default();
        let ids: Vec<ScalarValue> = (0..rows as i64).map(ScalarValue::Int64).collect();
        let notes: Vec<ScalarValue> = (0..rows)
            .map(|i| match i % 3 {
                0 => ScalarValue::Null,
                _ => ScalarValue::Text(format!("row {i}")),
            })
            .collect();
        let batch = Batch::new(
            vec![
                Arc::new(vector(types[0], &ids)),
                Arc::new(vector(types[1], &notes)),
            ],
            rows,
        );
        data.append(&types, &batch)?;
        data.delete_rows(1, &[0, 5, 2047])?;
        data.delete_rows(2, &[3])?;
        Ok(data)
    }

    #[test]
    fn two_and_a_half_chunks_of_a_table_round_trip_chunk_by_chunk() -> Result<()> {
        let types = [DataType::Int64, DataType::Text];
        let data = table(BATCH_SIZE * 5 / 2)?;
        assert_eq!(data.chunk_count(), 3);
        let mut out = Encoder::default();
        encode_table_data(&mut out, &data);
        let mut input = Decoder::new(&out.buf);
        let back = decode_table_data(&mut input, &types)?;
        assert!(input.is_empty());
        assert_eq!(back.chunk_count(), 3);
        assert_eq!(back.deleted_rows(), 4);
        for (mine, theirs) in data.chunks().zip(back.chunks()) {
            assert_eq!(mine.len, theirs.len);
            assert_eq!(mine.columns, theirs.columns);
            assert_eq!(mine.deleted, theirs.deleted);
        }
        // Read as another table's types, it is corrupt.
        let other = [DataType::Int32, DataType::Text];
        let wrong = decode_table_data(&mut Decoder::new(&out.buf), &other);
        assert_eq!(wrong.map(|_| ()).map_err(|e| e.sqlstate()), Err("XX001"));
        let narrower = decode_table_data(&mut Decoder::new(&out.buf), &types[..1]);
        assert!(narrower.is_err());
        Ok(())
    }

    #[test]
    fn a_million_row_vector_decodes() -> Result<()> {
        let rows = 1_000_000;
        let mut v = Vector::with_capacity(DataType::Int64.physical(), rows);
        for i in 0..rows as i64 {
            v.push_scalar(&ScalarValue::Int64(i * 3))?;
        }
        let bytes = encoded(&v);
        assert_eq!(decoded::<Vector>(&bytes)?, v);
        Ok(())
    }

    /// A hand-written vector header: tag, row count, no validity.
    fn header(tag: u8, rows: u64) -> Encoder {
        let mut out = Encoder::default();
        out.u8(tag);
        out.u64(rows);
        out.u8(0);
        out
    }

    fn is_corrupt(bytes: &[u8]) -> bool {
        decoded::<Vector>(bytes).map_err(|e| e.sqlstate()) == Err("XX001")
    }

    #[test]
    fn impossible_tags_lengths_and_values_are_errors() {
        let good = encoded(&vector(DataType::Int32, &[ScalarValue::Int32(1)]));
        for bad_tag in [0, 14, 200] {
            let mut bytes = good.clone();
            bytes[0] = bad_tag;
            assert!(is_corrupt(&bytes), "tag {bad_tag}");
        }
        // A known tag of another width leaves the byte count wrong.
        let mut bytes = good.clone();
        bytes[0] = tag::INT64;
        assert!(is_corrupt(&bytes));
        // Another physical type than the caller expects.
        let as_text = decode_vector_of(&mut Decoder::new(&good), DataType::Text.physical());
        assert!(as_text.is_err());

        assert!(is_corrupt(&header(tag::INT64, u64::MAX).buf));
        assert!(is_corrupt(&header(tag::TEXT, u64::MAX / 4).buf));
        let mut bools = header(tag::BOOL, 1);
        bools.u8(2);
        assert!(is_corrupt(&bools.buf));

        // A validity bitmap longer than its vector, and one with bits past its end.
        let mut long = Encoder::default();
        long.u8(tag::INT16);
        long.u64(1);
        long.u8(1);
        Bitmap::new(2, true).encode(&mut long);
        long.buf.extend_from_slice(&[0, 0]);
        assert!(is_corrupt(&long.buf));
        let mut tail = Encoder::default();
        tail.u64(3);
        tail.u64(0b1000);
        assert!(decoded::<Bitmap>(&tail.buf).is_err());

        // numeric: i128::MIN and a scale beyond PostgreSQL's.
        for (mantissa, scale) in [(i128::MIN, 0), (1, u32::MAX)] {
            let mut numeric = header(tag::NUMERIC, 1);
            numeric.buf.extend_from_slice(&mantissa.to_le_bytes());
            numeric.u32(scale);
            assert!(is_corrupt(&numeric.buf));
        }
    }

    /// A text vector of end offsets `ends` over `bytes`.
    fn text(ends: &[u64], bytes: &[u8]) -> Vec<u8> {
        let mut out = header(tag::TEXT, ends.len() as u64);
        ends.iter().for_each(|&end| out.u64(end));
        out.bytes(bytes);
        out.buf
    }

    #[test]
    fn text_offsets_must_rise_within_utf8_bytes_at_character_boundaries() {
        assert!(decoded::<Vector>(&text(&[1, 3], b"abc")).is_ok());
        assert!(is_corrupt(&text(&[2, 1], b"ab")));
        assert!(is_corrupt(&text(&[1, 4], b"abc")));
        assert!(is_corrupt(&text(&[1, 2], b"abc")));
        assert!(is_corrupt(&text(&[u64::MAX], b"a")));
        assert!(is_corrupt(&text(&[2], b"\xff\xfe")));
        assert!(is_corrupt(&text(&[1, 2], "é".as_bytes())));
    }

    #[test]
    fn list_offsets_must_stay_within_the_child_which_is_no_list() {
        let list = |ends: &[u32], child: &Vector| {
            let mut out = header(tag::LIST, ends.len() as u64);
            ends.iter().for_each(|&end| out.u32(end));
            child.encode(&mut out);
            out.buf
        };
        let child = vector(
            DataType::Int32,
            &[ScalarValue::Int32(1), ScalarValue::Int32(2)],
        );
        assert!(decoded::<Vector>(&list(&[1, 2], &child)).is_ok());
        assert!(is_corrupt(&list(&[1, 3], &child)));
        assert!(is_corrupt(&list(&[2, 1], &child)));
        assert!(is_corrupt(&list(&[1], &child)));
        let nested = vector(
            DataType::array_of(DataType::Int32).unwrap_or(DataType::Unknown),
            &[ScalarValue::Array(vec![])],
        );
        assert!(is_corrupt(&list(&[1], &nested)));
        // Deep nesting of list tags is refused at the second level, not by the stack.
        let mut deep = Encoder::default();
        for _ in 0..100_000 {
            deep.u8(tag::LIST);
            deep.u64(0);
            deep.u8(0);
        }
        assert!(is_corrupt(&deep.buf));
    }
}
