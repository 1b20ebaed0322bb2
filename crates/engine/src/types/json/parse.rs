//! PostgreSQL's JSON grammar and its errors (`json_in`, `jsonb_in`), and jsonb's numbers
//! as NUMERIC prints them.

use super::{Json, JsonFlavor};
use crate::error::{Error, Result, SqlState};

/// PostgreSQL's nesting limit is the stack depth; ours is a named bound.
const DEPTH_MAX: usize = 6400;

/// PostgreSQL's NUMERIC rejects exponents beyond this.
const EXPONENT_MAX: i64 = 1000;

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
