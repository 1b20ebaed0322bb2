//! How every target turns a result into sqllogictest text: values in PostgreSQL's text output
//! format, `NULL` for NULL, `(empty)` for the empty string, and errors as
//! `message (SQLSTATE xxxxx)` so that `statement error 22012` matches on every target.
//!
//! A row is its values joined by single spaces and compared exactly, so each value is
//! written so that the line splits back into the same values: one holding whitespace or a
//! backslash, starting with a quote, or spelled like a marker (`NULL`, `(empty)`) is quoted
//! as `'…'`, with `''` for a quote and `\\`, `\n`, `\r`, `\t` for a backslash and control
//! characters. So `('a b', 'c')` is `'a b' c`, `('a', 'b c')` is `a 'b c'`, and trailing
//! spaces count.

use std::fmt;

use sqllogictest::{DBOutput, DefaultColumnType};

/// A failed statement, the same whichever target ran it.
#[derive(Debug, Clone)]
pub struct SqlError {
    pub message: String,
    /// `None` when the failure did not come from the database (e.g. a dropped connection).
    pub sqlstate: Option<String>,
}

impl fmt::Display for SqlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.sqlstate {
            Some(code) => write!(f, "{} (SQLSTATE {code})", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for SqlError {}

impl From<kestrel::Error> for SqlError {
    fn from(e: kestrel::Error) -> SqlError {
        SqlError {
            message: e.message,
            sqlstate: Some(e.state.code().to_string()),
        }
    }
}

impl From<tokio_postgres::Error> for SqlError {
    fn from(e: tokio_postgres::Error) -> SqlError {
        match e.as_db_error() {
            Some(db) => SqlError {
                message: db.message().to_string(),
                sqlstate: Some(db.code().code().to_string()),
            },
            None => SqlError {
                message: e.to_string(),
                sqlstate: None,
            },
        }
    }
}

/// One value as the expected output spells it; `text` is PostgreSQL's text format.
pub fn cell(text: Option<&str>) -> String {
    match text {
        None => "NULL".to_string(),
        Some("") => "(empty)".to_string(),
        Some(s) if needs_quotes(s) => quoted(s),
        Some(s) => s.to_string(),
    }
}

fn needs_quotes(s: &str) -> bool {
    s == "NULL"
        || s == "(empty)"
        || s.starts_with('\'')
        || s.contains(|c: char| c.is_whitespace() || c == '\\')
}

fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("''"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            other => out.push(other),
        }
    }
    out.push('\'');
    out
}

/// What one statement of a record produced.
pub enum StatementOutput {
    Rows {
        column_count: usize,
        rows: Vec<Vec<String>>,
    },
    Count(u64),
}

/// A record may hold several statements; like psql, the record shows the last one's output.
pub fn last_output(outputs: Vec<StatementOutput>) -> DBOutput<DefaultColumnType> {
    match outputs.into_iter().last() {
        Some(StatementOutput::Rows { column_count, rows }) => DBOutput::Rows {
            // Column type letters are not checked (the simple query protocol has no types),
            // only their count; see `run::same_column_count`.
            types: vec![DefaultColumnType::Any; column_count],
            rows,
        },
        Some(StatementOutput::Count(n)) => DBOutput::StatementComplete(n),
        None => DBOutput::StatementComplete(0),
    }
}

/// The row count of a CommandComplete tag (`INSERT 0 3` → 3, `CREATE TABLE` → 0), as
/// tokio-postgres reports it for the wire targets.
pub fn tag_count(tag: &str) -> u64 {
    tag.rsplit(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells() {
        assert_eq!(cell(None), "NULL");
        assert_eq!(cell(Some("")), "(empty)");
        assert_eq!(cell(Some("1.50")), "1.50");
        assert_eq!(cell(Some("a b")), "'a b'");
        assert_eq!(cell(Some("a  ")), "'a  '");
        assert_eq!(cell(Some("NULL")), "'NULL'");
        assert_eq!(cell(Some("(empty)")), "'(empty)'");
        assert_eq!(cell(Some("it's")), "it's");
        assert_eq!(cell(Some("'q")), "'''q'");
        assert_eq!(cell(Some("a\\b\nc")), r"'a\\b\nc'");
    }

    #[test]
    fn rows_split_back_into_their_values() {
        let join = |values: &[&str]| {
            values
                .iter()
                .map(|v| cell(Some(v)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_ne!(join(&["a b", "c"]), join(&["a", "b c"]));
        assert_ne!(join(&["a", " "]), join(&["a ", ""]));
        assert_ne!(join(&["NULL"]), cell(None));
    }

    #[test]
    fn tags() {
        assert_eq!(tag_count("INSERT 0 3"), 3);
        assert_eq!(tag_count("UPDATE 12"), 12);
        assert_eq!(tag_count("CREATE TABLE"), 0);
        assert_eq!(tag_count("BEGIN"), 0);
    }

    #[test]
    fn errors_show_their_sqlstate() {
        let e = SqlError::from(kestrel::Error::new(
            kestrel::SqlState::DivisionByZero,
            "division by zero",
        ));
        assert_eq!(e.to_string(), "division by zero (SQLSTATE 22012)");
    }
}
