//! Casts between types with PostgreSQL's rules (pg_cast): which casts exist in which context,
//! and the conversion of whole vectors.
//!
//! Each (source, target) pair runs its own monomorphized loop over the column: the type
//! dispatch happens once per vector, never per row. NULL rows are skipped (their slots get
//! a default) and the validity bitmap is carried over unchanged. Text output is written
//! straight into the result's byte buffer, so a cast to text allocates nothing per row.

use super::cast_bits::cast_bits;
use crate::error::{Error, Result, SqlState};
use crate::types::array_shape::unsupported_shape;
use crate::types::array_text::parse_array;
use crate::types::inet::Inet;
use crate::types::json::{self, Json};
use crate::types::jsonpath;
use crate::types::record::{parse_record, RecordType, RECORD_OID};
use crate::types::timezone;
use crate::types::{
    bytea, datetime, float, float_vector, inet, int_vector, internal_char, precision, text_io,
    timetz, uuid, DataType, Decimal, Interval, IntervalRange, NumericTypmod, PhysicalType,
    ScalarValue,
};
use crate::vector::{
    write_int, Bitmap, BytesVec, FloatVectors, ListVec, StringVec, Vector, VectorData,
};

/// Where a cast happens, as pg_cast's castcontext: `CAST`/`::` is Explicit; storing into a
/// column (INSERT/UPDATE) is Assignment; an operator or function argument is Implicit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CastContext {
    Implicit,
    Assignment,
    Explicit,
}

impl CastContext {
    /// How permissive the context is: a cast allowed implicitly is allowed everywhere.
    fn rank(self) -> u8 {
        match self {
            CastContext::Implicit => 0,
            CastContext::Assignment => 1,
            CastContext::Explicit => 2,
        }
    }
}

/// Whether PostgreSQL allows casting `from` to `to` in `context` (Unknown casts to anything).
///
/// As in PostgreSQL, casts to a string type through the output function are assignment
/// casts (`INSERT INTO t(text_col) VALUES (5)` works) and casts from a string type through
/// the input function are explicit only.
pub fn can_cast(from: DataType, to: DataType, context: CastContext) -> bool {
    use DataType as T;
    // A length coercion (`timestamp` → `timestamp(3)`) is implicit, as in pg_cast.
    if from.unmodified() == to.unmodified() || from == T::Unknown {
        return true;
    }
    // array_coerce: an array casts where its elements do, in the same context.
    if let (T::Array(a), T::Array(b)) = (from, to) {
        return can_cast(*a, *b, context);
    }
    let needed = match (from, to) {
        // int2vector and oidvector hold int2[] and oid[] (the binder keeps their lower
        // bound of 0 from showing, see `binder/array.rs`).
        (f, t) if f.vector_array() == Some(t) => CastContext::Implicit,
        // pg_cast: "char" to text implicitly, to and from the other strings on assignment,
        // to and from integer explicitly.
        (T::InternalChar, T::Text) => CastContext::Implicit,
        (T::InternalChar, t) | (t, T::InternalChar) if t.is_string() => CastContext::Assignment,
        (T::InternalChar, T::Int32) | (T::Int32, T::InternalChar) => CastContext::Explicit,
        (f, t) if f.is_string() && t.is_string() => CastContext::Implicit,
        (_, t) if t.is_string() => CastContext::Assignment,
        (f, T::Unknown) if f.is_string() => CastContext::Implicit,
        (f, _) if f.is_string() => CastContext::Explicit,
        (T::Int32, T::Bool) | (T::Bool, T::Int32) => CastContext::Explicit,
        // pgvector's casts: vector to vector(n) and to real[] implicitly, numeric arrays
        // to vector on assignment.
        (T::FloatVector(_), T::FloatVector(_) | T::Array(T::Float32)) => CastContext::Implicit,
        (T::Array(T::Int32 | T::Float32 | T::Float64 | T::Numeric(_)), T::FloatVector(_)) => {
            CastContext::Assignment
        }
        (T::FloatVector(_), _) | (_, T::FloatVector(_)) => return false,
        (T::Bit(_) | T::VarBit(_), T::Bit(_) | T::VarBit(_)) => CastContext::Implicit,
        (T::Int32 | T::Int64, T::Bit(_)) | (T::Bit(_), T::Int32 | T::Int64) => {
            CastContext::Explicit
        }
        (T::Json, T::Jsonb) | (T::Jsonb, T::Json) => CastContext::Assignment,
        (T::Jsonb, t) if t == T::Bool || numeric_rank(t).is_some() => CastContext::Explicit,
        // pg_cast: integers and the OID types convert implicitly into one another; back
        // to int4 and int8 only on assignment.
        (T::Int16 | T::Int32 | T::Int64 | T::Oid(_), T::Oid(_)) => CastContext::Implicit,
        (T::Oid(_), T::Int32 | T::Int64) => CastContext::Assignment,
        (T::Oid(_), _) | (_, T::Oid(_)) => return false,
        (T::Date, T::Timestamp(_) | T::TimestampTz(_)) | (T::Timestamp(_), T::TimestampTz(_)) => {
            CastContext::Implicit
        }
        (T::Timestamp(_) | T::TimestampTz(_), T::Date) | (T::TimestampTz(_), T::Timestamp(_)) => {
            CastContext::Assignment
        }
        (T::Time(_), T::Interval(_) | T::TimeTz(_)) => CastContext::Implicit,
        (T::TimeTz(_), T::Time(_)) | (T::TimestampTz(_), T::TimeTz(_)) => CastContext::Assignment,
        (T::Timestamp(_) | T::TimestampTz(_) | T::Interval(_), T::Time(_)) => {
            CastContext::Assignment
        }
        // cidr is binary-coercible to inet; inet_to_cidr clears the host bits.
        (T::Cidr, T::Inet) => CastContext::Implicit,
        (T::Inet, T::Cidr) => CastContext::Assignment,
        (f, t) => match (numeric_rank(f), numeric_rank(t)) {
            (Some(a), Some(b)) if a <= b => CastContext::Implicit,
            (Some(_), Some(_)) => CastContext::Assignment,
            _ => return false,
        },
    };
    context.rank() >= needed.rank()
}

/// The casts between `"char"` and integer: the byte of a signed value and back (i4tochar,
/// chartoi4). `None` for the others, which go through the text a `"char"` is kept as.
fn cast_internal_char(input: &Vector, from: DataType, to: DataType) -> Result<Option<VectorData>> {
    let valid = |row: usize| input.validity.as_ref().is_none_or(|v| v.get(row));
    let data = match (&input.data, from, to) {
        (VectorData::Int32(v), _, DataType::InternalChar) => {
            let mut out = StringVec::with_capacity(v.len(), v.len());
            for (row, &value) in v.iter().enumerate() {
                let byte = match i8::try_from(value) {
                    Ok(byte) => byte as u8,
                    Err(_) if !valid(row) => 0,
                    Err(_) => {
                        return Err(Error::new(
                            SqlState::NumericValueOutOfRange,
                            "\"char\" out of range",
                        ))
                    }
                };
                out.push(&internal_char::from_byte(byte));
            }
            VectorData::Text(out)
        }
        (VectorData::Text(s), DataType::InternalChar, DataType::Int32) => VectorData::Int32(
            (0..s.len())
                .map(|row| i32::from(internal_char::to_byte(s.get(row)) as i8))
                .collect(),
        ),
        _ => return Ok(None),
    };
    Ok(Some(data))
}

