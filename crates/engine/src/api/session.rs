//! A session: one connection's settings, transaction and prepared statements. Every
//! statement goes through [`Session::run`]: parse → bind → plan → execute.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use sqlparser::ast::Statement;

use super::settings::Settings;
use super::{ColumnInfo, Notice, StatementResult};
use crate::binder::Binder;
use crate::error::{Error, Result, SqlState};
use crate::exec::expression::evaluate;
use crate::exec::{collect, ddl, index, modify, truncate, ExecContext, SharedSessionSequences};
use crate::parser::parse;
use crate::physical::create_operator;
use crate::plan::{BoundStatement, Returning};
use crate::storage::{Store, Transaction};
use crate::types::{DataType, ScalarValue};
use crate::vector::{Batch, StringVec, Vector, VectorData};

/// The result of INSERT/UPDATE/DELETE: its tag, and with RETURNING its rows.
fn written_result(
    tag: String,
    rows: Vec<Batch>,
    returning: Option<Returning>,
    ctx: &ExecContext,
) -> Result<StatementResult> {
    let Some(returning) = returning else {
        return Ok(StatementResult::command(tag));
    };
    let mut batches = Vec::with_capacity(rows.len());
    for batch in &rows {
        let columns = returning
            .exprs
            .iter()
            .map(|e| evaluate(e, batch, ctx))
            .collect::<Result<Vec<_>>>()?;
        batches.push(Batch::new(columns, batch.len()));
    }
    Ok(StatementResult {
        columns: Some(returning.columns),
        batches,
        tag,
    })
}

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

/// A parsed statement with inferred parameter types, ready to run many times.
#[derive(Clone)]
pub struct PreparedStatement {
    inner: Arc<PreparedInner>,
}

struct PreparedInner {
    statement: Option<Statement>,
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
        self.inner.statement.is_none()
    }
}

/// How the current transaction was started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    /// No transaction block: each statement commits on its own.
    None,
    /// Several statements of one simple query: they commit or fail together.
    Implicit,
    /// BEGIN ... COMMIT.
    Explicit,
    /// An explicit block after an error: only ROLLBACK (or COMMIT) is accepted.
    Failed,
}

pub struct Session {
    store: Arc<Store>,
    cancel: CancelHandle,
    txn: Option<Transaction>,
    block: Block,
    settings: Settings,
    /// The settings when the transaction began: ROLLBACK restores them.
    settings_at_begin: Option<Settings>,
    notices: Vec<Notice>,
    sequences: SharedSessionSequences,
}

impl Session {
    pub(crate) fn new(store: Arc<Store>) -> Session {
        Session {
            store,
            cancel: CancelHandle::default(),
            txn: None,
            block: Block::None,
            settings: Settings::default(),
            settings_at_begin: None,
            notices: Vec::new(),
            sequences: SharedSessionSequences::default(),
        }
    }

    /// Runs every statement of `sql` the way PostgreSQL's simple query protocol does: in one
    /// implicit transaction unless the statements control transactions themselves, stopping
    /// at the first error (which is returned after `sink` received the earlier results).
    pub fn simple_query(&mut self, sql: &str, sink: &mut dyn FnMut(StatementResult)) -> Result<()> {
        let statements = parse(sql)?;
        let implicit = statements.len() > 1 && self.block == Block::None;
        if implicit {
            self.block = Block::Implicit;
        }
        for statement in &statements {
            match self.run(statement, &[], &[]) {
                Ok((result, _)) => sink(result),
                Err(error) => {
                    if self.block == Block::Implicit {
                        self.end_transaction(false);
                    }
                    return Err(error);
                }
            }
        }
        if self.block == Block::Implicit {
            self.end_transaction(true);
        }
        Ok(())
    }

    /// Convenience for embedders and tests: every statement's result, or the first error.
    pub fn execute(&mut self, sql: &str) -> Result<Vec<StatementResult>> {
        let mut results = Vec::new();
        self.simple_query(sql, &mut |r| results.push(r))?;
        Ok(results)
    }

