//! Bind parameters: text goes through the type's input function (the engine's
//! `parse_text`), binary through the engine's `*recv` codecs, which demand the exact size.

use kestrel::types::binary_io::{recv, utf8, INCORRECT_BINARY_FORMAT};
use kestrel::types::{text_io, DataType, ScalarValue};
use kestrel::Error;

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
        Format::Binary => recv(bytes, ty).map_err(|mut error| {
            // PostgreSQL names the parameter when a value is longer than its type.
            if error.message == INCORRECT_BINARY_FORMAT {
                error.message = format!("{INCORRECT_BINARY_FORMAT} in bind parameter {number}");
            }
            error
        }),
    }
}

#[cfg(test)]
mod tests {
    use kestrel::SqlState;

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
