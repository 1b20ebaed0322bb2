//! String kernels with PostgreSQL's semantics: positions and lengths count characters (the
//! database encoding is UTF-8), case mapping is per character as the C.UTF-8 locale does it,
//! and each out-of-range argument fails with PostgreSQL's SQLSTATE and message.

use std::io::Write as _;

use md5::{Digest as _, Md5};

use super::kernel::{
    char_count, char_offset, map_rows, map_text_rows, row_count, texts, values, Element,
};
use crate::error::{Error, Result, SqlState};
use crate::vector::{StringVec, Vector, VectorData};

/// PostgreSQL's MaxAllocSize: no value may be larger than 1 GB.
pub(super) const MAX_ALLOC_SIZE: i64 = 0x3fff_ffff;

/// The most bytes one character takes in UTF-8 (PostgreSQL's pg_encoding_max_length).
const MAX_CHAR_BYTES: i64 = 4;

/// `rows` copies of `value`.
pub(super) fn constant(value: &str, rows: usize) -> Vector {
    let mut out = StringVec::with_capacity(rows, rows * value.len());
    for _ in 0..rows {
        out.push(value);
    }
    Vector::new(VectorData::Text(out), None)
}

pub(super) fn length(args: &[Vector]) -> Result<Vector> {
    let s = texts(args, 0)?;
    map_rows(args, |row| {
        // Characters are the bytes that do not continue a UTF-8 sequence.
        let bytes = s.get_bytes(row);
        Ok(bytes.iter().filter(|&&b| (b as i8) >= -0x40).count() as i32)
    })
}

pub(super) fn octet_length(args: &[Vector]) -> Result<Vector> {
    let s = texts(args, 0)?;
    map_rows(args, |row| Ok(s.get_bytes(row).len() as i32))
}

pub(super) fn lower(args: &[Vector]) -> Result<Vector> {
    let s = texts(args, 0)?;
    map_text_rows(args, |row, out| {
        let bytes = s.get_bytes(row);
        if bytes.is_ascii() {
            out.extend(bytes.iter().map(u8::to_ascii_lowercase));
        } else {
            map_chars(s.get(row), out, |c| single(c.to_lowercase()).unwrap_or(c));
        }
        Ok(())
    })
}

pub(super) fn upper(args: &[Vector]) -> Result<Vector> {
    let s = texts(args, 0)?;
    map_text_rows(args, |row, out| {
        let bytes = s.get_bytes(row);
        // ASCII letters map byte to byte, as the Unicode mapping does for them.
        if bytes.is_ascii() {
            out.extend(bytes.iter().map(u8::to_ascii_uppercase));
        } else {
            map_chars(s.get(row), out, to_upper);
        }
        Ok(())
    })
}

/// `initcap`: the first letter of each run of letters and digits upper case, the rest lower.
pub(super) fn initcap(args: &[Vector]) -> Result<Vector> {
    let s = texts(args, 0)?;
    map_text_rows(args, |row, out| {
        let mut in_word = false;
        map_chars(s.get(row), out, |c| {
            let mapped = if in_word {
                single(c.to_lowercase()).unwrap_or(c)
            } else {
                to_upper(c)
            };
            in_word = c.is_alphanumeric();
            mapped
        });
        Ok(())
    })
}

/// Writes `s` with every character mapped by `f`, ASCII bytes without decoding.
fn map_chars(s: &str, out: &mut Vec<u8>, mut f: impl FnMut(char) -> char) {
    let mut buf = [0u8; 4];
    for c in s.chars() {
        out.extend_from_slice(f(c).encode_utf8(&mut buf).as_bytes());
    }
}

/// towupper: one character to one character, so `upper('ß')` stays `ß` as in PostgreSQL.
fn to_upper(c: char) -> char {
    single(c.to_uppercase()).unwrap_or(c)
}

fn single(mut chars: impl Iterator<Item = char>) -> Option<char> {
    let first = chars.next()?;
    chars.next().is_none().then_some(first)
}

