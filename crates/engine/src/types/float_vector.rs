//! pgvector's `vector(n)`: a list of 1 to 16,000 finite float4s. Its text form (`[1,2.5,3]`,
//! each element as float4out prints it), its binary form (int16 dimensions, int16 zero,
//! then big-endian float4s, as vector_send), the dimension checks of its type modifier,
//! and its order. The errors and their wording are pgvector's.

use std::cmp::Ordering;

use super::{binary_io, float};
use crate::error::{Error, Result, SqlState};

/// pgvector's VECTOR_MAX_DIM.
pub const VECTOR_MAX_DIMS: u32 = 16_000;

/// 22000 `different vector dimensions 3 and 2`: a binary operation on vectors of unequal
/// lengths.
pub fn check_same_dims(a: &[f32], b: &[f32]) -> Result<()> {
    if a.len() == b.len() {
        return Ok(());
    }
    Err(Error::new(
        SqlState::DataException,
        format!("different vector dimensions {} and {}", a.len(), b.len()),
    ))
}

/// 22000 `expected 3 dimensions, not 2`: a value stored into `vector(3)`.
pub fn check_expected_dims(typmod: Option<u32>, dims: usize) -> Result<()> {
    match typmod {
        Some(expected) if expected as usize != dims => Err(Error::new(
            SqlState::DataException,
            format!("expected {expected} dimensions, not {dims}"),
        )),
        _ => Ok(()),
    }
}

/// A vector has 1 to 16,000 dimensions.
pub fn check_dims(dims: usize) -> Result<()> {
    if dims < 1 {
        return Err(Error::new(
            SqlState::DataException,
            "vector must have at least 1 dimension",
        ));
    }
    if dims > VECTOR_MAX_DIMS as usize {
        return Err(Error::new(
            SqlState::ProgramLimitExceeded,
            format!("vector cannot have more than {VECTOR_MAX_DIMS} dimensions"),
        ));
    }
    Ok(())
}

/// Elements are finite: NaN and infinities are rejected wherever a vector is made.
pub fn check_element(value: f32) -> Result<()> {
    if value.is_nan() {
        return Err(Error::new(
            SqlState::DataException,
            "NaN not allowed in vector",
        ));
    }
    if value.is_infinite() {
        return Err(Error::new(
            SqlState::DataException,
            "infinite value not allowed in vector",
        ));
    }
    Ok(())
}

/// The modifier of `vector(n)`: one integer between 1 and 16,000.
pub fn parse_typmod(modifiers: &[i64]) -> Result<u32> {
    let invalid = |message: String| Error::new(SqlState::InvalidParameterValue, message);
    let [dims] = modifiers else {
        return Err(invalid("invalid type modifier".into()));
    };
    if *dims < 1 {
        return Err(invalid(
            "dimensions for type vector must be at least 1".into(),
        ));
    }
    if *dims > i64::from(VECTOR_MAX_DIMS) {
        return Err(invalid(format!(
            "dimensions for type vector cannot exceed {VECTOR_MAX_DIMS}"
        )));
    }
    Ok(*dims as u32)
}

/// C's isspace, as pgvector's vector_isspace.
fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// How many bytes of `text` strtof would read as a number: a sign, then `inf`, `infinity`
/// or `nan` in any case, or digits with an optional fraction and exponent.
fn number_len(text: &[u8]) -> usize {
    let mut at = usize::from(matches!(text.first(), Some(b'+' | b'-')));
    let rest = &text[at..];
    for word in ["infinity", "inf", "nan"] {
        if rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word.as_bytes()) {
            return at + word.len();
        }
    }
    let digits = |from: usize| {
        text[from..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let whole = digits(at);
    at += whole;
    let mut fraction = 0;
    if text.get(at) == Some(&b'.') {
        fraction = digits(at + 1);
        if whole + fraction > 0 {
            at += 1 + fraction;
        }
    }
    if whole + fraction == 0 {
        return 0;
    }
    if matches!(text.get(at), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(text.get(at + 1), Some(b'+' | b'-')));
        let exponent = digits(at + 1 + sign);
        if exponent > 0 {
            at += 1 + sign + exponent;
        }
    }
    at
}

/// vector_in: `[1, 2.5, 3]` with optional whitespace, checked against the modifier.
pub fn parse_vector(text: &str, typmod: Option<u32>) -> Result<Vec<f32>> {
    let bytes = text.as_bytes();
    let invalid = || Error::invalid_input("vector", text);
    let skip_space = |mut at: usize| {
        while bytes.get(at).copied().is_some_and(is_space) {
            at += 1;
        }
        at
    };
    let mut at = skip_space(0);
    if bytes.get(at) != Some(&b'[') {
        return Err(invalid().with_detail("Vector contents must start with \"[\"."));
    }
    at = skip_space(at + 1);
    if bytes.get(at) == Some(&b']') {
        check_dims(0)?;
    }
    let mut values = Vec::new();
    loop {
        if values.len() == VECTOR_MAX_DIMS as usize {
            check_dims(values.len() + 1)?;
        }
        at = skip_space(at);
        let len = number_len(&bytes[at..]);
        if len == 0 {
            return Err(invalid());
        }
        let number = &text[at..at + len];
        let value: f32 = number.parse().map_err(|_| invalid())?;
        if value.is_infinite() && !number.to_ascii_lowercase().contains("inf") {
            return Err(Error::out_of_range(format!(
                "\"{number}\" is out of range for type vector"
            )));
        }
        check_element(value)?;
        values.push(value);
        at = skip_space(at + len);
        match bytes.get(at) {
            Some(b',') => at += 1,
            Some(b']') => {
                at += 1;
                break;
            }
            _ => return Err(invalid()),
        }
    }
    if skip_space(at) != bytes.len() {
        return Err(invalid().with_detail("Junk after closing right brace."));
    }
    check_dims(values.len())?;
    check_expected_dims(typmod, values.len())?;
    Ok(values)
}

