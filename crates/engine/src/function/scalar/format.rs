//! `format()` and SQL quoting: `quote_ident`, `quote_literal`, `quote_nullable`, and the
//! `%I`/`%L` conversions of `format`, which quote exactly as those functions do.

use super::kernel::{map_text_rows, row_count, texts};
use super::string::MAX_ALLOC_SIZE;
use crate::error::{Error, Result, SqlState};
use crate::types::text_io::parse_i32;
use crate::vector::{StringVec, Vector, VectorData};

/// PostgreSQL's quote_identifier: unchanged if a lower-case letter or `_` followed by lower-case
/// letters, digits and `_`, and not a keyword; otherwise double-quoted with `"` doubled.
pub(super) fn write_quoted_ident(ident: &str, out: &mut Vec<u8>) {
    let bytes = ident.as_bytes();
    let safe = matches!(bytes.first(), Some(b'a'..=b'z' | b'_'))
        && bytes
            .iter()
            .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_'))
        && crate::keywords::keyword(ident).is_none();
    if safe {
        out.extend_from_slice(bytes);
        return;
    }
    out.push(b'"');
    for &b in bytes {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

/// PostgreSQL's quote_literal_cstr: single quotes doubled; with any backslash, backslashes
/// doubled too and an `E` prefix.
pub(super) fn write_quoted_literal(literal: &[u8], out: &mut Vec<u8>) {
    if literal.contains(&b'\\') {
        out.push(b'E');
    }
    out.push(b'\'');
    for &b in literal {
        if b == b'\'' || b == b'\\' {
            out.push(b);
        }
        out.push(b);
    }
    out.push(b'\'');
}

pub(super) fn quote_ident(args: &[Vector]) -> Result<Vector> {
    let s = texts(args, 0)?;
    map_text_rows(args, |row, out| {
        write_quoted_ident(s.get(row), out);
        Ok(())
    })
}

/// `quote_literal(x)` (NULL for NULL) and `quote_nullable(x)` (the word NULL for NULL), of
/// any type through its text form.
pub(super) fn quote_literal(args: &[Vector], nullable: bool) -> Result<Vector> {
    let input = super::kernel::arg(args, 0)?;
    let rows = row_count(args);
    let mut out = StringVec::with_capacity(rows, rows * 16);
    let mut text = Vec::new();
    for row in 0..rows {
        text.clear();
        let valid = input.write_text(row, &mut text);
        out.push_with(|buf| {
            if valid {
                write_quoted_literal(&text, buf);
            } else if nullable {
                buf.extend_from_slice(b"NULL");
            }
        });
    }
    let validity = if nullable {
        None
    } else {
        input.validity.clone()
    };
    Ok(Vector::new(VectorData::Text(out), validity))
}

fn format_error(message: impl Into<String>) -> Error {
    Error::new(SqlState::InvalidParameterValue, message)
}

fn with_percent_hint(error: Error) -> Error {
    error.with_hint("For a single \"%\" use \"%%\".")
}

/// `format(formatstr, args...)`: `%s` text (NULL as nothing), `%I` an identifier, `%L` a
/// literal (NULL unquoted), `%%`; with `n$` argument positions, a `-` flag and widths
/// (also `*` and `*n$`) as PostgreSQL. NULL if the format string is.
pub(super) fn format(args: &[Vector]) -> Result<Vector> {
    format_rows(args, |row| FormatArgs::Columns {
        values: &args[1..],
        row,
    })
}

/// `format(formatstr, VARIADIC array)`: the array's elements are the arguments, row by
/// row; a NULL array has none.
pub(super) fn format_variadic(args: &[Vector]) -> Result<Vector> {
    let VectorData::List(arrays) = &args[1].data else {
        return Err(Error::internal(
            "format's VARIADIC argument is not an array",
        ));
    };
    format_rows(args, |row| match args[1].is_valid(row) {
        true => FormatArgs::Elements {
            elements: arrays.child(),
            range: arrays.range(row),
        },
        false => FormatArgs::Elements {
            elements: arrays.child(),
            range: 0..0,
        },
    })
}

/// Formats each row of `args[0]` with the arguments `row_args` gives for the row.
fn format_rows<'a>(
    args: &'a [Vector],
    row_args: impl Fn(usize) -> FormatArgs<'a>,
) -> Result<Vector> {
    let format = texts(args, 0)?;
    let rows = row_count(args);
    let mut out = StringVec::with_capacity(rows, rows * 32);
    let mut scratch = Vec::new();
    let mut error = None;
    for row in 0..rows {
        if !args[0].is_valid(row) {
            out.push("");
            continue;
        }
        out.push_with(|buf| {
            if let Err(e) = format_row(format.get(row), &row_args(row), buf, &mut scratch) {
                error = Some(e);
            }
        });
        if let Some(e) = error.take() {
            return Err(e);
        }
    }
    Ok(Vector::new(VectorData::Text(out), args[0].validity.clone()))
}

/// Where one row's arguments after the format string are.
enum FormatArgs<'a> {
    /// One per column, at `row`.
    Columns { values: &'a [Vector], row: usize },
    /// A VARIADIC array's elements.
    Elements {
        elements: &'a Vector,
        range: std::ops::Range<usize>,
    },
}

impl FormatArgs<'_> {
    /// Argument `index` (0-based) as its vector and row there.
    fn get(&self, index: usize) -> Result<(&Vector, usize)> {
        match self {
            FormatArgs::Columns { values, row } => {
                Ok((values.get(index).ok_or_else(too_few_args)?, *row))
            }
            FormatArgs::Elements { elements, range } => match range.start.checked_add(index) {
                Some(element) if element < range.end => Ok((elements, element)),
                _ => Err(too_few_args()),
            },
        }
    }
}