/// `substr(s, start [, count])`: characters from `start` (1-based; earlier positions count
/// but yield nothing) for `count` characters.
pub(super) fn substr(args: &[Vector]) -> Result<Vector> {
    let s = texts(args, 0)?;
    let start = values::<i32>(args, 1)?;
    let count = if args.len() > 2 {
        Some(values::<i32>(args, 2)?)
    } else {
        None
    };
    map_text_rows(args, |row, out| {
        let count = count.map(|c| c[row]);
        out.extend_from_slice(substring(s.get(row), start[row], count)?.as_bytes());
        Ok(())
    })
}

/// PostgreSQL's text_substring: 22011 for a negative count.
pub(super) fn substring(s: &str, start: i32, count: Option<i32>) -> Result<&str> {
    let start = i64::from(start);
    let from = (start.max(1) - 1) as usize;
    let to = match count {
        Some(count) if count < 0 => {
            return Err(Error::new(
                SqlState::SubstringError,
                "negative substring length not allowed",
            ))
        }
        Some(count) => {
            let end = start + i64::from(count);
            if end < 1 {
                return Ok("");
            }
            Some((end - 1) as usize)
        }
        None => None,
    };
    let begin = char_offset(s, from);
    let rest = &s[begin..];
    Ok(match to {
        Some(to) if to <= from => "",
        Some(to) => &rest[..char_offset(rest, to - from)],
        None => rest,
    })
}

/// `strpos(s, sub)`: the 1-based character position of the first `sub`, 0 if none.
pub(super) fn strpos(args: &[Vector]) -> Result<Vector> {
    let (s, sub) = (texts(args, 0)?, texts(args, 1)?);
    map_rows(args, |row| {
        let s = s.get(row);
        Ok(match s.find(sub.get(row)) {
            Some(at) => char_count(&s[..at]) as i32 + 1,
            None => 0,
        })
    })
}

/// `btrim`/`ltrim`/`rtrim(s [, characters])`: strips any of `characters` (default a space).
pub(super) fn trim(args: &[Vector], leading: bool, trailing: bool) -> Result<Vector> {
    let s = texts(args, 0)?;
    let chars = if args.len() > 1 {
        Some(texts(args, 1)?)
    } else {
        None
    };
    map_text_rows(args, |row, out| {
        let set = chars.map_or(" ", |c| c.get(row));
        let strip = |c: char| set.contains(c);
        let mut value = s.get(row);
        if leading {
            value = value.trim_start_matches(strip);
        }
        if trailing {
            value = value.trim_end_matches(strip);
        }
        out.extend_from_slice(value.as_bytes());
        Ok(())
    })
}

pub(super) fn replace(args: &[Vector]) -> Result<Vector> {
    let (s, from, to) = (texts(args, 0)?, texts(args, 1)?, texts(args, 2)?);
    map_text_rows(args, |row, out| {
        let (s, from, to) = (s.get(row), from.get(row), to.get(row));
        if from.is_empty() {
            out.extend_from_slice(s.as_bytes());
            return Ok(());
        }
        let mut last = 0;
        for (at, _) in s.match_indices(from) {
            out.extend_from_slice(&s.as_bytes()[last..at]);
            out.extend_from_slice(to.as_bytes());
            last = at + from.len();
        }
        out.extend_from_slice(&s.as_bytes()[last..]);
        Ok(())
    })
}

/// `concat(any, ...)`: the text form of every non-NULL argument; never NULL.
pub(super) fn concat(args: &[Vector], rows: usize) -> Result<Vector> {
    let mut out = StringVec::with_capacity(rows, rows * 16);
    for row in 0..rows {
        out.push_with(|buf| {
            for arg in args {
                arg.write_text(row, buf);
            }
        });
    }
    Ok(Vector::new(VectorData::Text(out), None))
}

