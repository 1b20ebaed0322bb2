//! float4/float8 text input and output as PostgreSQL 15 (shortest round-trip, `1e+20`),
//! and PostgreSQL's float ordering.
//!
//! Output follows float8out/float4out with the default `extra_float_digits = 1`: the shortest
//! digit string strictly between the midpoints to the neighbouring floats, ties to even, as
//! PostgreSQL's Ryu computes it (the `ryu` crate gives the same digits but for values whose
//! pick lies exactly on a midpoint, corrected below), laid out in fixed notation when the decimal exponent is in [-4, 15) for float8 or [-4, 6) for
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
    let magnitude = value.abs();
    let bits = magnitude.to_bits();
    let binary = Binary::new(bits & ((1 << 52) - 1), (bits >> 52) as i32, 52, 1075);
    let decimal = shortest(magnitude, &binary, 17);
    decimal.write(value.is_sign_negative(), 15, out);
}

pub fn write_f32(value: f32, out: &mut Vec<u8>) {
    if let Some(special) = special_name(value.is_nan(), value.is_infinite(), value < 0.0) {
        out.extend_from_slice(special.as_bytes());
        return;
    }
    let magnitude = value.abs();
    let bits = u64::from(magnitude.to_bits());
    let binary = Binary::new(bits & ((1 << 23) - 1), (bits >> 23) as i32, 23, 150);
    let decimal = shortest(magnitude, &binary, 9);
    decimal.write(value.is_sign_negative(), 6, out);
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

/// A positive binary float as `mantissa * 2^exponent`, with the neighbouring midpoints that
/// bound the decimals reading back to it.
struct Binary {
    mantissa: u64,
    exponent: i32,
    /// At a power of two the gap below is half the gap above.
    narrow_below: bool,
}

impl Binary {
    fn new(fraction: u64, biased_exponent: i32, fraction_bits: u32, bias: i32) -> Binary {
        if biased_exponent == 0 {
            return Binary {
                mantissa: fraction,
                exponent: 1 - bias,
                narrow_below: false,
            };
        }
        Binary {
            mantissa: fraction | (1 << fraction_bits),
            exponent: biased_exponent - bias,
            narrow_below: fraction == 0 && biased_exponent > 1,
        }
    }

    /// Whether `digits * 10^power` is exactly one of the two midpoints to the neighbours.
    fn on_boundary(&self, digits: u64, power: i32) -> bool {
        let m = u128::from(self.mantissa);
        let upper = (2 * m + 1, self.exponent - 1);
        let lower = if self.narrow_below {
            (4 * m - 1, self.exponent - 2)
        } else {
            (2 * m - 1, self.exponent - 1)
        };
        [upper, lower]
            .into_iter()
            .any(|(b, f)| decimal_equals_binary(digits, power, b, f))
    }

    /// Whether the value is exactly halfway between two `len`-digit decimals: its exact
    /// expansion has `len + 1` significant digits ending in 5 at `10^power`.
    fn is_tie(&self, len: u32, power: i32) -> bool {
        let (m, e) = strip_twos(u128::from(self.mantissa), self.exponent);
        if e >= 0 {
            // An odd integer is exact; an even one cannot end in 5.
            return false;
        }
        if power != e {
            return false;
        }
        let k = e.unsigned_abs();
        let Some(expansion) = 5u128.checked_pow(k).and_then(|p| p.checked_mul(m)) else {
            return false;
        };
        expansion % 10 == 5 && expansion.checked_ilog10() == Some(len)
    }
}

/// The decimal PostgreSQL prints: `digits * 10^(exponent - len + 1)`, `len` digits.
struct Shortest {
    digits: u64,
    len: u32,
    /// Decimal exponent of the first digit.
    exponent: i32,
}

/// PostgreSQL's float output (its Ryu variant): the fewest digits strictly between the
/// midpoints to the neighbouring floats, the value rounded to that many digits with ties to
/// even. The `ryu` crate (four times faster than `{:e}`) agrees except when its pick lies
/// exactly on a midpoint (it accepts those for even mantissas, PostgreSQL's build does not);
/// exact ties are checked too, as `{:e}` rounds them up. Only those rare cases take the
/// slower search.
fn shortest<F>(magnitude: F, binary: &Binary, max_len: u32) -> Shortest
where
    F: Copy + PartialEq + std::fmt::LowerExp + std::str::FromStr + ryu::Float,
{
    let mut buf = ryu::Buffer::new();
    let fast = parse_ryu(buf.format_finite(magnitude).as_bytes());
    let power = fast.exponent - fast.len as i32 + 1;
    if fast.digits == 0
        || !(binary.on_boundary(fast.digits, power) || binary.is_tie(fast.len, power - 1))
    {
        return fast;
    }
    let inside = |candidate: &Shortest| {
        let power = candidate.exponent - candidate.len as i32 + 1;
        let mut text = StackBuf::new();
        let _ = write!(text, "{}e{}", candidate.digits, power);
        text.as_str().parse::<F>().is_ok_and(|v| v == magnitude)
            && !binary.on_boundary(candidate.digits, power)
    };
    for len in fast.len..=max_len {
        let mut text = StackBuf::new();
        // `{:.N e}` rounds the exact value half to even, as Ryu breaks exact ties.
        let precision = len as usize - 1;
        let _ = write!(text, "{magnitude:.precision$e}");
        let rounded = parse_scientific(text.as_bytes());
        if inside(&rounded) {
            return rounded;
        }
        // At a power of two the rounded value can fall below the narrower lower gap while
        // its upper neighbour is inside; Ryu then takes the neighbour.
        let unit = 10u64.pow(rounded.len - 1);
        let above = Shortest {
            digits: rounded.digits + 1,
            ..rounded
        };
        let above = if above.digits / unit >= 10 {
            Shortest {
                digits: above.digits / 10,
                len: rounded.len,
                exponent: rounded.exponent + 1,
            }
        } else {
            above
        };
        if inside(&above) {
            return above;
        }
    }
    fast
}

/// `m * 2^e` with the trailing zero bits of `m` moved into `e`.
fn strip_twos(m: u128, e: i32) -> (u128, i32) {
    if m == 0 {
        return (0, 0);
    }
    let zeros = m.trailing_zeros();
    (m >> zeros, e + zeros as i32)
}

/// Whether `digits * 10^power == b * 2^f` exactly, in 128-bit arithmetic (values that do not
/// fit cannot be equal to a decimal of at most 19 digits).
fn decimal_equals_binary(digits: u64, power: i32, b: u128, f: i32) -> bool {
    // d / 10^k is a binary fraction only if 5^k divides d: one u64 remainder turns away
    // nearly every value before the 128-bit arithmetic below.
    if power < 0 {
        let k = power.unsigned_abs();
        if k > 27 || !digits.is_multiple_of(5u64.pow(k)) {
            return false;
        }
    }
    let (mut d, mut p) = (u128::from(digits), power);
    while d != 0 && d % 10 == 0 {
        d /= 10;
        p += 1;
    }
    let (b, f) = strip_twos(b, f);
    if d == 0 || b == 0 {
        return d == b;
    }
    if p >= 0 {
        // d * 5^p * 2^p == b * 2^f with b odd: 5^p divides b, and the twos must match.
        let Some(five) = 5u128.checked_pow(p as u32) else {
            return false;
        };
        if f < 0 || b % five != 0 {
            return false;
        }
        let (d, twos) = strip_twos(d, p);
        d == b / five && twos == f
    } else {
        // d / 10^k == b / 2^g: b * 5^k * 2^g == d * 2^k, with b and 5^k odd.
        let k = p.unsigned_abs();
        let (d, twos) = strip_twos(d, 0);
        let Some(scaled) = 5u128.checked_pow(k).and_then(|five| five.checked_mul(b)) else {
            return false;
        };
        scaled == d && i64::from(f) + i64::from(k) == i64::from(twos)
    }
}

/// Reads Rust's `{:e}` text (`1.2345e-7`, `5e0`) into digits and exponent.
fn parse_scientific(sci: &[u8]) -> Shortest {
    let e_pos = sci.iter().position(|&b| b == b'e').unwrap_or(sci.len());
    let (mantissa, exp_part) = sci.split_at(e_pos);
    let mut digits = 0u64;
    let mut len = 0;
    for &b in mantissa.iter().filter(|b| b.is_ascii_digit()) {
        digits = digits * 10 + u64::from(b - b'0');
        len += 1;
    }
    // PostgreSQL never prints trailing zeros in the significand.
    while len > 1 && digits.is_multiple_of(10) {
        digits /= 10;
        len -= 1;
    }
    let exp_text = exp_part.get(1..).unwrap_or_default();
    let (negative, exp_digits) = match exp_text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, exp_text),
    };
    let magnitude = exp_digits
        .iter()
        .fold(0i32, |acc, &d| acc * 10 + i32::from(d - b'0'));
    Shortest {
        digits,
        len,
        exponent: if negative { -magnitude } else { magnitude },
    }
}

