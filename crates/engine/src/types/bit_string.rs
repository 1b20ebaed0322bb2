//! Bit strings (`bit(n)`, `bit varying(n)`) with PostgreSQL's varbit.c rules: input, length
//! modifiers, integer conversions, the bitwise operators and the binary format.
//!
//! A value is kept as its output text, one ASCII `0` or `1` per bit. That is the text and
//! COPY format as it is, and byte order on it is bitcmp's order (the bits compared in turn,
//! a proper prefix first), so sorting, grouping, hashing and unique keys need nothing of
//! their own; the cost is eight times the memory of packed bits.

use super::DataType;
use crate::error::{Error, Result, SqlState};

/// bit_in / varbit_in without a modifier: binary digits, or hexadecimal ones (four bits
/// each) after an `x`; a leading `b` is allowed and ignored.
pub fn parse_bits(text: &str) -> Result<String> {
    let (hex, digits) = match text.as_bytes().first() {
        Some(b'x' | b'X') => (true, &text[1..]),
        Some(b'b' | b'B') => (false, &text[1..]),
        _ => (false, text),
    };
    let mut out = String::with_capacity(digits.len() * if hex { 4 } else { 1 });
    for c in digits.chars() {
        match (hex, c) {
            (false, '0' | '1') => out.push(c),
            (false, _) => return Err(invalid_digit(c, "binary")),
            (true, _) => {
                let nibble = c
                    .to_digit(16)
                    .ok_or_else(|| invalid_digit(c, "hexadecimal"))?;
                for shift in (0..4).rev() {
                    out.push(bit_char((nibble >> shift) & 1 == 1));
                }
            }
        }
    }
    Ok(out)
}

fn invalid_digit(c: char, kind: &str) -> Error {
    Error::new(
        SqlState::InvalidTextRepresentation,
        format!("\"{c}\" is not a valid {kind} digit"),
    )
}

fn bit_char(set: bool) -> char {
    if set {
        '1'
    } else {
        '0'
    }
}

/// What a length modifier asks of a bit string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BitLength {
    /// `bit(n)`: exactly n bits.
    Exactly(u32),
    /// `bit varying(n)`: at most n bits.
    AtMost(u32),
}

impl BitLength {
    /// The modifier of a bit string type; `None` for no modifier or another type.
    pub fn of(ty: DataType) -> Option<BitLength> {
        match ty {
            DataType::Bit(Some(n)) => Some(BitLength::Exactly(n)),
            DataType::VarBit(Some(n)) => Some(BitLength::AtMost(n)),
            _ => None,
        }
    }

    /// [`BitLength::fit`] into a new string.
    pub fn fitted(self, bits: &str, explicit: bool) -> Result<String> {
        let mut out = Vec::with_capacity(bits.len());
        self.fit(bits, explicit, &mut out)?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// Fits `bits` to the modifier. An explicit cast pads `bit(n)` with zeros on the right
    /// and cuts what is too long; elsewhere a wrong length is 22026 (bit) or 22001
    /// (bit varying), as PostgreSQL's length coercion functions bit() and varbit() do.
    pub fn fit(self, bits: &str, explicit: bool, out: &mut Vec<u8>) -> Result<()> {
        let len = bits.len();
        match self {
            BitLength::Exactly(n) => {
                let n = n as usize;
                if len != n && !explicit {
                    return Err(Error::new(
                        SqlState::StringDataLengthMismatch,
                        format!("bit string length {len} does not match type bit({n})"),
                    ));
                }
                out.extend_from_slice(&bits.as_bytes()[..len.min(n)]);
                out.resize(out.len() + n.saturating_sub(len), b'0');
            }
            BitLength::AtMost(n) => {
                let n = n as usize;
                if len > n && !explicit {
                    return Err(Error::new(
                        SqlState::StringDataRightTruncation,
                        format!("bit string too long for type bit varying({n})"),
                    ));
                }
                out.extend_from_slice(&bits.as_bytes()[..len.min(n)]);
            }
        }
        Ok(())
    }
}

/// bitfromint4 / bitfromint8: the `n` rightmost bits of the integer, sign-extended when
/// `n` is wider than it.
pub fn write_from_int(value: i64, n: u32, out: &mut Vec<u8>) {
    out.extend(
        (0..n)
            .rev()
            .map(|i| b'0' + ((value >> i.min(63)) & 1) as u8),
    );
}

/// bittoint4 / bittoint8: the bits as an unsigned number of at most `width` bits,
/// reinterpreted as signed; longer strings are `message` (22003).
pub fn to_int(bits: &str, width: u32, message: &'static str) -> Result<i64> {
    if bits.len() > width as usize {
        return Err(Error::out_of_range(message));
    }
    let value = bits
        .bytes()
        .fold(0u64, |acc, b| (acc << 1) | u64::from(b == b'1'));
    Ok(match width {
        32 => i64::from(value as u32 as i32),
        _ => value as i64,
    })
}

/// The bitwise operators of two bit strings, which must be of one length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BitwiseOp {
    And,
    Or,
    Xor,
}

