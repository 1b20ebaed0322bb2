//! A session: one connection's settings, transaction and prepared statements. Every
//! statement goes through [`Session::run`]: parse → bind → plan → execute.

mod bind;
mod cache_policy;
mod catalog_change;
mod checkpoint;
mod copy;
mod cursors;
mod datetime;
mod function_call;
mod identity;
mod prepared_listing;
mod prepared_sql;
mod query;
mod row_locks;
mod temp_tables;
mod transaction_block;
mod transaction_control;
mod write;

use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use super::copy::{CopyChannel, NoCopyChannel, ReaderChannel, WriterChannel};
use super::query_cache::{CacheKey, QueryCache};
use super::settings::{
    source, Defaults, Settings, UnitSetting, IDLE_IN_TRANSACTION_SESSION_TIMEOUT,
    IDLE_SESSION_TIMEOUT, LOCK_TIMEOUT, QUERY_MEMORY_LIMIT, STATEMENT_TIMEOUT,
};
use super::{ColumnInfo, Notice, StatementResult};
use crate::binder::Binder;
use crate::catalog::SearchPath;
use crate::error::{Error, Result, SqlState};
use crate::exec::memory::{MemoryPool, QueryMemory};
use crate::exec::{ExecContext, SessionIdentity, SharedSessionSequences};
use crate::interrupt::{Interrupt, RunningStatement};
use crate::parser::{self, Parsed};
use crate::plan::BoundStatement;
use crate::storage::{AdvisoryLocks, Store, Transaction};
use crate::types::{DataType, ScalarValue};

/// What [`Session::run`] runs: a parsed statement, or one bound earlier.
enum Work<'a> {
    Parsed(&'a Parsed),
    Bound(Box<BoundStatement>),
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
    interrupt: Arc<Interrupt>,
    /// Weak: a handle must not keep a closed database open.
    store: std::sync::Weak<Store>,
    lock_owner: u64,
}

impl CancelHandle {
    /// Stops the running statement, waking it if it sleeps in a lock wait.
    pub fn cancel(&self) {
        self.interrupt.cancel();
        if let Some(store) = self.store.upgrade() {
            store.locks().wake(self.lock_owner);
        }
    }

    /// 57014 once the running statement was cancelled or passed its `statement_timeout`:
    /// for a server that waits on its client in the middle of a statement (COPY FROM STDIN).
    pub fn check(&self) -> Result<()> {
        self.interrupt.check()
    }

    /// When the running statement times out, if it can.
    pub fn deadline(&self) -> Option<std::time::Instant> {
        self.interrupt.deadline()
    }
}

/// Tells from any thread whether a session is waiting for a lock: how a test runner tells
/// a blocked statement from a slow one.
#[derive(Clone)]
pub struct LockWaitProbe {
    /// Weak: a probe must not keep a closed database open.
    store: std::sync::Weak<Store>,
    owner: u64,
}

impl LockWaitProbe {
    pub fn is_waiting(&self) -> bool {
        self.store
            .upgrade()
            .is_some_and(|store| store.locks().is_waiting(self.owner))
    }
}

/// A parsed statement with inferred parameter types, ready to run many times.
#[derive(Clone)]
pub struct PreparedStatement {
    inner: Arc<PreparedInner>,
}

struct PreparedInner {
    sql: String,
    statement: Option<Parsed>,
    param_types: Vec<DataType>,
    columns: Option<Arc<[ColumnInfo]>>,
    /// Only reads: an equal earlier result may be served from the result cache.
    read_only: bool,
    /// How often it ran (pg_prepared_statements).
    executions: Arc<std::sync::atomic::AtomicU64>,
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
    /// The open transaction block's savepoints, oldest first.
    savepoints: Vec<transaction_control::Savepoint>,
    notices: Vec<Notice>,
    sequences: SharedSessionSequences,
    cache: Arc<QueryCache>,
    identity: Arc<SessionIdentity>,
    /// Statements prepared with SQL PREPARE, by name.
    sql_prepared: HashMap<String, PreparedStatement>,
    /// The query string holding the PREPARE statements about to run (their text in
    /// pg_prepared_statements).
    prepare_source: Option<Arc<str>>,
    prepared_listing: prepared_listing::PreparedListing,
    cursors: cursors::Cursors,
    /// The parsed `search_path`, parsed again only when the setting or identity changes.
    search_path: RefCell<Option<Arc<SearchPath>>>,
    /// The parsed date/time settings, parsed again only when one changes.
    datetime: RefCell<Option<Arc<datetime::DateTimeSettings>>>,
    /// When the open transaction block began: what now() returns inside it.
    transaction_micros: Option<i64>,
    /// Owns the session's locks: its transactions' and its advisory locks.
    lock_owner: u64,
    advisory: Arc<AdvisoryLocks>,
    /// The database's working memory, which every statement draws on.
    memory: Arc<MemoryPool>,
    temp_tables: temp_tables::TempTables,
    /// The calls of SQL functions running statement by statement, innermost last.
    function_frames: Vec<function_call::FunctionFrame>,
}

