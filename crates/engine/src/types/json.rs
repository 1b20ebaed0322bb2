//! json and jsonb values: PostgreSQL's JSON parser (`json_in`/`jsonb_in` and their
//! errors), jsonb's normal form and text output, and jsonb's comparison.
//!
//! Representation. A json value is its input text, kept verbatim once it parsed. A jsonb
//! value is stored as its *canonical text*: exactly what `jsonb_out` prints (keys unique,
//! last duplicate kept, ordered by length then bytes; numbers as NUMERIC prints them;
//! `{"a": 1, "b": [1, 2]}` spacing). Drivers read jsonb far more than they take it apart,
//! and this makes output a copy and equality of documents without numbers a byte compare.
//! Operators (`->`, `@>`, ...) parse the document into a [`Json`] tree; for the short
//! documents of a typical column that costs about as much as walking a binary layout would,
//! and needs no second format on disk or on the wire (jsonb's binary wire format is the
//! text too).

use std::cmp::Ordering;

use crate::error::{Error, Result, SqlState};

/// A parsed JSON document. Objects keep their pairs in order; for jsonb they are in normal
/// form (see [`Json::normalize`]). Numbers hold their text (PostgreSQL's NUMERIC output for
/// jsonb), so no precision is lost.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

/// PostgreSQL's nesting limit is the stack depth; ours is a named bound.
const DEPTH_MAX: usize = 6400;

/// PostgreSQL's NUMERIC rejects exponents beyond this.
const EXPONENT_MAX: i64 = 1000;

/// Which input function is parsing: json keeps `\u0000`, jsonb cannot store it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonFlavor {
    Json,
    Jsonb,
}

/// json_in's check: `text` is one JSON value (with white space around it).
pub fn validate_json(text: &str) -> Result<()> {
    parse(text, JsonFlavor::Json).map(drop)
}

/// jsonb_in: parses `text` into its canonical text.
pub fn jsonb_from_text(text: &str) -> Result<String> {
    let mut value = parse(text, JsonFlavor::Jsonb)?;
    value.normalize();
    Ok(value.to_text())
}