/// `concat_ws(separator, any, ...)`: the non-NULL arguments joined; NULL if the separator is.
pub(super) fn concat_ws(args: &[Vector]) -> Result<Vector> {
    let separator = texts(args, 0)?;
    let rows = row_count(args);
    let mut out = StringVec::with_capacity(rows, rows * 16);
    for row in 0..rows {
        out.push_with(|buf| {
            let mut first = true;
            for arg in &args[1..] {
                if !arg.is_valid(row) {
                    continue;
                }
                if !first {
                    buf.extend_from_slice(separator.get_bytes(row));
                }
                first = false;
                arg.write_text(row, buf);
            }
        });
    }
    Ok(Vector::new(VectorData::Text(out), args[0].validity.clone()))
}

/// `left(s, n)` / `right(s, n)`; a negative `n` drops |n| characters from the other end.
pub(super) fn left_right(args: &[Vector], left: bool) -> Result<Vector> {
    let (s, n) = (texts(args, 0)?, values::<i32>(args, 1)?);
    map_text_rows(args, |row, out| {
        let s = s.get(row);
        let n = i64::from(n[row]);
        let chars = if n >= 0 { 0 } else { char_count(s) as i64 };
        let value = match (left, n >= 0) {
            (true, true) => &s[..char_offset(s, n as usize)],
            (true, false) => &s[..char_offset(s, (chars + n).max(0) as usize)],
            (false, true) => {
                let chars = char_count(s) as i64;
                &s[char_offset(s, (chars - n).max(0) as usize)..]
            }
            (false, false) => &s[char_offset(s, (-n) as usize)..],
        };
        out.extend_from_slice(value.as_bytes());
        Ok(())
    })
}

/// `lpad`/`rpad(s, length [, fill])`: pads with `fill` (default a space) to `length`
/// characters, or truncates `s` to that length.
pub(super) fn pad(args: &[Vector], left: bool) -> Result<Vector> {
    let (s, length) = (texts(args, 0)?, values::<i32>(args, 1)?);
    let fill = if args.len() > 2 {
        Some(texts(args, 2)?)
    } else {
        None
    };
    map_text_rows(args, |row, out| {
        let (s, length) = (s.get(row), length[row]);
        let fill = fill.map_or(" ", |f| f.get(row));
        if length <= 0 {
            return Ok(());
        }
        check_alloc(i64::from(length) * MAX_CHAR_BYTES)?;
        let length = length as usize;
        let chars = char_count(s);
        if chars >= length || fill.is_empty() {
            out.extend_from_slice(&s.as_bytes()[..char_offset(s, length)]);
            return Ok(());
        }
        if !left {
            out.extend_from_slice(s.as_bytes());
        }
        let (fill_chars, padding) = (char_count(fill), length - chars);
        extend_repeated(out, fill.as_bytes(), padding / fill_chars)?;
        out.extend_from_slice(&fill.as_bytes()[..char_offset(fill, padding % fill_chars)]);
        if left {
            out.extend_from_slice(s.as_bytes());
        }
        Ok(())
    })
}

/// 54000 `requested length too large` for a result beyond PostgreSQL's 1 GB value limit.
fn check_alloc(bytes: i64) -> Result<()> {
    if bytes > MAX_ALLOC_SIZE {
        return Err(Error::new(
            SqlState::ProgramLimitExceeded,
            "requested length too large",
        ));
    }
    Ok(())
}

pub(super) fn repeat(args: &[Vector]) -> Result<Vector> {
    let (s, count) = (texts(args, 0)?, values::<i32>(args, 1)?);
    map_text_rows(args, |row, out| {
        let s = s.get_bytes(row);
        let count = count[row].max(0);
        check_alloc(s.len() as i64 * i64::from(count))?;
        extend_repeated(out, s, count as usize)?;
        Ok(())
    })
}