/// vector_out: `[1,2.5,3]`, each element as float4out prints it (shortest round trip).
pub fn write_vector(values: &[f32], out: &mut Vec<u8>) {
    out.push(b'[');
    for (i, &value) in values.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        float::write_f32(value, out);
    }
    out.push(b']');
}

/// vector_send.
pub fn write_binary(values: &[f32], out: &mut Vec<u8>) {
    out.extend_from_slice(&(values.len() as u16).to_be_bytes());
    out.extend_from_slice(&0u16.to_be_bytes());
    for value in values {
        out.extend_from_slice(&value.to_be_bytes());
    }
}

/// vector_recv: the dimensions, a zero, then the elements; the length must match exactly.
pub fn read_binary(bytes: &[u8], typmod: Option<u32>) -> Result<Vec<f32>> {
    let header: [u8; 4] = bytes
        .get(..4)
        .and_then(|h| h.try_into().ok())
        .ok_or_else(binary_io::insufficient_data)?;
    let dims = usize::from(u16::from_be_bytes([header[0], header[1]]));
    let unused = i16::from_be_bytes([header[2], header[3]]);
    check_dims(dims)?;
    check_expected_dims(typmod, dims)?;
    if unused != 0 {
        return Err(Error::new(
            SqlState::DataException,
            format!("expected unused to be 0, not {unused}"),
        ));
    }
    let body = &bytes[4..];
    if body.len() < dims * 4 {
        return Err(binary_io::insufficient_data());
    }
    if body.len() > dims * 4 {
        return Err(Error::new(
            SqlState::InvalidBinaryRepresentation,
            binary_io::INCORRECT_BINARY_FORMAT,
        ));
    }
    body.chunks_exact(4)
        .map(|chunk| {
            let value = f32::from_be_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            check_element(value).map(|()| value)
        })
        .collect()
}

/// vector_cmp: element by element, then the shorter first (as PostgreSQL's arrays).
/// Elements are finite, so `partial_cmp` always answers.
pub fn compare(a: &[f32], b: &[f32]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        match x.partial_cmp(y) {
            Some(Ordering::Equal) | None => {}
            Some(order) => return order,
        }
    }
    a.len().cmp(&b.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(values: &[f32]) -> String {
        let mut out = Vec::new();
        write_vector(values, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn text_round_trips_as_pgvector_prints() -> Result<()> {
        assert_eq!(parse_vector(" [ 1,  2 ,    3  ] ", None)?, [1.0, 2.0, 3.0]);
        assert_eq!(text(&parse_vector("[1.,2.,3.]", None)?), "[1,2,3]");
        assert_eq!(
            text(&parse_vector("[1.5e38,-1.5e38]", None)?),
            "[1.5e+38,-1.5e+38]"
        );
        assert_eq!(text(&parse_vector("[-1e-46,1]", None)?), "[-0,1]");
        assert_eq!(text(&parse_vector("[1.23456]", None)?), "[1.23456]");
        Ok(())
    }

    #[test]
    fn bad_input_has_pgvector_errors() {
        let err = |s: &str| {
            parse_vector(s, None)
                .err()
                .map(|e| (e.sqlstate(), e.message))
        };
        for bad in [
            "[hello,1]",
            "[1,2,3",
            "[",
            "[ ",
            "[,",
            "[,]",
            "[1,]",
            "[1a]",
            "[1, ,3]",
        ] {
            assert_eq!(err(bad).map(|e| e.0), Some("22P02"), "{bad}");
        }
        assert_eq!(err("[]").map(|e| e.0), Some("22000"));
        assert_eq!(
            err("[4e38,1]").map(|e| e.1),
            Some("\"4e38\" is out of range for type vector".into())
        );
        assert_eq!(
            err("[NaN,1]").map(|e| e.1),
            Some("NaN not allowed in vector".into())
        );
        assert_eq!(
            parse_vector("[1,2,3]", Some(2)).err().map(|e| e.message),
            Some("expected 2 dimensions, not 3".into())
        );
    }

    #[test]
    fn binary_round_trips_and_checks_its_length() -> Result<()> {
        let mut out = Vec::new();
        write_binary(&[1.0, -2.5], &mut out);
        assert_eq!(out.len(), 12);
        assert_eq!(read_binary(&out, Some(2))?, [1.0, -2.5]);
        assert!(read_binary(&out[..11], None).is_err());
        assert!(read_binary(&out, Some(3)).is_err());
        Ok(())
    }
}
