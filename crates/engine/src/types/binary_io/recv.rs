//! PostgreSQL's binary input format (the `*recv` functions) for every type we have, used
//! by Bind parameters and COPY FROM in binary. A value must be exactly its type's size:
//! too short is "insufficient data" (08P01), too long [`incorrect_binary_format`] (22P03),
//! which callers name the place of ("in bind parameter 2", a COPY line).

use crate::error::{Error, Result, SqlState};
use crate::types::array_shape::{element_count, ArrayDim, ShapedArray, MAX_DIMS, MAX_ELEMENTS};
use crate::types::record::{RecordType, RECORD_OID};
use crate::types::{
    bit_string, float_vector, inet, text_io, timetz, DataType, Interval, ScalarValue,
};

use super::numeric::read_numeric_binary;
use super::send::JSONB_BINARY_VERSION;

/// PostgreSQL's FirstGenbkiObjectId: OIDs below it are built-in objects'.
const FIRST_GENBKI_OID: u32 = 10_000;

/// The message of [`incorrect_binary_format`], which callers extend with the place.
pub const INCORRECT_BINARY_FORMAT: &str = "incorrect binary data format";

/// Decodes one non-NULL value of type `ty` from its binary form.
pub fn recv(bytes: &[u8], ty: DataType) -> Result<ScalarValue> {
    Ok(match ty {
        DataType::Bool => ScalarValue::Bool(fixed::<1>(bytes)?[0] != 0),
        DataType::Int16 => ScalarValue::Int16(i16::from_be_bytes(fixed(bytes)?)),
        DataType::Int32 => ScalarValue::Int32(i32::from_be_bytes(fixed(bytes)?)),
        DataType::Int64 => ScalarValue::Int64(i64::from_be_bytes(fixed(bytes)?)),
        // oidrecv and the aliases': four bytes, unsigned.
        DataType::Oid(_) => ScalarValue::Int64(i64::from(u32::from_be_bytes(fixed(bytes)?))),
        DataType::Float32 => {
            ScalarValue::Float32(f32::from_bits(u32::from_be_bytes(fixed(bytes)?)))
        }
        DataType::Float64 => {
            ScalarValue::Float64(f64::from_bits(u64::from_be_bytes(fixed(bytes)?)))
        }
        DataType::Numeric(typmod) => {
            let value = read_numeric_binary(bytes)?;
            ScalarValue::Numeric(match typmod {
                Some(typmod) => value.apply_typmod(typmod)?,
                None => value,
            })
        }
        // textrecv and friends: the bytes are the string (typmods do not travel with
        // parameters, so no length check applies here).
        DataType::Unknown | DataType::Text | DataType::Varchar(_) | DataType::Char(_) => {
            ScalarValue::Text(utf8(bytes)?.to_owned())
        }
        DataType::Date => ScalarValue::Date(i32::from_be_bytes(fixed(bytes)?)),
        DataType::Timestamp(_) => ScalarValue::Timestamp(i64::from_be_bytes(fixed(bytes)?)),
        DataType::TimestampTz(_) => ScalarValue::TimestampTz(i64::from_be_bytes(fixed(bytes)?)),
        DataType::Time(_) => ScalarValue::Time(time_recv(i64::from_be_bytes(fixed(bytes)?))?),
        // timetz_recv: the time, then the zone in seconds west of UTC.
        DataType::TimeTz(_) => {
            let raw: [u8; 12] = fixed(bytes)?;
            let (time, zone) = raw.split_at(8);
            let time = <[u8; 8]>::try_from(time).map_err(|_| incorrect_binary_format())?;
            let zone = <[u8; 4]>::try_from(zone).map_err(|_| incorrect_binary_format())?;
            ScalarValue::TimeTz(timetz::read_binary(
                i64::from_be_bytes(time),
                i32::from_be_bytes(zone),
            )?)
        }
        // interval_recv: microseconds, days, months.
        DataType::Interval(_) => {
            let raw: [u8; 16] = fixed(bytes)?;
            let (micros, rest) = raw.split_at(8);
            let (days, months) = rest.split_at(4);
            let part = |b: &[u8]| <[u8; 4]>::try_from(b).map_err(|_| incorrect_binary_format());
            let micros = <[u8; 8]>::try_from(micros).map_err(|_| incorrect_binary_format())?;
            ScalarValue::Interval(Interval::new(
                i32::from_be_bytes(part(months)?),
                i32::from_be_bytes(part(days)?),
                i64::from_be_bytes(micros),
            ))
        }
        DataType::Bytea => ScalarValue::Bytea(bytes.to_vec()),
        DataType::Uuid => ScalarValue::Uuid(u128::from_be_bytes(fixed(bytes)?)),
        DataType::Inet => ScalarValue::Inet(inet::read_binary(bytes, false)?),
        DataType::Cidr => ScalarValue::Inet(inet::read_binary(bytes, true)?),
        // charrecv: exactly one byte.
        DataType::InternalChar => match bytes {
            [byte] => ScalarValue::Text(crate::types::internal_char::from_byte(*byte)),
            [] => return Err(insufficient_data()),
            _ => return Err(incorrect_binary_format()),
        },
        // json_recv is the text through json_in.
        DataType::Json => text_io::parse_text(utf8(bytes)?, ty)?,
        // jsonb_recv: a version byte, then the text through jsonb_in.
        DataType::Jsonb => match bytes.split_first() {
            Some((&JSONB_BINARY_VERSION, text)) => text_io::parse_text(utf8(text)?, ty)?,
            Some((version, _)) => {
                return Err(Error::new(
                    SqlState::InvalidBinaryRepresentation,
                    format!("unsupported jsonb version number {version}"),
                ))
            }
            None => return Err(insufficient_data()),
        },
        // jsonpath_recv: the same version byte, then the text through jsonpath_in.
        DataType::JsonPath => match bytes.split_first() {
            Some((&JSONB_BINARY_VERSION, text)) => text_io::parse_text(utf8(text)?, ty)?,
            Some((version, _)) => {
                return Err(Error::new(
                    SqlState::InvalidBinaryRepresentation,
                    format!("unsupported jsonpath version number: {version}"),
                ))
            }
            None => return Err(insufficient_data()),
        },
        DataType::Array(elem) => {
            let (dims, values) = decode_array(bytes, *elem)?;
            ShapedArray::value(dims, values)
        }
        // int2vectorrecv / oidvectorrecv: array_recv's format with lower bound 0 and one
        // dimension, read as the plain array the vector holds.
        DataType::Int2Vector | DataType::OidVector => match ty.vector_array() {
            Some(DataType::Array(elem)) => match decode_array(bytes, *elem)? {
                (dims, values) if dims.len() <= 1 => ScalarValue::Array(values),
                _ => {
                    return Err(Error::new(
                        SqlState::InvalidBinaryRepresentation,
                        format!("invalid {ty} data"),
                    ))
                }
            },
            _ => return Err(Error::internal("a vector type without its array")),
        },
        DataType::FloatVector(typmod) => {
            ScalarValue::FloatVector(float_vector::read_binary(bytes, typmod)?)
        }
        // enum_recv is the label through enum_in, which needs the catalog: the binder
        // types enum parameters as text (see `binder/enum_type.rs`).
        DataType::Enum(_) => text_io::parse_text(utf8(bytes)?, ty)?,
        // bit_recv and varbit_recv check the length against the modifier, if any.
        DataType::Bit(_) | DataType::VarBit(_) => {
            let bits = bit_string::read_binary(bytes)?;
            ScalarValue::Text(match bit_string::BitLength::of(ty) {
                Some(length) => length.fitted(&bits, false)?,
                None => bits,
            })
        }
        DataType::Record(record) if record.type_oid == RECORD_OID => {
            return Err(Error::unsupported(
                "input of anonymous composite types is not implemented",
            ))
        }
        DataType::Record(record) => decode_record(bytes, record)?,
    })
}