/// Parses a JSON document with PostgreSQL's grammar and errors; numbers are normalised as
/// NUMERIC prints them when `flavor` is jsonb.
pub fn parse(text: &str, flavor: JsonFlavor) -> Result<Json> {
    let mut parser = Parser {
        text,
        bytes: text.as_bytes(),
        at: 0,
        flavor,
    };
    parser.skip_space();
    let value = parser.value(0)?;
    parser.skip_space();
    if parser.at < parser.bytes.len() {
        return Err(parser.invalid_token());
    }
    Ok(value)
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    flavor: JsonFlavor,
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        while matches!(self.bytes.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn error(&self, detail: String) -> Error {
        Error::new(
            SqlState::InvalidTextRepresentation,
            "invalid input syntax for type json",
        )
        .with_detail(detail)
    }

    fn end_of_input(&self) -> Error {
        self.error("The input string ended unexpectedly.".into())
    }

    /// The token at the current position, as PostgreSQL names it in its detail.
    fn invalid_token(&self) -> Error {
        let rest = &self.text[self.at.min(self.text.len())..];
        let token: String = match rest.chars().next() {
            None => return self.end_of_input(),
            Some(c) if "{}[],:".contains(c) => c.to_string(),
            Some(_) => rest
                .chars()
                .take_while(|c| !" \t\n\r{}[],:\"".contains(*c))
                .collect(),
        };
        let token = if token.is_empty() {
            rest.chars().take(1).collect()
        } else {
            token
        };
        self.error(format!("Token \"{token}\" is invalid."))
    }

    fn value(&mut self, depth: usize) -> Result<Json> {
        if depth > DEPTH_MAX {
            return Err(Error::new(
                SqlState::StatementTooComplex,
                "stack depth limit exceeded",
            ));
        }
        match self.bytes.get(self.at) {
            None => Err(self.end_of_input()),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Json::String),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => self.literal(),
        }
    }

    fn literal(&mut self) -> Result<Json> {
        let rest = &self.bytes[self.at..];
        let word_len = rest
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        let value = match &rest[..word_len] {
            b"true" => Json::Bool(true),
            b"false" => Json::Bool(false),
            b"null" => Json::Null,
            _ => return Err(self.invalid_token()),
        };
        self.at += word_len;
        Ok(value)
    }

    fn number(&mut self) -> Result<Json> {
        let start = self.at;
        let bytes = self.bytes;
        let digits = |at: &mut usize| {
            let from = *at;
            while bytes.get(*at).is_some_and(u8::is_ascii_digit) {
                *at += 1;
            }
            *at - from
        };
        let mut at = self.at;
        if bytes[at] == b'-' {
            at += 1;
        }
        let int_len = digits(&mut at);
        let leading_zero = int_len > 1 && bytes[at - int_len] == b'0';
        let mut valid = int_len > 0 && !leading_zero;
        if bytes.get(at) == Some(&b'.') {
            at += 1;
            valid &= digits(&mut at) > 0;
        }
        if matches!(bytes.get(at), Some(b'e' | b'E')) {
            at += 1;
            if matches!(bytes.get(at), Some(b'+' | b'-')) {
                at += 1;
            }
            valid &= digits(&mut at) > 0;
        }
        // A number runs into letters or digits ("1x", "01") as one invalid token.
        valid &= !bytes
            .get(at)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.');
        if !valid {
            self.at = start;
            return Err(self.invalid_token());
        }
        self.at = at;
        let text = &self.text[start..at];
        Ok(Json::Number(match self.flavor {
            JsonFlavor::Json => text.to_string(),
            JsonFlavor::Jsonb => numeric_text(text)?,
        }))
    }

    fn string(&mut self) -> Result<String> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let start = self.at;
            while let Some(&b) = self.bytes.get(self.at) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.at += 1;
            }
            out.push_str(&self.text[start..self.at]);
            match self.bytes.get(self.at) {
                None => return Err(self.end_of_input()),
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => self.escape(&mut out)?,
                Some(&control) => {
                    return Err(self.error(format!(
                        "Character with value 0x{control:02x} must be escaped."
                    )))
                }
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<()> {
        self.at += 1;
        let Some(&c) = self.bytes.get(self.at) else {
            return Err(self.end_of_input());
        };
        self.at += 1;
        let decoded = match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => return self.unicode_escape(out),
            _ => {
                let shown: String = self.text[self.at - 2..].chars().take(2).collect();
                return Err(self.error(format!("Escape sequence \"{shown}\" is invalid.")));
            }
        };
        out.push(decoded);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32> {
        let digits = self.bytes.get(self.at..self.at + 4);
        let value = digits
            .filter(|d| d.iter().all(u8::is_ascii_hexdigit))
            .and_then(|d| std::str::from_utf8(d).ok())
            .and_then(|d| u32::from_str_radix(d, 16).ok());
        match value {
            Some(v) => {
                self.at += 4;
                Ok(v)
            }
            None => Err(self.error("\"\\u\" must be followed by four hexadecimal digits.".into())),
        }
    }

    fn unicode_escape(&mut self, out: &mut String) -> Result<()> {
        let unicode_error = |detail: &str| {
            Error::new(
                SqlState::InvalidTextRepresentation,
                "invalid input syntax for type json",
            )
            .with_detail(detail)
        };
        let first = self.hex4()?;
        let code = match first {
            0xD800..=0xDBFF => {
                if self.bytes.get(self.at..self.at + 2) != Some(b"\\u") {
                    return Err(unicode_error(
                        "Unicode low surrogate must follow a high surrogate.",
                    ));
                }
                self.at += 2;
                let low = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(unicode_error(
                        "Unicode low surrogate must follow a high surrogate.",
                    ));
                }
                0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00)
            }
            0xDC00..=0xDFFF => {
                return Err(unicode_error(
                    "Unicode low surrogate must follow a high surrogate.",
                ))
            }
            other => other,
        };
        if code == 0 {
            if self.flavor == JsonFlavor::Jsonb {
                return Err(Error::new(
                    SqlState::UntranslatableCharacter,
                    "unsupported Unicode escape sequence",
                )
                .with_detail("\\u0000 cannot be converted to text."));
            }
            // json keeps its text verbatim: the escape only has to be well formed.
            return Ok(());
        }
        out.push(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
        Ok(())
    }

    fn array(&mut self, depth: usize) -> Result<Json> {
        self.at += 1;
        let mut items = Vec::new();
        self.skip_space();
        if self.bytes.get(self.at) == Some(&b']') {
            self.at += 1;
            return Ok(Json::Array(items));
        }
        loop {
            self.skip_space();
            items.push(self.value(depth + 1)?);
            self.skip_space();
            match self.bytes.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Json::Array(items));
                }
                None => return Err(self.end_of_input()),
                Some(_) => return Err(self.expected("\",\" or \"]\"")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json> {
        self.at += 1;
        let mut pairs = Vec::new();
        self.skip_space();
        if self.bytes.get(self.at) == Some(&b'}') {
            self.at += 1;
            return Ok(Json::Object(pairs));
        }
        loop {
            self.skip_space();
            match self.bytes.get(self.at) {
                Some(b'"') => {}
                None => return Err(self.end_of_input()),
                Some(_) => return Err(self.expected("string")),
            }
            let key = self.string()?;
            self.skip_space();
            match self.bytes.get(self.at) {
                Some(b':') => self.at += 1,
                None => return Err(self.end_of_input()),
                Some(_) => return Err(self.expected("\":\"")),
            }
            self.skip_space();
            let value = self.value(depth + 1)?;
            pairs.push((key, value));
            self.skip_space();
            match self.bytes.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Json::Object(pairs));
                }
                None => return Err(self.end_of_input()),
                Some(_) => return Err(self.expected("\",\" or \"}\"")),
            }
        }
    }

    fn expected(&self, what: &str) -> Error {
        let found = match self.invalid_token().detail {
            Some(detail) => detail
                .trim_start_matches("Token ")
                .trim_end_matches(" is invalid.")
                .to_string(),
            None => String::new(),
        };
        self.error(format!("Expected {what}, but found {found}."))
    }
}