impl Drop for Session {
    fn drop(&mut self) {
        self.drop_temp_schema();
        self.store.locks().forget_interrupt(self.lock_owner);
    }
}

impl Session {
    pub(crate) fn new(
        store: Arc<Store>,
        cache: Arc<QueryCache>,
        defaults: Arc<Defaults>,
        memory: Arc<MemoryPool>,
    ) -> Session {
        let lock_owner = store.new_owner_id();
        let cancel = CancelHandle {
            interrupt: Arc::default(),
            store: Arc::downgrade(&store),
            lock_owner,
        };
        store
            .locks()
            .watch_interrupt(lock_owner, cancel.interrupt.clone());
        Session {
            cancel,
            txn: None,
            block: Block::None,
            settings: Settings::new(defaults),
            settings_at_begin: None,
            savepoints: Vec::new(),
            notices: Vec::new(),
            sequences: SharedSessionSequences::default(),
            cache,
            identity: Arc::default(),
            sql_prepared: HashMap::new(),
            prepare_source: None,
            prepared_listing: prepared_listing::PreparedListing::default(),
            cursors: cursors::Cursors::default(),
            search_path: RefCell::default(),
            datetime: RefCell::default(),
            transaction_micros: None,
            lock_owner,
            advisory: Arc::new(AdvisoryLocks::new(store.clone(), lock_owner)),
            memory,
            temp_tables: temp_tables::TempTables::default(),
            function_frames: Vec::new(),
            store,
        }
    }

    /// Runs every statement of `sql` the way PostgreSQL's simple query protocol does: in one
    /// implicit transaction unless the statements control transactions themselves, stopping
    /// at the first error (which is returned after `sink` received the earlier results).
    pub fn simple_query(&mut self, sql: &str, sink: &mut dyn FnMut(StatementResult)) -> Result<()> {
        self.simple_query_with_copy(sql, sink, &mut NoCopyChannel)
    }

    /// [`Session::simple_query`] for a client that can take part in COPY FROM STDIN and
    /// COPY TO STDOUT through `copy`.
    pub fn simple_query_with_copy(
        &mut self,
        sql: &str,
        sink: &mut dyn FnMut(StatementResult),
        copy: &mut dyn CopyChannel,
    ) -> Result<()> {
        if checkpoint::is_checkpoint(sql) {
            sink(self.run_checkpoint()?);
            return Ok(());
        }
        let search_path = self.search_path()?;
        let datetime = self.datetime()?;
        let key = CacheKey {
            sql,
            params: &[],
            search_path: &search_path,
            datetime: &datetime.tag,
        };
        if let Some(result) = self.run_cached(key, true, &[], copy) {
            sink(result?);
            return Ok(());
        }
        let (statements, truncated_any) = self.parse_noting_truncations(sql)?;
        self.note_prepare_source(sql, &statements);
        // A cached plan would skip the parse, and with it the truncation notices.
        let cache_key = (statements.len() == 1 && !truncated_any).then_some(key);
        for statement in &statements {
            // As in PostgreSQL, a statement of several outside a block opens an implicit
            // one, also after a COMMIT or ROLLBACK among them ended the previous block.
            if statements.len() > 1 && self.block == Block::None {
                self.block = Block::Implicit;
                self.transaction();
                self.start_characteristics()?;
            }
            match self.run(Work::Parsed(statement), &[], &[], cache_key, copy) {
                Ok(result) => sink(result),
                Err(error) => {
                    if self.block == Block::Implicit {
                        self.rollback_transaction();
                    }
                    return Err(error);
                }
            }
        }
        if self.block == Block::Implicit {
            self.commit_transaction()?;
        }
        Ok(())
    }