impl BitwiseOp {
    pub fn apply(self, left: &str, right: &str, out: &mut Vec<u8>) -> Result<()> {
        let name = match self {
            BitwiseOp::And => "AND",
            BitwiseOp::Or => "OR",
            BitwiseOp::Xor => "XOR",
        };
        if left.len() != right.len() {
            return Err(Error::new(
                SqlState::StringDataLengthMismatch,
                format!("cannot {name} bit strings of different sizes"),
            ));
        }
        out.extend(left.bytes().zip(right.bytes()).map(|(l, r)| {
            let (l, r) = (l == b'1', r == b'1');
            let set = match self {
                BitwiseOp::And => l & r,
                BitwiseOp::Or => l | r,
                BitwiseOp::Xor => l ^ r,
            };
            b'0' + u8::from(set)
        }));
        Ok(())
    }
}

/// `~bits`.
pub fn write_not(bits: &str, out: &mut Vec<u8>) {
    out.extend(bits.bytes().map(|b| if b == b'1' { b'0' } else { b'1' }));
}

/// `bits << count` (a negative count shifts right): the length stays, zeros come in.
pub fn write_shift_left(bits: &str, count: i32, out: &mut Vec<u8>) {
    let len = bits.len();
    let by = (count.unsigned_abs() as usize).min(len);
    if count >= 0 {
        out.extend_from_slice(&bits.as_bytes()[by..]);
        out.resize(out.len() + by, b'0');
    } else {
        out.resize(out.len() + by, b'0');
        out.extend_from_slice(&bits.as_bytes()[..len - by]);
    }
}

/// bitsubstr: `count` bits from the 1-based position `start`, clipped as substring()
/// clips (positions before the first count towards the length).
pub fn substring(bits: &str, start: i32, count: Option<i32>) -> Result<&str> {
    Ok(&bits[super::substring::range(bits.len(), start, count)?])
}

/// bitoverlay: `bits` with `count` bits from `start` replaced by `placing` (`count`
/// defaults to the length of `placing`).
pub fn write_overlay(
    bits: &str,
    placing: &str,
    start: i32,
    count: Option<i32>,
    out: &mut Vec<u8>,
) -> Result<()> {
    let count = count.unwrap_or(placing.len() as i32);
    if start <= 0 {
        return Err(Error::new(
            SqlState::SubstringError,
            "negative substring length not allowed",
        ));
    }
    let head = substring(bits, 1, Some(start - 1))?;
    let tail = substring(bits, start.saturating_add(count), None)?;
    out.extend_from_slice(head.as_bytes());
    out.extend_from_slice(placing.as_bytes());
    out.extend_from_slice(tail.as_bytes());
    Ok(())
}

/// bitposition: the 1-based position of the first occurrence of `needle`, 0 if none; an
/// empty needle is found at 1, except in an empty string (checked first, as PostgreSQL does).
pub fn position(haystack: &str, needle: &str) -> i32 {
    if haystack.is_empty() {
        return 0;
    }
    if needle.is_empty() {
        return 1;
    }
    haystack.find(needle).map_or(0, |at| at as i32 + 1)
}

fn bit_index_error(index: i32, len: usize) -> Error {
    Error::new(
        SqlState::ArraySubscriptError,
        format!(
            "bit index {index} out of valid range (0..{})",
            len as i64 - 1
        ),
    )
}

/// get_bit: the bit at the 0-based `index`, counted from the left.
pub fn get_bit(bits: &str, index: i32) -> Result<i32> {
    match usize::try_from(index)
        .ok()
        .and_then(|i| bits.as_bytes().get(i))
    {
        Some(&b) => Ok(i32::from(b == b'1')),
        None => Err(bit_index_error(index, bits.len())),
    }
}