/// PostgreSQL's widening order of the numeric types: a cast to the right is implicit, to the
/// left an assignment cast.
fn numeric_rank(ty: DataType) -> Option<u8> {
    Some(match ty {
        DataType::Int16 => 0,
        DataType::Int32 => 1,
        DataType::Int64 => 2,
        DataType::Numeric(_) => 3,
        DataType::Float32 => 4,
        DataType::Float64 => 5,
        _ => return None,
    })
}

/// Converts every row of `input` (of type `from`) to `to`, with PostgreSQL's errors
/// (22003 `integer out of range`, 22P02 for bad text input, 22001
/// `value too long for type character varying(3)` on assignment, ...). NULL stays NULL.
pub fn cast_vector(
    input: &Vector,
    from: DataType,
    to: DataType,
    context: CastContext,
) -> Result<Vector> {
    // An enum's labels are in the catalog: the binder converts through it
    // (`binder/enum_type.rs`), so no cast of the sort orders themselves is meaningful.
    if from != to && (matches!(from, DataType::Enum(_)) || matches!(to, DataType::Enum(_))) {
        return Err(cannot_cast(from, to));
    }
    if from == DataType::Jsonb && to != DataType::Json && !to.is_string() {
        if let Some(scalars) = jsonb_scalars(input, to)? {
            return cast_vector(&scalars, scalars_type(to), to, context);
        }
    }
    let unsupported = || cannot_cast(from, to);
    if let Some(data) = cast_internal_char(input, from, to)? {
        return Ok(Vector::new(data, input.validity.clone()));
    }
    if let Some(data) = cast_bits(input, from, to, context, unsupported)? {
        return Ok(Vector::new(data, input.validity.clone()));
    }
    let rows = Rows {
        validity: input.validity.as_ref(),
        unsupported,
    };
    let mut data = match to {
        DataType::Unknown | DataType::Text | DataType::Varchar(_) | DataType::Char(_) => {
            VectorData::Text(to_string(
                input,
                from,
                StringTarget::new(to, context),
                &rows,
            )?)
        }
        // text_char: the first byte of the text, or the byte a `\ooo` spells.
        DataType::InternalChar => {
            let text = to_string(
                input,
                from,
                StringTarget::new(DataType::Text, context),
                &rows,
            )?;
            let mut out = StringVec::with_capacity(text.len(), text.len());
            for row in 0..text.len() {
                out.push(&internal_char::parse(text.get(row)));
            }
            VectorData::Text(out)
        }
        DataType::Bool => VectorData::Bool(to_bool(input, &rows)?),
        DataType::Int16 => VectorData::Int16(to_integer(
            input,
            "smallint out of range",
            text_io::parse_i16,
            &rows,
        )?),
        DataType::Int32 => VectorData::Int32(to_integer(
            input,
            "integer out of range",
            text_io::parse_i32,
            &rows,
        )?),
        DataType::Int64 => VectorData::Int64(to_integer(
            input,
            "bigint out of range",
            text_io::parse_i64,
            &rows,
        )?),
        DataType::Float32 => VectorData::Float32(to_f32(input, &rows)?),
        DataType::Float64 => VectorData::Float64(to_f64(input, &rows)?),
        DataType::Numeric(typmod) => VectorData::Numeric(to_numeric(input, typmod, &rows)?),
        DataType::Date => VectorData::Date(to_date(input, &rows)?),
        DataType::Timestamp(_) => VectorData::Timestamp(to_timestamp(input, &rows)?),
        DataType::TimestampTz(_) => VectorData::TimestampTz(to_timestamptz(input, &rows)?),
        DataType::Time(_) => VectorData::Time(to_time(input, &rows)?),
        DataType::TimeTz(_) => VectorData::TimeTz(to_timetz(input, &rows)?),
        DataType::Interval(m) => {
            // An untyped value goes through interval_in with the target's fields, which
            // read a bare number as the last field (PostgreSQL's coerce_type passes an
            // interval's typmod to the input function); a text value is read without them.
            let range = match from {
                DataType::Unknown => m.range,
                _ => IntervalRange::Full,
            };
            VectorData::Interval(to_interval(input, range, &rows)?)
        }
        DataType::Bytea => VectorData::Bytes(to_bytea(input, &rows)?),
        DataType::Uuid => VectorData::Uuid(to_uuid(input, &rows)?),
        DataType::Inet => VectorData::Inet(to_inet(input, false, &rows)?),
        DataType::Cidr => VectorData::Inet(to_inet(input, true, &rows)?),
        DataType::Json => VectorData::Text(to_json(input, from, &rows)?),
        DataType::Jsonb => VectorData::Jsonb(to_jsonb(input, &rows)?),
        DataType::Array(elem) => to_array(input, from, *elem, context, &rows)?,
        DataType::Oid(_) => VectorData::Int64(to_oid(input, &rows)?),
        DataType::FloatVector(dims) => {
            VectorData::FloatVector(to_float_vector(input, dims, &rows)?)
        }
        DataType::JsonPath => VectorData::Text(to_jsonpath(input, &rows)?),
        DataType::Enum(_) => return Err(cannot_cast(from, to)),
        // cast_bits took every cast to a bit string.
        DataType::Bit(_) | DataType::VarBit(_) => return Err(unsupported()),
        DataType::Int2Vector | DataType::OidVector => to_int_vector(input, to, &rows)?,
        // record_in reads text as a table's row type; an anonymous record has no input.
        DataType::Record(record) if from.is_string() && record.type_oid != RECORD_OID => {
            return to_record(input, to, record);
        }
        DataType::Record(_) => return Err(unsupported()),
    };
    precision::fit_vector(&mut data, to)?;
    Ok(Vector::new(data, input.validity.clone()))
}

/// Text to a row type, each value through record_in.
fn to_record(input: &Vector, to: DataType, record: &RecordType) -> Result<Vector> {
    let mut out = Vector::with_capacity(to.physical(), input.len());
    for row in 0..input.len() {
        match input.get_scalar(row) {
            ScalarValue::Text(text) => {
                out.push_scalar(&ScalarValue::Record(parse_record(&text, record)?))?
            }
            _ => out.push_null(),
        }
    }
    Ok(out)
}

/// The type a jsonb scalar is read as before its cast to `to`: a number is NUMERIC,
/// `true`/`false` boolean.
fn scalars_type(to: DataType) -> DataType {
    match to {
        DataType::Bool => DataType::Bool,
        _ => DataType::Numeric(None),
    }
}