    /// Convenience for embedders and tests: every statement's result, or the first error.
    pub fn execute(&mut self, sql: &str) -> Result<Vec<StatementResult>> {
        let mut results = Vec::new();
        self.simple_query(sql, &mut |r| results.push(r))?;
        Ok(results)
    }

    /// Runs COPY ... FROM STDIN with the data read from `reader` (it may be of any size:
    /// it is read a piece at a time).
    pub fn copy_from(
        &mut self,
        sql: &str,
        reader: &mut dyn std::io::Read,
    ) -> Result<StatementResult> {
        self.copy_statement(sql, &mut ReaderChannel(reader))
    }

    /// Runs COPY ... TO STDOUT, writing the data to `writer` as it is produced.
    pub fn copy_to(
        &mut self,
        sql: &str,
        writer: &mut dyn std::io::Write,
    ) -> Result<StatementResult> {
        self.copy_statement(sql, &mut WriterChannel(writer))
    }

    fn copy_statement(&mut self, sql: &str, copy: &mut dyn CopyChannel) -> Result<StatementResult> {
        let mut last = None;
        self.simple_query_with_copy(sql, &mut |result| last = Some(result), copy)?;
        last.ok_or_else(|| Error::new(SqlState::SyntaxError, "no COPY statement given"))
    }

    /// The type a client names by OID (a Parse message's parameter types): a built-in
    /// one, or an enum type of the catalog or its array type. `None` if there is no such
    /// type we support.
    pub fn type_of_oid(&self, oid: u32) -> Option<DataType> {
        DataType::from_oid(oid).or_else(|| {
            let state = self.view();
            if state.enum_types.contains_key(&oid) {
                return Some(DataType::Enum(oid));
            }
            // An enum's array type has the OID after it (`types::enum_array_oid`).
            let element = oid.checked_sub(1)?;
            state.enum_types.contains_key(&element).then_some(())?;
            DataType::array_of(DataType::Enum(element))
        })
    }

    /// Parses and binds one statement (Parse message). `param_types` are the types the client
    /// declared; `Unknown` entries (and those past its end) are inferred from context.
    pub fn prepare(&mut self, sql: &str, param_types: &[DataType]) -> Result<PreparedStatement> {
        self.datetime()?;
        // Kept without a statement, and run by its text (see `checkpoint`).
        let mut statements = if checkpoint::is_checkpoint(sql) {
            Vec::new()
        } else {
            self.parse_noting_truncations(sql)?.0
        };
        if statements.len() > 1 {
            return Err(Error::syntax(
                "cannot insert multiple commands into a prepared statement",
            ));
        }
        let Some(statement) = statements.pop() else {
            return Ok(PreparedStatement {
                inner: Arc::new(PreparedInner {
                    sql: sql.to_string(),
                    statement: None,
                    param_types: param_types.to_vec(),
                    columns: None,
                    read_only: false,
                    executions: Arc::default(),
                }),
            });
        };
        self.check_not_failed(&statement.statement)?;
        // Bound when it runs, once the temporary schema it goes to exists; it has no
        // parameters or result columns to describe.
        if temp_tables::creates_temp_relation(&statement) {
            return Ok(PreparedStatement {
                inner: Arc::new(PreparedInner {
                    sql: sql.to_string(),
                    statement: Some(statement),
                    param_types: param_types.to_vec(),
                    columns: None,
                    read_only: false,
                    executions: Arc::default(),
                }),
            });
        }
        if let Some(described) = self.describe_cursor_sql(&statement, param_types) {
            let (columns, param_types) = described?;
            return Ok(PreparedStatement {
                inner: Arc::new(PreparedInner {
                    sql: sql.to_string(),
                    statement: Some(statement),
                    param_types,
                    columns,
                    read_only: false,
                    executions: Arc::default(),
                }),
            });
        }
        let view = self.view();
        let search_path = self.search_path()?;
        let (bound, param_types) =
            Binder::new(&view, &search_path, param_types).bind(&statement)?;
        self.prepared(sql.to_string(), statement, &bound, param_types)
    }