    /// Parses and binds one statement (Parse message). `param_types` are the types the client
    /// declared; `Unknown` entries (and those past its end) are inferred from context.
    pub fn prepare(&mut self, sql: &str, param_types: &[DataType]) -> Result<PreparedStatement> {
        let mut statements = parse(sql)?;
        if statements.len() > 1 {
            return Err(Error::syntax(
                "cannot insert multiple commands into a prepared statement",
            ));
        }
        let Some(statement) = statements.pop() else {
            return Ok(PreparedStatement {
                inner: Arc::new(PreparedInner {
                    statement: None,
                    param_types: param_types.to_vec(),
                    columns: None,
                }),
            });
        };
        self.check_not_failed(&statement)?;
        let view = self.view();
        let (bound, param_types) = Binder::new(&view, param_types).bind(&statement)?;
        let columns = match &bound {
            BoundStatement::Query { columns, .. } => Some(columns.clone()),
            BoundStatement::Show { name } => Some(self.show_columns(name)?),
            _ => None,
        };
        Ok(PreparedStatement {
            inner: Arc::new(PreparedInner {
                statement: Some(statement),
                param_types,
                columns,
            }),
        })
    }

    /// Runs a prepared statement with parameter values of its `param_types` (Bind+Execute).
    pub fn execute_prepared(
        &mut self,
        prepared: &PreparedStatement,
        params: &[ScalarValue],
    ) -> Result<StatementResult> {
        let Some(statement) = &prepared.inner.statement else {
            return Ok(StatementResult::command(""));
        };
        if params.len() != prepared.inner.param_types.len() {
            return Err(Error::new(
                SqlState::ProtocolViolation,
                format!(
                    "bind message supplies {} parameters, but prepared statement requires {}",
                    params.len(),
                    prepared.inner.param_types.len()
                ),
            ));
        }
        let (result, _) = self.run(statement, &prepared.inner.param_types, params)?;
        Ok(result)
    }

    pub fn transaction_status(&self) -> TransactionStatus {
        match self.block {
            Block::None | Block::Implicit => TransactionStatus::Idle,
            Block::Explicit => TransactionStatus::InBlock,
            Block::Failed => TransactionStatus::Failed,
        }
    }

    /// Notices raised since the last call.
    pub fn take_notices(&mut self) -> Vec<Notice> {
        std::mem::take(&mut self.notices)
    }

    /// Sets a parameter a client sent in its startup message; an unknown name is an error,
    /// as in PostgreSQL.
    pub fn set_startup_parameter(&mut self, name: &str, value: &str) -> Result<()> {
        self.settings.set(name, Some(value))
    }

    /// The current value of a setting, as SHOW prints it.
    pub fn setting(&self, name: &str) -> Option<String> {
        self.settings.get(name).ok().map(|(_, v)| v)
    }

    /// Settings that PostgreSQL reports with ParameterStatus and that changed since the last
    /// call (e.g. after `SET application_name`).
    pub fn take_reported_setting_changes(&mut self) -> Vec<(String, String)> {
        self.settings.take_changes()
    }

    pub fn cancel_handle(&self) -> CancelHandle {
        self.cancel.clone()
    }

    /// What the next statement reads: the transaction's view, or the latest commit.
    fn view(&self) -> Arc<crate::storage::DbState> {
        match &self.txn {
            Some(txn) => txn.view(),
            None => self.store.snapshot(),
        }
    }

    fn check_not_failed(&self, statement: &Statement) -> Result<()> {
        if self.block == Block::Failed
            && !matches!(
                statement,
                Statement::Commit { .. } | Statement::Rollback { .. }
            )
        {
            return Err(Error::new(
                SqlState::InFailedSqlTransaction,
                "current transaction is aborted, commands ignored until end of transaction block",
            ));
        }
        Ok(())
    }