/// Appends `times` copies of `unit` by doubling what it wrote, so a gigabyte of a one-byte
/// unit is thirty copies rather than a billion (at PostgreSQL's 1 GB value limit the
/// memory copy itself then takes a fraction of a second). 53200 first when the statement
/// has no room for `out` grown by them (`out` holds the batch's values so far).
fn extend_repeated(out: &mut Vec<u8>, unit: &[u8], times: usize) -> Result<()> {
    let total = unit.len() * times;
    if total == 0 {
        return Ok(());
    }
    crate::interrupt::check_value_bytes(out.len() + total)?;
    out.reserve(total);
    let start = out.len();
    out.extend_from_slice(unit);
    while out.len() - start < total {
        let written = out.len() - start;
        out.extend_from_within(start..start + written.min(total - written));
    }
    Ok(())
}

pub(super) fn reverse(args: &[Vector]) -> Result<Vector> {
    let s = texts(args, 0)?;
    map_text_rows(args, |row, out| {
        let mut buf = [0u8; 4];
        for c in s.get(row).chars().rev() {
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
        Ok(())
    })
}

/// `split_part(s, delimiter, n)`: the nth field, counted from the end when negative.
pub(super) fn split_part(args: &[Vector]) -> Result<Vector> {
    let (s, delimiter, n) = (texts(args, 0)?, texts(args, 1)?, values::<i32>(args, 2)?);
    map_text_rows(args, |row, out| {
        let (s, delimiter, n) = (s.get(row), delimiter.get(row), n[row]);
        if n == 0 {
            return Err(Error::new(
                SqlState::InvalidParameterValue,
                "field position must not be zero",
            ));
        }
        let field = if s.is_empty() {
            ""
        } else if delimiter.is_empty() {
            if n == 1 || n == -1 {
                s
            } else {
                ""
            }
        } else {
            let index = if n > 0 {
                Some(n as usize - 1)
            } else {
                let fields = s.matches(delimiter).count() + 1;
                fields.checked_sub(n.unsigned_abs() as usize)
            };
            index.and_then(|i| s.split(delimiter).nth(i)).unwrap_or("")
        };
        out.extend_from_slice(field.as_bytes());
        Ok(())
    })
}

pub(super) fn starts_with(args: &[Vector]) -> Result<Vector> {
    let (s, prefix) = (texts(args, 0)?, texts(args, 1)?);
    map_rows(args, |row| {
        Ok(s.get_bytes(row).starts_with(prefix.get_bytes(row)))
    })
}

pub(super) fn md5(args: &[Vector]) -> Result<Vector> {
    let s = texts(args, 0)?;
    map_text_rows(args, |row, out| {
        let digest = Md5::digest(s.get_bytes(row));
        write_hex(&digest, out);
        Ok(())
    })
}

fn write_hex(bytes: &[u8], out: &mut Vec<u8>) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)]);
        out.push(DIGITS[usize::from(b & 0xf)]);
    }
}

/// `chr(n)`: the character with code point `n`; 54000 for 0, negatives, surrogates and
/// values beyond Unicode, as PostgreSQL in a UTF-8 database.
pub(super) fn chr(args: &[Vector]) -> Result<Vector> {
    let code = values::<i32>(args, 0)?;
    map_text_rows(args, |row, out| {
        let code = code[row];
        let limit = |message: String| Error::new(SqlState::ProgramLimitExceeded, message);
        let c = match code {
            0 => return Err(limit("null character not permitted".into())),
            ..0 => {
                return Err(Error::new(
                    SqlState::InvalidParameterValue,
                    "character number must be positive",
                ))
            }
            0x11_0000.. => {
                return Err(limit(format!(
                    "requested character too large for encoding: {code}"
                )))
            }
            _ => char::from_u32(code as u32).ok_or_else(|| {
                limit(format!(
                    "requested character not valid for encoding: {code}"
                ))
            })?,
        };
        let mut buf = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        Ok(())
    })
}