    /// A prepared statement of `statement`, bound as `bound`: what Describe announces
    /// (the columns of the rows it returns) and whether its result may come from the cache.
    fn prepared(
        &self,
        sql: String,
        statement: Parsed,
        bound: &BoundStatement,
        param_types: Vec<DataType>,
    ) -> Result<PreparedStatement> {
        let columns = match bound {
            BoundStatement::Show { name } => Some(self.show_columns(name)?),
            BoundStatement::Explain { .. } => Some(query::explain_columns()),
            bound => bound.result_columns().cloned(),
        };
        Ok(PreparedStatement {
            inner: Arc::new(PreparedInner {
                sql,
                statement: Some(statement),
                param_types,
                columns,
                read_only: bound.is_read_only(),
                executions: Arc::default(),
            }),
        })
    }

    /// Runs a prepared statement with parameter values of its `param_types` (Bind+Execute).
    pub fn execute_prepared(
        &mut self,
        prepared: &PreparedStatement,
        params: &[ScalarValue],
    ) -> Result<StatementResult> {
        self.execute_prepared_with_copy(prepared, params, &mut NoCopyChannel)
    }

    /// [`Session::execute_prepared`] for a client that can take part in COPY.
    pub fn execute_prepared_with_copy(
        &mut self,
        prepared: &PreparedStatement,
        params: &[ScalarValue],
        copy: &mut dyn CopyChannel,
    ) -> Result<StatementResult> {
        let Some(statement) = &prepared.inner.statement else {
            if checkpoint::is_checkpoint(&prepared.inner.sql) {
                return self.run_checkpoint();
            }
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
        prepared
            .inner
            .executions
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.note_prepare_source(&prepared.inner.sql, std::slice::from_ref(statement));
        let param_types = &prepared.inner.param_types;
        let sql = &prepared.inner.sql;
        let search_path = self.search_path()?;
        let datetime = self.datetime()?;
        let key = CacheKey {
            sql,
            params,
            search_path: &search_path,
            datetime: &datetime.tag,
        };
        // Only a statement that just reads can have a cached result.
        let read_only = prepared.inner.read_only;
        if let Some(result) = self.run_cached(key, read_only, param_types, copy) {
            return result;
        }
        self.run(
            Work::Parsed(statement),
            param_types,
            params,
            Some(key),
            copy,
        )
    }

    pub fn transaction_status(&self) -> TransactionStatus {
        match self.block {
            Block::None | Block::Implicit => TransactionStatus::Idle,
            Block::Explicit => TransactionStatus::InBlock,
            Block::Failed => TransactionStatus::Failed,
        }
    }

    /// How long the client may leave the session waiting for its next message before it
    /// is closed, and the FATAL error that says why: `idle_in_transaction_session_timeout`
    /// in a transaction block, `idle_session_timeout` outside one. `None`: no limit.
    pub fn idle_timeout(&self) -> Option<(std::time::Duration, Error)> {
        match self.transaction_status() {
            TransactionStatus::Idle => self.timeout_setting(&IDLE_SESSION_TIMEOUT).map(|t| {
                let error = Error::new(
                    SqlState::IdleSessionTimeout,
                    "terminating connection due to idle-session timeout",
                );
                (t, error)
            }),
            TransactionStatus::InBlock | TransactionStatus::Failed => {
                self.idle_in_transaction_timeout()
            }
        }
    }

    /// `idle_in_transaction_session_timeout` and the FATAL error it ends the connection
    /// with, in or out of a transaction block: also how long a COPY FROM STDIN, which holds
    /// its table's lock, may wait for the client's next data.
    pub fn idle_in_transaction_timeout(&self) -> Option<(std::time::Duration, Error)> {
        self.timeout_setting(&IDLE_IN_TRANSACTION_SESSION_TIMEOUT)
            .map(|t| {
                let error = Error::new(
                    SqlState::IdleInTransactionSessionTimeout,
                    "terminating connection due to idle-in-transaction timeout",
                );
                (t, error)
            })
    }

    /// Notices raised since the last call.
    pub fn take_notices(&mut self) -> Vec<Notice> {
        std::mem::take(&mut self.notices)
    }

    /// Sets a parameter a client sent in its startup message, which RESET then goes back
    /// to; an unknown name is an error, as in PostgreSQL.
    pub fn set_startup_parameter(&mut self, name: &str, value: &str) -> Result<()> {
        (self.settings).set_session_default(name, value, source::CLIENT)
    }

    /// The current value of a setting, as SHOW prints it.
    pub fn setting(&self, name: &str) -> Option<String> {
        self.settings.get(name).ok().map(|(_, v)| v)
    }

    /// Whether COMMIT must wait until the transaction is on disk: `synchronous_commit` is
    /// anything but off (with no replicas, PostgreSQL's other levels all mean that).
    pub fn synchronous_commit(&self) -> bool {
        self.settings.value("synchronous_commit") != Some("off")
    }

    /// Settings that PostgreSQL reports with ParameterStatus and that changed since the last
    /// call (e.g. after `SET application_name`).
    pub fn take_reported_setting_changes(&mut self) -> Vec<(String, String)> {
        self.settings.take_changes()
    }

    pub fn lock_wait_probe(&self) -> LockWaitProbe {
        LockWaitProbe {
            store: Arc::downgrade(&self.store),
            owner: self.lock_owner,
        }
    }

    pub fn cancel_handle(&self) -> CancelHandle {
        self.cancel.clone()
    }

    /// The session's `search_path`, with its user and database.
    fn search_path(&self) -> Result<Arc<SearchPath>> {
        let setting = self.settings.search_path();
        let identity = self.current_identity()?;
        let (user, database) = (&identity.user, &identity.database);
        let temp_schema = self.temp_schema();
        if let Some(path) = self.search_path.borrow().as_ref() {
            if path.is_for(setting, user, database, temp_schema.as_deref()) {
                return Ok(path.clone());
            }
        }
        let path =
            Arc::new(SearchPath::parse(setting, user, database)?.with_temp_schema(temp_schema));
        *self.search_path.borrow_mut() = Some(path.clone());
        Ok(path)
    }

    /// What the next statement reads: the transaction's view, or the latest commit.
    fn view(&self) -> Arc<crate::storage::DbState> {
        match &self.txn {
            Some(txn) => txn.view(),
            None => self.store.snapshot(),
        }
    }

    /// Binds (unless already bound) and executes one statement within the session's
    /// transaction rules; a panic is reported as an internal error and fails the transaction
    /// like any error. `cache_key` names the statement in the plan and result caches.
    fn run(
        &mut self,
        work: Work<'_>,
        param_types: &[DataType],
        params: &[ScalarValue],
        cache_key: Option<CacheKey<'_>>,
        copy: &mut dyn CopyChannel,
    ) -> Result<StatementResult> {
        self.check_runnable(&work)?;
        // A SET earlier in the same query string may have changed them.
        self.datetime()?;
        let running = self.start_statement();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            self.run_work(work, param_types, params, cache_key, copy)
        }))
        .unwrap_or_else(|panic| {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(Error::internal(format!("internal error: {message}")))
        });
        drop(running);
        self.cancel.interrupt.end_statement();
        self.finish_statement(outcome)
    }

    /// Starts statement_timeout and makes the session's interrupt and a working memory
    /// account the thread's (see `interrupt`) until the returned guard is dropped: for a
    /// parse, and for a statement's binding, where folding constants already builds values
    /// (its execution opens its own account, `statement_context`). The caller then ends the
    /// timeout.
    fn start_statement(&self) -> RunningStatement {
        self.cancel
            .interrupt
            .start_statement(self.timeout_setting(&STATEMENT_TIMEOUT));
        let memory = QueryMemory::new(self.memory.clone(), self.query_memory_limit_bytes());
        RunningStatement::enter(&self.cancel.interrupt, memory.budget())
    }

    /// `kestrel.query_memory_limit` in bytes; 0 is the pool's default share.
    fn query_memory_limit_bytes(&self) -> u64 {
        let megabytes = self
            .settings
            .value(QUERY_MEMORY_LIMIT.name)
            .and_then(|value| QUERY_MEMORY_LIMIT.parse(value).ok())
            .unwrap_or(0);
        match megabytes {
            0 => self.memory.default_query_limit_bytes(),
            mb => (mb as u64).saturating_mul(1024 * 1024),
        }
    }

    fn lock_timeout(&self) -> Option<std::time::Duration> {
        self.timeout_setting(&LOCK_TIMEOUT)
    }

    /// A timeout setting in milliseconds (`lock_timeout`, `statement_timeout`, ...), `None`
    /// when 0 (no limit).
    fn timeout_setting(&self, setting: &UnitSetting) -> Option<std::time::Duration> {
        let value = self.settings.value(setting.name).unwrap_or("0");
        if value == "0" {
            return None;
        }
        let millis = setting.parse(value).ok()?;
        (millis > 0).then(|| std::time::Duration::from_millis(millis as u64))
    }

    /// Parses `sql`, raising PostgreSQL's NOTICE for each identifier cut to 63 bytes and
    /// WARNING for each datetime precision reduced to 6; whether there was one.
    fn parse_noting_truncations(&mut self, sql: &str) -> Result<(Vec<Parsed>, bool)> {
        let mut report = parser::ParseReport::default();
        // A statement of a hundred megabytes is limited like its execution.
        let running = self.start_statement();
        let statements = parser::parse_reporting(sql, &mut report);
        drop(running);
        self.cancel.interrupt.end_statement();
        let statements = statements?;
        for identifier in &report.truncated {
            self.notices.push(Notice {
                severity: "NOTICE",
                state: SqlState::NameTooLong,
                message: identifier.message(),
                detail: None,
            });
        }
        for warning in &report.precision_warnings {
            self.warn(SqlState::InvalidParameterValue, warning);
        }
        Ok((statements, !report.is_empty()))
    }

    fn warn(&mut self, state: SqlState, message: &str) {
        self.notices.push(Notice {
            severity: "WARNING",
            state,
            message: message.to_string(),
            detail: None,
        });
    }

    /// What a statement runs with: its parameters and snapshot, the shared join cache when
    /// the session may use it, who it runs for and its clock, and the session's limits.
    fn statement_context(
        &mut self,
        bound: &BoundStatement,
        view: Arc<crate::storage::DbState>,
        params: &[ScalarValue],
    ) -> ExecContext {
        let mut ctx = ExecContext::new(
            params.to_vec(),
            view,
            self.cancel.interrupt.clone(),
            self.sequences.clone(),
        );
        // A transaction's uncommitted table versions keep their committed generation
        // numbers, so it must not share build tables with others.
        if self.caches_usable() {
            ctx.join_cache = self.cache.joins.clone();
        }
        ctx.session = self
            .current_identity()
            .unwrap_or_else(|_| self.identity.clone());
        ctx.advisory = Some(self.advisory.clone());
        ctx.cursors = self.cursors.rows();
        ctx.prepared_statements = self.prepared_listing.rows();
        ctx.settings = Some(self.settings.rows());
        ctx.search_path = self.search_path().ok();
        if self.block != Block::None || matches!(bound, BoundStatement::Begin { .. }) {
            ctx.clock.transaction = *self.transaction_micros.get_or_insert(ctx.clock.statement);
        }
        ctx.memory = QueryMemory::new(self.memory.clone(), self.query_memory_limit_bytes());
        crate::interrupt::use_memory(ctx.memory.budget());
        if let Some(limit) = self.settings.value("kestrel.max_recursive_iterations") {
            ctx.max_recursive_rounds = limit.parse().unwrap_or(ctx.max_recursive_rounds);
        }
        ctx.parallelism = self.parallelism();
        // A statement of a function body reads its parameters as the enclosing row.
        if let Some(frame) = self.function_frames.last() {
            ctx.outer_rows = RefCell::new(vec![frame.args.clone()]);
        }
        ctx
    }

    /// The parallelism the session's settings allow its statements.
    fn parallelism(&self) -> crate::physical::parallel::Parallelism {
        use crate::physical::parallel::{ForceParallel, Parallelism};
        let number = |name: &str| {
            self.settings
                .value(name)
                .and_then(|v| v.parse::<u64>().ok())
        };
        let forced = match self.settings.value("force_parallel_mode") {
            Some("on") => ForceParallel::On,
            Some("regress") => ForceParallel::Regress,
            _ => ForceParallel::Off,
        };
        Parallelism::from_settings(
            number("max_parallel_workers_per_gather").map_or(0, |n| n as usize),
            number("kestrel.parallel_min_rows").unwrap_or(u64::MAX),
            forced,
        )
    }

    fn run_work(
        &mut self,
        work: Work<'_>,
        param_types: &[DataType],
        params: &[ScalarValue],
        cache_key: Option<CacheKey<'_>>,
        copy: &mut dyn CopyChannel,
    ) -> Result<StatementResult> {
        if let Work::Parsed(statement) = &work {
            if let Some(result) = self.run_prepared_sql(statement) {
                return result;
            }
            if let Some(result) = self.run_cursor_sql(statement, param_types, params) {
                return result;
            }
        }
        self.enter_statement(&work);
        let (bound, view) = self.bind_locked(work, param_types, cache_key)?;
        self.check_access(&bound)?;
        let locked_tables = row_locks::tables_row_locked(&bound);
        if !locked_tables.is_empty() {
            return self.run_locking_query(bound, &locked_tables, params);
        }
        let ctx = self.statement_context(&bound, view, params);
        let result = self.run_bound(bound, &ctx, cache_key, copy);
        let changes = ctx.setting_changes.take();
        match result {
            Ok(result) => {
                self.apply_setting_changes(changes)?;
                Ok(result)
            }
            Err(error) => Err(error),
        }
    }

    /// Runs a bound statement of any kind, each kind in its module.
    fn run_bound(
        &mut self,
        bound: BoundStatement,
        ctx: &ExecContext,
        cache_key: Option<CacheKey<'_>>,
        copy: &mut dyn CopyChannel,
    ) -> Result<StatementResult> {
        match bound {
            BoundStatement::Query { plan, columns } => {
                self.run_query(&plan, columns, ctx, cache_key)
            }
            BoundStatement::WithWrites { writes, main } => {
                for (id, write) in writes {
                    let written = self.run_bound(write, ctx, None, copy)?;
                    ctx.work_tables
                        .borrow_mut()
                        .insert(id, Arc::new(written.batches));
                }
                // Its rows depend on the writes: never one for the result cache.
                self.run_bound(*main, ctx, None, copy)
            }
            BoundStatement::Explain { plan, analyze } => self.run_explain(&plan, analyze, ctx),
            BoundStatement::Copy(statement) => self.run_copy(&statement, ctx, copy),
            BoundStatement::Show { name } => self.run_show(&name),
            BoundStatement::FunctionCall(call) => self.run_function_call(call, ctx, copy),
            write @ (BoundStatement::Insert { .. }
            | BoundStatement::Update { .. }
            | BoundStatement::Delete { .. }) => self.run_write(write, ctx),
            control @ (BoundStatement::Begin { .. }
            | BoundStatement::LockTable { .. }
            | BoundStatement::SetTransaction { .. }
            | BoundStatement::Commit { .. }
            | BoundStatement::Rollback { .. }
            | BoundStatement::Savepoint { .. }
            | BoundStatement::Set(_)
            | BoundStatement::SetConstraints { .. }) => self.run_transaction_control(control),
            change @ (BoundStatement::CreateTable { .. }
            | BoundStatement::DropTable { .. }
            | BoundStatement::CreateIndex(_)
            | BoundStatement::AlterTable { .. }
            | BoundStatement::CreateView { .. }
            | BoundStatement::DropView { .. }
            | BoundStatement::ChangeRole(_)
            | BoundStatement::ChangeType(_)
            | BoundStatement::ChangeFunction(_)
            | BoundStatement::ChangeExtension(_)
            | BoundStatement::ChangeForeignData(_)
            | BoundStatement::Truncate { .. }
            | BoundStatement::DropIndex { .. }
            | BoundStatement::CreateSequence { .. }
            | BoundStatement::Comment { .. }
            | BoundStatement::AlterSequence { .. }
            | BoundStatement::DropSequence { .. }
            | BoundStatement::CreateSchema { .. }
            | BoundStatement::DropSchema { .. }
            | BoundStatement::RenameSchema { .. }
            | BoundStatement::Maintenance { .. }
            | BoundStatement::RefreshMaterializedView { .. }) => {
                self.run_catalog_change(change, ctx)
            }
        }
    }

    /// Folds a statement's constants and runs the optimizer's rules (those not disabled)
    /// over its plans.
    fn optimize(
        &self,
        bound: BoundStatement,
        state: &crate::storage::DbState,
    ) -> Result<BoundStatement> {
        let disabled_setting = self
            .settings
            .value("kestrel.disabled_optimizer_rules")
            .unwrap_or_default();
        let mut disabled: Vec<&str> = disabled_setting.split(',').map(str::trim).collect();
        if disabled.contains(&"all") {
            disabled = crate::optimizer::rule_names();
        }
        let bound = crate::optimizer::fold_statement(bound)?;
        bound.try_map_plans(&mut |plan| crate::optimizer::optimize(plan, &disabled, state))
    }
}