/// Reads ryu's text (`1.5e-7`, `123.0`, `0.001`, `1e20`) into digits and exponent.
fn parse_ryu(text: &[u8]) -> Shortest {
    let e_pos = text.iter().position(|&b| b == b'e').unwrap_or(text.len());
    let (mantissa, exp_part) = text.split_at(e_pos);
    // parse_scientific reads the exponent of `e-7` (an empty mantissa is no digits).
    let scientific = parse_scientific(exp_part);
    let point = mantissa
        .iter()
        .position(|&b| b == b'.')
        .unwrap_or(mantissa.len());
    let (mut digits, mut len) = (0u64, 0u32);
    // The decimal exponent of the first significant digit.
    let mut first = None;
    for (i, &b) in mantissa
        .iter()
        .enumerate()
        .filter(|(_, b)| b.is_ascii_digit())
    {
        let digit = u64::from(b - b'0');
        if first.is_none() {
            if digit == 0 {
                continue;
            }
            first = Some(point as i32 - i as i32 - i32::from(i < point));
        }
        digits = digits * 10 + digit;
        len += 1;
    }
    while len > 1 && digits.is_multiple_of(10) {
        digits /= 10;
        len -= 1;
    }
    Shortest {
        digits,
        len: len.max(1),
        exponent: first.unwrap_or(0) + scientific.exponent,
    }
}

