//! A session: one connection's settings, transaction and prepared statements. Every
//! statement goes through [`Session::run`]: parse → bind → plan → execute.

mod bind;
mod catalog_change;
mod checkpoint;
mod copy;
mod cursors;
mod datetime;
mod function_call;
mod prepared_listing;
mod prepared_sql;
mod query;
mod row_locks;
mod temp_tables;
mod transaction_control;
mod write;

use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use sqlparser::ast::Statement;

use super::copy::{CopyChannel, NoCopyChannel, ReaderChannel, WriterChannel};
use super::query_cache::{CacheKey, QueryCache};
use super::settings::{
    Defaults, Settings, UnitSetting, IDLE_IN_TRANSACTION_SESSION_TIMEOUT, IDLE_SESSION_TIMEOUT,
    LOCK_TIMEOUT, QUERY_MEMORY_LIMIT, STATEMENT_TIMEOUT,
};
use super::{ColumnInfo, Notice, StatementResult};
use crate::binder::Binder;
use crate::catalog::password::PasswordEncryption;
use crate::catalog::{ObjectKind, QualifiedName, SearchPath};
use crate::error::{Error, Result, SqlState};
use crate::exec::memory::{MemoryPool, QueryMemory};
use crate::exec::{
    ddl, enum_type, index, modify, role, schema, sql_function, truncate, view, ExecContext,
    SessionIdentity, SharedSessionSequences,
};
use crate::interrupt::{Interrupt, RunningStatement};
use crate::parser::{self, Parsed};
use crate::plan::{BoundStatement, RoleChange, SettingChange};
use crate::storage::{AdvisoryLocks, Isolation, RelationKind, Store, Transaction};
use crate::types::{DataType, ScalarValue};

/// What [`Session::run`] runs: a parsed statement, or one bound earlier.
enum Work<'a> {
    Parsed(&'a Parsed),
    Bound(Box<BoundStatement>),
}

/// Statements whose bound form may be reused for the same text: queries and row writes,
/// except INSERTs of literal rows. Those are almost never sent twice with the same values
/// (a bulk load sends each row once), and remembering each one's text cost a single-row
/// INSERT 7 % of its server time.
fn is_plan_cacheable(bound: &BoundStatement) -> bool {
    match bound {
        BoundStatement::Insert { source, .. } => !source.is_literal_values(),
        BoundStatement::Query { plan, .. } => !plan.reads_files(),
        BoundStatement::Update { .. }
        | BoundStatement::Delete { .. }
        | BoundStatement::WithWrites { .. } => true,
        _ => false,
    }
}

/// Whether a statement takes the transaction's snapshot, after which its isolation level is
/// fixed: all but transaction control, SET and SHOW (and LOCK), as in PostgreSQL.
fn takes_snapshot(work: &Work<'_>) -> bool {
    match work {
        Work::Bound(_) => true,
        Work::Parsed(parsed) => !matches!(
            parsed.statement.sql(),
            Some(
                Statement::StartTransaction { .. }
                    | Statement::Commit { .. }
                    | Statement::Rollback { .. }
                    | Statement::Savepoint { .. }
                    | Statement::ReleaseSavepoint { .. }
                    | Statement::Set(_)
                    | Statement::ShowVariable { .. }
                    | Statement::Lock(_)
            )
        ),
    }
}

