//! The in-process target: statements go straight to a [`kestrel::Session`], values are
//! printed by the engine's own text output ([`kestrel::vector::Vector::write_text`]), the
//! same bytes the wire server would send.

use std::panic::{self, AssertUnwindSafe};

use kestrel::{Session, StatementResult};
use sqllogictest::{DBOutput, DefaultColumnType, DB};

use crate::copy::{copy_out_rows, copy_request, CopyRequest};
use crate::format::{cell, last_output, tag_count, SqlError, StatementOutput};

/// One connection of a test file to an in-process database.
pub struct EngineDb {
    session: Session,
}

impl EngineDb {
    pub fn new(session: Session) -> EngineDb {
        EngineDb { session }
    }

    /// Tells whether the session waits for a lock.
    pub fn lock_wait_probe(&self) -> kestrel::LockWaitProbe {
        self.session.lock_wait_probe()
    }
}

impl DB for EngineDb {
    type Error = SqlError;
    type ColumnType = DefaultColumnType;

    fn run(&mut self, sql: &str) -> Result<DBOutput<DefaultColumnType>, SqlError> {
        let session = &mut self.session;
        match copy_request(sql) {
            Some(CopyRequest::In { statement, data }) => {
                let result =
                    without_panics(|| session.copy_from(statement, &mut data.as_bytes()))??;
                return Ok(last_output(vec![statement_output(&result)]));
            }
            Some(CopyRequest::Out { statement }) => {
                let mut data = Vec::new();
                without_panics(|| session.copy_to(statement, &mut data))??;
                return Ok(last_output(vec![copy_out_rows(&data)]));
            }
            None => {}
        }
        let results = without_panics(|| self.session.execute(sql))??;
        Ok(last_output(results.iter().map(statement_output).collect()))
    }

    fn error_sql_state(err: &SqlError) -> Option<String> {
        err.sqlstate.clone()
    }
}

/// Runs `f`, turning a panic into the XX000 error the server would send: a panic is an
/// engine bug, and the run should go on and list every failing record rather than abort.
pub(crate) fn without_panics<T>(f: impl FnOnce() -> T) -> Result<T, SqlError> {
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|payload| SqlError {
        message: format!("engine panicked: {}", panic_message(payload.as_ref())),
        sqlstate: Some("XX000".to_string()),
    })
}

fn statement_output(result: &StatementResult) -> StatementOutput {
    let Some(columns) = &result.columns else {
        return StatementOutput::Count(tag_count(&result.tag));
    };
    let mut rows = Vec::with_capacity(result.row_count());
    let mut buf = Vec::new();
    for batch in &result.batches {
        for row in 0..batch.len() {
            let values = batch.columns.iter().enumerate().map(|(i, vector)| {
                buf.clear();
                let ty = columns.get(i).map(|c| c.data_type);
                let text = kestrel::types::int_vector::write_text(vector, row, ty, &mut buf)
                    .then(|| String::from_utf8_lossy(&buf));
                cell(text.as_deref())
            });
            rows.push(values.collect());
        }
    }
    StatementOutput::Rows {
        column_count: columns.len(),
        rows,
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "non-string panic payload"
    }
}