/// A JSON number as PostgreSQL's NUMERIC prints it after `numeric_in`: exponent applied,
/// display scale = fraction digits minus the exponent (at least 0), no negative zero.
pub fn numeric_text(text: &str) -> Result<String> {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => {
            let exponent: i64 = unsigned[at + 1..].parse().unwrap_or(i64::MAX);
            (&unsigned[..at], exponent)
        }
        None => (unsigned, 0),
    };
    if !(-EXPONENT_MAX..=EXPONENT_MAX).contains(&exponent) {
        return Err(Error::invalid_input("numeric", text));
    }
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: String = [int_part, frac_part].concat();
    let scale = (frac_part.len() as i64 - exponent).max(0) as usize;
    let point = int_part.len() as i64 + exponent;
    let (int_digits, frac_digits) = if point <= 0 {
        let zeros = "0".repeat(point.unsigned_abs() as usize);
        (String::new(), zeros + &digits)
    } else if point as usize >= digits.len() {
        let zeros = "0".repeat(point as usize - digits.len());
        (digits + &zeros, String::new())
    } else {
        let (i, f) = digits.split_at(point as usize);
        (i.to_string(), f.to_string())
    };
    let int_digits = int_digits.trim_start_matches('0');
    let is_zero = int_digits.is_empty() && frac_digits.bytes().all(|b| b == b'0');
    let mut out = String::with_capacity(int_digits.len() + scale + 3);
    if negative && !is_zero {
        out.push('-');
    }
    out.push_str(if int_digits.is_empty() {
        "0"
    } else {
        int_digits
    });
    if scale > 0 {
        out.push('.');
        out.push_str(&frac_digits);
        out.extend(std::iter::repeat_n('0', scale - frac_digits.len()));
    }
    Ok(out)
}