fn failed_block_error() -> Error {
    Error::new(
        SqlState::InFailedSqlTransaction,
        "current transaction is aborted, commands ignored until end of transaction block",
    )
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
        if self.caches_usable() {
            let view = self.view();
            let key = CacheKey {
                sql,
                params: &[],
                search_path: &search_path,
                datetime: &datetime.tag,
            };
            if self.result_cache_on() {
                if let Some(result) = self.cache.result(&key.result_key(), &view) {
                    sink(result);
                    return Ok(());
                }
            }
            if let Some(bound) = self.cache.plan(&key, &[], view.catalog_version) {
                sink(self.run(Work::Bound(Box::new(bound)), &[], &[], Some(key), copy)?);
                return Ok(());
            }
        }
        let (statements, truncated_any) = self.parse_noting_truncations(sql)?;
        self.note_prepare_source(sql, &statements);
        // A cached plan would skip the parse, and with it the truncation notices.
        let cache_key = (statements.len() == 1 && !truncated_any).then_some(CacheKey {
            sql,
            params: &[],
            search_path: &search_path,
            datetime: &datetime.tag,
        });
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
        if self.caches_usable() {
            let view = self.view();
            // Only a statement that just reads can have a cached result.
            if prepared.inner.read_only && self.result_cache_on() {
                if let Some(result) = self.cache.result(&key.result_key(), &view) {
                    return Ok(result);
                }
            }
            if let Some(bound) = self.cache.plan(&key, param_types, view.catalog_version) {
                let work = Work::Bound(Box::new(bound));
                return self.run(work, param_types, params, Some(key), copy);
            }
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
        self.settings.set_session_default(name, value)
    }

    /// Who the session is for: current_user, current_database() and pg_backend_pid().
    /// A user that names no role is the bootstrap superuser under that name: the server
    /// lets such a user in only when it trusts every client.
    /// Called as the session starts, before the client's settings: the settings ALTER
    /// ROLE ... SET keeps for the role start over from the server's.
    pub fn set_identity(&mut self, user: &str, database: &str, backend_pid: i32) {
        let role_oid = self
            .store
            .snapshot()
            .roles
            .by_name(user)
            .map_or(crate::catalog::system::SUPERUSER_OID, |role| role.oid);
        self.identity = Arc::new(SessionIdentity {
            user: user.to_string(),
            database: database.to_string(),
            backend_pid,
            role_oid,
            session_user: user.to_string(),
        });
        self.settings = self.settings.restarted();
        self.apply_role_settings();
    }

    /// ALTER ROLE ... SET's value must be one SET would take, and the name is kept as
    /// the setting spells it (PostgreSQL's GUCArrayAdd).
    fn check_kept_setting(&self, change: &mut SettingChange) -> Result<()> {
        let name = match change {
            SettingChange::Set { name, value } => {
                self.settings.clone().set(name, Some(value))?;
                name
            }
            SettingChange::Reset { name: Some(name) } => name,
            SettingChange::Reset { name: None } => return Ok(()),
        };
        match self.settings.get(name) {
            Ok((spelled, _)) if !spelled.is_empty() => *name = spelled.to_string(),
            // A custom `prefix.name` need not be set to be reset.
            Err(error) if !name.contains('.') => return Err(error),
            _ => {}
        }
        Ok(())
    }

    /// Applies what ALTER ROLE / DATABASE ... SET keeps for the session's role as its
    /// defaults; a kept value that no longer applies is a WARNING, as in PostgreSQL.
    pub(crate) fn apply_role_settings(&mut self) {
        let state = self.store.snapshot();
        let database = crate::catalog::system::DATABASE_OID;
        let kept = state
            .roles
            .settings
            .for_session(database, self.identity.role_oid);
        for (name, value) in kept {
            if let Err(error) = self.settings.set_session_default(&name, &value) {
                self.notices.push(Notice {
                    severity: "WARNING",
                    state: error.state,
                    message: error.message,
                    detail: None,
                });
            }
        }
    }

    /// 42501 unless the session's user may CONNECT to the database, which PostgreSQL
    /// checks as a session starts (superusers always may; PUBLIC may by default).
    pub fn check_connect(&self) -> Result<()> {
        let state = self.store.snapshot();
        let roles = &state.roles;
        let role = self.identity.role_oid;
        let object = roles.database_privileges();
        let (held, _) = roles.privileges_of(role, ObjectKind::Database, &object);
        match held.contains(crate::catalog::AclMode::CONNECT) {
            true => Ok(()),
            false => Err(Error::new(
                SqlState::InsufficientPrivilege,
                format!(
                    "permission denied for database \"{}\"",
                    self.identity.database
                ),
            )
            .with_detail("User does not have CONNECT privilege.")),
        }
    }

    /// Who statements run as: the session's user, or the role SET ROLE chose, which the
    /// session's user must be a member of (or a superuser).
    fn current_identity(&self) -> Result<Arc<SessionIdentity>> {
        let role = self.settings.value("role").unwrap_or("none");
        if role == "none" {
            return Ok(self.identity.clone());
        }
        let target = self.role_to_set(role)?;
        Ok(Arc::new(SessionIdentity {
            user: target.name.clone(),
            role_oid: target.oid,
            ..(*self.identity).clone()
        }))
    }

    /// Makes the current role the owner of the objects `oids` the statement created.
    fn record_owner(&mut self, kind: ObjectKind, oids: &[u32]) -> Result<()> {
        let owner = self.current_identity()?.role_oid;
        crate::exec::privilege::record_owner(self.transaction(), kind, oids, owner)
    }

    /// The OIDs of the sequences `names` that exist in the transaction's view.
    fn sequence_oids<'n>(&mut self, names: impl Iterator<Item = &'n QualifiedName>) -> Vec<u32> {
        let view = self.transaction().view();
        names
            .filter_map(|name| view.sequences.get(name).map(|s| s.oid))
            .collect()
    }

    /// The role `SET ROLE role` makes current: 22023 if it does not exist, 42501 unless
    /// the session's user is a superuser or a member of it.
    fn role_to_set(&self, role: &str) -> Result<Arc<crate::catalog::Role>> {
        let state = self.view();
        let roles = &state.roles;
        let target = roles.by_name(role).ok_or_else(|| {
            Error::new(
                SqlState::InvalidParameterValue,
                format!("role \"{role}\" does not exist"),
            )
        })?;
        let session = roles.by_oid(self.identity.role_oid);
        if !session.is_some_and(|s| s.superuser || roles.is_member_of(s.oid, target.oid)) {
            return Err(Error::new(
                SqlState::InsufficientPrivilege,
                format!("permission denied to set role \"{role}\""),
            ));
        }
        Ok(target.clone())
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

    fn check_not_failed(&self, statement: &parser::Statement) -> Result<()> {
        if self.block == Block::Failed
            && !matches!(
                statement.sql(),
                Some(Statement::Commit { .. } | Statement::Rollback { .. })
            )
        {
            return Err(failed_block_error());
        }
        Ok(())
    }

    /// Whether the shared caches may serve this session now: not while its transaction has
    /// uncommitted writes (they are invisible to the caches), nor in a failed block, nor with
    /// optimizer rules switched off.
    fn caches_usable(&self) -> bool {
        self.block != Block::Failed
            && self.txn.as_ref().is_none_or(|t| !t.has_writes())
            && self
                .settings
                .value("kestrel.disabled_optimizer_rules")
                .is_some_and(str::is_empty)
    }

    fn result_cache_on(&self) -> bool {
        self.settings.value("kestrel.result_cache") == Some("on")
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
        match &work {
            Work::Parsed(parsed) => self.check_not_failed(&parsed.statement)?,
            Work::Bound(_) if self.block == Block::Failed => {
                return Err(failed_block_error());
            }
            Work::Bound(_) => {}
        }
        self.cancel
            .interrupt
            .start_statement(self.timeout_setting(&STATEMENT_TIMEOUT));
        // A SET earlier in the same query string may have changed them.
        self.datetime()?;
        let running = RunningStatement::enter(&self.cancel.interrupt);
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
        match outcome {
            Ok(result) => {
                if self.block == Block::None {
                    self.commit_transaction()?;
                }
                Ok(result)
            }
            Err(error) => {
                match self.block {
                    Block::Explicit => self.fail_block(),
                    Block::None => self.rollback_transaction(),
                    Block::Implicit | Block::Failed => {}
                }
                Err(error)
            }
        }
    }

    /// Commits the transaction. One the log could not make durable is an error, and is
    /// gone all the same (its changes never become visible), as in PostgreSQL.
    fn commit_transaction(&mut self) -> Result<()> {
        let outcome = match self.txn.take() {
            // ON COMMIT actions and foreign keys deferred to COMMIT come first; a
            // violation rolls back.
            Some(mut txn) => match temp_tables::apply_on_commit(&mut self.temp_tables, &mut txn)
                .and_then(|()| crate::exec::foreign_key::check_deferred(&mut txn, true))
            {
                Ok(()) => txn.commit(self.synchronous_commit()),
                Err(error) => {
                    txn.rollback();
                    Err(error)
                }
            },
            // A statement that wrote nothing may still have moved a sequence (SELECT
            // nextval): a durable store logs the counter before the value is answered.
            None if self.store.is_durable() => self.store.begin().commit(self.synchronous_commit()),
            None => Ok(()),
        };
        self.leave_transaction(outcome.is_err());
        outcome
    }

    /// An error in a transaction block: the block waits for ROLLBACK, but (as in PostgreSQL)
    /// the transaction is over, its changes gone and its locks released at once, unless a
    /// savepoint can still take it back to where it was.
    fn fail_block(&mut self) {
        self.block = Block::Failed;
        if self.savepoints.is_empty() {
            if let Some(txn) = self.txn.take() {
                txn.rollback();
            }
        }
    }

    fn rollback_transaction(&mut self) {
        if let Some(txn) = self.txn.take() {
            txn.rollback();
        }
        self.leave_transaction(true);
    }

    /// Back to no transaction; a rolled-back one takes its SETs with it.
    fn leave_transaction(&mut self, rolled_back: bool) {
        let saved = self.settings_at_begin.take();
        match (rolled_back, saved) {
            (true, Some(saved)) => self.settings.restore(saved),
            _ => self.settings.end_transaction(),
        }
        self.block = Block::None;
        self.savepoints.clear();
        self.cursors.end_transaction(rolled_back);
        self.transaction_micros = None;
        self.advisory.end_transaction();
    }

    fn transaction(&mut self) -> &mut Transaction {
        let txn = match self.txn.take() {
            Some(txn) => txn,
            None => {
                if self.settings_at_begin.is_none() {
                    self.settings_at_begin = Some(self.settings.clone());
                }
                let mut txn = self.store.begin_for(self.lock_owner);
                txn.set_lock_timeout(self.lock_timeout());
                txn
            }
        };
        self.txn.insert(txn)
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
        let statements = parser::parse_reporting(sql, &mut report)?;
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
    fn parallelism(&self) -> crate::exec::parallel::Parallelism {
        use crate::exec::parallel::{ForceParallel, Parallelism};
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
        let lock_timeout = self.lock_timeout();
        if let Some(txn) = self.txn.as_mut() {
            txn.set_lock_timeout(lock_timeout);
        }
        self.advisory.set_timeout(lock_timeout);
        if self.block != Block::None && takes_snapshot(&work) {
            let isolation = Isolation::from_setting(
                self.settings
                    .value("transaction_isolation")
                    .unwrap_or_default(),
            );
            self.transaction().take_snapshot(isolation);
        }
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

    /// 25006 for a write in a READ ONLY transaction; notes what a SERIALIZABLE one reads.
    fn check_access(&mut self, bound: &BoundStatement) -> Result<()> {
        let read_only = match self.block {
            Block::None => "default_transaction_read_only",
            Block::Implicit | Block::Explicit | Block::Failed => "transaction_read_only",
        };
        if self.settings.value(read_only) == Some("on") {
            if let Some(command) = bound.write_command() {
                return Err(Error::new(
                    SqlState::ReadOnlySqlTransaction,
                    format!("cannot execute {command} in a read-only transaction"),
                ));
            }
        }
        if self.block != Block::None
            && self.settings.value("transaction_isolation") == Some("serializable")
        {
            let tables = bound.tables_read();
            self.transaction().note_reads(&tables);
        }
        Ok(())
    }

    /// Runs a bound statement of any kind.
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
            BoundStatement::Insert {
                table_name,
                table_oid,
                source,
                returning,
                on_conflict,
                checks,
            } => {
                let target = (&table_name, table_oid);
                let on_conflict = on_conflict.as_ref();
                self.run_insert(target, &source, on_conflict, &checks, returning, ctx)
            }
            BoundStatement::Update {
                table_name,
                table_oid,
                source,
                filter,
                assignments,
                returning,
                checks,
            } => {
                let target = modify::Target {
                    name: &table_name,
                    oid: table_oid,
                    source: source.as_ref(),
                    filter: filter.as_ref(),
                };
                self.run_update(&target, &assignments, &checks, returning, ctx)
            }
            BoundStatement::Delete {
                table_name,
                table_oid,
                source,
                filter,
                returning,
            } => {
                let target = modify::Target {
                    name: &table_name,
                    oid: table_oid,
                    source: source.as_ref(),
                    filter: filter.as_ref(),
                };
                self.run_delete(&target, returning, ctx)
            }
            BoundStatement::CreateTable {
                schema,
                if_not_exists,
                sequences,
                source,
                on_commit,
            } => {
                let name = schema.qualified_name();
                let existed = self.view().table_by_name(&name).is_some();
                let sequence_names: Vec<QualifiedName> =
                    sequences.iter().map(|(name, ..)| name.clone()).collect();
                let result =
                    self.run_create_table(schema, if_not_exists, sequences, source, ctx)?;
                if !existed {
                    let oid = self
                        .transaction()
                        .table_for_write(&name)?
                        .map(|t| t.schema.oid);
                    if let Some(oid) = oid {
                        self.record_owner(ObjectKind::Relation, &[oid])?;
                        let sequence_oids = self.sequence_oids(sequence_names.iter());
                        self.record_owner(ObjectKind::Sequence, &sequence_oids)?;
                        if let Some(action) = on_commit {
                            self.register_on_commit(oid, action);
                        }
                    }
                }
                Ok(result)
            }
            BoundStatement::DropTable {
                names,
                if_exists,
                cascade,
                kind,
            } => {
                let tag = match kind {
                    RelationKind::MaterializedView => "DROP MATERIALIZED VIEW",
                    RelationKind::ForeignTable => "DROP FOREIGN TABLE",
                    RelationKind::Table
                    | RelationKind::Sequence
                    | RelationKind::Index { .. }
                    | RelationKind::View
                    | RelationKind::CompositeType => "DROP TABLE",
                };
                self.with_notices(tag, |txn, notices| {
                    ddl::drop_tables(txn, &names, if_exists, cascade, &kind, notices)
                })
            }
            BoundStatement::CreateIndex(spec) => {
                if spec.concurrently {
                    self.outside_transaction_block("CREATE INDEX CONCURRENTLY")?;
                }
                self.with_notices("CREATE INDEX", |txn, notices| {
                    index::create_index(txn, spec, notices)
                })
            }
            BoundStatement::AlterTable {
                alter,
                notices,
                tag,
            } => self.run_alter_table(alter.as_deref(), notices, tag, ctx),
            BoundStatement::CreateView { view, or_replace } => {
                let name = view.qualified_name();
                let existed = self.view().views.contains_key(&name);
                view::create_view(self.transaction(), view, or_replace)?;
                let oid = self.transaction().view().views.get(&name).map(|v| v.oid);
                if let Some(oid) = oid.filter(|_| !existed) {
                    self.record_owner(ObjectKind::Relation, &[oid])?;
                }
                Ok(StatementResult::command("CREATE VIEW"))
            }
            BoundStatement::DropView {
                names,
                if_exists,
                cascade,
            } => self.with_notices("DROP VIEW", |txn, notices| {
                view::drop_views(txn, &names, if_exists, cascade, notices)
            }),
            BoundStatement::ChangeRole(mut change) => {
                let tag = change.tag();
                if let RoleChange::Setting { change, .. } = &mut change {
                    self.check_kept_setting(change)?;
                }
                let session = self.current_identity()?.session_role();
                let encryption = PasswordEncryption::from_setting(
                    self.settings
                        .value("password_encryption")
                        .unwrap_or_default(),
                );
                let actor = role::RoleActor {
                    session: &session,
                    session_user: self.identity.role_oid,
                    encryption,
                };
                self.with_notices(tag, |txn, notices| {
                    role::change_role(txn, change, &actor, notices)
                })
            }
            BoundStatement::ChangeType(change) => {
                let tag = change.tag();
                self.with_notices(tag, |txn, notices| {
                    enum_type::change_type(txn, change, notices, ctx)
                })
            }
            BoundStatement::ChangeFunction(change) => {
                let tag = change.tag();
                let before: Vec<u32> = self.view().functions.keys().copied().collect();
                let result = self.with_notices(tag, |txn, notices| {
                    sql_function::change_function(txn, change, notices)
                })?;
                let made: Vec<u32> = (self.transaction().view().functions.keys())
                    .filter(|oid| !before.contains(oid))
                    .copied()
                    .collect();
                self.record_owner(ObjectKind::Function, &made)?;
                Ok(result)
            }
            BoundStatement::ChangeExtension(change) => {
                let tag = change.tag();
                let session = self.identity.session_role();
                self.with_notices(tag, |txn, notices| {
                    crate::exec::extension::change_extension(txn, change, &session, notices)
                })
            }
            BoundStatement::ChangeForeignData(change) => {
                let tag = change.tag();
                let session = self.identity.session_role();
                self.with_notices(tag, |txn, notices| {
                    crate::exec::foreign_server::change_foreign_server(
                        txn, change, &session, notices,
                    )
                })
            }
            BoundStatement::Truncate {
                tables,
                restart_identity,
                cascade,
            } => self.with_notices("TRUNCATE TABLE", |txn, notices| {
                truncate::truncate(txn, &tables, restart_identity, cascade, notices)
            }),
            BoundStatement::DropIndex {
                names,
                if_exists,
                concurrently,
            } => {
                if concurrently {
                    self.outside_transaction_block("DROP INDEX CONCURRENTLY")?;
                }
                self.with_notices("DROP INDEX", |txn, notices| {
                    index::drop_indexes(txn, &names, if_exists, notices)
                })
            }
            BoundStatement::CreateSequence {
                name,
                options,
                if_not_exists,
                owned_by,
            } => {
                let existed = self.view().sequences.contains_key(&name);
                let result = self.with_notices("CREATE SEQUENCE", |txn, notices| {
                    ddl::create_sequence(txn, &name, options, owned_by, if_not_exists, notices)
                })?;
                if !existed {
                    let oids = self.sequence_oids(std::iter::once(&name));
                    self.record_owner(ObjectKind::Sequence, &oids)?;
                }
                Ok(result)
            }
            BoundStatement::Comment { target, comment } => {
                crate::exec::comment::comment(self.transaction(), &target, comment)?;
                Ok(StatementResult::command("COMMENT"))
            }
            BoundStatement::AlterSequence { alter, notices } => {
                self.notices
                    .extend(notices.into_iter().map(Notice::skipped));
                self.with_notices("ALTER SEQUENCE", |txn, notices| match alter {
                    Some(alter) => ddl::alter_sequence(txn, &alter, notices),
                    None => Ok(()),
                })
            }
            BoundStatement::DropSequence { names, if_exists } => self
                .with_notices("DROP SEQUENCE", |txn, notices| {
                    ddl::drop_sequences(txn, &names, if_exists, notices)
                }),
            BoundStatement::CreateSchema {
                name,
                owner,
                if_not_exists,
            } => self.with_notices("CREATE SCHEMA", |txn, notices| {
                schema::create_schema(txn, &name, &owner, if_not_exists, notices)
            }),
            BoundStatement::DropSchema {
                names,
                if_exists,
                cascade,
                searched,
            } => self.with_notices("DROP SCHEMA", |txn, notices| {
                schema::drop_schemas(txn, &names, if_exists, cascade, &searched, notices)
            }),
            BoundStatement::RenameSchema { name, new_name } => {
                schema::rename_schema(self.transaction(), &name, &new_name)?;
                Ok(StatementResult::command("ALTER SCHEMA"))
            }
            BoundStatement::Maintenance { tag, tables } => self.run_maintenance(tag, &tables),
            BoundStatement::Begin { modes } => self.run_begin(&modes),
            BoundStatement::LockTable {
                tables,
                share,
                nowait,
            } => self.run_lock_table(&tables, share, nowait),
            BoundStatement::SetTransaction { modes, session } => {
                self.run_set_transaction(&modes, session)
            }
            BoundStatement::Commit { chain } => self.run_commit(chain),
            BoundStatement::Rollback { chain } => self.run_rollback(chain),
            BoundStatement::Savepoint { action, name } => self.run_savepoint(action, name),
            BoundStatement::Set(set) => self.run_set(&set),
            BoundStatement::SetConstraints { names, deferred } => {
                self.run_set_constraints(names.as_deref(), deferred)
            }
            BoundStatement::FunctionCall(call) => self.run_function_call(call, ctx, copy),
            BoundStatement::RefreshMaterializedView { name, oid, source } => {
                self.run_refresh(&name, oid, source.as_ref(), ctx)
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