/// `ascii(s)`: the code point of the first character, 0 for an empty string.
pub(super) fn ascii(args: &[Vector]) -> Result<Vector> {
    let s = texts(args, 0)?;
    map_rows(args, |row| {
        Ok(s.get(row).chars().next().map_or(0, |c| c as i32))
    })
}

/// `to_hex(n)`: two's complement digits for negative values, as PostgreSQL.
pub(super) fn to_hex(args: &[Vector]) -> Result<Vector> {
    fn hex<T: Element>(
        args: &[Vector],
        write: impl Fn(T, &mut Vec<u8>) -> std::io::Result<()>,
    ) -> Result<Vector> {
        let v = values::<T>(args, 0)?;
        map_text_rows(args, |row, out| {
            write(v[row], out).map_err(|e| Error::internal(e.to_string()))
        })
    }
    match &super::kernel::arg(args, 0)?.data {
        VectorData::Int64(_) => hex::<i64>(args, |x, out| write!(out, "{:x}", x as u64)),
        _ => hex::<i32>(args, |x, out| write!(out, "{:x}", x as u32)),
    }
}

/// `overlay(s PLACING r FROM start [FOR count])`: `s` with `count` characters (default the
/// length of `r`) from `start` replaced by `r`.
pub(super) fn overlay(args: &[Vector]) -> Result<Vector> {
    let (s, placing, start) = (texts(args, 0)?, texts(args, 1)?, values::<i32>(args, 2)?);
    let count = if args.len() > 3 {
        Some(values::<i32>(args, 3)?)
    } else {
        None
    };
    map_text_rows(args, |row, out| {
        let (s, placing, start) = (s.get(row), placing.get(row), start[row]);
        let count = count.map_or_else(|| char_count(placing) as i32, |c| c[row]);
        let after = overlay_after(start, count)?;
        out.extend_from_slice(substring(s, 1, Some(start - 1))?.as_bytes());
        out.extend_from_slice(placing.as_bytes());
        out.extend_from_slice(substring(s, after, None)?.as_bytes());
        Ok(())
    })
}

/// Where the rest of the input resumes after `overlay(... FROM start FOR count)` (text's and
/// bytea's): PostgreSQL refuses a start before the first position, and lets a negative count
/// repeat what precedes the start.
pub(super) fn overlay_after(start: i32, count: i32) -> Result<i32> {
    if start <= 0 {
        return Err(Error::new(
            SqlState::SubstringError,
            "negative substring length not allowed",
        ));
    }
    start
        .checked_add(count)
        .ok_or_else(|| Error::out_of_range("integer out of range"))
}

/// `translate(s, from, to)`: each character of `from` becomes the character at the same
/// position of `to`, or is removed when `to` is shorter; the first occurrence in `from` wins.
pub(super) fn translate(args: &[Vector]) -> Result<Vector> {
    let (s, from, to) = (texts(args, 0)?, texts(args, 1)?, texts(args, 2)?);
    map_text_rows(args, |row, out| {
        let (from, to) = (from.get(row), to.get(row));
        let mut buf = [0u8; 4];
        for c in s.get(row).chars() {
            match from.chars().position(|f| f == c) {
                None => out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
                Some(i) => {
                    if let Some(t) = to.chars().nth(i) {
                        out.extend_from_slice(t.encode_utf8(&mut buf).as_bytes());
                    }
                }
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substring_counts_positions_before_the_string() {
        assert_eq!(substring("hello", 0, Some(3)).ok(), Some("he"));
        assert_eq!(substring("hello", -5, Some(3)).ok(), Some(""));
        assert_eq!(substring("héllo", 2, Some(2)).ok(), Some("él"));
        assert_eq!(substring("hello", 4, None).ok(), Some("lo"));
        assert_eq!(substring("hello", 9, None).ok(), Some(""));
        assert!(substring("hello", 1, Some(-1)).is_err());
    }

    #[test]
    fn upper_maps_one_character_to_one() {
        assert_eq!(to_upper('ß'), 'ß');
        assert_eq!(to_upper('é'), 'É');
    }
}