/// The next big-endian int4 of a binary value, as array_recv and record_recv read their
/// headers.
fn read_int(rest: &mut &[u8]) -> Result<i32> {
    let (head, tail) = rest
        .split_first_chunk::<4>()
        .ok_or_else(insufficient_data)?;
    *rest = tail;
    Ok(i32::from_be_bytes(*head))
}

/// record_recv of a value of composite type `record`: the field count, then per field its
/// type OID, its length (-1 for NULL) and its binary value. The count must be the type's,
/// and so must each field's OID where both are built-in types'.
fn decode_record(bytes: &[u8], record: &RecordType) -> Result<ScalarValue> {
    let mut rest = bytes;
    let mismatch = |message: String| Error::new(SqlState::DatatypeMismatch, message);
    let count = read_int(&mut rest)?;
    let expected = record.fields.len();
    if usize::try_from(count).ok() != Some(expected) {
        return Err(mismatch(format!(
            "wrong number of columns: {count}, expected {expected}"
        )));
    }
    let mut values = Vec::with_capacity(expected);
    for (i, field) in record.fields.iter().enumerate() {
        let oid = read_int(&mut rest)? as u32;
        // Only built-in types' OIDs are stable enough to call a difference a mismatch;
        // otherwise the field's own type reads the bytes, as in PostgreSQL.
        if oid != field.ty.oid() && oid < FIRST_GENBKI_OID && field.ty.oid() < FIRST_GENBKI_OID {
            let sent = DataType::from_oid(oid).map_or_else(|| "???".to_string(), |t| t.to_string());
            return Err(mismatch(format!(
                "binary data has type {oid} ({sent}) instead of expected {} ({}) in record column {}",
                field.ty.oid(),
                field.ty,
                i + 1
            )));
        }
        let len = read_int(&mut rest)?;
        if len == -1 {
            values.push(ScalarValue::Null);
            continue;
        }
        let len = usize::try_from(len)
            .ok()
            .filter(|len| *len <= rest.len())
            .ok_or_else(|| {
                Error::new(
                    SqlState::InvalidBinaryRepresentation,
                    "insufficient data left in message",
                )
            })?;
        let (item, tail) = rest.split_at(len);
        rest = tail;
        // A field longer than its type is PostgreSQL's error naming the column.
        values.push(recv(item, field.ty).map_err(|error| {
            match error.message == INCORRECT_BINARY_FORMAT {
                true => Error::new(
                    SqlState::InvalidBinaryRepresentation,
                    format!("improper binary format in record column {}", i + 1),
                ),
                false => error,
            }
        })?);
    }
    if !rest.is_empty() {
        return Err(incorrect_binary_format());
    }
    Ok(ScalarValue::Record(values))
}