/// set_bit: `bits` with the bit at `index` set to `value` (0 or 1).
pub fn write_set_bit(bits: &str, index: i32, value: i32, out: &mut Vec<u8>) -> Result<()> {
    let at = usize::try_from(index)
        .ok()
        .filter(|&i| i < bits.len())
        .ok_or_else(|| bit_index_error(index, bits.len()))?;
    if value != 0 && value != 1 {
        return Err(Error::new(
            SqlState::InvalidParameterValue,
            "new bit must be 0 or 1",
        ));
    }
    out.extend_from_slice(bits.as_bytes());
    let slot = out.len() - bits.len() + at;
    out[slot] = b'0' + value as u8;
    Ok(())
}

/// bit_count: how many bits are set.
pub fn count_ones(bits: &str) -> i64 {
    bits.bytes().filter(|&b| b == b'1').count() as i64
}

/// octet_length: the bytes the packed bits take.
pub fn octet_length(bits: &str) -> i32 {
    bits.len().div_ceil(8) as i32
}

/// The binary format (bit_send / varbit_send): the length in bits as a big-endian int4,
/// then the bits packed most significant first, the last byte padded with zeros.
pub fn write_binary(bits: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(&(bits.len() as i32).to_be_bytes());
    for chunk in bits.as_bytes().chunks(8) {
        let byte = chunk
            .iter()
            .enumerate()
            .fold(0u8, |acc, (i, &b)| acc | (u8::from(b == b'1') << (7 - i)));
        out.push(byte);
    }
}

/// bit_recv / varbit_recv: the inverse of [`write_binary`]; padding bits must be zero.
pub fn read_binary(data: &[u8]) -> Result<String> {
    let malformed = |message: &str| Error::new(SqlState::InvalidBinaryRepresentation, message);
    let (len, packed) = data
        .split_first_chunk::<4>()
        .ok_or_else(|| malformed("insufficient data left in message"))?;
    let len = usize::try_from(i32::from_be_bytes(*len))
        .map_err(|_| malformed("invalid length in external bit string"))?;
    if packed.len() != len.div_ceil(8) {
        return Err(malformed("insufficient data left in message"));
    }
    let bits: String = (0..len)
        .map(|i| bit_char(packed[i / 8] & (0x80 >> (i % 8)) != 0))
        .collect();
    let padding_set = len % 8 != 0 && packed[len / 8] & (0xFF >> (len % 8)) != 0;
    if padding_set {
        return Err(malformed("invalid length in external bit string"));
    }
    Ok(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fitted(bits: &str, length: BitLength, explicit: bool) -> Result<String> {
        length.fitted(bits, explicit)
    }

    #[test]
    fn input_forms() {
        assert_eq!(parse_bits("b101").ok().as_deref(), Some("101"));
        assert_eq!(parse_bits("X1f").ok().as_deref(), Some("00011111"));
        assert_eq!(parse_bits("").ok().as_deref(), Some(""));
        assert!(parse_bits("12").is_err());
        assert!(parse_bits("x1g").is_err());
    }

    #[test]
    fn length_modifiers() {
        assert_eq!(
            fitted("101", BitLength::Exactly(5), true).ok().as_deref(),
            Some("10100")
        );
        assert!(fitted("101", BitLength::Exactly(5), false).is_err());
        assert_eq!(
            fitted("101", BitLength::AtMost(2), true).ok().as_deref(),
            Some("10")
        );
        assert!(fitted("101", BitLength::AtMost(2), false).is_err());
    }

    #[test]
    fn integers() {
        let mut out = Vec::new();
        write_from_int(-5, 8, &mut out);
        assert_eq!(out, b"11111011");
        assert_eq!(
            to_int("11111111111111111111111111111111", 32, "x").ok(),
            Some(-1)
        );
        assert!(to_int(&"1".repeat(33), 32, "x").is_err());
    }

    #[test]
    fn binary_round_trip() {
        let mut out = Vec::new();
        write_binary("1010000011", &mut out);
        assert_eq!(out, [0, 0, 0, 10, 0b1010_0000, 0b1100_0000]);
        assert_eq!(read_binary(&out).ok().as_deref(), Some("1010000011"));
        assert!(read_binary(&[0, 0, 0, 2, 0xFF]).is_err());
    }
}
