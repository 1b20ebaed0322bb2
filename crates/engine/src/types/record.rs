//! Composite values: PostgreSQL's anonymous `record` (`ROW(1, 'a')`, a multi-column
//! set-returning function called in a select list) with its field names and types, and
//! their text and binary forms (record_out, record_send).
//!
//! A record type is interned and leaked once per distinct shape, so [`DataType`] stays
//! `Copy` and two records of the same fields compare equal as types. Shapes come from
//! queries, so their number is bounded by [`RECORD_SHAPES_MAX`].

use std::collections::HashSet;
use std::sync::{LazyLock, Mutex};

use super::{DataType, ScalarValue};
use crate::error::{Error, Result, SqlState};

/// pg_type's OID of the pseudo-type `record`: what a record column reports on the wire.
pub const RECORD_OID: u32 = 2249;

/// At most this many distinct record shapes are ever made: each is kept for the life of
/// the process.
const RECORD_SHAPES_MAX: usize = 100_000;

/// The fields of a record type, in order.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct RecordType {
    pub fields: Vec<RecordField>,
    /// The pg_type OID of a table's or view's row type (`catalog::row_type`), or
    /// [`RECORD_OID`] for an anonymous record.
    pub type_oid: u32,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct RecordField {
    pub name: String,
    pub ty: DataType,
}

static SHAPES: LazyLock<Mutex<HashSet<&'static RecordType>>> =
    LazyLock::new(|| Mutex::new(HashSet::new()));

impl RecordType {
    /// The one anonymous record type of these fields.
    pub fn intern(fields: Vec<RecordField>) -> Result<&'static RecordType> {
        RecordType::intern_row_type(fields, RECORD_OID)
    }

    /// The one record type of these fields that is pg_type's `type_oid`.
    pub fn intern_row_type(fields: Vec<RecordField>, type_oid: u32) -> Result<&'static RecordType> {
        let shape = RecordType { fields, type_oid };
        let mut shapes = crate::sync::lock(&SHAPES);
        if let Some(&known) = shapes.get(&shape) {
            return Ok(known);
        }
        if shapes.len() >= RECORD_SHAPES_MAX {
            return Err(Error::new(
                SqlState::ProgramLimitExceeded,
                format!("too many distinct record types (at most {RECORD_SHAPES_MAX})"),
            ));
        }
        let leaked: &'static RecordType = Box::leak(Box::new(shape));
        shapes.insert(leaked);
        Ok(leaked)
    }

    /// The field named `name` (PostgreSQL folds unquoted names before they get here).
    pub fn field(&self, name: &str) -> Option<(usize, &RecordField)> {
        self.fields.iter().enumerate().find(|(_, f)| f.name == name)
    }
}

/// PostgreSQL's field names of an anonymous row: f1, f2, ...
pub fn anonymous_field_name(index: usize) -> String {
    format!("f{}", index + 1)
}

/// Writes one field of record_out: nothing for NULL, the text as is, or double-quoted
/// (with `"` and `\` doubled) when empty or holding a quote, backslash, parenthesis,
/// comma or white space.
pub fn write_record_field(text: Option<&[u8]>, out: &mut Vec<u8>) {
    let Some(text) = text else {
        return;
    };
    let quote = text.is_empty()
        || text
            .iter()
            .any(|&b| matches!(b, b'"' | b'\\' | b'(' | b')' | b',') || is_pg_space(b));
    if !quote {
        out.extend_from_slice(text);
        return;
    }
    out.push(b'"');
    for &b in text {
        if b == b'"' || b == b'\\' {
            out.push(b);
        }
        out.push(b);
    }
    out.push(b'"');
}