/// jsonb → boolean or a numeric type (PostgreSQL's jsonb_int4 and friends): each document
/// must be a scalar of the matching kind, else 22023 `cannot cast jsonb string to type
/// integer`. `None` when `to` is no such type.
fn jsonb_scalars(input: &Vector, to: DataType) -> Result<Option<Vector>> {
    if to != DataType::Bool && numeric_rank(to).is_none() {
        return Ok(None);
    }
    let VectorData::Jsonb(documents) = &input.data else {
        return Ok(None);
    };
    let mut out = Vector::with_capacity(scalars_type(to).physical(), input.len());
    for row in 0..input.len() {
        if !input.is_valid(row) {
            out.push_null();
            continue;
        }
        let value = json::parse_canonical(documents.get(row))?;
        let scalar = match (&value, to) {
            (Json::Bool(b), DataType::Bool) => ScalarValue::Bool(*b),
            (Json::Number(n), t) if t != DataType::Bool => ScalarValue::Numeric(Decimal::parse(n)?),
            (other, _) => {
                let kind = match other {
                    Json::Number(_) => "numeric",
                    other => other.type_name(),
                };
                return Err(Error::new(
                    SqlState::InvalidParameterValue,
                    format!("cannot cast jsonb {kind} to type {}", to.name()),
                ));
            }
        };
        out.push_scalar(&scalar)?;
    }
    Ok(Some(out))
}

/// Text through byteain.
fn to_bytea<U: Fn() -> Error>(input: &Vector, rows: &Rows<U>) -> Result<BytesVec> {
    match &input.data {
        VectorData::Bytes(b) => Ok(b.clone()),
        VectorData::Text(s) => {
            let mut out = BytesVec::with_capacity(s.len(), s.len() * 8);
            for row in 0..s.len() {
                match rows.validity.is_none_or(|v| v.get(row)) {
                    true => out.push(&bytea::parse_bytea(s.get(row))?),
                    false => out.push(&[]),
                }
            }
            Ok(out)
        }
        _ => Err((rows.unsupported)()),
    }
}

fn to_uuid<U: Fn() -> Error>(input: &Vector, rows: &Rows<U>) -> Result<Vec<u128>> {
    match &input.data {
        VectorData::Uuid(v) => Ok(v.clone()),
        VectorData::Text(s) => rows.map_text(s, 0, uuid::parse_uuid),
        _ => Err((rows.unsupported)()),
    }
}

/// inet and cidr of each other (a cidr as it is, an inet's network as a cidr) or of text.
fn to_inet<U: Fn() -> Error>(input: &Vector, cidr: bool, rows: &Rows<U>) -> Result<Vec<Inet>> {
    match &input.data {
        VectorData::Inet(v) if cidr => rows.map(v, Inet::default(), |x| Ok(x.to_cidr())),
        VectorData::Inet(v) => rows.map(v, Inet::default(), |x| Ok(x.as_inet())),
        VectorData::Text(s) => rows.map_text(s, Inet::default(), |t| inet::parse_inet(t, cidr)),
        _ => Err((rows.unsupported)()),
    }
}

/// Text through json_in (json itself is kept as it is); jsonb prints its canonical text.
fn to_json<U: Fn() -> Error>(input: &Vector, from: DataType, rows: &Rows<U>) -> Result<StringVec> {
    match &input.data {
        VectorData::Text(s) if from == DataType::Json => Ok(s.clone()),
        VectorData::Text(s) => {
            rows.map_text(s, (), json::validate_json)?;
            Ok(s.clone())
        }
        VectorData::Jsonb(s) => Ok(s.clone()),
        _ => Err((rows.unsupported)()),
    }
}

/// Text through jsonpath_in: the path parsed and printed in its normal form.
fn to_jsonpath<U: Fn() -> Error>(input: &Vector, rows: &Rows<U>) -> Result<StringVec> {
    let VectorData::Text(s) = &input.data else {
        return Err((rows.unsupported)());
    };
    let mut out = StringVec::with_capacity(s.len(), s.len() * 16);
    for row in 0..s.len() {
        match rows.validity.is_none_or(|v| v.get(row)) {
            true => out.push(&jsonpath::parse(s.get(row))?.to_text()),
            false => out.push(""),
        }
    }
    Ok(out)
}

/// Text and json through jsonb_in.
fn to_jsonb<U: Fn() -> Error>(input: &Vector, rows: &Rows<U>) -> Result<StringVec> {
    match &input.data {
        VectorData::Jsonb(s) => Ok(s.clone()),
        VectorData::Text(s) => {
            let mut out = StringVec::with_capacity(s.len(), s.len() * 16);
            for row in 0..s.len() {
                match rows.validity.is_none_or(|v| v.get(row)) {
                    true => out.push(&json::jsonb_from_text(s.get(row))?),
                    false => out.push("null"),
                }
            }
            Ok(out)
        }
        _ => Err((rows.unsupported)()),
    }
}

/// Text through int2vectorin or oidvectorin.
fn to_int_vector<U: Fn() -> Error>(
    input: &Vector,
    to: DataType,
    rows: &Rows<U>,
) -> Result<VectorData> {
    let VectorData::Text(s) = &input.data else {
        return Err((rows.unsupported)());
    };
    let elem = match to.physical() {
        PhysicalType::List(elem) => *elem,
        _ => return Err((rows.unsupported)()),
    };
    let mut out = ListVec::with_capacity(elem, s.len());
    for row in 0..s.len() {
        match rows.validity.is_some_and(|v| !v.get(row)) {
            true => out.push_empty(),
            false => out.push_values(&int_vector::parse(s.get(row), to)?)?,
        }
    }
    Ok(VectorData::List(out))
}

/// Text through array_in; another array element by element, its offsets kept (an
/// int2vector or oidvector as the array it holds).
fn to_array<U: Fn() -> Error>(
    input: &Vector,
    from: DataType,
    elem: DataType,
    context: CastContext,
    rows: &Rows<U>,
) -> Result<VectorData> {
    match (&input.data, from.vector_array().unwrap_or(from)) {
        (VectorData::List(list), DataType::Array(from_elem)) => {
            let child = cast_vector(list.child(), *from_elem, elem, context)?;
            Ok(VectorData::List(list.with_child(child)))
        }
        // array_in reads the elements without the element's modifier, which a length
        // coercion in the cast's own context then applies (too long is an error on
        // assignment, truncated in an explicit cast).
        (VectorData::Text(s), _) => {
            let read = elem.unmodified();
            let mut out = ListVec::with_capacity(read.physical(), s.len());
            for row in 0..s.len() {
                if rows.validity.is_some_and(|v| !v.get(row)) {
                    out.push_empty();
                } else {
                    out.push_array(&parse_array(s.get(row), read)?)?;
                }
            }
            if read != elem {
                let child = cast_vector(out.child(), read, elem, context)?;
                out = out.with_child(child);
            }
            Ok(VectorData::List(out))
        }
        // vector_to_float4.
        (VectorData::FloatVector(v), _) if elem == DataType::Float32 => {
            let mut out = ListVec::with_capacity(PhysicalType::Float32, v.len());
            for row in 0..v.len() {
                let values: Vec<ScalarValue> = v
                    .get(row)
                    .iter()
                    .map(|&x| ScalarValue::Float32(x))
                    .collect();
                out.push_values(&values)?;
            }
            Ok(VectorData::List(out))
        }
        _ => Err((rows.unsupported)()),
    }
}

