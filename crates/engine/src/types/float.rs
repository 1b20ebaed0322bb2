//! float4/float8 text input and output as PostgreSQL 15 (shortest round-trip, `1e+20`),
//! and PostgreSQL's float ordering.
//!
//! Output follows float8out/float4out with the default `extra_float_digits = 1`: the shortest
//! digit string that reads back to the same value (Rust's `{:e}` formatting computes it), laid
//! out in fixed notation when the decimal exponent is in [-4, 15) for float8 or [-4, 6) for
//! float4, and as `1.5e-05` / `1e+20` otherwise. Input follows float8in/float4in: strtod
//! syntax between optional whitespace, the special words in any case, and a range error when
//! a finite number overflows or a non-zero number underflows to zero.

use std::cmp::Ordering;
use std::fmt::Write as _;

use crate::error::{Error, Result};

pub fn write_f64(value: f64, out: &mut Vec<u8>) {
    if let Some(special) = special_name(value.is_nan(), value.is_infinite(), value < 0.0) {
        out.extend_from_slice(special.as_bytes());
        return;
    }
    let mut buf = StackBuf::new();
    // Writing into a fixed buffer cannot fail: an f64 in `{:e}` form is at most 24 bytes.
    let _ = write!(buf, "{value:e}");
    write_shortest(buf.as_bytes(), 15, out);
}

pub fn write_f32(value: f32, out: &mut Vec<u8>) {
    if let Some(special) = special_name(value.is_nan(), value.is_infinite(), value < 0.0) {
        out.extend_from_slice(special.as_bytes());
        return;
    }
    let mut buf = StackBuf::new();
    let _ = write!(buf, "{value:e}");
    write_shortest(buf.as_bytes(), 6, out);
}

/// float8in: 22P02 on bad syntax, 22003 `"1e999" is out of range for type double precision`.
pub fn parse_f64(text: &str) -> Result<f64> {
    let number = trim_pg_space(text);
    let value: f64 = number
        .parse()
        .map_err(|_| Error::invalid_input("double precision", text))?;
    check_range(
        number,
        value.is_infinite(),
        value == 0.0,
        "double precision",
    )?;
    Ok(value)
}

pub fn parse_f32(text: &str) -> Result<f32> {
    let number = trim_pg_space(text);
    let value: f32 = number
        .parse()
        .map_err(|_| Error::invalid_input("real", text))?;
    check_range(number, value.is_infinite(), value == 0.0, "real")?;
    Ok(value)
}

/// PostgreSQL's order: NaN equals NaN and sorts above everything; -0 equals 0.
pub fn total_cmp_f64(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

pub fn total_cmp_f32(a: f32, b: f32) -> Ordering {
    total_cmp_f64(f64::from(a), f64::from(b))
}

/// The characters C's isspace() accepts, which PostgreSQL's input functions skip.
pub(crate) fn is_pg_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0B' | '\x0C')
}

pub(crate) fn trim_pg_space(text: &str) -> &str {
    text.trim_matches(is_pg_space)
}

fn special_name(nan: bool, infinite: bool, negative: bool) -> Option<&'static str> {
    if nan {
        Some("NaN")
    } else if infinite {
        Some(if negative { "-Infinity" } else { "Infinity" })
    } else {
        None
    }
}

/// strtod sets ERANGE and PostgreSQL rejects the value when a finite literal overflows to
/// infinity or a literal with a non-zero digit underflows to zero.
fn check_range(number: &str, infinite: bool, zero: bool, type_name: &str) -> Result<()> {
    let is_word = number
        .trim_start_matches(['+', '-'])
        .starts_with(|c: char| c.is_ascii_alphabetic());
    let significand = number.split(['e', 'E']).next().unwrap_or_default();
    let nonzero = significand.bytes().any(|b| (b'1'..=b'9').contains(&b));
    if (infinite && !is_word) || (zero && nonzero) {
        return Err(Error::out_of_range(format!(
            "\"{number}\" is out of range for type {type_name}"
        )));
    }
    Ok(())
}

/// Lays out Rust's shortest `{:e}` form (`-1.2345e-7`) the way PostgreSQL prints it: fixed
/// notation for decimal exponents in [-4, `fixed_below`), else `d.ddde±XX`.
fn write_shortest(sci: &[u8], fixed_below: i32, out: &mut Vec<u8>) {
    let (negative, rest) = match sci.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, sci),
    };
    let e_pos = rest.iter().position(|&b| b == b'e').unwrap_or(rest.len());
    let (mantissa, exp_part) = rest.split_at(e_pos);
    let exponent = parse_exponent(exp_part.get(1..).unwrap_or_default());
    let mut digits = [0u8; 24];
    let mut ndigits = 0;
    for &b in mantissa.iter().filter(|b| b.is_ascii_digit()) {
        if ndigits < digits.len() {
            digits[ndigits] = b;
            ndigits += 1;
        }
    }
    let digits = &digits[..ndigits];
    if negative {
        out.push(b'-');
    }
    if (-4..fixed_below).contains(&exponent) {
        if exponent < 0 {
            out.extend_from_slice(b"0.");
            out.resize(out.len() + (-exponent - 1) as usize, b'0');
            out.extend_from_slice(digits);
        } else {
            let int_len = exponent as usize + 1;
            if digits.len() <= int_len {
                out.extend_from_slice(digits);
                out.resize(out.len() + int_len - digits.len(), b'0');
            } else {
                out.extend_from_slice(&digits[..int_len]);
                out.push(b'.');
                out.extend_from_slice(&digits[int_len..]);
            }
        }
    } else {
        out.push(digits.first().copied().unwrap_or(b'0'));
        if digits.len() > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.push(b'e');
        out.push(if exponent < 0 { b'-' } else { b'+' });
        let magnitude = exponent.unsigned_abs();
        if magnitude < 10 {
            out.push(b'0');
        }
        crate::vector::write_int(i64::from(magnitude), out);
    }
}