/// record_in: `(a,b,...)`, one field per column of `record`, each given to its type's input
/// function. A field is read up to an unquoted comma or right parenthesis; double quotes
/// group (a doubled one inside is a quote), a backslash takes the next character as it is,
/// and a field with nothing in it is NULL (`""` is the empty string).
pub fn parse_record(text: &str, record: &RecordType) -> Result<Vec<ScalarValue>> {
    let malformed = |detail: &str| {
        Error::new(
            SqlState::InvalidTextRepresentation,
            format!("malformed record literal: \"{text}\""),
        )
        .with_detail(detail)
    };
    let mut chars = text.trim_start_matches(|c: char| c.is_ascii() && is_pg_space(c as u8));
    chars = chars
        .strip_prefix('(')
        .ok_or_else(|| malformed("Missing left parenthesis."))?;
    let mut input = chars.chars().peekable();
    let mut values = Vec::with_capacity(record.fields.len());
    for (i, field) in record.fields.iter().enumerate() {
        if i > 0 && input.next_if_eq(&',').is_none() {
            return Err(malformed("Too few columns."));
        }
        if matches!(input.peek(), Some(',' | ')')) {
            values.push(ScalarValue::Null);
            continue;
        }
        let mut buffer = String::new();
        let mut quoted = false;
        loop {
            match input.peek() {
                Some(',' | ')') if !quoted => break,
                None => return Err(malformed("Unexpected end of input.")),
                Some(_) => {}
            }
            match input.next() {
                Some('\\') => buffer.push(
                    input
                        .next()
                        .ok_or_else(|| malformed("Unexpected end of input."))?,
                ),
                Some('"') if !quoted => quoted = true,
                Some('"') => match input.next_if_eq(&'"') {
                    Some(quote) => buffer.push(quote),
                    None => quoted = false,
                },
                Some(c) => buffer.push(c),
                None => return Err(malformed("Unexpected end of input.")),
            }
        }
        values.push(super::text_io::parse_text(&buffer, field.ty)?);
    }
    if input.next() != Some(')') {
        return Err(malformed("Too many columns."));
    }
    if input.any(|c| !(c.is_ascii() && is_pg_space(c as u8))) {
        return Err(malformed("Junk after right parenthesis."));
    }
    Ok(values)
}

/// C's isspace in the C locale, which record_out uses.
fn is_pg_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(text: Option<&str>) -> String {
        let mut out = Vec::new();
        write_record_field(text.map(str::as_bytes), &mut out);
        String::from_utf8(out).unwrap_or_default()
    }

    #[test]
    fn fields_are_quoted_as_record_out_does() {
        assert_eq!(field(None), "");
        assert_eq!(field(Some("")), "\"\"");
        assert_eq!(field(Some("abc")), "abc");
        assert_eq!(field(Some("a b")), "\"a b\"");
        assert_eq!(field(Some("a,b")), "\"a,b\"");
        assert_eq!(field(Some("say \"hi\"")), "\"say \"\"hi\"\"\"");
        assert_eq!(field(Some("back\\slash")), "\"back\\\\slash\"");
        assert_eq!(field(Some("(x)")), "\"(x)\"");
    }

    #[test]
    fn record_in_reads_quotes_escapes_and_nulls() {
        let fields = [("a", DataType::Int32), ("b", DataType::Text)]
            .map(|(name, ty)| RecordField {
                name: name.into(),
                ty,
            })
            .into();
        let Ok(record) = RecordType::intern_row_type(fields, 90_000) else {
            panic!("interning failed");
        };
        let read = |text: &str| parse_record(text, record).map_err(|e| e.detail);
        let text = |s: &str| ScalarValue::Text(s.into());
        assert_eq!(
            read(r#" (1,"a ""b"" \c")  "#),
            Ok(vec![ScalarValue::Int32(1), text(r#"a "b" c"#)])
        );
        assert_eq!(read("(,)"), Ok(vec![ScalarValue::Null, ScalarValue::Null]));
        assert_eq!(read(r#"(2,"")"#), Ok(vec![ScalarValue::Int32(2), text("")]));
        assert_eq!(
            read("(2,x\\,y)"),
            Ok(vec![ScalarValue::Int32(2), text("x,y")])
        );
        let detail = |d: &str| Err(Some(d.to_string()));
        assert_eq!(read("1,x"), detail("Missing left parenthesis."));
        assert_eq!(read("(1)"), detail("Too few columns."));
        assert_eq!(read("(1,x,y)"), detail("Too many columns."));
        assert_eq!(read("(1,x) y"), detail("Junk after right parenthesis."));
        assert_eq!(read("(1,\"x"), detail("Unexpected end of input."));
    }

    #[test]
    fn equal_shapes_are_one_type() {
        let make = || {
            RecordType::intern(vec![RecordField {
                name: "x".into(),
                ty: DataType::Int32,
            }])
        };
        let (Ok(a), Ok(b)) = (make(), make()) else {
            panic!("interning failed");
        };
        assert!(std::ptr::eq(a, b));
    }
}