/// Order of two NUMERIC texts by value (`1.0` = `1`).
fn compare_numbers(a: &str, b: &str) -> Ordering {
    fn sign(s: &str) -> (i8, &str) {
        let (neg, mag) = s.strip_prefix('-').map_or((false, s), |m| (true, m));
        let zero = mag.bytes().all(|b| b == b'0' || b == b'.');
        (
            if zero {
                0
            } else if neg {
                -1
            } else {
                1
            },
            mag,
        )
    }
    let ((sa, ma), (sb, mb)) = (sign(a), sign(b));
    if sa != sb || sa == 0 {
        return sa.cmp(&sb);
    }
    let parts = |m: &'_ str| -> (String, String) {
        let (i, f) = m.split_once('.').unwrap_or((m, ""));
        (
            i.trim_start_matches('0').to_string(),
            f.trim_end_matches('0').to_string(),
        )
    };
    let ((ia, fa), (ib, fb)) = (parts(ma), parts(mb));
    let magnitude = ia.len().cmp(&ib.len()).then(ia.cmp(&ib)).then(fa.cmp(&fb));
    if sa < 0 {
        magnitude.reverse()
    } else {
        magnitude
    }
}

/// A number with its display scale dropped: the form equal values share (for hashing).
fn number_value_text(n: &str) -> &str {
    match n.contains('.') {
        true => n.trim_end_matches('0').trim_end_matches('.'),
        false => n,
    }
}

impl Json {
    /// jsonb's normal form: object keys unique (the last duplicate wins) and ordered by
    /// length, then bytes; applied at every level.
    pub fn normalize(&mut self) {
        match self {
            Json::Array(items) => items.iter_mut().for_each(Json::normalize),
            Json::Object(pairs) => {
                pairs.iter_mut().for_each(|(_, v)| v.normalize());
                // A stable sort keeps duplicates in input order; keep the last of each.
                pairs.sort_by(|(a, _), (b, _)| compare_keys(a, b));
                let mut unique: Vec<(String, Json)> = Vec::with_capacity(pairs.len());
                for pair in pairs.drain(..) {
                    match unique.last_mut() {
                        Some(last) if last.0 == pair.0 => *last = pair,
                        _ => unique.push(pair),
                    }
                }
                *pairs = unique;
            }
            Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => {}
        }
    }