/// array_recv of an array of `elem`: its dimensions (none when empty) and elements (the
/// header's element OID is not checked, as the parameter type decides).
fn decode_array(bytes: &[u8], elem: DataType) -> Result<(Vec<ArrayDim>, Vec<ScalarValue>)> {
    let mut rest = bytes;
    let invalid = |message: String| Error::new(SqlState::InvalidBinaryRepresentation, message);
    let ndim = read_int(&mut rest)?;
    let flags = read_int(&mut rest)?;
    let _elem_oid = read_int(&mut rest)?;
    let ndim = match usize::try_from(ndim) {
        Ok(n) if n > MAX_DIMS => {
            return Err(invalid(format!(
                "number of array dimensions ({n}) exceeds the maximum allowed ({MAX_DIMS})"
            )))
        }
        Ok(n) => n,
        Err(_) => return Err(invalid(format!("invalid number of dimensions: {ndim}"))),
    };
    if flags != 0 && flags != 1 {
        return Err(invalid("invalid array flags".to_string()));
    }
    let mut dims = Vec::with_capacity(ndim);
    for _ in 0..ndim {
        let (len, lower) = (read_int(&mut rest)?, read_int(&mut rest)?);
        if len < 0 {
            return Err(Error::new(
                SqlState::ProgramLimitExceeded,
                "array size exceeds the maximum allowed (134217727)",
            ));
        }
        if lower.checked_add(len).is_none() {
            return Err(Error::new(
                SqlState::ProgramLimitExceeded,
                "array lower bound is too large",
            ));
        }
        dims.push(ArrayDim { lower, len });
    }
    let len = element_count(&dims);
    if len > MAX_ELEMENTS {
        return Err(Error::new(
            SqlState::ProgramLimitExceeded,
            format!("array size exceeds the maximum allowed ({MAX_ELEMENTS})"),
        ));
    }
    if len == 0 {
        dims.clear();
    }
    let mut values = Vec::with_capacity(len.min(rest.len() / 4));
    for _ in 0..len {
        let size = read_int(&mut rest)?;
        if size == -1 {
            values.push(ScalarValue::Null);
            continue;
        }
        let size = usize::try_from(size).map_err(|_| incorrect_binary_format())?;
        if rest.len() < size {
            return Err(insufficient_data());
        }
        let (value, tail) = rest.split_at(size);
        values.push(recv(value, elem)?);
        rest = tail;
    }
    if !rest.is_empty() {
        return Err(incorrect_binary_format());
    }
    Ok((dims, values))
}

