//! bytea's text formats, as PostgreSQL's `byteain` and `byteaout`: input in hex (`\x0a0b`)
//! or escape form (`a\000\\b`), output in hex (the default `bytea_output`) or escape form.

use super::datetime_style::{self, ByteaOutput};
use crate::error::{Error, Result, SqlState};

const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

/// byteain: `\x` then pairs of hex digits (white space allowed between pairs), or the escape
/// format where `\\` is a backslash and `\ooo` an octal byte.
pub fn parse_bytea(text: &str) -> Result<Vec<u8>> {
    match text.as_bytes() {
        [b'\\', b'x', hex @ ..] => parse_hex(hex),
        bytes => parse_escape(bytes),
    }
}

/// hex_decode: white space is skipped between digit pairs, not inside one.
pub fn parse_hex(hex: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(hex.len() / 2);
    let mut at = 0;
    while at < hex.len() {
        if hex[at].is_ascii_whitespace() {
            at += 1;
            continue;
        }
        let high = hex_value(hex, at)?;
        let low = match hex.get(at + 1) {
            Some(_) => hex_value(hex, at + 1)?,
            None => {
                return Err(Error::new(
                    SqlState::InvalidParameterValue,
                    "invalid hexadecimal data: odd number of digits",
                ))
            }
        };
        out.push(high << 4 | low);
        at += 2;
    }
    Ok(out)
}

fn hex_value(hex: &[u8], at: usize) -> Result<u8> {
    let c = hex[at];
    match c {
        b'0'..=b'9' => Ok(c - b'0'),
        b'a'..=b'f' => Ok(c - b'a' + 10),
        b'A'..=b'F' => Ok(c - b'A' + 10),
        _ => {
            // The digit as PostgreSQL quotes it: the whole (possibly multi-byte) character.
            let rest = String::from_utf8_lossy(&hex[at..]);
            let digit = rest.chars().next().unwrap_or('?');
            Err(Error::new(
                SqlState::InvalidParameterValue,
                format!("invalid hexadecimal digit: \"{digit}\""),
            ))
        }
    }
}

fn parse_escape(bytes: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != b'\\' {
            out.push(bytes[at]);
            at += 1;
            continue;
        }
        match bytes.get(at + 1..at + 4) {
            Some([a @ b'0'..=b'3', b @ b'0'..=b'7', c @ b'0'..=b'7']) => {
                out.push((a - b'0') << 6 | (b - b'0') << 3 | (c - b'0'));
                at += 4;
            }
            _ if bytes.get(at + 1) == Some(&b'\\') => {
                out.push(b'\\');
                at += 2;
            }
            _ => {
                return Err(Error::new(
                    SqlState::InvalidTextRepresentation,
                    "invalid input syntax for type bytea",
                ))
            }
        }
    }
    Ok(out)
}

/// byteaout in the session's bytea_output.
pub fn write_output(bytes: &[u8], out: &mut Vec<u8>) {
    match datetime_style::current().bytea {
        ByteaOutput::Hex => write_hex(bytes, out),
        ByteaOutput::Escape => write_escape(bytes, out),
    }
}

/// byteaout with `bytea_output = hex`: `\x` and two lower-case digits a byte.
pub fn write_hex(bytes: &[u8], out: &mut Vec<u8>) {
    out.reserve(2 + bytes.len() * 2);
    out.extend_from_slice(b"\\x");
    write_hex_digits(bytes, out);
}

/// The bytes as lower-case hex digits, two a byte (also `encode(..., 'hex')`).
pub fn write_hex_digits(bytes: &[u8], out: &mut Vec<u8>) {
    for &b in bytes {
        out.push(HEX_DIGITS[usize::from(b >> 4)]);
        out.push(HEX_DIGITS[usize::from(b & 0xf)]);
    }
}

/// byteaout with `bytea_output = escape`: printable ASCII as itself, a backslash doubled,
/// every other byte as `\ooo`.
pub fn write_escape(bytes: &[u8], out: &mut Vec<u8>) {
    write_escaped(bytes, |b| !(0x20..=0x7e).contains(&b), out);
}

/// `encode(..., 'escape')` (esc_encode): only NUL and bytes with the high bit set become
/// `\ooo`; other control characters stay as they are.
pub fn write_escape_encoded(bytes: &[u8], out: &mut Vec<u8>) {
    write_escaped(bytes, |b| b == 0 || b >= 0x80, out);
}

fn write_escaped(bytes: &[u8], octal: impl Fn(u8) -> bool, out: &mut Vec<u8>) {
    for &b in bytes {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            _ if !octal(b) => out.push(b),
            _ => out.extend_from_slice(&[
                b'\\',
                b'0' + (b >> 6),
                b'0' + ((b >> 3) & 7),
                b'0' + (b & 7),
            ]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_and_escape_round_trip() -> Result<()> {
        assert_eq!(parse_bytea("\\xDEAD beef")?, [0xde, 0xad, 0xbe, 0xef]);
        assert_eq!(parse_bytea("a\\000\\\\b")?, b"a\0\\b");
        assert!(parse_bytea("\\x1").is_err());
        assert!(parse_bytea("\\xzz").is_err());
        assert!(parse_bytea("a\\9").is_err());
        let mut out = Vec::new();
        write_hex(&[0xde, 0x0a], &mut out);
        assert_eq!(out, b"\\xde0a");
        out.clear();
        write_escape(b"a\0\\\xff", &mut out);
        assert_eq!(out, b"a\\000\\\\\\377");
        Ok(())
    }
}