    /// Binds and executes one statement within the session's transaction rules; a panic is
    /// reported as an internal error and fails the transaction like any error.
    fn run(
        &mut self,
        statement: &Statement,
        param_types: &[DataType],
        params: &[ScalarValue],
    ) -> Result<(StatementResult, ())> {
        self.check_not_failed(statement)?;
        self.cancel.flag.store(false, Ordering::Relaxed);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            self.run_statement(statement, param_types, params)
        }))
        .unwrap_or_else(|panic| {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(Error::internal(format!("internal error: {message}")))
        });
        match outcome {
            Ok(result) => {
                if self.block == Block::None {
                    self.end_transaction(true);
                }
                Ok((result, ()))
            }
            Err(error) => {
                match self.block {
                    Block::Explicit => self.block = Block::Failed,
                    Block::None => self.end_transaction(false),
                    Block::Implicit | Block::Failed => {}
                }
                Err(error)
            }
        }
    }

    fn end_transaction(&mut self, commit: bool) {
        if let Some(txn) = self.txn.take() {
            if commit {
                txn.commit();
            } else {
                txn.rollback();
            }
        }
        let saved = self.settings_at_begin.take();
        if let (false, Some(saved)) = (commit, saved) {
            self.settings.restore(saved);
        }
        self.block = Block::None;
    }

    fn transaction(&mut self) -> &mut Transaction {
        if self.txn.is_none() {
            self.settings_at_begin = Some(self.settings.clone());
        }
        let store = &self.store;
        self.txn.get_or_insert_with(|| store.begin())
    }

    fn warn(&mut self, state: SqlState, message: &str) {
        self.notices.push(Notice {
            severity: "WARNING",
            state,
            message: message.to_string(),
        });
    }

    fn run_statement(
        &mut self,
        statement: &Statement,
        param_types: &[DataType],
        params: &[ScalarValue],
    ) -> Result<StatementResult> {
        let view = self.view();
        let (bound, _) = Binder::new(&view, param_types).bind(statement)?;
        let ctx = ExecContext::new(
            params.to_vec(),
            view,
            self.cancel.flag.clone(),
            self.sequences.clone(),
        );
        Ok(match bound {
            BoundStatement::Query { plan, columns } => {
                let batches = collect(create_operator(&plan).as_mut(), &ctx)?;
                let rows: usize = batches.iter().map(|b| b.len()).sum();
                StatementResult {
                    columns: Some(columns),
                    batches,
                    tag: format!("SELECT {rows}"),
                }
            }
            BoundStatement::Insert {
                table_name,
                table_oid,
                source,
                returning,
            } => {
                let txn = self.transaction();
                let keep = returning.is_some();
                let modified = modify::insert(txn, &table_name, table_oid, &source, keep, &ctx)?;
                written_result(
                    format!("INSERT 0 {}", modified.count),
                    modified.rows,
                    returning,
                    &ctx,
                )?
            }
            BoundStatement::Update {
                table_name,
                table_oid,
                filter,
                assignments,
                returning,
            } => {
                let txn = self.transaction();
                let keep = returning.is_some();
                let filter = filter.as_ref();
                let modified = modify::update(
                    txn,
                    &table_name,
                    table_oid,
                    filter,
                    &assignments,
                    keep,
                    &ctx,
                )?;
                written_result(
                    format!("UPDATE {}", modified.count),
                    modified.rows,
                    returning,
                    &ctx,
                )?
            }
            BoundStatement::Delete {
                table_name,
                table_oid,
                filter,
                returning,
            } => {
                let txn = self.transaction();
                let keep = returning.is_some();
                let modified =
                    modify::delete(txn, &table_name, table_oid, filter.as_ref(), keep, &ctx)?;
                written_result(
                    format!("DELETE {}", modified.count),
                    modified.rows,
                    returning,
                    &ctx,
                )?
            }
            BoundStatement::CreateTable {
                schema,
                if_not_exists,
                sequences,
            } => {
                let mut notices = Vec::new();
                ddl::create_table(
                    self.transaction(),
                    schema,
                    if_not_exists,
                    sequences,
                    &mut notices,
                )?;
                self.notices.extend(notices);
                StatementResult::command("CREATE TABLE")
            }
            BoundStatement::DropTable { names, if_exists } => {
                let mut notices = Vec::new();
                ddl::drop_tables(self.transaction(), &names, if_exists, &mut notices)?;
                self.notices.extend(notices);
                StatementResult::command("DROP TABLE")
            }
            BoundStatement::CreateIndex(spec) => {
                let mut notices = Vec::new();
                index::create_index(self.transaction(), spec, &mut notices)?;
                self.notices.extend(notices);
                StatementResult::command("CREATE INDEX")
            }
            BoundStatement::Truncate {
                tables,
                restart_identity,
            } => {
                truncate::truncate(self.transaction(), &tables, restart_identity)?;
                StatementResult::command("TRUNCATE TABLE")
            }
            BoundStatement::DropIndex { names, if_exists } => {
                let mut notices = Vec::new();
                index::drop_indexes(self.transaction(), &names, if_exists, &mut notices)?;
                self.notices.extend(notices);
                StatementResult::command("DROP INDEX")
            }
            BoundStatement::CreateSequence {
                name,
                options,
                if_not_exists,
            } => {
                let mut notices = Vec::new();
                ddl::create_sequence(
                    self.transaction(),
                    &name,
                    options,
                    None,
                    if_not_exists,
                    &mut notices,
                )?;
                self.notices.extend(notices);
                StatementResult::command("CREATE SEQUENCE")
            }
            BoundStatement::DropSequence { names, if_exists } => {
                let mut notices = Vec::new();
                ddl::drop_sequences(self.transaction(), &names, if_exists, &mut notices)?;
                self.notices.extend(notices);
                StatementResult::command("DROP SEQUENCE")
            }
            BoundStatement::Begin => {
                match self.block {
                    Block::Explicit => self.warn(
                        SqlState::ActiveSqlTransaction,
                        "there is already a transaction in progress",
                    ),
                    Block::None | Block::Implicit => self.block = Block::Explicit,
                    Block::Failed => {}
                }
                self.transaction();
                StatementResult::command("BEGIN")
            }
            BoundStatement::Commit => {
                let tag = match self.block {
                    Block::Failed => {
                        self.end_transaction(false);
                        "ROLLBACK"
                    }
                    Block::Explicit | Block::Implicit => {
                        self.end_transaction(true);
                        "COMMIT"
                    }
                    Block::None => {
                        self.warn(
                            SqlState::NoActiveSqlTransaction,
                            "there is no transaction in progress",
                        );
                        "COMMIT"
                    }
                };
                StatementResult::command(tag)
            }
            BoundStatement::Rollback => {
                if self.block == Block::None {
                    self.warn(
                        SqlState::NoActiveSqlTransaction,
                        "there is no transaction in progress",
                    );
                }
                self.end_transaction(false);
                StatementResult::command("ROLLBACK")
            }
            BoundStatement::Set(set) => {
                // SET is transactional: inside a block ROLLBACK undoes it.
                if self.block != Block::None {
                    self.transaction();
                }
                match &set.name {
                    Some(name) => self.settings.set(name, set.value.as_deref())?,
                    None => self.settings.reset_all(),
                }
                StatementResult::command(if set.value.is_none() { "RESET" } else { "SET" })
            }
            BoundStatement::Show { name } => {
                let columns = self.show_columns(&name)?;
                let (_, value) = self.settings.get(&name)?;
                let mut text = StringVec::default();
                text.push(&value);
                StatementResult {
                    columns: Some(columns),
                    batches: vec![Batch::new(
                        vec![Arc::new(Vector::new(VectorData::Text(text), None))],
                        1,
                    )],
                    tag: "SHOW".into(),
                }
            }
        })
    }

    fn show_columns(&self, name: &str) -> Result<Arc<[ColumnInfo]>> {
        let (canonical, _) = self.settings.get(name)?;
        let column = if canonical.is_empty() {
            name
        } else {
            canonical
        };
        Ok(Arc::from(vec![ColumnInfo {
            name: column.to_string(),
            data_type: DataType::Text,
            table_oid: 0,
            column_attnum: 0,
        }]))
    }
}