fn parse_exponent(text: &[u8]) -> i32 {
    let (negative, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let magnitude = digits
        .iter()
        .fold(0i32, |acc, &d| acc * 10 + i32::from(d - b'0'));
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

/// A small fixed buffer to format into without allocating.
pub(crate) struct StackBuf {
    bytes: [u8; 64],
    len: usize,
}

impl StackBuf {
    pub(crate) fn new() -> StackBuf {
        StackBuf {
            bytes: [0; 64],
            len: 0,
        }
    }

    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    pub(crate) fn as_str(&self) -> &str {
        // Only `&str` pieces are ever written, so the filled prefix is UTF-8.
        std::str::from_utf8(self.as_bytes()).unwrap_or_default()
    }
}

impl std::fmt::Write for StackBuf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        if end > self.bytes.len() {
            return Err(std::fmt::Error);
        }
        self.bytes[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f8(v: f64) -> String {
        let mut out = Vec::new();
        write_f64(v, &mut out);
        String::from_utf8(out).expect("invariant: ascii")
    }

    fn f4(v: f32) -> String {
        let mut out = Vec::new();
        write_f32(v, &mut out);
        String::from_utf8(out).expect("invariant: ascii")
    }

    // Expected strings checked against PostgreSQL 15 (`select <v>::float8`).
    #[test]
    fn float8_output() {
        assert_eq!(f8(1.5), "1.5");
        assert_eq!(f8(1e15), "1e+15");
        assert_eq!(f8(123456789012345.0), "123456789012345");
        assert_eq!(f8(1e-5), "1e-05");
        assert_eq!(f8(1.5e-5), "1.5e-05");
        assert_eq!(f8(0.0001), "0.0001");
        assert_eq!(f8(-0.0), "-0");
        assert_eq!(f8(0.0), "0");
        assert_eq!(f8(1e300 * -1.2345678901234567), "-1.2345678901234567e+300");
        assert_eq!(f8(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(f8(1e20), "1e+20");
        assert_eq!(f8(1e-310), "1e-310");
        assert_eq!(f8(100.0), "100");
        assert_eq!(f8(-2.5), "-2.5");
        assert_eq!(f8(f64::NAN), "NaN");
        assert_eq!(f8(f64::INFINITY), "Infinity");
        assert_eq!(f8(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(f8(f64::from(0.1f32)), "0.10000000149011612");
    }

    #[test]
    fn float4_output() {
        assert_eq!(f4(1e-5), "1e-05");
        assert_eq!(f4(100000.0), "100000");
        assert_eq!(f4(1e6), "1e+06");
        assert_eq!(f4(123456.0), "123456");
        assert_eq!(f4(1.5e-5), "1.5e-05");
        assert_eq!(f4(3.4028235e38), "3.4028235e+38");
        assert_eq!(f4(1.4e-45), "1e-45");
        assert_eq!(f4(0.1), "0.1");
        assert_eq!(f4(-0.0), "-0");
    }

    #[test]
    fn float_input() {
        assert_eq!(parse_f64(" 1.5 ").ok(), Some(1.5));
        assert_eq!(parse_f64("1.").ok(), Some(1.0));
        assert_eq!(parse_f64(".5").ok(), Some(0.5));
        assert_eq!(parse_f64("+.5e1").ok(), Some(5.0));
        assert_eq!(parse_f64("-inf").ok(), Some(f64::NEG_INFINITY));
        assert_eq!(parse_f64("  -Infinity  ").ok(), Some(f64::NEG_INFINITY));
        assert_eq!(parse_f32("infinity").ok(), Some(f32::INFINITY));
        assert!(parse_f64("nan").is_ok_and(f64::is_nan));
        assert!(parse_f64("NaN").is_ok_and(f64::is_nan));
        assert_eq!(parse_f64("1e-310").ok(), Some(1e-310));
        assert_eq!(parse_f64("0e-9999").ok(), Some(0.0));
        assert!(parse_f64("-0").is_ok_and(|v| v == 0.0 && v.is_sign_negative()));

        let err = parse_f64(".").expect_err("syntax");
        assert_eq!(err.sqlstate(), "22P02");
        assert_eq!(
            err.message,
            "invalid input syntax for type double precision: \".\""
        );
        assert_eq!(
            parse_f64("in").expect_err("syntax").message,
            "invalid input syntax for type double precision: \"in\""
        );
        let err = parse_f64(" 1e999").expect_err("range");
        assert_eq!(err.sqlstate(), "22003");
        assert_eq!(
            err.message,
            "\"1e999\" is out of range for type double precision"
        );
        assert_eq!(
            parse_f64("1e-400").expect_err("range").message,
            "\"1e-400\" is out of range for type double precision"
        );
        assert_eq!(
            parse_f32("1e40").expect_err("range").message,
            "\"1e40\" is out of range for type real"
        );
    }

    #[test]
    fn ordering() {
        assert_eq!(total_cmp_f64(f64::NAN, f64::NAN), Ordering::Equal);
        assert_eq!(total_cmp_f64(f64::NAN, f64::INFINITY), Ordering::Greater);
        assert_eq!(total_cmp_f64(1.0, f64::NAN), Ordering::Less);
        assert_eq!(total_cmp_f64(-0.0, 0.0), Ordering::Equal);
        assert_eq!(total_cmp_f32(-1.0, 2.0), Ordering::Less);
    }
}