impl Shortest {
    /// Lays the digits out as PostgreSQL does: fixed notation for decimal exponents in
    /// [-4, `fixed_below`), else `d.ddde±XX`.
    fn write(&self, negative: bool, fixed_below: i32, out: &mut Vec<u8>) {
        let mut buf = [0u8; 20];
        let mut pos = buf.len();
        let mut rest = self.digits;
        for _ in 0..self.len {
            pos -= 1;
            buf[pos] = b'0' + (rest % 10) as u8;
            rest /= 10;
        }
        let digits = &buf[pos..];
        if negative {
            out.push(b'-');
        }
        let exponent = self.exponent;
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
            out.push(digits[0]);
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
        // Rust's shortest form would be 5.299064834871378e+16, which sits exactly on the
        // midpoint to the next double; PostgreSQL's Ryu excludes midpoints.
        assert_eq!(f8(5.299064834871378e16), "5.2990648348713776e+16");
        assert_eq!(f8(5e-324), "5e-324");
        assert_eq!(f8(f64::from_bits(1)), "5e-324");
        assert_eq!(f8(2f64.powi(1023)), "8.98846567431158e+307");
        assert_eq!(f8(9007199254740993.0), "9.007199254740992e+15");
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
        // Exact ties between two shortest candidates go to the even one, as in Ryu.
        assert_eq!(f4(358240.13), "358240.12");
        assert_eq!(f4(-1462245.3), "-1.4622452e+06");
        assert_eq!(f4(16777217.0), "1.6777216e+07");
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
