//! A session: one connection's settings, transaction and prepared statements. Every
//! statement goes through [`Session::run`]: parse → bind → optimize → plan → execute.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::{ColumnInfo, Notice, StatementResult};
use crate::error::Result;
use crate::storage::Store;
use crate::types::{DataType, ScalarValue};

/// ReadyForQuery's transaction status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransactionStatus {
    /// 'I': not in a transaction block.
    Idle,
    /// 'T': in a transaction block.
    InBlock,
    /// 'E': in a failed transaction block; statements are rejected until ROLLBACK.
    Failed,
}

/// Cancels the statement a session is running, from any thread (CancelRequest).
#[derive(Clone, Debug, Default)]
pub struct CancelHandle {
    flag: Arc<AtomicBool>,
}

impl CancelHandle {
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }
}

/// A parsed and bound statement with inferred parameter types, ready to run many times.
#[derive(Clone)]
pub struct PreparedStatement {
    inner: Arc<PreparedInner>,
}

struct PreparedInner {
    param_types: Vec<DataType>,
    columns: Option<Arc<[ColumnInfo]>>,
}

impl PreparedStatement {
    /// The type of each `$n`, as inferred (or as the client declared it).
    pub fn param_types(&self) -> &[DataType] {
        &self.inner.param_types
    }

    /// The result columns, `None` if the statement returns no rows.
    pub fn columns(&self) -> Option<&Arc<[ColumnInfo]>> {
        self.inner.columns.as_ref()
    }

    /// True for an empty query string (EmptyQueryResponse).
    pub fn is_empty(&self) -> bool {
        unimplemented!()
    }
}

pub struct Session {
    store: Arc<Store>,
    cancel: CancelHandle,
}

impl Session {
    pub(crate) fn new(store: Arc<Store>) -> Session {
        Session {
            store,
            cancel: CancelHandle::default(),
        }
    }

    /// Runs every statement of `sql` the way PostgreSQL's simple query protocol does: in one
    /// implicit transaction unless the statements control transactions themselves, stopping
    /// at the first error (which is returned after `sink` received the earlier results).
    pub fn simple_query(
        &mut self,
        _sql: &str,
        _sink: &mut dyn FnMut(StatementResult),
    ) -> Result<()> {
        unimplemented!()
    }

    /// Convenience for embedders and tests: every statement's result, or the first error.
    pub fn execute(&mut self, sql: &str) -> Result<Vec<StatementResult>> {
        let mut results = Vec::new();
        self.simple_query(sql, &mut |r| results.push(r))?;
        Ok(results)
    }

    /// Parses and binds one statement (Parse message). `param_types` are the types the client
    /// declared; `Unknown` entries (and those past its end) are inferred from context.
    pub fn prepare(&mut self, _sql: &str, _param_types: &[DataType]) -> Result<PreparedStatement> {
        unimplemented!()
    }

    /// Runs a prepared statement with parameter values of its `param_types` (Bind+Execute).
    pub fn execute_prepared(
        &mut self,
        _statement: &PreparedStatement,
        _params: &[ScalarValue],
    ) -> Result<StatementResult> {
        unimplemented!()
    }

    pub fn transaction_status(&self) -> TransactionStatus {
        unimplemented!()
    }

    /// Notices raised since the last call.
    pub fn take_notices(&mut self) -> Vec<Notice> {
        unimplemented!()
    }

    /// Sets a parameter a client sent in its startup message (`application_name`,
    /// `client_encoding`, `DateStyle`, ...).
    pub fn set_startup_parameter(&mut self, _name: &str, _value: &str) -> Result<()> {
        unimplemented!()
    }

    /// The current value of a setting, as SHOW prints it.
    pub fn setting(&self, _name: &str) -> Option<String> {
        unimplemented!()
    }

    /// Settings that PostgreSQL reports with ParameterStatus and that changed since the last
    /// call (e.g. after `SET application_name`).
    pub fn take_reported_setting_changes(&mut self) -> Vec<(String, String)> {
        unimplemented!()
    }

    pub fn cancel_handle(&self) -> CancelHandle {
        self.cancel.clone()
    }

    #[allow(dead_code)]
    fn store(&self) -> &Arc<Store> {
        &self.store
    }
}