/// One parsed conversion: `%[n$][-][width|*|*n$]type`.
struct Spec {
    arg: Option<usize>,
    left_align: bool,
    width: Width,
    kind: u8,
}

enum Width {
    None,
    Fixed(usize),
    /// From the next argument, or argument n.
    Arg(Option<usize>),
}

fn format_row(
    format: &str,
    args: &FormatArgs,
    out: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
) -> Result<()> {
    let bytes = format.as_bytes();
    let mut i = 0;
    // Index of the next argument an unnumbered conversion takes.
    let mut next_arg = 0;
    while i < bytes.len() {
        if bytes[i] != b'%' {
            let end = bytes[i..]
                .iter()
                .position(|&b| b == b'%')
                .map_or(bytes.len(), |p| i + p);
            out.extend_from_slice(&bytes[i..end]);
            i = end;
            continue;
        }
        i += 1;
        if bytes.get(i) == Some(&b'%') {
            out.push(b'%');
            i += 1;
            continue;
        }
        let spec = parse_spec(bytes, &mut i)?;
        let mut width = match spec.width {
            Width::None => None,
            Width::Fixed(w) => Some((w, spec.left_align)),
            Width::Arg(position) => {
                let idx = position.unwrap_or(next_arg);
                next_arg = idx + 1;
                let (value, row) = args.get(idx)?;
                width_from(value, row, spec.left_align)?
            }
        };
        let idx = spec.arg.unwrap_or(next_arg);
        next_arg = idx + 1;
        let (value, row) = args.get(idx)?;
        scratch.clear();
        let valid = value.write_text(row, scratch);
        let start = out.len();
        match (spec.kind, valid) {
            (b's', _) => out.extend_from_slice(scratch),
            (b'I', true) => write_quoted_ident(&String::from_utf8_lossy(scratch), out),
            (b'I', false) => {
                return Err(Error::new(
                    SqlState::NullValueNotAllowed,
                    "null values cannot be formatted as an SQL identifier",
                ))
            }
            (b'L', true) => write_quoted_literal(scratch, out),
            (_, _) => out.extend_from_slice(b"NULL"),
        }
        if let Some((w, left)) = width.take() {
            pad_to_width(out, start, w, left)?;
        }
    }
    Ok(())
}

fn too_few_args() -> Error {
    format_error("too few arguments for format()")
}

/// A `*` width from an argument: NULL means none, negative means left-aligned.
fn width_from(value: &Vector, row: usize, left_align: bool) -> Result<Option<(usize, bool)>> {
    if !value.is_valid(row) {
        return Ok(None);
    }
    let width = match &value.data {
        VectorData::Int16(v) => i64::from(v[row]),
        VectorData::Int32(v) => i64::from(v[row]),
        VectorData::Int64(v) => v[row],
        // Any other type is read as integer through its text, as PostgreSQL's does.
        _ => {
            let mut text = Vec::new();
            value.write_text(row, &mut text);
            i64::from(parse_i32(&String::from_utf8_lossy(&text))?)
        }
    };
    let width = i32::try_from(width).map_err(|_| Error::out_of_range("number is out of range"))?;
    Ok(Some((
        width.unsigned_abs() as usize,
        left_align || width < 0,
    )))
}

