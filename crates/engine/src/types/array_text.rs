//! The text format of one-dimensional arrays, as PostgreSQL's `array_in` and `array_out`:
//! `{1,2,NULL}`, elements double-quoted when they are empty, spell NULL, or hold a brace,
//! comma, quote, backslash or white space; backslash escapes inside and outside quotes.
//! Multi-dimensional literals and explicit bounds (`[0:1]={1,2}`) are rejected with 0A000.

use super::{float, text_io, DataType, ScalarValue};
use crate::error::{Error, Result, SqlState};

/// Writes one non-NULL element's text `text` as it appears inside an array literal.
pub fn write_array_element(text: &[u8], out: &mut Vec<u8>) {
    if !needs_quotes(text) {
        out.extend_from_slice(text);
        return;
    }
    out.push(b'"');
    for &b in text {
        if b == b'"' || b == b'\\' {
            out.push(b'\\');
        }
        out.push(b);
    }
    out.push(b'"');
}

fn needs_quotes(text: &[u8]) -> bool {
    text.is_empty()
        || text.eq_ignore_ascii_case(b"NULL")
        || text
            .iter()
            .any(|&b| matches!(b, b'"' | b'\\' | b'{' | b'}' | b',') || is_space(b))
}

/// array_isspace: the white space array literals skip around elements.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn malformed(input: &str, detail: &str) -> Error {
    Error::new(
        SqlState::InvalidTextRepresentation,
        format!("malformed array literal: \"{input}\""),
    )
    .with_detail(detail)
}

fn unexpected(input: &str, c: char) -> Error {
    malformed(input, &format!("Unexpected \"{c}\" character."))
}

/// array_in for a one-dimensional array of `elem`: each element goes through the element
/// type's input function.
pub fn parse_array(input: &str, elem: DataType) -> Result<Vec<ScalarValue>> {
    let text = float::trim_pg_space(input);
    let mut chars = text.chars().peekable();
    match chars.next() {
        Some('{') => {}
        Some('[') => return Err(Error::unsupported("array literals with explicit bounds")),
        _ => {
            return Err(malformed(
                input,
                "Array value must start with \"{\" or dimension information.",
            ))
        }
    }
    let mut values = Vec::new();
    skip_space(&mut chars);
    if chars.peek() == Some(&'}') {
        chars.next();
        return finish(input, chars).map(|()| values);
    }
    loop {
        skip_space(&mut chars);
        let element = match chars.next() {
            None => return Err(malformed(input, "Unexpected end of input.")),
            Some('{') if values.is_empty() => {
                return Err(Error::unsupported("multidimensional arrays"))
            }
            Some(c @ ('{' | '}' | ',')) => return Err(unexpected(input, c)),
            Some('"') => read_quoted(input, &mut chars)?,
            Some(first) => read_unquoted(input, first, &mut chars)?,
        };
        let value = match element {
            None => ScalarValue::Null,
            Some(text) => text_io::parse_text(&text, elem)?,
        };
        values.push(value);
        skip_space(&mut chars);
        match chars.next() {
            Some(',') => {}
            Some('}') => return finish(input, chars).map(|()| values),
            Some(c) => return Err(unexpected(input, c)),
            None => return Err(malformed(input, "Unexpected end of input.")),
        }
    }
}

type Chars<'a> = std::iter::Peekable<std::str::Chars<'a>>;

fn skip_space(chars: &mut Chars<'_>) {
    while chars
        .peek()
        .is_some_and(|&c| c.is_ascii() && is_space(c as u8))
    {
        chars.next();
    }
}

/// Only white space may follow the closing brace.
fn finish(input: &str, mut chars: Chars<'_>) -> Result<()> {
    skip_space(&mut chars);
    match chars.next() {
        None => Ok(()),
        Some(_) => Err(malformed(input, "Junk after closing right brace.")),
    }
}

/// A quoted element after its opening quote, up to and including the closing quote.
fn read_quoted(input: &str, chars: &mut Chars<'_>) -> Result<Option<String>> {
    let mut out = String::new();
    loop {
        match chars.next() {
            None => return Err(malformed(input, "Unexpected end of input.")),
            Some('"') => return Ok(Some(out)),
            Some('\\') => match chars.next() {
                Some(c) => out.push(c),
                None => return Err(malformed(input, "Unexpected end of input.")),
            },
            Some(c) => out.push(c),
        }
    }
}

/// An unquoted element starting with `first`, up to the next unescaped comma or brace;
/// trailing white space that was not escaped is dropped. `None` for a bare `NULL`.
fn read_unquoted(input: &str, first: char, chars: &mut Chars<'_>) -> Result<Option<String>> {
    let mut out = String::new();
    // Length of `out` up to its last escaped or non-space character.
    let mut kept = 0;
    let mut escaped_any = false;
    let mut current = first;
    loop {
        match current {
            '{' | '"' => return Err(unexpected(input, current)),
            '\\' => {
                let Some(c) = chars.next() else {
                    return Err(malformed(input, "Unexpected end of input."));
                };
                out.push(c);
                kept = out.len();
                escaped_any = true;
            }
            c => {
                out.push(c);
                if !(c.is_ascii() && is_space(c as u8)) {
                    kept = out.len();
                }
            }
        }
        match chars.peek() {
            None | Some(',' | '}') => break,
            Some(&c) => {
                chars.next();
                current = c;
            }
        }
    }
    out.truncate(kept);
    if !escaped_any && out.eq_ignore_ascii_case("NULL") {
        return Ok(None);
    }
    Ok(Some(out))
}
