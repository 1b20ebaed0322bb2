//! The text format of arrays, as PostgreSQL's `array_in` and `array_out`: `{1,2,NULL}`,
//! `{{1,2},{3,4}}`, `[0:1]={1,2}`; elements double-quoted when they are empty, spell NULL,
//! or hold a brace, comma, quote, backslash or white space; backslash escapes inside and
//! outside quotes. Writing the braces is [`super::array_shape::write_array_text`].

use super::array_shape::{too_many_dims, ArrayDim, ShapedArray, MAX_DIMS};
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

/// array_in for an array of `elem`: each element goes through the element type's input
/// function. Nested braces give the dimensions; a `[1:2][0:1]=` prefix gives them
/// explicitly, and must agree with the braces.
pub fn parse_array(input: &str, elem: DataType) -> Result<ScalarValue> {
    let text = float::trim_pg_space(input);
    let mut chars = text.chars().peekable();
    let explicit = parse_explicit_dims(input, &mut chars)?;
    match chars.next() {
        Some('{') => {}
        _ if explicit.is_some() => {
            return Err(malformed(input, "Array contents must start with \"{\"."))
        }
        _ => {
            return Err(malformed(
                input,
                "Array value must start with \"{\" or dimension information.",
            ))
        }
    }
    let mut parsed = Nesting::default();
    parsed.read_level(input, &mut chars, 0, elem)?;
    finish(input, chars)?;
    let dims = match explicit {
        None => parsed
            .lens
            .iter()
            .map(|&len| ArrayDim { lower: 1, len })
            .collect(),
        Some(dims) => {
            let lens: Vec<i32> = dims.iter().map(|d| d.len).collect();
            if parsed.elements.is_empty() || lens != parsed.lens {
                return Err(malformed(
                    input,
                    "Specified array dimensions do not match array contents.",
                ));
            }
            dims
        }
    };
    Ok(ShapedArray::value(dims, parsed.elements))
}

/// The `[m:n]` or `[n]` items before `=`, if the literal starts with one.
fn parse_explicit_dims(input: &str, chars: &mut Chars<'_>) -> Result<Option<Vec<ArrayDim>>> {
    let mut dims = Vec::new();
    loop {
        skip_space(chars);
        if chars.peek() != Some(&'[') {
            break;
        }
        chars.next();
        if dims.len() >= MAX_DIMS {
            return Err(too_many_dims(dims.len() + 1));
        }
        let first = read_bound(chars);
        if first.is_empty() {
            return Err(malformed(
                input,
                "\"[\" must introduce explicitly-specified array dimensions.",
            ));
        }
        let (lower, upper) = if chars.peek() == Some(&':') {
            chars.next();
            let second = read_bound(chars);
            if second.is_empty() {
                return Err(malformed(input, "Missing array dimension value."));
            }
            (atoi(&first), atoi(&second))
        } else {
            (1, atoi(&first))
        };
        if chars.next() != Some(']') {
            return Err(malformed(input, "Missing \"]\" after array dimensions."));
        }
        if upper < lower {
            return Err(Error::new(
                SqlState::ArraySubscriptError,
                "upper bound cannot be less than lower bound",
            ));
        }
        let len = i32::try_from(i64::from(upper) - i64::from(lower) + 1).map_err(|_| {
            Error::new(
                SqlState::ProgramLimitExceeded,
                "array size exceeds the maximum allowed (134217727)",
            )
        })?;
        dims.push(ArrayDim { lower, len });
    }
    if dims.is_empty() {
        return Ok(None);
    }
    if chars.next() != Some('=') {
        return Err(malformed(input, "Missing \"=\" after array dimensions."));
    }
    skip_space(chars);
    Ok(Some(dims))
}

/// The characters C's atoi would look at: digits and signs.
fn read_bound(chars: &mut Chars<'_>) -> String {
    let mut out = String::new();
    while let Some(&c) = chars
        .peek()
        .filter(|c| c.is_ascii_digit() || matches!(c, '+' | '-'))
    {
        out.push(c);
        chars.next();
    }
    out
}

/// C's atoi: an optional sign and the digits after it, wrapping as PostgreSQL's does not
/// matter here (bounds that large fail the size check).
fn atoi(text: &str) -> i32 {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let magnitude = digits
        .bytes()
        .take_while(u8::is_ascii_digit)
        .fold(0i64, |acc, d| {
            (acc * 10 + i64::from(d - b'0')).min(i64::from(i32::MAX) + 1)
        });
    let value = if negative { -magnitude } else { magnitude };
    value.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

/// What the braces of a literal held: the elements in storage order and the length of each
/// nesting level, fixed by the first sub-array to close at that level.
#[derive(Default)]
struct Nesting {
    elements: Vec<ScalarValue>,
    lens: Vec<i32>,
    /// The depth holding elements (not sub-arrays), once known.
    leaf_depth: Option<usize>,
}

impl Nesting {
    /// One brace level after its `{`, up to and including its `}`.
    fn read_level(
        &mut self,
        input: &str,
        chars: &mut Chars<'_>,
        depth: usize,
        elem: DataType,
    ) -> Result<()> {
        if depth >= MAX_DIMS {
            return Err(too_many_dims(depth + 1));
        }
        skip_space(chars);
        if chars.peek() == Some(&'}') {
            // Only the whole literal may be empty: `{}`, not `{{}}`.
            if depth > 0 {
                return Err(unexpected(input, '}'));
            }
            chars.next();
            return Ok(());
        }
        let holds_subarrays = chars.peek() == Some(&'{');
        let mut count = 0;
        loop {
            skip_space(chars);
            match (holds_subarrays, chars.next()) {
                (_, None) => return Err(malformed(input, "Unexpected end of input.")),
                (true, Some('{')) => self.read_level(input, chars, depth + 1, elem)?,
                (true, Some(c @ ('}' | ','))) => return Err(unexpected(input, c)),
                (true, Some(_)) => return Err(malformed(input, "Unexpected array element.")),
                (false, Some(c @ ('{' | '}' | ','))) => return Err(unexpected(input, c)),
                (false, Some(first)) => {
                    let element = match first {
                        '"' => read_quoted(input, chars)?,
                        _ => read_unquoted(input, first, chars)?,
                    };
                    self.elements.push(match element {
                        None => ScalarValue::Null,
                        Some(text) => text_io::parse_text(&text, elem)?,
                    });
                }
            }
            count += 1;
            skip_space(chars);
            match chars.next() {
                Some(',') => {}
                Some('}') => break,
                Some(c) => return Err(unexpected(input, c)),
                None => return Err(malformed(input, "Unexpected end of input.")),
            }
        }
        let leaf = !holds_subarrays;
        let consistent = match (self.leaf_depth, leaf) {
            (Some(at), true) => at == depth,
            (Some(at), false) => at > depth,
            (None, _) => true,
        };
        if leaf {
            self.leaf_depth.get_or_insert(depth);
        }
        // 0 marks a level no sub-array has closed at yet: closed levels are never empty.
        if self.lens.len() <= depth {
            self.lens.resize(depth + 1, 0);
        }
        if self.lens[depth] == 0 {
            self.lens[depth] = count;
        }
        if !consistent || self.lens[depth] != count {
            return Err(malformed(
                input,
                "Multidimensional arrays must have sub-arrays with matching dimensions.",
            ));
        }
        Ok(())
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