/// To `vector(dims)`: a vector checked against the modifier, text through vector_in, or a
/// one-dimensional array of integers, floats or numerics (array_to_vector).
fn to_float_vector<U: Fn() -> Error>(
    input: &Vector,
    dims: Option<u32>,
    rows: &Rows<U>,
) -> Result<FloatVectors> {
    let valid = |row: usize| rows.validity.is_none_or(|v| v.get(row));
    let mut out = FloatVectors::with_capacity(input.len(), dims.unwrap_or(0) as usize);
    match &input.data {
        VectorData::FloatVector(v) => {
            for row in 0..v.len() {
                if valid(row) {
                    float_vector::check_expected_dims(dims, v.get(row).len())?;
                }
            }
            return Ok(v.clone());
        }
        VectorData::Text(s) => {
            for row in 0..s.len() {
                match valid(row) {
                    true => out.push(&float_vector::parse_vector(s.get(row), dims)?),
                    false => out.push_empty(),
                }
            }
        }
        VectorData::List(list) => {
            let child = list.child();
            let element = |idx: usize| -> Result<f32> {
                if !child.is_valid(idx) {
                    return Err(Error::new(
                        SqlState::NullValueNotAllowed,
                        "array must not contain nulls",
                    ));
                }
                let value = match &child.data {
                    VectorData::Int32(v) => v[idx] as f32,
                    VectorData::Float32(v) => v[idx],
                    VectorData::Float64(v) => v[idx] as f32,
                    VectorData::Numeric(v) => v[idx].to_f32(),
                    _ => return Err((rows.unsupported)()),
                };
                float_vector::check_element(value).map(|()| value)
            };
            for row in 0..list.len() {
                if !valid(row) {
                    out.push_empty();
                    continue;
                }
                if list.shape(row).is_some() {
                    return Err(unsupported_shape("casting to vector"));
                }
                let range = list.range(row);
                float_vector::check_dims(range.len())?;
                float_vector::check_expected_dims(dims, range.len())?;
                let values = range.map(element).collect::<Result<Vec<f32>>>()?;
                out.push(&values);
            }
        }
        _ => return Err((rows.unsupported)()),
    }
    Ok(out)
}

/// The same for one value.
pub fn cast_scalar(
    value: &ScalarValue,
    from: DataType,
    to: DataType,
    context: CastContext,
) -> Result<ScalarValue> {
    let input = Vector::from_scalar(value, from, 1)?;
    Ok(cast_vector(&input, from, to, context)?.get_scalar(0))
}

fn cannot_cast(from: DataType, to: DataType) -> Error {
    Error::new(
        SqlState::CannotCoerce,
        format!("cannot cast type {from} to {to}"),
    )
}

/// What every typed loop needs besides its values: which rows are NULL, and the error for a
/// source type the target cannot take.
struct Rows<'a, U: Fn() -> Error> {
    validity: Option<&'a Bitmap>,
    unsupported: U,
}

impl<U: Fn() -> Error> Rows<'_, U> {
    /// `convert` applied to each non-NULL value; NULL slots get `null`.
    #[inline]
    fn map<A: Copy, B: Copy>(
        &self,
        values: &[A],
        null: B,
        mut convert: impl FnMut(A) -> Result<B>,
    ) -> Result<Vec<B>> {
        let mut out = Vec::with_capacity(values.len());
        match self.validity {
            None => {
                for &value in values {
                    out.push(convert(value)?);
                }
            }
            Some(valid) => {
                for (row, &value) in values.iter().enumerate() {
                    out.push(if valid.get(row) {
                        convert(value)?
                    } else {
                        null
                    });
                }
            }
        }
        Ok(out)
    }

    /// `convert` applied to each non-NULL string; NULL slots get `null`.
    #[inline]
    fn map_text<B: Copy>(
        &self,
        strings: &StringVec,
        null: B,
        mut convert: impl FnMut(&str) -> Result<B>,
    ) -> Result<Vec<B>> {
        let mut out = Vec::with_capacity(strings.len());
        for row in 0..strings.len() {
            let valid = self.validity.is_none_or(|v| v.get(row));
            out.push(if valid {
                convert(strings.get(row))?
            } else {
                null
            });
        }
        Ok(out)
    }

    /// Each non-NULL value written by `write` into a string column, then fitted to `target`.
    #[inline]
    fn map_to_string<A: Copy>(
        &self,
        values: &[A],
        target: StringTarget,
        mut write: impl FnMut(A, &mut Vec<u8>),
    ) -> Result<StringVec> {
        let mut out = StringVec::with_capacity(values.len(), values.len() * 8);
        let mut result = Ok(());
        for (row, &value) in values.iter().enumerate() {
            if self.validity.is_some_and(|v| !v.get(row)) {
                out.push("");
                continue;
            }
            out.push_with(|buf| {
                let start = buf.len();
                write(value, buf);
                result = target.fit(buf, start);
            });
            result.clone()?;
        }
        Ok(out)
    }
}

fn to_bool<U: Fn() -> Error>(input: &Vector, rows: &Rows<U>) -> Result<Vec<bool>> {
    match &input.data {
        VectorData::Bool(v) => Ok(v.clone()),
        VectorData::Int16(v) => rows.map(v, false, |x| Ok(x != 0)),
        VectorData::Int32(v) => rows.map(v, false, |x| Ok(x != 0)),
        VectorData::Int64(v) => rows.map(v, false, |x| Ok(x != 0)),
        VectorData::Text(s) => rows.map_text(s, false, text_io::parse_bool),
        _ => Err((rows.unsupported)()),
    }
}

/// To an integer type `T`: floats round half to even (rint), numeric half away from zero,
/// text through the type's input function; `message` is the type's range error.
fn to_integer<T, U>(
    input: &Vector,
    message: &'static str,
    parse: impl Fn(&str) -> Result<T>,
    rows: &Rows<U>,
) -> Result<Vec<T>>
where
    T: Copy + Default + TryFrom<i64>,
    U: Fn() -> Error,
{
    let range = || Error::out_of_range(message);
    let narrow = |x: i64| T::try_from(x).map_err(|_| range());
    let from_float = |x: f64| {
        let rounded = x.round_ties_even();
        // Exactly PostgreSQL's FLOAT8_FITS_IN_INT64; NaN fails both comparisons.
        if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&rounded) {
            narrow(rounded as i64)
        } else {
            Err(range())
        }
    };
    let zero = T::default();
    match &input.data {
        VectorData::Int16(v) => rows.map(v, zero, |x| narrow(i64::from(x))),
        VectorData::Int32(v) => rows.map(v, zero, |x| narrow(i64::from(x))),
        VectorData::Int64(v) => rows.map(v, zero, narrow),
        VectorData::Bool(v) => rows.map(v, zero, |x| narrow(i64::from(x))),
        VectorData::Float32(v) => rows.map(v, zero, |x| from_float(f64::from(x))),
        VectorData::Float64(v) => rows.map(v, zero, from_float),
        VectorData::Numeric(v) => rows.map(v, zero, |d| {
            // The range message starts with the type's name: "integer out of range".
            d.check_integral(message.strip_suffix(" out of range").unwrap_or(message))?;
            d.to_i128()
                .and_then(|x| i64::try_from(x).ok())
                .ok_or_else(range)
                .and_then(narrow)
        }),
        VectorData::Text(s) => rows.map_text(s, zero, parse),
        _ => Err((rows.unsupported)()),
    }
}