fn parse_spec(bytes: &[u8], i: &mut usize) -> Result<Spec> {
    let unterminated = || with_percent_hint(format_error("unterminated format() type specifier"));
    let mut spec = Spec {
        arg: None,
        left_align: false,
        width: Width::None,
        kind: 0,
    };
    // A leading number is an argument position if followed by `$`, else a width.
    if let Some(n) = parse_number(bytes, i)? {
        if bytes.get(*i) == Some(&b'$') {
            *i += 1;
            spec.arg = Some(argument_index(n)?);
        } else {
            spec.width = Width::Fixed(n);
        }
    }
    if matches!(spec.width, Width::None) {
        while bytes.get(*i) == Some(&b'-') {
            spec.left_align = true;
            *i += 1;
        }
        if bytes.get(*i) == Some(&b'*') {
            *i += 1;
            let position = match parse_number(bytes, i)? {
                Some(n) if bytes.get(*i) == Some(&b'$') => {
                    *i += 1;
                    Some(argument_index(n)?)
                }
                Some(_) => return Err(unterminated()),
                None => None,
            };
            spec.width = Width::Arg(position);
        } else if let Some(n) = parse_number(bytes, i)? {
            spec.width = Width::Fixed(n);
        }
    }
    let Some(&kind) = bytes.get(*i) else {
        return Err(unterminated());
    };
    if !matches!(kind, b's' | b'I' | b'L') {
        let end = (*i + 1..=bytes.len())
            .find(|&e| std::str::from_utf8(&bytes[*i..e]).is_ok())
            .unwrap_or(bytes.len());
        return Err(with_percent_hint(format_error(format!(
            "unrecognized format() type specifier \"{}\"",
            String::from_utf8_lossy(&bytes[*i..end])
        ))));
    }
    *i += 1;
    spec.kind = kind;
    Ok(spec)
}

fn argument_index(n: usize) -> Result<usize> {
    n.checked_sub(1).ok_or_else(|| {
        format_error("format specifies argument 0, but arguments are numbered from 1")
    })
}

fn parse_number(bytes: &[u8], i: &mut usize) -> Result<Option<usize>> {
    let start = *i;
    let mut n: usize = 0;
    while let Some(&b) = bytes.get(*i).filter(|b| b.is_ascii_digit()) {
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(usize::from(b - b'0')))
            .filter(|&n| n <= i32::MAX as usize)
            .ok_or_else(|| format_error("number is out of range"))?;
        *i += 1;
    }
    if *i == bytes.len() && *i > start {
        return Err(with_percent_hint(format_error(
            "unterminated format() type specifier",
        )));
    }
    Ok((*i > start).then_some(n))
}

/// Pads the value written since `start` with spaces to `width` characters; a width that
/// would pass PostgreSQL's 1 GB value limit is 54000, as PostgreSQL's string buffer says,
/// before any padding is written.
fn pad_to_width(out: &mut Vec<u8>, start: usize, width: usize, left_align: bool) -> Result<()> {
    let chars = String::from_utf8_lossy(&out[start..]).chars().count();
    if chars >= width {
        return Ok(());
    }
    let pad = width - chars;
    if i64::try_from(out.len() - start + pad).map_or(true, |bytes| bytes > MAX_ALLOC_SIZE) {
        return Err(Error::new(SqlState::ProgramLimitExceeded, "out of memory"));
    }
    if left_align {
        out.resize(out.len() + pad, b' ');
    } else {
        out.splice(start..start, std::iter::repeat_n(b' ', pad));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        let ident = |s: &str| {
            let mut out = Vec::new();
            write_quoted_ident(s, &mut out);
            String::from_utf8_lossy(&out).into_owned()
        };
        assert_eq!(ident("abc_1"), "abc_1");
        assert_eq!(ident("Abc"), "\"Abc\"");
        assert_eq!(ident("select"), "\"select\"");
        assert_eq!(ident("a\"b"), "\"a\"\"b\"");
        let mut out = Vec::new();
        write_quoted_literal(b"it's a \\", &mut out);
        assert_eq!(out, b"E'it''s a \\\\'");
    }
}
