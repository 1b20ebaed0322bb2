//! json and jsonb values: jsonb's normal form and text output, its order, containment and
//! hashing key; the parser (`parse.rs`, PostgreSQL's `json_in`/`jsonb_in` and their errors)
//! and the member scan of `->` (`scan.rs`).
//!
//! Representation. A json value is its input text, kept verbatim once it parsed. A jsonb
//! value is stored as its *canonical text*: exactly what `jsonb_out` prints (keys unique,
//! last duplicate kept, ordered by length then bytes; numbers as NUMERIC prints them;
//! `{"a": 1, "b": [1, 2]}` spacing). Drivers read jsonb far more than they take it apart,
//! and this makes output a copy, equality of documents without numbers a byte compare, and
//! `->`/`->>` a scan of the text that copies out a slice (a member of canonical text is
//! canonical text). Other operators (`@>`, `||`, ...) parse the document into a [`Json`]
//! tree. jsonb's binary wire format is the same text, so there is no second format.

use std::cmp::Ordering;

use crate::error::{Error, Result};

mod parse;
mod scan;

pub use parse::{numeric_text, parse};
pub use scan::{member, unquote, Container, Members, Step};

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

/// Order of two NUMERIC texts by value (`1.0` = `1`).
pub fn compare_numbers(a: &str, b: &str) -> Ordering {
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