    /// jsonb_out: the canonical text.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, false);
        out
    }

    /// The canonical text with numbers by value: equal documents give equal keys.
    pub fn equality_key(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, true);
        out
    }

    fn write(&self, out: &mut String, numbers_by_value: bool) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) if numbers_by_value => out.push_str(number_value_text(n)),
            Json::Number(n) => out.push_str(n),
            Json::String(s) => write_string(s, out),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write(out, numbers_by_value);
                }
                out.push(']');
            }
            Json::Object(pairs) => {
                out.push('{');
                for (i, (key, value)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_string(key, out);
                    out.push_str(": ");
                    value.write(out, numbers_by_value);
                }
                out.push('}');
            }
        }
    }

    /// The type rank of PostgreSQL's jsonb order: null < string < number < boolean < array
    /// < object.
    fn rank(&self) -> u8 {
        match self {
            Json::Null => 0,
            Json::String(_) => 1,
            Json::Number(_) => 2,
            Json::Bool(_) => 3,
            Json::Array(_) => 4,
            Json::Object(_) => 5,
        }
    }

    fn is_scalar(&self) -> bool {
        self.rank() < 4
    }

    /// `jsonb_typeof`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "boolean",
            Json::Number(_) => "number",
            Json::String(_) => "string",
            Json::Array(_) => "array",
            Json::Object(_) => "object",
        }
    }

    /// Value of object key `key` (objects only).
    pub fn get_key(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(pairs) => pairs.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Element `index` of an array, counting from the end when negative.
    pub fn get_index(&self, index: i64) -> Option<&Json> {
        match self {
            Json::Array(items) => {
                let at = if index < 0 {
                    items.len() as i64 + index
                } else {
                    index
                };
                usize::try_from(at).ok().and_then(|at| items.get(at))
            }
            _ => None,
        }
    }

    /// A path step: an object key, or an array index written as an integer.
    pub fn get_path_step(&self, step: &str) -> Option<&Json> {
        match self {
            Json::Object(_) => self.get_key(step),
            Json::Array(_) => step
                .trim()
                .parse::<i64>()
                .ok()
                .and_then(|i| self.get_index(i)),
            _ => None,
        }
    }

    /// `->>`: a string unquoted, JSON null as SQL NULL, anything else as its text.
    pub fn to_unquoted_text(&self) -> Option<String> {
        match self {
            Json::Null => None,
            Json::String(s) => Some(s.clone()),
            other => Some(other.to_text()),
        }
    }

    /// PostgreSQL's jsonb order. A top-level scalar is a one-element pseudo-array there: it
    /// sorts below an array of one element and by element count against other arrays.
    pub fn compare_top(&self, other: &Json) -> Ordering {
        match (self, other) {
            (a, Json::Array(items)) if a.is_scalar() => match items.len() {
                1 => Ordering::Less,
                n => 1.cmp(&n),
            },
            (Json::Array(items), b) if b.is_scalar() => match items.len() {
                1 => Ordering::Greater,
                n => n.cmp(&1),
            },
            (a, b) => a.compare(b),
        }
    }

    fn compare(&self, other: &Json) -> Ordering {
        match (self, other) {
            (Json::Null, Json::Null) => Ordering::Equal,
            (Json::Bool(a), Json::Bool(b)) => a.cmp(b),
            (Json::Number(a), Json::Number(b)) => compare_numbers(a, b),
            (Json::String(a), Json::String(b)) => a.as_bytes().cmp(b.as_bytes()),
            (Json::Array(a), Json::Array(b)) => a
                .len()
                .cmp(&b.len())
                .then_with(|| compare_all(a.iter().zip(b), |(x, y)| x.compare(y))),
            (Json::Object(a), Json::Object(b)) => a.len().cmp(&b.len()).then_with(|| {
                compare_all(a.iter().zip(b), |((ka, va), (kb, vb))| {
                    ka.as_bytes()
                        .cmp(kb.as_bytes())
                        .then_with(|| va.compare(vb))
                })
            }),
            (a, b) => a.rank().cmp(&b.rank()),
        }
    }

    /// `@>`: PostgreSQL's JsonbDeepContains. Objects contain objects whose every key they
    /// hold with a contained value; arrays contain arrays whose every element some element
    /// of theirs contains; a top-level array also contains a scalar it holds.
    pub fn contains_top(&self, other: &Json) -> bool {
        match (self, other) {
            (Json::Array(items), b) if b.is_scalar() => {
                items.iter().any(|x| x == b || x.scalar_eq(b))
            }
            (a, b) => a.contains(b),
        }
    }

    fn contains(&self, other: &Json) -> bool {
        match (self, other) {
            (Json::Object(a), Json::Object(b)) => b.iter().all(|(key, value)| {
                a.iter()
                    .find(|(k, _)| k == key)
                    .is_some_and(|(_, mine)| mine.contains(value))
            }),
            (Json::Array(a), Json::Array(b)) => b.iter().all(|wanted| {
                a.iter().any(|mine| match wanted.is_scalar() {
                    true => mine.scalar_eq(wanted),
                    false => mine.rank() == wanted.rank() && mine.contains(wanted),
                })
            }),
            (a, b) => a.scalar_eq(b),
        }
    }

    fn scalar_eq(&self, other: &Json) -> bool {
        self.is_scalar() && self.rank() == other.rank() && self.compare(other) == Ordering::Equal
    }

    /// `?`: an object key, an array's string element, or a string scalar equal to `key`.
    pub fn has_key(&self, key: &str) -> bool {
        match self {
            Json::Object(_) => self.get_key(key).is_some(),
            Json::Array(items) => items
                .iter()
                .any(|i| matches!(i, Json::String(s) if s == key)),
            Json::String(s) => s == key,
            Json::Null | Json::Bool(_) | Json::Number(_) => false,
        }
    }
}