/// int2 and int4 become OIDs bit for bit (negative ones wrap, as in PostgreSQL); int8 must
/// fit in 32 unsigned bits.
fn to_oid<U: Fn() -> Error>(input: &Vector, rows: &Rows<U>) -> Result<Vec<i64>> {
    let wrap = |x: i64| Ok(i64::from(x as u32));
    match &input.data {
        VectorData::Int16(v) => rows.map(v, 0, |x| wrap(i64::from(x))),
        VectorData::Int32(v) => rows.map(v, 0, |x| wrap(i64::from(x))),
        VectorData::Int64(v) => rows.map(v, 0, |x| {
            u32::try_from(x)
                .map(i64::from)
                .map_err(|_| Error::out_of_range("OID out of range"))
        }),
        VectorData::Text(s) => rows.map_text(s, 0, text_io::parse_oid),
        _ => Err((rows.unsupported)()),
    }
}

fn to_f64<U: Fn() -> Error>(input: &Vector, rows: &Rows<U>) -> Result<Vec<f64>> {
    match &input.data {
        VectorData::Int16(v) => rows.map(v, 0.0, |x| Ok(f64::from(x))),
        VectorData::Int32(v) => rows.map(v, 0.0, |x| Ok(f64::from(x))),
        VectorData::Int64(v) => rows.map(v, 0.0, |x| Ok(x as f64)),
        VectorData::Float32(v) => rows.map(v, 0.0, |x| Ok(f64::from(x))),
        VectorData::Float64(v) => Ok(v.clone()),
        VectorData::Numeric(v) => rows.map(v, 0.0, |d| Ok(d.to_f64())),
        VectorData::Text(s) => rows.map_text(s, 0.0, float::parse_f64),
        _ => Err((rows.unsupported)()),
    }
}

fn to_f32<U: Fn() -> Error>(input: &Vector, rows: &Rows<U>) -> Result<Vec<f32>> {
    match &input.data {
        VectorData::Int16(v) => rows.map(v, 0.0, |x| Ok(f32::from(x))),
        VectorData::Int32(v) => rows.map(v, 0.0, |x| Ok(x as f32)),
        VectorData::Int64(v) => rows.map(v, 0.0, |x| Ok(x as f32)),
        VectorData::Float32(v) => Ok(v.clone()),
        VectorData::Float64(v) => rows.map(v, 0.0, |x| {
            let narrowed = x as f32;
            if narrowed.is_infinite() && !x.is_infinite() {
                Err(Error::out_of_range("value out of range: overflow"))
            } else if narrowed == 0.0 && x != 0.0 {
                Err(Error::out_of_range("value out of range: underflow"))
            } else {
                Ok(narrowed)
            }
        }),
        VectorData::Numeric(v) => rows.map(v, 0.0, |d| Ok(d.to_f32())),
        VectorData::Text(s) => rows.map_text(s, 0.0, float::parse_f32),
        _ => Err((rows.unsupported)()),
    }
}

fn to_numeric<U: Fn() -> Error>(
    input: &Vector,
    typmod: Option<NumericTypmod>,
    rows: &Rows<U>,
) -> Result<Vec<Decimal>> {
    let fit = |d: Decimal| match typmod {
        Some(typmod) => d.apply_typmod(typmod),
        None => Ok(d),
    };
    let zero = Decimal::ZERO;
    match &input.data {
        VectorData::Int16(v) => rows.map(v, zero, |x| fit(Decimal::from_i64(i64::from(x)))),
        VectorData::Int32(v) => rows.map(v, zero, |x| fit(Decimal::from_i64(i64::from(x)))),
        VectorData::Int64(v) => rows.map(v, zero, |x| fit(Decimal::from_i64(x))),
        VectorData::Float32(v) => rows.map(v, zero, |x| {
            float_to_numeric(f64::from(x), Decimal::from_f32(x), typmod)
        }),
        VectorData::Float64(v) => rows.map(v, zero, |x| {
            float_to_numeric(x, Decimal::from_f64(x), typmod)
        }),
        VectorData::Numeric(v) if typmod.is_none() => Ok(v.clone()),
        VectorData::Numeric(v) => rows.map(v, zero, fit),
        VectorData::Text(s) => rows.map_text(s, zero, |t| fit(Decimal::parse(t)?)),
        _ => Err((rows.unsupported)()),
    }
}

/// A float's numeric (`converted`) fitted to the typmod. A float too large for our numeric
/// (more than 38 digits) that the typmod could not hold either is PostgreSQL's 22003, not
/// our 0A000.
fn float_to_numeric(
    x: f64,
    converted: Result<Decimal>,
    typmod: Option<NumericTypmod>,
) -> Result<Decimal> {
    match (converted, typmod) {
        (Ok(d), Some(typmod)) => d.apply_typmod(typmod),
        (Ok(d), None) => Ok(d),
        (Err(_), Some(typmod))
            if x.is_finite()
                && x.abs() >= 10f64.powi(typmod.precision as i32 - typmod.scale as i32) =>
        {
            Err(crate::types::numeric::typmod_overflow(typmod))
        }
        (Err(e), _) => Err(e),
    }
}

fn to_date<U: Fn() -> Error>(input: &Vector, rows: &Rows<U>) -> Result<Vec<i32>> {
    match &input.data {
        VectorData::Date(v) => Ok(v.clone()),
        VectorData::Timestamp(v) => rows.map(v, 0, |t| Ok(datetime::timestamp_to_date(t))),
        VectorData::TimestampTz(v) => rows.map(v, 0, |t| {
            Ok(datetime::timestamp_to_date(timezone::to_local(t)))
        }),
        VectorData::Text(s) => rows.map_text(s, 0, datetime::parse_date),
        _ => Err((rows.unsupported)()),
    }
}

fn to_timestamp<U: Fn() -> Error>(input: &Vector, rows: &Rows<U>) -> Result<Vec<i64>> {
    match &input.data {
        VectorData::Timestamp(v) => Ok(v.clone()),
        // The local time of the instant in the session zone.
        VectorData::TimestampTz(v) => rows.map(v, 0, |t| Ok(timezone::to_local(t))),
        VectorData::Date(v) => rows.map(v, 0, datetime::date_to_timestamp),
        VectorData::Text(s) => rows.map_text(s, 0, datetime::parse_timestamp),
        _ => Err((rows.unsupported)()),
    }
}

fn to_timestamptz<U: Fn() -> Error>(input: &Vector, rows: &Rows<U>) -> Result<Vec<i64>> {
    match &input.data {
        VectorData::TimestampTz(v) => Ok(v.clone()),
        VectorData::Text(s) => rows.map_text(s, 0, datetime::parse_timestamptz),
        // A local time in the session zone.
        VectorData::Timestamp(v) => rows.map(v, 0, |t| Ok(timezone::from_local(t))),
        VectorData::Date(v) => rows.map(v, 0, |d| {
            Ok(timezone::from_local(datetime::date_to_timestamp(d)?))
        }),
        _ => Err((rows.unsupported)()),
    }
}

fn to_interval<U: Fn() -> Error>(
    input: &Vector,
    range: IntervalRange,
    rows: &Rows<U>,
) -> Result<Vec<Interval>> {
    match &input.data {
        VectorData::Interval(v) => Ok(v.clone()),
        VectorData::Text(s) => rows.map_text(s, Interval::ZERO, |t| Interval::parse_in(t, range)),
        VectorData::Time(v) => rows.map(v, Interval::ZERO, |t| Ok(Interval::new(0, 0, t))),
        _ => Err((rows.unsupported)()),
    }
}

