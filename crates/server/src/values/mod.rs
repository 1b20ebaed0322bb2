//! Values on the wire: format codes, DataRow encoding from column vectors, binary output
//! per type, and decoding of Bind parameters.

mod params;
mod rows;

pub(crate) use params::decode_param;
pub(crate) use rows::write_data_rows;

use kestrel::{Error, SqlState};

/// A value's wire format (format code 0 or 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Text,
    Binary,
}

impl Format {
    pub(crate) fn code(self) -> i16 {
        match self {
            Format::Text => 0,
            Format::Binary => 1,
        }
    }

    fn from_code(code: i16) -> Result<Format, Error> {
        match code {
            0 => Ok(Format::Text),
            1 => Ok(Format::Binary),
            other => Err(Error::new(
                SqlState::InvalidParameterValue,
                format!("unsupported format code: {other}"),
            )),
        }
    }
}

/// Expands Bind's format codes to one per value: none means all text, one applies to all,
/// otherwise one each. `None` when the count matches neither (the caller words the error).
pub(crate) fn resolve_formats(codes: &[i16], count: usize) -> Option<Result<Vec<Format>, Error>> {
    match codes {
        [] => Some(Ok(vec![Format::Text; count])),
        [code] => Some(Format::from_code(*code).map(|format| vec![format; count])),
        codes if codes.len() == count => {
            Some(codes.iter().map(|&code| Format::from_code(code)).collect())
        }
        _ => None,
    }
}