fn compare_all<T>(pairs: impl Iterator<Item = T>, cmp: impl Fn(T) -> Ordering) -> Ordering {
    pairs
        .map(cmp)
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

/// jsonb's key order: shorter keys first, then bytes.
fn compare_keys(a: &str, b: &str) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

/// escape_json: quotes, backslashes and control characters escaped, the rest as it is.
pub fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The text of a top-level object member or array element of a valid JSON text, found by
/// skipping over the others without building a tree: `->` on a column of short documents
/// then costs one pass over each document and one copy of the result. A jsonb value's
/// members are themselves canonical text, so the slice is the result. For json (verbatim
/// text, duplicate keys kept) the last member of the key wins, as PostgreSQL's `->` does.
pub fn member<'a>(text: &'a str, step: Step<'_>) -> Option<&'a str> {
    let mut scan = Scanner {
        bytes: text.as_bytes(),
        at: 0,
    };
    scan.skip_space();
    let (open, close) = match (scan.peek()?, step) {
        (b'{', Step::Key(_)) => (b'{', b'}'),
        (b'[', Step::Index(_)) => (b'[', b']'),
        _ => return None,
    };
    if scan.peek() != Some(open) {
        return None;
    }
    scan.at += 1;
    let mut found = None;
    let mut elements = Vec::new();
    loop {
        scan.skip_space();
        if scan.peek()? == close {
            break;
        }
        let key = match step {
            Step::Key(_) => {
                let key = scan.skip_value()?;
                scan.skip_space();
                scan.at += 1; // ':'
                scan.skip_space();
                Some(key)
            }
            Step::Index(_) => None,
        };
        let value = scan.skip_value()?;
        match (step, key) {
            (Step::Key(wanted), Some((from, to))) if key_matches(&text[from..to], wanted) => {
                found = Some(value)
            }
            (Step::Index(_), _) => elements.push(value),
            _ => {}
        }
        scan.skip_space();
        if scan.peek()? == b',' {
            scan.at += 1;
        }
    }
    match step {
        Step::Key(_) => found.map(|(from, to)| &text[from..to]),
        Step::Index(index) => {
            let at = if index < 0 {
                elements.len() as i64 + index
            } else {
                index
            };
            let (from, to) = *elements.get(usize::try_from(at).ok()?)?;
            Some(&text[from..to])
        }
    }
}

/// What [`member`] looks for.
#[derive(Debug, Clone, Copy)]
pub enum Step<'a> {
    Key(&'a str),
    Index(i64),
}

/// Whether the quoted key `raw` (escapes and all) is `wanted`.
fn key_matches(raw: &str, wanted: &str) -> bool {
    let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or_default();
    if !inner.contains('\\') {
        return inner == wanted;
    }
    matches!(parse(raw, JsonFlavor::Json), Ok(Json::String(key)) if key == wanted)
}

struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// Skips one value, returning its byte range.
    fn skip_value(&mut self) -> Option<(usize, usize)> {
        let start = self.at;
        let mut depth = 0usize;
        loop {
            match self.peek()? {
                b'"' => self.skip_string()?,
                b'{' | b'[' => {
                    depth += 1;
                    self.at += 1;
                }
                b'}' | b']' if depth > 0 => {
                    depth -= 1;
                    self.at += 1;
                }
                b',' | b'}' | b']' | b':' | b' ' | b'\t' | b'\n' | b'\r' if depth == 0 => break,
                _ => self.at += 1,
            }
            if depth == 0 && matches!(self.bytes.get(self.at - 1), Some(b'"' | b'}' | b']')) {
                break;
            }
        }
        Some((start, self.at))
    }

    fn skip_string(&mut self) -> Option<()> {
        self.at += 1;
        loop {
            match self.peek()? {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    return Some(());
                }
                _ => self.at += 1,
            }
        }
    }
}

