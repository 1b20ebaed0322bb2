//! Functions and operators of bytea (`||`, length, substring, position, overlay, trim,
//! encode/decode, md5, the sha2 family, get/set_byte, get/set_bit, bit_count) and
//! `gen_random_uuid()`, with PostgreSQL's errors.

use md5::{Digest as _, Md5};
use sha2::{Sha224, Sha256, Sha384, Sha512};

use super::kernel::{bytes, map_bytes_rows, map_rows, map_text_rows, texts, values};
use crate::error::{Error, Result, SqlState};
use crate::types::bytea;
use crate::vector::{Vector, VectorData};

pub(super) fn length(args: &[Vector]) -> Result<Vector> {
    let b = bytes(args, 0)?;
    map_rows(args, |row| Ok(b.get(row).len() as i32))
}

pub(super) fn concat(args: &[Vector]) -> Result<Vector> {
    let (l, r) = (bytes(args, 0)?, bytes(args, 1)?);
    map_bytes_rows(args, |row, out| {
        out.extend_from_slice(l.get(row));
        out.extend_from_slice(r.get(row));
        Ok(())
    })
}

/// `substr(bytes, start [, count])`: bytea_substr, positions in bytes.
pub(super) fn substr(args: &[Vector]) -> Result<Vector> {
    let b = bytes(args, 0)?;
    let start = values::<i32>(args, 1)?;
    let count = match args.len() > 2 {
        true => Some(values::<i32>(args, 2)?),
        false => None,
    };
    map_bytes_rows(args, |row, out| {
        out.extend_from_slice(substring(b.get(row), start[row], count.map(|c| c[row]))?);
        Ok(())
    })
}

/// bytea_substring: `count` bytes (or all the rest) from 1-based position `start`, which
/// may lie before the value.
fn substring(value: &[u8], start: i32, count: Option<i32>) -> Result<&[u8]> {
    Ok(&value[crate::types::substring::range(value.len(), start, count)?])
}

/// `overlay(bytes PLACING new FROM start [FOR count])`, as byteaoverlay.
pub(super) fn overlay(args: &[Vector]) -> Result<Vector> {
    let (b, placing, start) = (bytes(args, 0)?, bytes(args, 1)?, values::<i32>(args, 2)?);
    let count = match args.len() > 3 {
        true => Some(values::<i32>(args, 3)?),
        false => None,
    };
    map_bytes_rows(args, |row, out| {
        let (value, placing, start) = (b.get(row), placing.get(row), start[row]);
        let count = count.map_or(placing.len() as i32, |c| c[row]);
        let after = super::string::overlay_after(start, count)?;
        out.extend_from_slice(substring(value, 1, Some(start - 1))?);
        out.extend_from_slice(placing);
        out.extend_from_slice(substring(value, after, None)?);
        Ok(())
    })
}

/// btrim/ltrim/rtrim(bytes, set): the bytes of `set` taken off the chosen ends.
pub(super) fn trim(args: &[Vector], leading: bool, trailing: bool) -> Result<Vector> {
    let (b, set) = (bytes(args, 0)?, bytes(args, 1)?);
    map_bytes_rows(args, |row, out| {
        let (mut value, set) = (b.get(row), set.get(row));
        if leading {
            let kept = value.iter().position(|c| !set.contains(c));
            value = &value[kept.unwrap_or(value.len())..];
        }
        if trailing {
            let kept = value.iter().rposition(|c| !set.contains(c));
            value = &value[..kept.map_or(0, |at| at + 1)];
        }
        out.extend_from_slice(value);
        Ok(())
    })
}

/// `position(needle IN haystack)`, bound as strpos(haystack, needle): 1-based, 0 if absent.
pub(super) fn position(args: &[Vector]) -> Result<Vector> {
    let (haystack, needle) = (bytes(args, 0)?, bytes(args, 1)?);
    map_rows(args, |row| {
        let (h, n) = (haystack.get(row), needle.get(row));
        if n.is_empty() {
            return Ok(1);
        }
        Ok(h.windows(n.len())
            .position(|w| w == n)
            .map_or(0, |at| at as i32 + 1))
    })
}

fn unknown_encoding(name: &str) -> Error {
    Error::new(
        SqlState::InvalidParameterValue,
        format!("unrecognized encoding: \"{name}\""),
    )
}

/// `encode(bytes, 'hex' | 'base64' | 'escape')`.
pub(super) fn encode(args: &[Vector]) -> Result<Vector> {
    let (b, format) = (bytes(args, 0)?, texts(args, 1)?);
    map_text_rows(args, |row, out| {
        match format.get(row).to_ascii_lowercase().as_str() {
            "hex" => bytea::write_hex_digits(b.get(row), out),
            "base64" => write_base64(b.get(row), out),
            "escape" => bytea::write_escape_encoded(b.get(row), out),
            other => return Err(unknown_encoding(other)),
        }
        Ok(())
    })
}