/// Exactly N bytes: fewer is PostgreSQL's "insufficient data" protocol error, more its
/// 22P03.
fn fixed<const N: usize>(bytes: &[u8]) -> Result<[u8; N]> {
    if bytes.len() < N {
        return Err(insufficient_data());
    }
    <[u8; N]>::try_from(bytes).map_err(|_| incorrect_binary_format())
}

pub fn insufficient_data() -> Error {
    Error::new(
        SqlState::ProtocolViolation,
        "insufficient data left in message",
    )
}

/// PostgreSQL's error for a value longer than its type.
pub(super) fn incorrect_binary_format() -> Error {
    Error::new(
        SqlState::InvalidBinaryRepresentation,
        INCORRECT_BINARY_FORMAT,
    )
}

/// Our only encoding is UTF8: anything else is PostgreSQL's 22021.
pub fn utf8(bytes: &[u8]) -> Result<&str> {
    std::str::from_utf8(bytes).map_err(|error| {
        let bad = bytes.get(error.valid_up_to()).copied().unwrap_or(0);
        Error::new(
            SqlState::CharacterNotInRepertoire,
            format!("invalid byte sequence for encoding \"UTF8\": 0x{bad:02x}"),
        )
    })
}

/// time_recv: microseconds from midnight up to 24:00:00; 22008 outside.
fn time_recv(micros: i64) -> Result<i64> {
    if (0..=crate::types::datetime::MICROS_PER_DAY).contains(&micros) {
        Ok(micros)
    } else {
        Err(Error::new(
            SqlState::DatetimeFieldOverflow,
            "time out of range",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::record::RecordField;

    /// A composite type (int, text) of a made-up OID, as record_recv decodes it.
    fn pair() -> DataType {
        let fields = vec![
            RecordField {
                name: "a".to_string(),
                ty: DataType::Int32,
            },
            RecordField {
                name: "b".to_string(),
                ty: DataType::Text,
            },
        ];
        DataType::Record(RecordType::intern_row_type(fields, 90_002).expect("invariant: one shape"))
    }

    fn record(count: i32, fields: &[(u32, Option<&[u8]>)]) -> Vec<u8> {
        let mut out = count.to_be_bytes().to_vec();
        for (oid, value) in fields {
            out.extend_from_slice(&oid.to_be_bytes());
            match value {
                Some(bytes) => {
                    out.extend_from_slice(&(bytes.len() as i32).to_be_bytes());
                    out.extend_from_slice(bytes);
                }
                None => out.extend_from_slice(&(-1i32).to_be_bytes()),
            }
        }
        out
    }

    #[test]
    fn record_recv_reads_fields_and_nulls() {
        let bytes = record(2, &[(23, Some(&7i32.to_be_bytes())), (25, None)]);
        let value = recv(&bytes, pair()).expect("a valid record");
        assert_eq!(
            value,
            ScalarValue::Record(vec![ScalarValue::Int32(7), ScalarValue::Null])
        );
    }

    #[test]
    fn record_recv_errors_as_postgres() {
        let fail = |bytes: Vec<u8>| recv(&bytes, pair()).expect_err("an invalid record");
        let count = fail(record(1, &[(23, Some(&7i32.to_be_bytes()))]));
        assert_eq!(count.message, "wrong number of columns: 1, expected 2");
        assert_eq!(count.sqlstate(), "42804");
        let oid = fail(record(2, &[(25, Some(b"x")), (25, None)]));
        assert_eq!(
            oid.message,
            "binary data has type 25 (text) instead of expected 23 (integer) in record column 1"
        );
        let long = fail(record(2, &[(23, Some(&7i64.to_be_bytes())), (25, None)]));
        assert_eq!(long.message, "improper binary format in record column 1");
        assert_eq!(long.sqlstate(), "22P03");
        let mut cut = record(2, &[(23, Some(&7i32.to_be_bytes())), (25, Some(b"xy"))]);
        cut.pop();
        assert_eq!(fail(cut).sqlstate(), "22P03");
        let anonymous =
            DataType::Record(RecordType::intern(Vec::new()).expect("invariant: one shape"));
        assert_eq!(
            recv(&record(0, &[]), anonymous)
                .expect_err("anonymous")
                .sqlstate(),
            "0A000"
        );
    }
}
