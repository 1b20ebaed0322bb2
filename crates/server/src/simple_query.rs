//! The simple query protocol (Query message): the engine runs every statement of the
//! string; each result is encoded as it arrives — RowDescription, DataRows, CommandComplete
//! — then any error, and ReadyForQuery.

use std::cell::RefCell;

use kestrel::StatementResult;

use crate::connection::Backend;
use crate::copy::{ClientInput, WireCopy};
use crate::guard::catch_panic;
use crate::protocol::backend::{self, Severity};
use crate::protocol::output::Output;
use crate::values::{write_data_rows, Format};

impl Backend {
    pub(crate) fn simple_query(&mut self, sql: &str, client: Option<&mut ClientInput>) {
        // A Query destroys the unnamed statement and portal, as in PostgreSQL.
        self.extended.forget_unnamed();
        let mut produced = false;
        let session = &mut self.session;
        let out = RefCell::new(&mut self.out);
        let mut copy = WireCopy::new(&out, client, session);
        let result = catch_panic(|| {
            let mut sink = |result: StatementResult| {
                produced = true;
                write_statement_result(&mut out.borrow_mut(), &result);
            };
            session.simple_query_with_copy(sql, &mut sink, &mut copy)
        });
        self.send_notices();
        match result {
            Err(error) => backend::error_response(&mut self.out.buf, &error, Severity::Error),
            Ok(()) if !produced => backend::empty_query_response(&mut self.out.buf),
            Ok(()) => {}
        }
        self.ready_for_query();
    }
}

/// All rows of one statement, in text format (binary for a FETCH from a BINARY cursor). A
/// result from the result cache is encoded once: the DataRows are kept in its slot and
/// copied from there on every later hit.
fn write_statement_result(out: &mut Output, result: &StatementResult) {
    if let Some(columns) = &result.columns {
        let format = match result.binary {
            true => Format::Binary,
            false => Format::Text,
        };
        let formats = vec![format; columns.len()];
        backend::row_description(&mut out.buf, columns, &formats);
        match &result.encoded {
            Some(slot) => {
                let rows = slot.get_or_init(|| {
                    let mut rows = Vec::new();
                    for batch in &result.batches {
                        write_data_rows(&mut rows, batch, 0..batch.len(), &formats, columns);
                    }
                    rows.into()
                });
                out.buf.extend_from_slice(rows);
                out.flush_if_full();
            }
            None => {
                for batch in &result.batches {
                    write_data_rows(&mut out.buf, batch, 0..batch.len(), &formats, columns);
                    out.flush_if_full();
                }
            }
        }
    }
    backend::command_complete(&mut out.buf, &result.tag);
}