/// `decode(text, 'hex' | 'base64' | 'escape')`.
pub(super) fn decode(args: &[Vector]) -> Result<Vector> {
    let (s, format) = (texts(args, 0)?, texts(args, 1)?);
    map_bytes_rows(args, |row, out| {
        let text = s.get(row);
        let decoded = match format.get(row).to_ascii_lowercase().as_str() {
            "hex" => bytea::parse_hex(text.as_bytes())?,
            "base64" => read_base64(text.as_bytes())?,
            // The escape format without byteain's `\x` prefix rule.
            "escape" => {
                bytea::parse_bytea(text).and_then(|value| match text.starts_with("\\x") {
                    true => Err(Error::new(
                        SqlState::InvalidTextRepresentation,
                        "invalid input syntax for type bytea",
                    )),
                    false => Ok(value),
                })?
            }
            other => return Err(unknown_encoding(other)),
        };
        out.extend_from_slice(&decoded);
        Ok(())
    })
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/// PostgreSQL breaks base64 output into lines of this many characters.
const BASE64_LINE_CHARS: usize = 76;

fn write_base64(input: &[u8], out: &mut Vec<u8>) {
    let mut line = 0;
    for chunk in input.chunks(3) {
        if line == BASE64_LINE_CHARS {
            out.push(b'\n');
            line = 0;
        }
        let word = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(match i <= chunk.len() {
                true => BASE64[((word >> (18 - 6 * i)) & 63) as usize],
                false => b'=',
            });
        }
        line += 4;
    }
}

/// pg_base64_decode: white space skipped, `=` only at the end.
fn read_base64(input: &[u8]) -> Result<Vec<u8>> {
    let invalid_end = || {
        Error::new(
            SqlState::InvalidParameterValue,
            "invalid base64 end sequence",
        )
    };
    let mut out = Vec::with_capacity(input.len() * 3 / 4);
    let (mut word, mut bits, mut padding) = (0u32, 0u32, 0usize);
    for (at, &c) in input.iter().enumerate() {
        let value = match c {
            b' ' | b'\t' | b'\n' | b'\r' => continue,
            b'=' => {
                padding += 1;
                continue;
            }
            _ if padding > 0 => return Err(invalid_end()),
            _ => BASE64.iter().position(|&b| b == c).ok_or_else(|| {
                let symbol = String::from_utf8_lossy(&input[at..])
                    .chars()
                    .next()
                    .unwrap_or('?');
                Error::new(
                    SqlState::InvalidParameterValue,
                    format!("invalid symbol \"{symbol}\" found while decoding base64 sequence"),
                )
            })?,
        };
        word = word << 6 | value as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((word >> bits) as u8);
            word &= (1 << bits) - 1;
        }
    }
    if bits >= 6 || (padding > 0 && bits == 0 && padding > 2) {
        return Err(invalid_end());
    }
    Ok(out)
}

pub(super) fn md5(args: &[Vector]) -> Result<Vector> {
    let b = bytes(args, 0)?;
    map_text_rows(args, |row, out| {
        bytea::write_hex_digits(&Md5::digest(b.get(row)), out);
        Ok(())
    })
}

/// The SHA-2 functions of bytea.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sha {
    Sha224,
    Sha256,
    Sha384,
    Sha512,
}

impl Sha {
    pub(super) fn name(self) -> &'static str {
        match self {
            Sha::Sha224 => "sha224",
            Sha::Sha256 => "sha256",
            Sha::Sha384 => "sha384",
            Sha::Sha512 => "sha512",
        }
    }

    fn digest(self, input: &[u8], out: &mut Vec<u8>) {
        use sha2::Digest;
        match self {
            Sha::Sha224 => out.extend_from_slice(&Sha224::digest(input)),
            Sha::Sha256 => out.extend_from_slice(&Sha256::digest(input)),
            Sha::Sha384 => out.extend_from_slice(&Sha384::digest(input)),
            Sha::Sha512 => out.extend_from_slice(&Sha512::digest(input)),
        }
    }
}

pub(super) fn sha_digest(args: &[Vector], sha: Sha) -> Result<Vector> {
    let b = bytes(args, 0)?;
    map_bytes_rows(args, |row, out| {
        sha.digest(b.get(row), out);
        Ok(())
    })
}