/// Parses a stored canonical jsonb text. It was valid when stored, so a failure here is
/// corruption, reported as an internal error.
pub fn parse_canonical(text: &str) -> Result<Json> {
    parse(text, JsonFlavor::Jsonb)
        .map_err(|e| Error::internal(format!("invariant: stored jsonb does not parse: {e:?}")))
}

/// Order of two canonical jsonb texts, PostgreSQL's jsonb order.
pub fn compare_canonical(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    match (parse_canonical(a), parse_canonical(b)) {
        (Ok(x), Ok(y)) => x.compare_top(&y),
        // Unreachable for stored values; a byte order keeps the sort total.
        _ => a.cmp(b),
    }
}

/// The key equal jsonb values share, for hashing and grouping (`1.0` and `1` are equal).
pub fn equality_key(canonical: &str) -> String {
    match canonical.contains('.') {
        false => canonical.to_string(),
        true => {
            parse_canonical(canonical).map_or_else(|_| canonical.to_string(), |j| j.equality_key())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jsonb(text: &str) -> String {
        jsonb_from_text(text).unwrap_or_else(|e| format!("error {e:?}"))
    }

    #[test]
    fn jsonb_normal_form_and_output() {
        assert_eq!(
            jsonb(r#"{"b":[1,2], "a":1, "aa":{}, "a":2}"#),
            r#"{"a": 2, "b": [1, 2], "aa": {}}"#
        );
        assert_eq!(
            jsonb("[1e2, 1.50, -0, 1E-3, 0.0, 12.5e-1]"),
            "[100, 1.50, 0, 0.001, 0.0, 1.25]"
        );
        assert_eq!(jsonb(r#""a\u00e9\/\n""#), r#""aé/\n""#);
        assert!(jsonb_from_text("{\"a\":}").is_err());
        assert!(jsonb_from_text("01").is_err());
        assert!(jsonb_from_text("[1,]").is_err());
        assert!(jsonb_from_text(r#""\u0000""#).is_err());
        assert!(validate_json(r#""\u0000""#).is_ok());
    }

    #[test]
    fn jsonb_order_and_containment() -> Result<()> {
        let j = |t: &str| parse(t, JsonFlavor::Jsonb);
        assert_eq!(j("1.0")?.compare_top(&j("1")?), Ordering::Equal);
        assert_eq!(j("null")?.compare_top(&j("\"a\"")?), Ordering::Less);
        assert_eq!(j("{}")?.compare_top(&j("[1,2]")?), Ordering::Greater);
        assert_eq!(j("5")?.compare_top(&j("[1]")?), Ordering::Less);
        assert_eq!(j("5")?.compare_top(&j("[]")?), Ordering::Greater);
        assert!(j(r#"{"a":[1,2,{"b":3}]}"#)?.contains_top(&j(r#"{"a":[{"b":3}]}"#)?));
        assert!(j("[1,2]")?.contains_top(&j("1")?));
        assert!(!j("1")?.contains_top(&j("[1]")?));
        assert_eq!(equality_key("[1.50, 2.0]"), "[1.5, 2]");
        let doc = r#" { "a" : [1, {"b": "x]"}] , "a\u0062" : "q\"", "a": 2 } "#;
        assert_eq!(member(doc, Step::Key("a")), Some("2"));
        assert_eq!(member(doc, Step::Key("ab")), Some(r#""q\"""#));
        assert_eq!(member(doc, Step::Key("z")), None);
        assert_eq!(member(doc, Step::Index(0)), None);
        let list = r#"[1, {"b": [2]}, "c,d" ]"#;
        assert_eq!(member(list, Step::Index(1)), Some(r#"{"b": [2]}"#));
        assert_eq!(member(list, Step::Index(-1)), Some(r#""c,d""#));
        assert_eq!(member(list, Step::Index(3)), None);
        Ok(())
    }
}
