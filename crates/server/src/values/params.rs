//! Bind parameters: text goes through the type's input function (the engine's
//! `parse_text`), binary through PostgreSQL's `*recv` rules, which demand the exact size.

use kestrel::types::{text_io, DataType, ScalarValue};
use kestrel::{Error, SqlState};

use super::binary::JSONB_BINARY_VERSION;
use super::numeric::read_numeric_binary;
use super::Format;

/// Decodes parameter `$number` (1-based, for messages), `None` meaning NULL.
pub(crate) fn decode_param(
    bytes: Option<&[u8]>,
    format: Format,
    ty: DataType,
    number: usize,
) -> Result<ScalarValue, Error> {
    let Some(bytes) = bytes else {
        return Ok(ScalarValue::Null);
    };
    match format {
        Format::Text => text_io::parse_text(utf8(bytes)?, ty),
        Format::Binary => decode_binary(bytes, ty, number),
    }
}

fn decode_binary(bytes: &[u8], ty: DataType, number: usize) -> Result<ScalarValue, Error> {
    Ok(match ty {
        DataType::Bool => ScalarValue::Bool(fixed::<1>(bytes, number)?[0] != 0),
        DataType::Int16 => ScalarValue::Int16(i16::from_be_bytes(fixed(bytes, number)?)),
        DataType::Int32 => ScalarValue::Int32(i32::from_be_bytes(fixed(bytes, number)?)),
        DataType::Int64 => ScalarValue::Int64(i64::from_be_bytes(fixed(bytes, number)?)),
        // oidrecv and the aliases': four bytes, unsigned.
        DataType::Oid(_) => {
            ScalarValue::Int64(i64::from(u32::from_be_bytes(fixed(bytes, number)?)))
        }
        DataType::Float32 => {
            ScalarValue::Float32(f32::from_bits(u32::from_be_bytes(fixed(bytes, number)?)))
        }
        DataType::Float64 => {
            ScalarValue::Float64(f64::from_bits(u64::from_be_bytes(fixed(bytes, number)?)))
        }
        DataType::Numeric(typmod) => {
            let value = read_numeric_binary(bytes, number)?;
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
        DataType::Date => ScalarValue::Date(i32::from_be_bytes(fixed(bytes, number)?)),
        DataType::Timestamp => ScalarValue::Timestamp(i64::from_be_bytes(fixed(bytes, number)?)),
        DataType::TimestampTz => {
            ScalarValue::TimestampTz(i64::from_be_bytes(fixed(bytes, number)?))
        }
        // interval_recv: microseconds, days, months.
        DataType::Interval => {
            let raw: [u8; 16] = fixed(bytes, number)?;
            let (micros, rest) = raw.split_at(8);
            let (days, months) = rest.split_at(4);
            let part =
                |b: &[u8]| <[u8; 4]>::try_from(b).map_err(|_| incorrect_binary_format(number));
            let micros =
                <[u8; 8]>::try_from(micros).map_err(|_| incorrect_binary_format(number))?;
            ScalarValue::Interval(kestrel::types::Interval::new(
                i32::from_be_bytes(part(months)?),
                i32::from_be_bytes(part(days)?),
                i64::from_be_bytes(micros),
            ))
        }
        DataType::Bytea => ScalarValue::Bytea(bytes.to_vec()),
        DataType::Uuid => ScalarValue::Uuid(u128::from_be_bytes(fixed(bytes, number)?)),
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
        DataType::Array(elem) => ScalarValue::Array(decode_array(bytes, *elem, number)?),
    })
}

/// array_recv of a one-dimensional array of `elem` (the header's element OID is not
/// checked against it beyond the dimensions, as the parameter type decides).
fn decode_array(bytes: &[u8], elem: DataType, number: usize) -> Result<Vec<ScalarValue>, Error> {
    let mut rest = bytes;
    let int = |rest: &mut &[u8]| -> Result<i32, Error> {
        let (head, tail) = rest
            .split_first_chunk::<4>()
            .ok_or_else(insufficient_data)?;
        *rest = tail;
        Ok(i32::from_be_bytes(*head))
    };
    let ndim = int(&mut rest)?;
    let _has_null = int(&mut rest)?;
    let _elem_oid = int(&mut rest)?;
    match ndim {
        0 => return Ok(Vec::new()),
        1 => {}
        n if n > 1 => return Err(Error::unsupported("multidimensional arrays")),
        _ => return Err(incorrect_binary_format(number)),
    }
    let len = usize::try_from(int(&mut rest)?).map_err(|_| incorrect_binary_format(number))?;
    let _lower_bound = int(&mut rest)?;
    let mut values = Vec::with_capacity(len.min(rest.len() / 4));
    for _ in 0..len {
        let size = int(&mut rest)?;
        if size == -1 {
            values.push(ScalarValue::Null);
            continue;
        }
        let size = usize::try_from(size).map_err(|_| incorrect_binary_format(number))?;
        if rest.len() < size {
            return Err(insufficient_data());
        }
        let (value, tail) = rest.split_at(size);
        values.push(decode_binary(value, elem, number)?);
        rest = tail;
    }
    if !rest.is_empty() {
        return Err(incorrect_binary_format(number));
    }
    Ok(values)
}

/// Exactly N bytes: fewer is PostgreSQL's "insufficient data" protocol error, more its
/// 22P03.
fn fixed<const N: usize>(bytes: &[u8], number: usize) -> Result<[u8; N], Error> {
    if bytes.len() < N {
        return Err(insufficient_data());
    }
    <[u8; N]>::try_from(bytes).map_err(|_| incorrect_binary_format(number))
}

pub(super) fn insufficient_data() -> Error {
    Error::new(
        SqlState::ProtocolViolation,
        "insufficient data left in message",
    )
}

/// PostgreSQL's error for a binary parameter of the wrong size.
pub(super) fn incorrect_binary_format(number: usize) -> Error {
    Error::new(
        SqlState::InvalidBinaryRepresentation,
        format!("incorrect binary data format in bind parameter {number}"),
    )
}

/// Our only encoding is UTF8. PostgreSQL's code is 22021 (character_not_in_repertoire);
/// until the engine has it, the class code 22000 keeps clients' class checks right.
fn utf8(bytes: &[u8]) -> Result<&str, Error> {
    std::str::from_utf8(bytes).map_err(|error| {
        let bad = bytes.get(error.valid_up_to()).copied().unwrap_or(0);
        Error::new(
            SqlState::DataException,
            format!("invalid byte sequence for encoding \"UTF8\": 0x{bad:02x}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_integers_need_their_exact_size() -> Result<(), Error> {
        let value = decode_param(
            Some(&7i32.to_be_bytes()),
            Format::Binary,
            DataType::Int32,
            1,
        )?;
        assert_eq!(value, ScalarValue::Int32(7));
        let error = decode_param(Some(&[0, 7]), Format::Binary, DataType::Int32, 2)
            .err()
            .ok_or_else(|| Error::internal("accepted a short int4"))?;
        assert_eq!(error.state, SqlState::ProtocolViolation);
        let error = decode_param(Some(&[0; 5]), Format::Binary, DataType::Int32, 2)
            .err()
            .ok_or_else(|| Error::internal("accepted a long int4"))?;
        assert_eq!(error.state, SqlState::InvalidBinaryRepresentation);
        assert_eq!(
            error.message,
            "incorrect binary data format in bind parameter 2"
        );
        Ok(())
    }

    #[test]
    fn binary_text_must_be_utf8_and_null_is_null() -> Result<(), Error> {
        let value = decode_param(Some(b"hi"), Format::Binary, DataType::Text, 1)?;
        assert_eq!(value, ScalarValue::Text("hi".into()));
        assert!(decode_param(Some(b"\xff"), Format::Binary, DataType::Text, 1).is_err());
        assert_eq!(
            decode_param(None, Format::Text, DataType::Int64, 1)?,
            ScalarValue::Null
        );
        Ok(())
    }
}
