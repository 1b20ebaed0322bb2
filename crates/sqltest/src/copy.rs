//! COPY FROM STDIN and COPY TO STDOUT in a record, as psql runs them from a script: the
//! record's first line is the COPY statement and, for FROM STDIN, the lines after it are
//! the data (up to `\.`), each line ending with a newline as psql sends it. COPY TO STDOUT shows each line it writes as a one-column row, so
//! its exact bytes are compared with PostgreSQL's.

use crate::format::{cell, StatementOutput};

pub enum CopyRequest<'a> {
    /// `data` ends with a newline, as psql sends each line.
    In {
        statement: &'a str,
        data: String,
    },
    Out {
        statement: &'a str,
    },
}

/// The COPY a record runs, if it is one with the client as its end.
pub fn copy_request(sql: &str) -> Option<CopyRequest<'_>> {
    let sql = sql.trim_start();
    if !sql.get(..5)?.eq_ignore_ascii_case("copy ") {
        return None;
    }
    let (statement, data) = sql.split_once('\n').unwrap_or((sql, ""));
    let lower = statement.to_ascii_lowercase();
    if lower.contains("stdin") {
        let mut data = data.to_string();
        if !data.is_empty() && !data.ends_with('\n') {
            data.push('\n');
        }
        return Some(CopyRequest::In { statement, data });
    }
    lower
        .contains("stdout")
        .then_some(CopyRequest::Out { statement: sql })
}

/// COPY TO STDOUT's data as rows of one column, a line each.
pub fn copy_out_rows(data: &[u8]) -> StatementOutput {
    let text = String::from_utf8_lossy(data);
    let rows = text
        .split_terminator('\n')
        .map(|line| vec![cell(Some(line))])
        .collect();
    StatementOutput::Rows {
        column_count: 1,
        rows,
    }
}
