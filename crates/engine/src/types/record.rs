//! Composite values: PostgreSQL's anonymous `record` (`ROW(1, 'a')`, a multi-column
//! set-returning function called in a select list) with its field names and types, and
//! their text and binary forms (record_out, record_send).
//!
//! A record type is interned and leaked once per distinct shape, so [`DataType`] stays
//! `Copy` and two records of the same fields compare equal as types. Shapes come from
//! queries, so their number is bounded by [`RECORD_SHAPES_MAX`].

use std::collections::HashSet;
use std::sync::{LazyLock, Mutex};

use super::DataType;
use crate::error::{Error, Result};

/// pg_type's OID of the pseudo-type `record`: what a record column reports on the wire.
pub const RECORD_OID: u32 = 2249;

/// At most this many distinct record shapes are ever made: each is kept for the life of
/// the process.
const RECORD_SHAPES_MAX: usize = 100_000;

/// The fields of a record type, in order.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct RecordType {
    pub fields: Vec<RecordField>,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct RecordField {
    pub name: String,
    pub ty: DataType,
}

static SHAPES: LazyLock<Mutex<HashSet<&'static RecordType>>> =
    LazyLock::new(|| Mutex::new(HashSet::new()));

impl RecordType {
    /// The one record type of these fields.
    pub fn intern(fields: Vec<RecordField>) -> Result<&'static RecordType> {
        let shape = RecordType { fields };
        let mut shapes = crate::sync::lock(&SHAPES);
        if let Some(&known) = shapes.get(&shape) {
            return Ok(known);
        }
        if shapes.len() >= RECORD_SHAPES_MAX {
            return Err(Error::new(
                crate::error::SqlState::ProgramLimitExceeded,
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