/// time and timestamptz take the session zone's offset; text goes through timetz_in.
fn to_timetz<U: Fn() -> Error>(input: &Vector, rows: &Rows<U>) -> Result<Vec<i64>> {
    match &input.data {
        VectorData::TimeTz(v) => Ok(v.clone()),
        VectorData::Text(s) => rows.map_text(s, 0, timetz::parse_timetz),
        VectorData::Time(v) => rows.map(v, 0, |t| Ok(timetz::from_time(t))),
        VectorData::TimestampTz(v) => rows.map(v, 0, |t| {
            if t == i64::MAX || t == i64::MIN {
                return Err(Error::out_of_range("timestamp out of range"));
            }
            Ok(timetz::from_timestamptz(t))
        }),
        _ => Err((rows.unsupported)()),
    }
}

/// The time of day of a timestamp (of a timestamptz's local time), of an interval's time
/// part (wrapped into one day), or of text.
fn to_time<U: Fn() -> Error>(input: &Vector, rows: &Rows<U>) -> Result<Vec<i64>> {
    let time_of = |t: i64| t.rem_euclid(datetime::MICROS_PER_DAY);
    match &input.data {
        VectorData::Time(v) => Ok(v.clone()),
        VectorData::Text(s) => rows.map_text(s, 0, datetime::parse_time),
        VectorData::Timestamp(v) => rows.map(v, 0, |t| Ok(time_of(t))),
        VectorData::TimestampTz(v) => rows.map(v, 0, |t| Ok(time_of(timezone::to_local(t)))),
        VectorData::Interval(v) => rows.map(v, 0, |i| Ok(time_of(i.micros))),
        VectorData::TimeTz(v) => rows.map(v, 0, |t| Ok(timetz::unpack(t).0)),
        _ => Err((rows.unsupported)()),
    }
}

fn to_string<U: Fn() -> Error>(
    input: &Vector,
    from: DataType,
    target: StringTarget,
    rows: &Rows<U>,
) -> Result<StringVec> {
    match &input.data {
        VectorData::Text(s) => {
            // bpchar → text/varchar drops the padding (PostgreSQL's rtrim cast).
            let strip = matches!(from, DataType::Char(_)) && !target.pad;
            if !strip && target.is_plain() {
                return Ok(s.clone());
            }
            // Usually as long as the input (a bulk load keeps this vector as it is).
            let mut out = StringVec::with_capacity(s.len(), s.parts().1.len());
            let mut result = Ok(());
            for row in 0..s.len() {
                if rows.validity.is_some_and(|v| !v.get(row)) {
                    out.push("");
                    continue;
                }
                let mut value = s.get_bytes(row);
                if strip {
                    while let [rest @ .., b' '] = value {
                        value = rest;
                    }
                }
                out.push_with(|buf| {
                    let start = buf.len();
                    buf.extend_from_slice(value);
                    result = target.fit(buf, start);
                });
                result.clone()?;
            }
            Ok(out)
        }
        // The bool → text cast spells the words out; the output function would say t/f.
        VectorData::Bool(v) => rows.map_to_string(v, target, |b, buf| {
            buf.extend_from_slice(if b { b"true" } else { b"false" })
        }),
        VectorData::Int16(v) => rows.map_to_string(v, target, |x, buf| write_int(x.into(), buf)),
        VectorData::Int32(v) => rows.map_to_string(v, target, |x, buf| write_int(x.into(), buf)),
        VectorData::Int64(v) => rows.map_to_string(v, target, write_int),
        VectorData::Float32(v) => rows.map_to_string(v, target, float::write_f32),
        VectorData::Float64(v) => rows.map_to_string(v, target, float::write_f64),
        VectorData::Numeric(v) => rows.map_to_string(v, target, |d, buf| d.write_text(buf)),
        VectorData::Date(v) => rows.map_to_string(v, target, datetime::write_date),
        VectorData::Timestamp(v) => rows.map_to_string(v, target, datetime::write_timestamp),
        VectorData::TimestampTz(v) => rows.map_to_string(v, target, datetime::write_timestamptz),
        VectorData::Time(v) => rows.map_to_string(v, target, datetime::write_time),
        VectorData::TimeTz(v) => rows.map_to_string(v, target, timetz::write_timetz),
        VectorData::Interval(v) => rows.map_to_string(v, target, |i, buf| i.write_text(buf)),
        VectorData::Uuid(v) => rows.map_to_string(v, target, uuid::write_uuid),
        // text(inet): the mask length shown always, unlike the output function.
        VectorData::Inet(v) => rows.map_to_string(v, target, inet::write_text_with_mask),
        VectorData::Jsonb(s) => to_string(
            &Vector::new(VectorData::Text(s.clone()), input.validity.clone()),
            DataType::Text,
            target,
            rows,
        ),
        VectorData::Bytes(_)
        | VectorData::List(_)
        | VectorData::FloatVector(_)
        | VectorData::Struct(_) => {
            let all_rows: Vec<usize> = (0..input.len()).collect();
            rows.map_to_string(&all_rows, target, |row, buf| {
                int_vector::write_text(input, row, Some(from), buf);
            })
        }
    }
}

/// The length rule of a string target type.
#[derive(Clone, Copy)]
struct StringTarget {
    ty: DataType,
    limit: Option<u32>,
    /// character(n) blank-pads to n.
    pad: bool,
    /// Explicit casts truncate silently; other contexts reject losing non-blank characters.
    truncate: bool,
}

impl StringTarget {
    fn new(ty: DataType, context: CastContext) -> StringTarget {
        let (limit, pad) = match ty {
            DataType::Varchar(n) => (n, false),
            DataType::Char(n) => (n, true),
            _ => (None, false),
        };
        StringTarget {
            ty,
            limit,
            pad,
            truncate: context == CastContext::Explicit,
        }
    }

    fn is_plain(self) -> bool {
        self.limit.is_none()
    }