/// The byte and bit of bit `n` (bit 0 is the lowest of byte 0), as byteaGetBit numbers them.
fn bit_index(value: &[u8], n: i64) -> Result<(usize, u8)> {
    let bits = value.len() as i64 * 8;
    if !(0..bits).contains(&n) {
        return Err(Error::new(
            SqlState::ArraySubscriptError,
            format!("index {n} out of valid range, 0..{}", bits - 1),
        ));
    }
    Ok(((n / 8) as usize, 1 << (n % 8)))
}

pub(super) fn get_bit(args: &[Vector]) -> Result<Vector> {
    let (b, n) = (bytes(args, 0)?, values::<i64>(args, 1)?);
    map_rows(args, |row| {
        let value = b.get(row);
        let (byte, mask) = bit_index(value, n[row])?;
        Ok(i32::from(value[byte] & mask != 0))
    })
}

pub(super) fn set_bit(args: &[Vector]) -> Result<Vector> {
    let (b, n, new) = (
        bytes(args, 0)?,
        values::<i64>(args, 1)?,
        values::<i32>(args, 2)?,
    );
    map_bytes_rows(args, |row, out| {
        let value = b.get(row);
        let (byte, mask) = bit_index(value, n[row])?;
        let set = match new[row] {
            0 => false,
            1 => true,
            _ => {
                return Err(Error::new(
                    SqlState::InvalidParameterValue,
                    "new bit must be 0 or 1",
                ))
            }
        };
        let start = out.len();
        out.extend_from_slice(value);
        match set {
            true => out[start + byte] |= mask,
            false => out[start + byte] &= !mask,
        }
        Ok(())
    })
}

pub(super) fn bit_count(args: &[Vector]) -> Result<Vector> {
    let b = bytes(args, 0)?;
    map_rows(args, |row| {
        Ok(b.get(row)
            .iter()
            .map(|byte| i64::from(byte.count_ones()))
            .sum::<i64>())
    })
}

fn byte_index(value: &[u8], n: i32) -> Result<usize> {
    usize::try_from(n)
        .ok()
        .filter(|&at| at < value.len())
        .ok_or_else(|| {
            Error::new(
                SqlState::ArraySubscriptError,
                format!(
                    "index {n} out of valid range, 0..{}",
                    value.len() as i64 - 1
                ),
            )
        })
}

pub(super) fn get_byte(args: &[Vector]) -> Result<Vector> {
    let (b, n) = (bytes(args, 0)?, values::<i32>(args, 1)?);
    map_rows(args, |row| {
        let value = b.get(row);
        Ok(i32::from(value[byte_index(value, n[row])?]))
    })
}

/// `set_byte(bytes, n, new)`: the byte keeps the low 8 bits of `new`, as in PostgreSQL.
pub(super) fn set_byte(args: &[Vector]) -> Result<Vector> {
    let (b, n, new) = (
        bytes(args, 0)?,
        values::<i32>(args, 1)?,
        values::<i32>(args, 2)?,
    );
    map_bytes_rows(args, |row, out| {
        let value = b.get(row);
        let at = byte_index(value, n[row])?;
        let start = out.len();
        out.extend_from_slice(value);
        out[start + at] = new[row] as u8;
        Ok(())
    })
}

/// `n` bytes from the operating system's secure random source.
pub(super) fn random_bytes(n: usize) -> Result<Vec<u8>> {
    let mut random = vec![0u8; n];
    getrandom::getrandom(&mut random).map_err(|e| {
        Error::new(
            SqlState::InternalError,
            format!("could not generate random values: {e}"),
        )
    })?;
    Ok(random)
}

/// `gen_random_uuid()`: version 4 uuids from the operating system's secure random source.
pub(super) fn gen_random_uuid(rows: usize) -> Result<Vector> {
    let values = random_bytes(rows * 16)?
        .chunks_exact(16)
        .map(|chunk| {
            let mut bytes: [u8; 16] = chunk.try_into().unwrap_or_default();
            bytes[6] = (bytes[6] & 0x0f) | 0x40;
            bytes[8] = (bytes[8] & 0x3f) | 0x80;
            u128::from_be_bytes(bytes)
        })
        .collect();
    Ok(Vector::new(VectorData::Uuid(values), None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_with_line_breaks() -> Result<()> {
        let input: Vec<u8> = (0..=255u8).collect();
        let mut text = Vec::new();
        write_base64(&input, &mut text);
        assert!(text.split(|&b| b == b'\n').all(|line| line.len() <= 76));
        assert_eq!(read_base64(&text)?, input);
        let mut short = Vec::new();
        write_base64(b"ab", &mut short);
        assert_eq!(short, b"YWI=");
        assert!(read_base64(b"YW=I").is_err());
        Ok(())
    }
}
