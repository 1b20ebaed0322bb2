//! `unistr(text)`: PostgreSQL's Unicode escapes decoded, as its varlena.c unistr does:
//! `\XXXX`, `\+XXXXXX`, `\uXXXX` and `\UXXXXXXXX` a code point (a UTF-16 surrogate pair
//! from two escapes), `\\` a backslash. Errors are PostgreSQL's: 22023 for a code point out
//! of range, 42601 for a broken pair or escape.

use super::kernel::{map_text_rows, texts};
use crate::error::{Error, Result, SqlState};
use crate::vector::Vector;

pub(super) fn unistr(args: &[Vector]) -> Result<Vector> {
    let s = texts(args, 0)?;
    map_text_rows(args, |row, out| {
        let decoded = decode(s.get(row))?;
        out.extend_from_slice(decoded.as_bytes());
        Ok(())
    })
}

fn decode(s: &str) -> Result<String> {
    let mut out = String::with_capacity(s.len());
    let mut pair_first: Option<u32> = None;
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if c != '\\' {
            if pair_first.is_some() {
                return Err(invalid_pair());
            }
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        if rest[1..].starts_with('\\') {
            if pair_first.is_some() {
                return Err(invalid_pair());
            }
            out.push('\\');
            rest = &rest[2..];
            continue;
        }
        let (skip, digits) = match rest.as_bytes().get(1) {
            Some(b'u') => (2, 4),
            Some(b'+') => (2, 6),
            Some(b'U') => (2, 8),
            _ => (1, 4),
        };
        let Some(code) = rest
            .get(skip..skip + digits)
            .filter(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|hex| u32::from_str_radix(hex, 16).ok())
        else {
            return Err(Error::new(SqlState::SyntaxError, "invalid Unicode escape")
                .with_hint("Unicode escapes must be \\XXXX, \\+XXXXXX, \\uXXXX, or \\UXXXXXXXX."));
        };
        rest = &rest[skip + digits..];
        if code == 0 || code > 0x10FFFF {
            return Err(Error::new(
                SqlState::InvalidParameterValue,
                format!("invalid Unicode code point: {code:04X}"),
            ));
        }
        let code = match (pair_first.take(), code) {
            (Some(first), 0xDC00..=0xDFFF) => 0x10000 + ((first - 0xD800) << 10) + (code - 0xDC00),
            (Some(_), _) | (None, 0xDC00..=0xDFFF) => return Err(invalid_pair()),
            (None, 0xD800..=0xDBFF) => {
                pair_first = Some(code);
                continue;
            }
            (None, code) => code,
        };
        out.push(char::from_u32(code).ok_or_else(invalid_pair)?);
    }
    if pair_first.is_some() {
        return Err(invalid_pair());
    }
    Ok(out)
}

fn invalid_pair() -> Error {
    Error::new(SqlState::SyntaxError, "invalid Unicode surrogate pair")
}