    /// Fits the value written at `buf[start..]` to the type's length, in place.
    #[inline]
    fn fit(self, buf: &mut Vec<u8>, start: usize) -> Result<()> {
        let Some(limit) = self.limit else {
            return Ok(());
        };
        let limit = limit as usize;
        let value = &buf[start..];
        // Fast path: no more bytes than the limit means no more characters either.
        let chars = if value.len() <= limit {
            value.iter().filter(|&&b| b & 0xC0 != 0x80).count()
        } else {
            let mut seen = 0;
            let cut = value
                .iter()
                .position(|&b| {
                    let starts_char = b & 0xC0 != 0x80;
                    if starts_char {
                        seen += 1;
                    }
                    starts_char && seen > limit
                })
                .unwrap_or(value.len());
            if cut < value.len() {
                if !self.truncate && value[cut..].iter().any(|&b| b != b' ') {
                    return Err(Error::new(
                        SqlState::StringDataRightTruncation,
                        format!("value too long for type {}", self.ty),
                    ));
                }
                buf.truncate(start + cut);
                limit
            } else {
                seen
            }
        };
        if self.pad && chars < limit {
            buf.resize(buf.len() + limit - chars, b' ');
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CastContext::{Assignment, Explicit, Implicit};

    fn column(values: &[ScalarValue], ty: DataType) -> Vector {
        let mut out = Vector::with_capacity(ty.physical(), values.len());
        for value in values {
            assert!(out.push_scalar(value).is_ok());
        }
        out
    }

    fn cast(values: &[ScalarValue], from: DataType, to: DataType, ctx: CastContext) -> Vec<String> {
        let out = cast_vector(&column(values, from), from, to, ctx).expect("cast succeeds");
        (0..out.len())
            .map(|row| {
                let mut text = Vec::new();
                if out.write_text(row, &mut text) {
                    String::from_utf8(text).expect("utf-8")
                } else {
                    "NULL".to_string()
                }
            })
            .collect()
    }

    fn cast_err(value: ScalarValue, from: DataType, to: DataType, ctx: CastContext) -> Error {
        cast_scalar(&value, from, to, ctx).expect_err("cast fails")
    }

    fn texts(values: &[&str]) -> Vec<ScalarValue> {
        values
            .iter()
            .map(|s| ScalarValue::Text(s.to_string()))
            .collect()
    }

    use DataType as T;
    use ScalarValue as S;

    #[test]
    fn cast_contexts() {
        assert!(can_cast(T::Int32, T::Int64, Implicit));
        assert!(can_cast(T::Int16, T::Numeric(None), Implicit));
        assert!(can_cast(T::Int64, T::Float32, Implicit));
        assert!(can_cast(T::Numeric(None), T::Float64, Implicit));
        assert!(can_cast(T::Float32, T::Float64, Implicit));
        assert!(!can_cast(T::Int64, T::Int32, Implicit));
        assert!(can_cast(T::Int64, T::Int32, Assignment));
        assert!(can_cast(T::Float64, T::Numeric(None), Assignment));
        assert!(!can_cast(T::Float64, T::Numeric(None), Implicit));
        assert!(can_cast(T::Numeric(None), T::Int16, Assignment));
        assert!(can_cast(
            T::Numeric(None),
            T::Numeric(Some(NumericTypmod {
                precision: 5,
                scale: 2
            })),
            Implicit
        ));
        assert!(can_cast(T::Text, T::Varchar(Some(3)), Implicit));
        assert!(can_cast(T::Char(Some(2)), T::Text, Implicit));
        assert!(can_cast(T::Int32, T::Text, Assignment));
        assert!(!can_cast(T::Int32, T::Text, Implicit));
        assert!(can_cast(T::Bool, T::Varchar(None), Assignment));
        assert!(!can_cast(T::Text, T::Int32, Assignment));
        assert!(can_cast(T::Text, T::Date, Explicit));
        assert!(can_cast(T::Unknown, T::Date, Implicit));
        assert!(can_cast(T::Int32, T::Bool, Explicit));
        assert!(!can_cast(T::Int32, T::Bool, Assignment));
        assert!(!can_cast(T::Int64, T::Bool, Explicit));
        assert!(can_cast(T::Bool, T::Int32, Explicit));
        assert!(can_cast(T::Date, T::Timestamp(None), Implicit));
        assert!(!can_cast(T::Timestamp(None), T::Date, Implicit));
        assert!(can_cast(T::Timestamp(None), T::Date, Assignment));
        assert!(!can_cast(T::Date, T::Int32, Explicit));
        assert!(!can_cast(T::Bool, T::Float64, Explicit));
    }

    // Expected values checked against PostgreSQL 15.
    #[test]
    fn integer_and_float_casts() {
        let ints = [S::Int64(5), S::Null, S::Int64(-7), S::Int64(0)];
        assert_eq!(
            cast(&ints, T::Int64, T::Int32, Assignment),
            ["5", "NULL", "-7", "0"]
        );
        assert_eq!(
            cast(&ints, T::Int64, T::Float64, Implicit),
            ["5", "NULL", "-7", "0"]
        );
        assert_eq!(
            cast(&ints, T::Int64, T::Numeric(None), Implicit),
            ["5", "NULL", "-7", "0"]
        );
        assert_eq!(
            cast(&ints, T::Int64, T::Bool, Explicit),
            ["t", "NULL", "t", "f"]
        );
        let err = cast_err(S::Int64(3_000_000_000), T::Int64, T::Int32, Assignment);
        assert_eq!(
            (err.sqlstate(), err.message.as_str()),
            ("22003", "integer out of range")
        );
        let err = cast_err(S::Int32(40_000), T::Int32, T::Int16, Assignment);
        assert_eq!(err.message, "smallint out of range");

        let floats = [2.5, 3.5, -2.5, 2147483647.4].map(S::Float64);
        assert_eq!(
            cast(&floats, T::Float64, T::Int32, Explicit),
            ["2", "4", "-2", "2147483647"]
        );
        let err = cast_err(S::Float64(2147483647.5), T::Float64, T::Int32, Explicit);
        assert_eq!(err.message, "integer out of range");
        let err = cast_err(S::Float64(f64::NAN), T::Float64, T::Int32, Explicit);
        assert_eq!(err.message, "integer out of range");
        let err = cast_err(S::Float32(32767.5), T::Float32, T::Int16, Explicit);
        assert_eq!(err.message, "smallint out of range");
        let err = cast_err(S::Float64(9.3e18), T::Float64, T::Int64, Explicit);
        assert_eq!(err.message, "bigint out of range");
        assert_eq!(
            cast(&[S::Float32(1e10)], T::Float32, T::Int64, Explicit),
            ["10000000000"]
        );

        assert_eq!(
            cast(&[S::Int64(i64::MAX)], T::Int64, T::Float32, Implicit),
            ["9.223372e+18"]
        );
        assert_eq!(
            cast(&[S::Int32(123456789)], T::Int32, T::Float32, Implicit),
            ["1.2345679e+08"]
        );
        assert_eq!(
            cast(&[S::Float32(0.1)], T::Float32, T::Float64, Implicit),
            ["0.10000000149011612"]
        );
        assert_eq!(
            cast(&[S::Float64(f64::NAN)], T::Float64, T::Float32, Assignment),
            ["NaN"]
        );
        let err = cast_err(S::Float64(1e39), T::Float64, T::Float32, Assignment);
        assert_eq!(err.message, "value out of range: overflow");
        let err = cast_err(S::Float64(1e-50), T::Float64, T::Float32, Assignment);
        assert_eq!(err.message, "value out of range: underflow");
        assert_eq!(cast(&[S::Bool(true)], T::Bool, T::Int32, Explicit), ["1"]);
    }

    #[test]
    fn numeric_casts() {
        let n = |s: &str| S::Numeric(Decimal::parse(s).expect("numeric"));
        let values = [n("2.5"), n("-2.5"), S::Null, n("1.49")];
        assert_eq!(
            cast(&values, T::Numeric(None), T::Int32, Assignment),
            ["3", "-3", "NULL", "1"]
        );
        assert_eq!(
            cast(&values, T::Numeric(None), T::Float64, Implicit),
            ["2.5", "-2.5", "NULL", "1.49"]
        );
        assert_eq!(
            cast(&[n("1.1")], T::Numeric(None), T::Float32, Implicit),
            ["1.1"]
        );
        let err = cast_err(n("32767.5"), T::Numeric(None), T::Int16, Assignment);
        assert_eq!(err.message, "smallint out of range");
        let err = cast_err(n("2147483647.5"), T::Numeric(None), T::Int32, Assignment);
        assert_eq!(err.message, "integer out of range");
        let err = cast_err(
            n("99999999999999999999"),
            T::Numeric(None),
            T::Int64,
            Assignment,
        );
        assert_eq!(err.message, "bigint out of range");

        let typmod = T::Numeric(Some(NumericTypmod {
            precision: 5,
            scale: 2,
        }));
        assert_eq!(
            cast(&[n("1.005"), n("-7")], T::Numeric(None), typmod, Assignment),
            ["1.01", "-7.00"]
        );
        let err = cast_err(S::Int32(12345), T::Int32, typmod, Assignment);
        assert_eq!(err.message, "numeric field overflow");
        assert_eq!(
            cast(
                &[S::Float64(0.1), S::Float64(1e20)],
                T::Float64,
                T::Numeric(None),
                Assignment
            ),
            ["0.1", "100000000000000000000"]
        );
        assert_eq!(
            cast(
                &[S::Float32(123.456)],
                T::Float32,
                T::Numeric(None),
                Assignment
            ),
            ["123.456"]
        );
        assert_eq!(
            cast(&[S::Float64(2.345)], T::Float64, typmod, Assignment),
            ["2.35"]
        );
    }

    #[test]
    fn text_casts() {
        assert_eq!(
            cast(&texts(&[" 12 ", "-3"]), T::Text, T::Int32, Explicit),
            ["12", "-3"]
        );
        let err = cast_err(S::Text("12a".into()), T::Text, T::Int32, Explicit);
        assert_eq!(
            (err.sqlstate(), err.message.as_str()),
            ("22P02", "invalid input syntax for type integer: \"12a\"")
        );
        // A NULL slot holds "" and must not be parsed.
        let mut with_null = column(&texts(&["1.5"]), T::Text);
        with_null.push_null();
        let out = cast_vector(&with_null, T::Text, T::Float64, Explicit).expect("cast");
        assert_eq!(out.get_scalar(1), S::Null);
        assert_eq!(
            cast(
                &texts(&["1.50", "yes"])[..1],
                T::Text,
                T::Numeric(None),
                Explicit
            ),
            ["1.50"]
        );
        assert_eq!(
            cast(&texts(&["on"]), T::Varchar(None), T::Bool, Explicit),
            ["t"]
        );
        assert_eq!(
            cast(&texts(&["Jan 5 2024"]), T::Text, T::Date, Explicit),
            ["2024-01-05"]
        );
        assert_eq!(
            cast(
                &texts(&["2024-01-05 10:00"]),
                T::Text,
                T::Timestamp(None),
                Explicit
            ),
            ["2024-01-05 10:00:00"]
        );

        assert_eq!(
            cast(&[S::Bool(true), S::Bool(false)], T::Bool, T::Text, Explicit),
            ["true", "false"]
        );
        assert_eq!(
            cast(&[S::Bool(true)], T::Bool, T::Char(Some(5)), Explicit),
            ["true "]
        );
        assert_eq!(
            cast(&[S::Float64(1e20)], T::Float64, T::Varchar(None), Explicit),
            ["1e+20"]
        );
        assert_eq!(
            cast(&[S::Int32(12345)], T::Int32, T::Varchar(Some(3)), Explicit),
            ["123"]
        );
        assert_eq!(
            cast(&[S::Int32(12345)], T::Int32, T::Char(Some(3)), Explicit),
            ["123"]
        );
        assert_eq!(
            cast(&[S::Int32(5)], T::Int32, T::Char(Some(3)), Explicit),
            ["5  "]
        );
        let err = cast_err(S::Int32(12345), T::Int32, T::Varchar(Some(3)), Assignment);
        assert_eq!(
            (err.sqlstate(), err.message.as_str()),
            ("22001", "value too long for type character varying(3)")
        );
        assert_eq!(
            cast(&[S::Date(0), S::Null], T::Date, T::Text, Assignment),
            ["2000-01-01", "NULL"]
        );
    }

    #[test]
    fn string_lengths() {
        let abcdef = texts(&["abcdef"]);
        assert_eq!(
            cast(&abcdef, T::Text, T::Varchar(Some(3)), Explicit),
            ["abc"]
        );
        assert_eq!(cast(&abcdef, T::Text, T::Char(Some(3)), Explicit), ["abc"]);
        assert_eq!(
            cast(&texts(&["héllo"]), T::Text, T::Varchar(Some(2)), Explicit),
            ["hé"]
        );
        assert_eq!(
            cast(&texts(&["abc  "]), T::Text, T::Varchar(Some(3)), Assignment),
            ["abc"]
        );
        assert_eq!(
            cast(&texts(&["ab   "]), T::Text, T::Char(Some(3)), Assignment),
            ["ab "]
        );
        assert_eq!(
            cast(&texts(&["a"]), T::Text, T::Char(Some(3)), Assignment),
            ["a  "]
        );
        assert_eq!(
            cast(
                &texts(&["ab  "]),
                T::Varchar(None),
                T::Varchar(Some(2)),
                Implicit
            ),
            ["ab"]
        );
        let err = cast_err(
            S::Text("abcd".into()),
            T::Text,
            T::Varchar(Some(3)),
            Assignment,
        );
        assert_eq!(err.message, "value too long for type character varying(3)");
        let err = cast_err(
            S::Text("abcd".into()),
            T::Unknown,
            T::Char(Some(3)),
            Assignment,
        );
        assert_eq!(err.message, "value too long for type character(3)");
        // bpchar to text or varchar strips the padding.
        assert_eq!(
            cast(&texts(&["a  "]), T::Char(Some(3)), T::Text, Implicit),
            ["a"]
        );
        assert_eq!(
            cast(
                &texts(&["ab  "]),
                T::Char(Some(4)),
                T::Varchar(Some(10)),
                Implicit
            ),
            ["ab"]
        );
        assert_eq!(
            cast(
                &texts(&["ab  "]),
                T::Char(Some(4)),
                T::Char(Some(2)),
                Explicit
            ),
            ["ab"]
        );
        assert_eq!(cast(&texts(&["x"]), T::Text, T::Text, Implicit), ["x"]);
    }

    #[test]
    fn date_casts() {
        let stamp = |t: &str| S::Timestamp(datetime::parse_timestamp(t).expect("timestamp"));
        assert_eq!(
            cast(
                &[stamp("2024-01-05 12:34"), stamp("1999-12-31 23:00")],
                T::Timestamp(None),
                T::Date,
                Assignment
            ),
            ["2024-01-05", "1999-12-31"]
        );
        assert_eq!(
            cast(
                &[S::Date(i32::MIN), S::Date(1)],
                T::Date,
                T::Timestamp(None),
                Implicit
            ),
            ["-infinity", "2000-01-02 00:00:00"]
        );
        let far = S::Date(datetime::parse_date("5874897-12-31").expect("date"));
        let err = cast_err(far, T::Date, T::Timestamp(None), Implicit);
        assert_eq!(
            (err.sqlstate(), err.message.as_str()),
            ("22008", "date out of range for timestamp")
        );
        let err = cast_err(S::Date(0), T::Date, T::Int32, Explicit);
        assert_eq!(
            (err.sqlstate(), err.message.as_str()),
            ("42846", "cannot cast type date to integer")
        );
    }
}
