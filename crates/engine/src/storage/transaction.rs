//! Transactions over the store: table write locks, private table versions, and the atomic
//! publication of those versions at COMMIT.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use arc_swap::ArcSwap;

use super::isolation::{Isolation, Snapshot};
use super::locks::{row_lock_name, LockManager, LockMode, Wait};
use super::rebase::rebase;
use super::{CommitChanges, CommitLog, DbState, Map, Sequence, TableEntry};
use crate::catalog::{
    CompositeType, ConstraintChecks, Domain, EnumType, Extension, ForeignServer, FunctionDef,
    QualifiedName, RoleCatalog, SchemaDef, ViewDef,
};
use crate::error::{Error, Result, SqlState};
use crate::sync::lock;

/// OIDs below this are PostgreSQL's built-in objects.
pub const FIRST_USER_OID: u32 = 16384;

/// The committed state of a database and the locks that order its writers.
pub struct Store {
    /// The newest state readers may see: with a log, only what is on disk (a commit
    /// becomes visible once its record is flushed, as in PostgreSQL).
    committed: ArcSwap<DbState>,
    /// Every published state, oldest first, until nobody reads it any more: the oldest one
    /// still alive bounds what any reader can see (unique indexes drop entries of rows that
    /// were already deleted there).
    published: Mutex<VecDeque<Weak<DbState>>>,
    /// The newest committed state, which with a log may be ahead of `committed` until its
    /// record is flushed. Writers read it once they hold their locks: a commit releases
    /// its locks before its flush, and the next writer of a table builds on its changes
    /// (its own record comes later in the log, so it is never durable without them).
    head: ArcSwap<DbState>,
    /// Held while a commit builds the next state and appends its record.
    commit_lock: Mutex<()>,
    /// Committed states waiting for their log flush before readers may see them.
    unpublished: Mutex<Unpublished>,
    log: Option<Arc<dyn CommitLog>>,
    locks: LockManager,
    next_txn_id: AtomicU64,
    next_oid: AtomicU32,
    next_generation: AtomicU64,
}

/// States committed but not yet visible, by the LSN that makes each durable.
#[derive(Default)]
struct Unpublished {
    states: VecDeque<(u64, Arc<DbState>)>,
    /// The LSN of the visible state.
    visible: u64,
}

impl Default for Store {
    fn default() -> Self {
        Store::with_state(DbState::default(), FIRST_USER_OID, None)
    }
}

impl Store {
    /// A store starting from `state` (read back from disk, or empty), logging its commits
    /// to `log` when there is one.
    pub fn with_state(state: DbState, next_oid: u32, log: Option<Arc<dyn CommitLog>>) -> Store {
        let state = Arc::new(state);
        let next_generation = state
            .tables
            .values()
            .map(|t| t.generation)
            .max()
            .unwrap_or(0)
            + 1;
        Store {
            committed: ArcSwap::new(state.clone()),
            published: Mutex::default(),
            head: ArcSwap::new(state.clone()),
            commit_lock: Mutex::new(()),
            unpublished: Mutex::default(),
            log,
            locks: LockManager::default(),
            next_txn_id: AtomicU64::new(1),
            next_oid: AtomicU32::new(next_oid.max(FIRST_USER_OID)),
            next_generation: AtomicU64::new(next_generation),
        }
    }

    /// Runs `capture` on the newest committed state while no commit can happen: a
    /// checkpoint takes its state and starts a new log segment there.
    pub fn with_commits_paused<T>(&self, capture: impl FnOnce(&Arc<DbState>, u32) -> T) -> T {
        let _paused = lock(&self.commit_lock);
        capture(
            &self.head.load_full(),
            self.next_oid.load(Ordering::Relaxed),
        )
    }

    /// Refuses writes once the log has failed.
    #[cfg(test)]
    pub(crate) fn writable(&self) -> Result<()> {
        self.log.as_ref().map_or(Ok(()), |log| log.writable())
    }

    /// A clean shutdown's checkpoint (nothing to do without a log).
    pub fn shutdown(&self) -> Result<()> {
        match &self.log {
            Some(log) => log.shutdown(self),
            None => Ok(()),
        }
    }

    /// Whether commits are logged.
    pub fn is_durable(&self) -> bool {
        self.log.is_some()
    }

    /// CHECKPOINT: nothing to do without a log.
    pub fn checkpoint(&self) -> Result<()> {
        match &self.log {
            Some(log) => log.checkpoint(self),
            None => Ok(()),
        }
    }

    /// Makes `state`, durable up to `lsn`, visible unless a newer one already is.
    fn publish(&self, lsn: u64, state: Arc<DbState>) {
        let mut unpublished = lock(&self.unpublished);
        while unpublished.states.front().is_some_and(|(l, _)| *l <= lsn) {
            unpublished.states.pop_front();
        }
        if lsn >= unpublished.visible {
            unpublished.visible = lsn;
            self.committed.store(state);
        }
    }

    /// Makes visible the newest state whose record is on disk up to `lsn`.
    fn publish_flushed(&self, lsn: u64) {
        let mut unpublished = lock(&self.unpublished);
        let mut newest = None;
        while unpublished.states.front().is_some_and(|(l, _)| *l <= lsn) {
            newest = unpublished.states.pop_front();
        }
        if let Some((lsn, state)) = newest {
            if lsn >= unpublished.visible {
                unpublished.visible = lsn;
                self.committed.store(state);
            }
        }
    }

    /// The newest committed state, durable or not: what a writer holding locks reads.
    fn newest(&self) -> Arc<DbState> {
        self.head.load_full()
    }

    /// The latest committed state.
    pub fn snapshot(&self) -> Arc<DbState> {
        self.committed.load_full()
    }

    /// The oldest committed state that a statement may still be reading (the latest one if
    /// none older is).
    pub fn oldest_live_state(&self) -> Arc<DbState> {
        let mut published = lock(&self.published);
        while let Some(oldest) = published.front() {
            if let Some(state) = oldest.upgrade() {
                return state;
            }
            published.pop_front();
        }
        drop(published);
        self.snapshot()
    }

    pub fn begin(self: &Arc<Store>) -> Transaction {
        self.begin_for(self.new_owner_id())
    }

    /// A transaction whose locks belong to `owner` (its session's id, which also owns the
    /// session's advisory locks: one owner per session keeps one wait-for graph).
    pub fn begin_for(self: &Arc<Store>, owner: u64) -> Transaction {
        Transaction {
            store: self.clone(),
            id: owner,
            locked: Vec::new(),
            exclusive: Vec::new(),
            row_exclusive: Vec::new(),
            row_and_key_locks: Map::default(),
            pinned: Vec::new(),
            written: Map::default(),
            schemas: Map::default(),
            names: Map::default(),
            sequences: Map::default(),
            views: Map::default(),
            enum_types: Map::default(),
            domains: Map::default(),
            composite_types: Map::default(),
            roles: None,
            functions: Map::default(),
            extensions: Map::default(),
            foreign_servers: Map::default(),
            snapshot: None,
            lock_timeout: None,
            constraint_checks: ConstraintChecks::default(),
        }
    }

    pub fn allocate_oid(&self) -> u32 {
        self.next_oid.fetch_add(1, Ordering::Relaxed)
    }

    /// Whether some transaction sleeps waiting for a table lock (tests wait for this instead
    /// of sleeping).
    #[cfg(test)]
    pub(crate) fn has_lock_waiters(&self) -> bool {
        self.locks.has_waiters()
    }

    /// The lock manager, for the locks a session holds beyond its transactions.
    pub fn locks(&self) -> &LockManager {
        &self.locks
    }

    /// A new owner id for locks (a session's advisory locks), from the transactions' ids.
    pub fn new_owner_id(&self) -> u64 {
        self.next_txn_id.fetch_add(1, Ordering::Relaxed)
    }
}

/// A transaction's changes as they were at a SAVEPOINT. Its table versions are shared
/// `Arc`s, so taking one copies a few map entries, never data.
#[derive(Clone)]
pub struct TransactionMark {
    written: Map<u32, Option<Arc<TableEntry>>>,
    schemas: Map<u32, Option<Arc<SchemaDef>>>,
    names: Map<QualifiedName, Option<u32>>,
    sequences: Map<QualifiedName, Option<Arc<Sequence>>>,
    views: Map<QualifiedName, Option<Arc<ViewDef>>>,
    enum_types: Map<u32, Option<Arc<EnumType>>>,
    domains: Map<u32, Option<Arc<Domain>>>,
    composite_types: Map<u32, Option<Arc<CompositeType>>>,
    roles: Option<Arc<RoleCatalog>>,
    functions: Map<u32, Option<Arc<FunctionDef>>>,
    extensions: Map<String, Option<Arc<Extension>>>,
    foreign_servers: Map<String, Option<Arc<ForeignServer>>>,
    /// How many row and unique key locks the transaction held.
    row_and_key_locks: usize,
}

/// A transaction's writes: the table versions it built and the names it created or dropped,
/// all under write locks it holds until commit or rollback (also when dropped).
pub struct Transaction {
    store: Arc<Store>,
    id: u64,
    locked: Vec<String>,
    /// Those of `locked` held in exclusive mode (a table's write lock among them).
    exclusive: Vec<String>,
    /// Those of `locked` held in row exclusive mode (an inserter's table locks); the others
    /// are held in share mode.
    row_exclusive: Vec<String>,
    /// The unique key locks taken by its inserts (see `lock_unique_key`) and the row locks
    /// taken by its updates and deletes of rows of tables it shares (see `lock_row`),
    /// released with the others but kept apart: a transaction may change many rows. Each
    /// with its place in the order they were taken: ROLLBACK TO SAVEPOINT releases those
    /// taken since, whose changes it undoes, as PostgreSQL's aborted subtransaction does.
    row_and_key_locks: Map<String, usize>,
    /// Those of `locked` taken by LOCK TABLE.
    pinned: Vec<String>,
    written: Map<u32, Option<Arc<TableEntry>>>,
    schemas: Map<u32, Option<Arc<SchemaDef>>>,
    names: Map<QualifiedName, Option<u32>>,
    sequences: Map<QualifiedName, Option<Arc<Sequence>>>,
    views: Map<QualifiedName, Option<Arc<ViewDef>>>,
    /// Enum types created, altered (`Some`) or dropped (`None`), by OID.
    enum_types: Map<u32, Option<Arc<EnumType>>>,
    /// Domains created, altered (`Some`) or dropped (`None`), by OID.
    domains: Map<u32, Option<Arc<Domain>>>,
    /// Composite types created, renamed (`Some`) or dropped (`None`), by pg_class OID.
    composite_types: Map<u32, Option<Arc<CompositeType>>>,
    /// The role catalog as this transaction left it, built on the newest committed one
    /// under the roles lock (see `lock_roles`).
    roles: Option<Arc<RoleCatalog>>,
    /// SQL functions created, replaced (`Some`) or dropped (`None`), by OID.
    functions: Map<u32, Option<Arc<FunctionDef>>>,
    /// Extensions installed (`Some`) or dropped (`None`), by name.
    extensions: Map<String, Option<Arc<Extension>>>,
    /// Foreign servers created (`Some`) or dropped (`None`), by name.
    foreign_servers: Map<String, Option<Arc<ForeignServer>>>,
    /// Taken by the first statement that reads (see `isolation.rs`).
    snapshot: Option<Snapshot>,
    /// How long a lock is waited for (lock_timeout), `None`: for ever.
    lock_timeout: Option<Duration>,
    /// SET CONSTRAINTS modes and the foreign key checks deferred to COMMIT.
    pub constraint_checks: ConstraintChecks,
}

impl Transaction {
    /// Whether a statement has taken the transaction's snapshot: from then on its isolation
    /// level can no longer change (25001).
    pub fn has_snapshot(&self) -> bool {
        self.snapshot.is_some()
    }

    /// Takes the transaction's snapshot at `isolation`, unless a statement already did.
    pub fn take_snapshot(&mut self, isolation: Isolation) {
        if self.snapshot.is_none() {
            self.snapshot = Some(Snapshot::new(isolation, self.store.snapshot()));
        }
    }

    /// Notes tables a SERIALIZABLE transaction read, for the check at COMMIT.
    pub fn note_reads(&mut self, oids: &[u32]) {
        if let Some(snapshot) = self.snapshot.as_mut().filter(|s| s.serializable) {
            for oid in oids {
                if !snapshot.reads.contains(oid) {
                    snapshot.reads.push(*oid);
                }
            }
        }
    }

    pub fn has_writes(&self) -> bool {
        !self.written.is_empty()
            || !self.schemas.is_empty()
            || !self.names.is_empty()
            || !self.sequences.is_empty()
            || !self.views.is_empty()
            || !self.enum_types.is_empty()
            || !self.domains.is_empty()
            || !self.composite_types.is_empty()
            || self.roles.is_some()
            || !self.functions.is_empty()
            || !self.extensions.is_empty()
            || !self.foreign_servers.is_empty()
    }

    /// The role catalog a change starts from, under the lock every change of it holds
    /// until its transaction ends (a change stages a whole new catalog, so two must not
    /// be built on the same one): this transaction's, else the newest committed one,
    /// whatever the isolation level, as PostgreSQL reads its catalogs.
    pub fn roles_to_change(&mut self) -> Result<RoleCatalog> {
        self.lock_key("roles".to_string())?;
        Ok(match &self.roles {
            Some(roles) => (**roles).clone(),
            None => (*self.store.newest().roles).clone(),
        })
    }

    /// Replaces the role catalog (after [`Transaction::roles_to_change`]).
    pub fn put_roles(&mut self, roles: RoleCatalog) {
        self.roles = Some(Arc::new(roles));
    }

    /// Creates, alters (or with `None` drops) enum type `oid`, whose name this transaction
    /// has locked.
    pub fn put_enum_type(&mut self, oid: u32, enum_type: Option<EnumType>) {
        self.enum_types.insert(oid, enum_type.map(Arc::new));
    }

    /// Creates, alters (or with `None` drops) domain `oid`, whose name this transaction has
    /// locked.
    pub fn put_domain(&mut self, oid: u32, domain: Option<Domain>) {
        self.domains.insert(oid, domain.map(Arc::new));
    }

    /// Creates, renames (or with `None` drops) composite type `oid`, whose name this
    /// transaction has locked.
    pub fn put_composite_type(&mut self, oid: u32, composite: Option<CompositeType>) {
        self.composite_types.insert(oid, composite.map(Arc::new));
    }

    /// Creates, replaces (or with `None` drops) SQL function `oid`, whose name this
    /// transaction has locked.
    pub fn put_function(&mut self, oid: u32, function: Option<FunctionDef>) {
        self.functions.insert(oid, function.map(Arc::new));
    }

    /// Takes the lock of extension name `name`, which CREATE and DROP EXTENSION hold until
    /// the transaction ends.
    pub fn lock_extension(&mut self, name: &str) -> Result<()> {
        self.lock_key(format!("extension {name}"))
    }

    /// Installs (or with `None` drops) extension `name`, whose name this transaction has
    /// locked.
    pub fn put_extension(&mut self, name: &str, extension: Option<Extension>) {
        self.extensions
            .insert(name.to_string(), extension.map(Arc::new));
    }

    /// Takes the lock of foreign server name `name`, which CREATE and DROP SERVER (and
    /// CREATE FOREIGN TABLE, so its server stays) hold until the transaction ends.
    pub fn lock_foreign_server(&mut self, name: &str) -> Result<()> {
        self.lock_key(format!("foreign server {name}"))
    }

    /// Creates (or with `None` drops) foreign server `name`, whose name this transaction
    /// has locked.
    pub fn put_foreign_server(&mut self, name: &str, server: Option<ForeignServer>) {
        self.foreign_servers
            .insert(name.to_string(), server.map(Arc::new));
    }

    /// Creates, replaces (or with `None` drops) view `name`, whose name this transaction
    /// has locked.
    pub fn put_view(&mut self, name: &QualifiedName, view: Option<ViewDef>) {
        self.views.insert(name.clone(), view.map(Arc::new));
    }

    /// Creates (or with `None` drops) sequence `name`, whose name this transaction has locked.
    pub fn put_sequence(&mut self, name: &QualifiedName, sequence: Option<Sequence>) {
        self.sequences.insert(name.clone(), sequence.map(Arc::new));
    }

    /// Creates, renames (or with `None` drops) schema `oid`, whose name this transaction
    /// has locked.
    pub fn put_schema(&mut self, oid: u32, schema: Option<SchemaDef>) {
        self.schemas.insert(oid, schema.map(Arc::new));
    }

    /// What this transaction's next statement sees: the latest committed state with the
    /// transaction's own changes on top (READ COMMITTED). Once it holds write locks, that
    /// is the newest committed state, durable or not, which its writes build on.
    pub fn view(&self) -> Arc<DbState> {
        self.view_with(!self.locked.is_empty())
    }

    /// What a statement that locks rows reads: the newest committed state, as a writer
    /// does (the writer it waited for may have released its locks before its flush).
    pub fn view_for_locking(&self) -> Arc<DbState> {
        self.view_with(true)
    }

    fn view_with(&self, newest: bool) -> Arc<DbState> {
        let fixed = self.snapshot.as_ref().and_then(|s| s.fixed.clone());
        let committed = if let Some(fixed) = fixed {
            fixed
        } else if newest {
            self.store.newest()
        } else {
            self.store.snapshot()
        };
        if !self.has_writes() {
            return committed;
        }
        let mut state = (*committed).clone();
        state.base = Some(committed.clone());
        overlay(&mut state.schemas, cloned(&self.schemas));
        for (name, oid) in &self.names {
            if committed.names.get(name) == oid.as_ref() {
                continue;
            }
            let names = Arc::make_mut(&mut state.names);
            match oid {
                Some(oid) => names.insert(name.clone(), *oid),
                None => names.remove(name),
            };
        }
        for (oid, entry) in &self.written {
            match entry {
                // Rows other inserters committed since are seen with this transaction's
                // (a rebase fails only where the lock rules were broken: the transaction's
                // own version then stands, and its COMMIT fails).
                Some(entry) => {
                    let rebased = rebase(entry, committed.tables.get(oid)).ok().flatten();
                    let entry = rebased.map_or_else(|| entry.clone(), Arc::new);
                    state.tables.insert(*oid, entry)
                }
                None => state.tables.remove(oid),
            };
        }
        overlay(&mut state.sequences, cloned(&self.sequences));
        overlay(&mut state.views, cloned(&self.views));
        overlay(&mut state.enum_types, cloned(&self.enum_types));
        overlay(&mut state.domains, cloned(&self.domains));
        overlay(&mut state.composite_types, cloned(&self.composite_types));
        if let Some(roles) = &self.roles {
            state.roles = roles.clone();
        }
        overlay(&mut state.functions, cloned(&self.functions));
        overlay(&mut state.extensions, cloned(&self.extensions));
        overlay(&mut state.foreign_servers, cloned(&self.foreign_servers));
        Arc::new(state)
    }

    /// Takes the write lock of relation `name` (waiting for its holder to finish).
    pub fn lock_name(&mut self, name: &QualifiedName) -> Result<()> {
        self.lock_key(name.lock_key())
    }

    /// Takes the lock of the schema name `name`, which CREATE, DROP and ALTER SCHEMA hold
    /// so that two transactions never both create it.
    pub fn lock_schema_name(&mut self, name: &str) -> Result<()> {
        self.lock_key(format!("schema {name}"))
    }

    fn lock_key(&mut self, key: String) -> Result<()> {
        if self.exclusive.contains(&key) {
            return Ok(());
        }
        self.lock(key, LockMode::Exclusive, false)?;
        Ok(())
    }

    /// Takes table `name`'s lock for a write of rows that other writers may share (an
    /// INSERT, or an UPDATE or DELETE that locks the rows it changes). When each statement
    /// reads the latest commit (READ COMMITTED), that is ROW EXCLUSIVE, which other such
    /// writers hold too (see `rebase.rs`); with a transaction snapshot, the exclusive lock of
    /// every other write, which keeps the per-table conflict checks of `isolation.rs` whole.
    pub fn lock_name_for_rows(&mut self, name: &QualifiedName) -> Result<()> {
        if self.snapshot.as_ref().is_some_and(|s| s.fixed.is_some()) {
            return self.lock_name(name);
        }
        let key = name.lock_key();
        if self
            .mode_held(&key)
            .is_none_or(|held| held == LockMode::Share)
        {
            self.lock(key, LockMode::RowExclusive, false)?;
        }
        Ok(())
    }

    /// Whether other transactions may write rows of table `name` until this one ends: it
    /// holds the table's lock ROW EXCLUSIVE only, so its inserts take unique key locks and
    /// its updates and deletes row locks.
    pub fn shares_table(&self, name: &QualifiedName) -> bool {
        self.row_exclusive.contains(&name.lock_key())
    }

    /// Takes the lock of unique key `key` (its bytes) of index `index` of table `oid`,
    /// waiting for another inserter of the key to end: it then committed the key, or not.
    pub fn lock_unique_key(&mut self, oid: u32, index: usize, key: &[u8]) -> Result<()> {
        use std::fmt::Write;
        let mut name = format!("key {oid} {index} ");
        for byte in key {
            let _ = write!(name, "{byte:02x}");
        }
        self.lock_until_end(name)
    }

    /// Takes the lock of row `row_id` of table `oid` before an UPDATE or DELETE of a table
    /// it shares changes the row, waiting for another transaction that changed or locked it
    /// (FOR UPDATE) to end; the row must then be read again in its newest version.
    pub fn lock_row(&mut self, oid: u32, row_id: u64) -> Result<()> {
        self.lock_until_end(row_lock_name(oid, row_id))
    }

    /// Takes lock `name` exclusively until the transaction ends (or is rolled back to a
    /// savepoint taken before).
    fn lock_until_end(&mut self, name: String) -> Result<()> {
        // A row locked by SELECT ... FOR UPDATE stays locked as that statement locked it.
        if self.row_and_key_locks.contains_key(&name) || self.locked.contains(&name) {
            return Ok(());
        }
        let wait = Wait::Block(self.lock_timeout);
        self.store
            .locks
            .acquire(self.id, &name, LockMode::Exclusive, wait)?;
        let place = self.row_and_key_locks.len();
        self.row_and_key_locks.insert(name, place);
        Ok(())
    }

    /// The newest committed state, durable or not.
    pub fn newest(&self) -> Arc<DbState> {
        self.store.newest()
    }

    /// How long the transaction's statements wait for a lock (`None`: for ever).
    pub fn lock_timeout(&self) -> Option<Duration> {
        self.lock_timeout
    }

    /// Sets how long the transaction's statements wait for a lock (`None`: for ever).
    pub fn set_lock_timeout(&mut self, timeout: Option<Duration>) {
        self.lock_timeout = timeout;
    }

    /// Takes lock `key` in `mode` until the transaction ends; `Ok(false)` if it is held by
    /// another and `nowait`.
    pub fn lock(&mut self, key: String, mode: LockMode, nowait: bool) -> Result<bool> {
        let wait = match nowait {
            true => Wait::No,
            false => Wait::Block(self.lock_timeout),
        };
        let held = self.mode_held(&key);
        let taken = self.store.locks.acquire(self.id, &key, mode, wait)?;
        if !taken {
            return Ok(false);
        }
        match held.map_or(mode, |held| held.with(mode)) {
            LockMode::Exclusive if !self.exclusive.contains(&key) => {
                self.row_exclusive.retain(|k| *k != key);
                self.exclusive.push(key.clone());
            }
            LockMode::RowExclusive if !self.row_exclusive.contains(&key) => {
                self.row_exclusive.push(key.clone());
            }
            _ => {}
        }
        if held.is_none() {
            self.locked.push(key);
        }
        Ok(true)
    }

    /// The mode in which this transaction holds lock `key`, if it does.
    fn mode_held(&self, key: &str) -> Option<LockMode> {
        let has = |keys: &[String]| keys.iter().any(|k| k == key);
        if has(&self.exclusive) {
            Some(LockMode::Exclusive)
        } else if has(&self.row_exclusive) {
            Some(LockMode::RowExclusive)
        } else if has(&self.locked) {
            Some(LockMode::Share)
        } else {
            None
        }
    }

    /// Waits until no other transaction holds table `name`'s lock exclusively (a writer's
    /// changes to it are then committed or gone; the writers that share the table lock the
    /// rows they change, which the statement waits for row by row), without keeping a lock;
    /// and 40001 if this REPEATABLE READ transaction could not lock rows of it (it changed
    /// since the snapshot).
    pub fn wait_for_writers(&mut self, name: &QualifiedName, oid: u32) -> Result<()> {
        let key = name.lock_key();
        if !self.locked.contains(&key) {
            let wait = Wait::Block(self.lock_timeout);
            self.store
                .locks
                .acquire(self.id, &key, LockMode::RowShare, wait)?;
            self.store
                .locks
                .release(self.id, std::slice::from_ref(&key));
        }
        match &self.snapshot {
            Some(snapshot) if !self.written.contains_key(&oid) => {
                snapshot.check_write(oid, &self.store.newest())
            }
            _ => Ok(()),
        }
    }

    /// Whether any transaction holds a row lock (writers look for them only then).
    pub fn any_row_locks(&self) -> bool {
        self.store.locks.any_row_locks()
    }

    /// Before this transaction writes rows `row_ids` of table `name`, whose write lock it
    /// holds: waits for every other transaction holding a row lock on one of them. Returns
    /// whether it waited, in which case the rows may have changed and must be read again.
    /// While it waits it gives the table's write lock back if it has not written the table
    /// yet, so that the row lock's holder can go on to update the row (as in PostgreSQL,
    /// where it never waited for this writer at all).
    pub fn wait_for_row_locks(
        &mut self,
        name: &QualifiedName,
        oid: u32,
        row_ids: &[u64],
    ) -> Result<bool> {
        let locked_by_others: Vec<String> = row_ids
            .iter()
            .map(|&id| row_lock_name(oid, id))
            .filter(|key| !self.store.locks.holds_alone(self.id, key))
            .collect();
        if locked_by_others.is_empty() {
            return Ok(false);
        }
        let table_key = name.lock_key();
        let give_back = !self.written.contains_key(&oid) && !self.pinned.contains(&table_key);
        if give_back {
            self.store
                .locks
                .release(self.id, std::slice::from_ref(&table_key));
            self.locked.retain(|k| *k != table_key);
            self.exclusive.retain(|k| *k != table_key);
            self.row_exclusive.retain(|k| *k != table_key);
        }
        for key in locked_by_others {
            self.lock(key, LockMode::Exclusive, false)?;
        }
        if give_back {
            self.lock_key(table_key)?;
        }
        Ok(give_back)
    }

    /// Takes a table lock for LOCK TABLE, which a write never gives back before the
    /// transaction ends.
    pub fn lock_table(
        &mut self,
        name: &QualifiedName,
        mode: LockMode,
        nowait: bool,
    ) -> Result<bool> {
        let key = name.lock_key();
        let taken = self.lock(key.clone(), mode, nowait)?;
        if taken && !self.pinned.contains(&key) {
            self.pinned.push(key);
        }
        Ok(taken)
    }

    /// Takes over locks acquired for this transaction (row locks taken by a statement).
    pub fn adopt_locks(&mut self, names: Vec<String>) {
        for name in names {
            if !self.locked.contains(&name) {
                self.locked.push(name);
            }
        }
    }

    /// The id that owns the transaction's locks.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Locks table `name` and returns its newest version (this transaction's own, else the
    /// latest committed), or `None` if it does not exist.
    pub fn table_for_write(&mut self, name: &QualifiedName) -> Result<Option<Arc<TableEntry>>> {
        self.lock_name(name)?;
        self.locked_table(name)
    }

    /// As [`Transaction::table_for_write`] for a write of rows: under the table lock this
    /// transaction holds already (ROW EXCLUSIVE for a write it shares), else the exclusive
    /// one.
    pub fn table_for_rows(&mut self, name: &QualifiedName) -> Result<Option<Arc<TableEntry>>> {
        let held = self.mode_held(&name.lock_key());
        if !matches!(held, Some(LockMode::RowExclusive | LockMode::Exclusive)) {
            self.lock_name(name)?;
        }
        self.locked_table(name)
    }

    /// The newest version of table `name`, whose lock this transaction holds: its own
    /// (rebased onto what other inserters committed since), else the newest committed.
    fn locked_table(&mut self, name: &QualifiedName) -> Result<Option<Arc<TableEntry>>> {
        let oid = match self.names.get(name) {
            Some(oid) => *oid,
            None => self.store.newest().names.get(name).copied(),
        };
        let Some(oid) = oid else { return Ok(None) };
        let newest = self.store.newest();
        if let Some(entry) = self.written.get_mut(&oid) {
            if let Some(mine) = entry {
                if let Some(rebased) = rebase(mine, newest.tables.get(&oid))? {
                    *mine = Arc::new(rebased);
                }
            }
            return Ok(entry.clone());
        }
        if let Some(snapshot) = &self.snapshot {
            snapshot.check_write(oid, &newest)?;
        }
        Ok(newest.tables.get(&oid).cloned())
    }

    /// Records a new version of a table this transaction has locked.
    pub fn put_table(&mut self, entry: TableEntry) {
        let name = entry.schema.qualified_name();
        let oid = entry.schema.oid;
        self.written.insert(oid, Some(Arc::new(entry)));
        self.names.insert(name, Some(oid));
    }

    /// Drops a table this transaction has locked.
    pub fn drop_table(&mut self, name: &QualifiedName, oid: u32) {
        self.written.insert(oid, None);
        self.names.insert(name.clone(), None);
    }

    pub fn allocate_oid(&self) -> u32 {
        self.store.allocate_oid()
    }

    /// The first of `count` consecutive OIDs.
    pub fn allocate_oids(&self, count: u32) -> u32 {
        self.store.next_oid.fetch_add(count, Ordering::Relaxed)
    }

    /// A table's or view's OID, the ones of its row type after it (`catalog::row_type`).
    pub fn allocate_relation_oid(&self) -> u32 {
        self.allocate_oids(crate::catalog::RELATION_OIDS)
    }

    /// The oldest committed version of table `oid` that a statement may still be reading.
    pub fn oldest_live_table(&self, oid: u32) -> Option<Arc<TableEntry>> {
        self.store.oldest_live_state().tables.get(&oid).cloned()
    }

    /// Publishes every change at once and releases the locks. With a log, the commit is
    /// on disk before this returns (when `synchronous` is set) and before anyone else sees
    /// it; a failed write fails the commit, whose changes are then never visible.
    ///
    /// The locks are released before the flush: the next writer of a table may build on
    /// this commit at once, while readers see it only once it is durable. Committers of
    /// the same tables then share fsyncs instead of queueing one fsync each.
    pub fn commit(mut self, synchronous: bool) -> Result<()> {
        let appended = self.publish_changes(synchronous);
        self.release_locks();
        match (appended?, &self.store.log) {
            (Some(lsn), Some(log)) => {
                log.flush(lsn)?;
                self.store.publish_flushed(lsn);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn needs_commit(&self) -> bool {
        self.has_writes()
            || self.store.log.is_some()
                && self
                    .store
                    .snapshot()
                    .sequences
                    .values()
                    .any(|s| s.is_unlogged())
    }

    /// Makes the changes the newest committed state and logs them; returns the LSN to
    /// flush before the commit may answer and become visible, if any.
    fn publish_changes(&mut self, synchronous: bool) -> Result<Option<u64>> {
        if !self.needs_commit() {
            return Ok(None);
        }
        let store = self.store.clone();
        let _commit = lock(&store.commit_lock);
        let head = store.head.load_full();
        self.rebase_written(&head)?;
        self.check_schemas_exist(&head)?;
        if let Some(snapshot) = self.snapshot.as_ref().filter(|_| self.has_writes()) {
            snapshot.check_commit(&head)?;
        }
        let lsn = match &store.log {
            Some(log) => {
                log.writable()?;
                Some(log.append(&CommitChanges {
                    before: &head,
                    schemas: &self.schemas,
                    names: &self.names,
                    tables: &self.written,
                    sequences: &self.sequences,
                    views: &self.views,
                    enum_types: &self.enum_types,
                    domains: &self.domains,
                    composite_types: &self.composite_types,
                    roles: self.roles.as_deref(),
                    functions: &self.functions,
                    extensions: &self.extensions,
                    foreign_servers: &self.foreign_servers,
                    next_oid: store.next_oid.load(Ordering::Relaxed),
                })?)
            }
            None => None,
        };
        let state = Arc::new(self.apply_to(&head));
        store.head.store(state.clone());
        lock(&store.published).push_back(Arc::downgrade(&state));
        match lsn {
            None => {
                store.committed.store(state);
                Ok(None)
            }
            Some(lsn) if !synchronous => {
                store.publish(lsn, state);
                Ok(None)
            }
            Some(lsn) => {
                lock(&store.unpublished).states.push_back((lsn, state));
                Ok(Some(lsn))
            }
        }
    }

    /// Rebuilds each table version this transaction wrote over `head` where another
    /// inserter committed to the table since (see `rebase.rs`).
    fn rebase_written(&mut self, head: &DbState) -> Result<()> {
        for (oid, entry) in self.written.iter_mut() {
            if let Some(mine) = entry {
                if let Some(rebased) = rebase(mine, head.tables.get(oid))? {
                    *mine = Arc::new(rebased);
                }
            }
        }
        Ok(())
    }

    /// 3F000 when a relation this transaction creates is in a schema that another
    /// transaction dropped since (creating takes no lock on the schema, dropping it sees
    /// only committed relations): the commit fails rather than leave it in no schema.
    fn check_schemas_exist(&self, head: &DbState) -> Result<()> {
        let created = self
            .names
            .iter()
            .filter_map(|(name, oid)| oid.map(|_| name))
            .chain(
                self.sequences
                    .iter()
                    .filter_map(|(n, s)| s.as_ref().map(|_| n)),
            )
            .chain(self.views.iter().filter_map(|(n, v)| v.as_ref().map(|_| n)))
            .chain(
                self.enum_types
                    .values()
                    .filter_map(|t| t.as_ref().map(|t| &t.name)),
            )
            .chain(
                self.domains
                    .values()
                    .filter_map(|d| d.as_ref().map(|d| &d.name)),
            )
            .chain(
                self.composite_types
                    .values()
                    .filter_map(|c| c.as_ref().map(|c| &c.name)),
            )
            .chain(
                self.functions
                    .values()
                    .filter_map(|f| f.as_ref().map(|f| &f.name)),
            );
        for name in created {
            let exists = match self.schemas.get(&name.schema) {
                Some(schema) => schema.is_some(),
                None => head.schemas.contains_key(&name.schema),
            };
            if !exists {
                return Err(Error::new(
                    SqlState::InvalidSchemaName,
                    format!(
                        "schema of relation \"{name}\" was dropped by a concurrent transaction"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `head` with this transaction's changes, which it leaves empty.
    fn apply_to(&mut self, head: &DbState) -> DbState {
        let store = &self.store;
        let mut state = head.clone();
        if self.changes_catalog(&state) {
            state.catalog_version += 1;
        }
        overlay(&mut state.schemas, self.schemas.drain());
        for (name, oid) in self.names.drain() {
            if state.names.get(&name) == oid.as_ref() {
                continue;
            }
            let names = Arc::make_mut(&mut state.names);
            match oid {
                Some(oid) => names.insert(name, oid),
                None => names.remove(&name),
            };
        }
        overlay(&mut state.sequences, self.sequences.drain());
        overlay(&mut state.views, self.views.drain());
        overlay(&mut state.enum_types, self.enum_types.drain());
        overlay(&mut state.domains, self.domains.drain());
        overlay(&mut state.composite_types, self.composite_types.drain());
        if let Some(roles) = self.roles.take() {
            state.roles = roles;
        }
        overlay(&mut state.functions, self.functions.drain());
        overlay(&mut state.extensions, self.extensions.drain());
        overlay(&mut state.foreign_servers, self.foreign_servers.drain());
        for (oid, entry) in self.written.drain() {
            match entry {
                Some(entry) => {
                    let mut entry = (*entry).clone();
                    entry.generation = store.next_generation.fetch_add(1, Ordering::Relaxed);
                    if !entry.data.changes().is_empty()
                        || entry.data.changes().base_rows != entry.data.row_capacity()
                    {
                        entry.data = Arc::new(entry.data.as_committed());
                    }
                    state.tables.insert(oid, Arc::new(entry));
                }
                None => {
                    state.tables.remove(&oid);
                }
            }
        }
        state
    }

    /// Whether committing over `committed` changes a name, a schema or a sequence.
    fn changes_catalog(&self, committed: &DbState) -> bool {
        !self.sequences.is_empty()
            || !self.views.is_empty()
            || !self.enum_types.is_empty()
            || !self.domains.is_empty()
            || !self.composite_types.is_empty()
            || self.roles.is_some()
            || !self.functions.is_empty()
            || !self.extensions.is_empty()
            || !self.foreign_servers.is_empty()
            || !self.schemas.is_empty()
            || self
                .names
                .iter()
                .any(|(name, oid)| committed.names.get(name) != oid.as_ref())
            || self
                .written
                .iter()
                .any(|(oid, entry)| match (entry, committed.tables.get(oid)) {
                    (Some(new), Some(old)) => !Arc::ptr_eq(&new.schema, &old.schema),
                    _ => true,
                })
    }

    /// The changes made so far, to go back to with [`Transaction::rollback_to`].
    pub fn mark(&self) -> TransactionMark {
        TransactionMark {
            written: self.written.clone(),
            schemas: self.schemas.clone(),
            names: self.names.clone(),
            sequences: self.sequences.clone(),
            views: self.views.clone(),
            enum_types: self.enum_types.clone(),
            domains: self.domains.clone(),
            composite_types: self.composite_types.clone(),
            roles: self.roles.clone(),
            functions: self.functions.clone(),
            extensions: self.extensions.clone(),
            foreign_servers: self.foreign_servers.clone(),
            row_and_key_locks: self.row_and_key_locks.len(),
        }
    }

    /// Forgets the changes made since `mark` was taken (ROLLBACK TO SAVEPOINT) and releases
    /// the row and unique key locks taken for them. Table locks taken since are kept until
    /// the transaction ends: holding them longer than PostgreSQL does delays other writers
    /// but never changes a result.
    pub fn rollback_to(&mut self, mark: TransactionMark) {
        let TransactionMark {
            written,
            schemas,
            names,
            sequences,
            views,
            enum_types,
            domains,
            composite_types,
            roles,
            functions,
            extensions,
            foreign_servers,
            row_and_key_locks,
        } = mark;
        if self.row_and_key_locks.len() > row_and_key_locks {
            let mut since = Vec::new();
            self.row_and_key_locks.retain(|name, place| {
                let keep = *place < row_and_key_locks;
                if !keep {
                    since.push(name.clone());
                }
                keep
            });
            self.store.locks.release(self.id, &since);
        }
        self.written = written;
        self.schemas = schemas;
        self.names = names;
        self.sequences = sequences;
        self.views = views;
        self.enum_types = enum_types;
        self.domains = domains;
        self.composite_types = composite_types;
        self.roles = roles;
        self.functions = functions;
        self.extensions = extensions;
        self.foreign_servers = foreign_servers;
    }

    /// Forgets every change and releases the locks.
    pub fn rollback(mut self) {
        self.written.clear();
        self.schemas.clear();
        self.names.clear();
        self.sequences.clear();
        self.views.clear();
        self.enum_types.clear();
        self.domains.clear();
        self.composite_types.clear();
        self.roles = None;
        self.functions.clear();
        self.extensions.clear();
        self.foreign_servers.clear();
        self.release_locks();
    }

    fn release_locks(&mut self) {
        if !self.locked.is_empty() {
            let locked = std::mem::take(&mut self.locked);
            self.exclusive.clear();
            self.row_exclusive.clear();
            self.pinned.clear();
            self.store.locks.release(self.id, &locked);
        }
        if !self.row_and_key_locks.is_empty() {
            let keys: Vec<String> = self.row_and_key_locks.drain().map(|(k, _)| k).collect();
            self.store.locks.release(self.id, &keys);
        }
    }
}

impl Drop for Transaction {
    fn drop(&mut self) {
        self.release_locks();
    }
}

/// Puts a transaction's staged catalog objects into a state's map: `Some` created or
/// changed, `None` dropped. The map is copied (once) only when something is staged.
fn overlay<K, V>(map: &mut Arc<Map<K, V>>, staged: impl IntoIterator<Item = (K, Option<V>)>)
where
    K: Clone + Eq + std::hash::Hash,
    V: Clone,
{
    for (key, value) in staged {
        let map = Arc::make_mut(map);
        match value {
            Some(value) => map.insert(key, value),
            None => map.remove(&key),
        };
    }
}

/// A staged map's entries, cloned: for a view that leaves the transaction's changes staged.
fn cloned<K: Clone, V: Clone>(
    staged: &Map<K, Option<V>>,
) -> impl Iterator<Item = (K, Option<V>)> + '_ {
    staged
        .iter()
        .map(|(key, value)| (key.clone(), value.clone()))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::Store;
    use crate::catalog::{QualifiedName, TableSchema, PUBLIC_OID};
    use crate::storage::{TableData, TableEntry};

    fn public(name: &str) -> QualifiedName {
        QualifiedName::new(PUBLIC_OID, name)
    }

    fn entry(store: &Store, name: &str) -> TableEntry {
        TableEntry {
            schema: Arc::new(TableSchema {
                oid: store.allocate_oid(),
                namespace: PUBLIC_OID,
                name: name.into(),
                columns: Vec::new(),
                unique_keys: Vec::new(),
                indexes: Vec::new(),
                constraints: Vec::new(),
                foreign_keys: Vec::new(),
                unlogged: false,
                comment: None,
                materialized: None,
                foreign: None,
                partition_key: None,
                partition_of: None,
            }),
            data: Arc::new(TableData::default()),
            generation: 0,
            unique_indexes: Arc::new(Vec::new()),
            secondary_indexes: Arc::default(),
        }
    }

    #[test]
    fn commit_publishes_and_rollback_forgets() {
        let store = Arc::new(Store::default());
        let mut txn = store.begin();
        assert!(txn.table_for_write(&public("t")).is_ok_and(|t| t.is_none()));
        txn.put_table(entry(&store, "t"));
        assert!(
            store.snapshot().table_by_name(&public("t")).is_none(),
            "uncommitted is invisible"
        );
        assert!(
            txn.view().table_by_name(&public("t")).is_some(),
            "own writes are visible"
        );
        assert!(txn.commit(true).is_ok());
        let committed = store.snapshot();
        let t = committed.table_by_name(&public("t")).map(|t| t.generation);
        assert!(t.is_some_and(|g| g > 0), "commit bumps the generation");

        let mut txn = store.begin();
        assert!(txn.table_for_write(&public("u")).is_ok());
        txn.put_table(entry(&store, "u"));
        txn.rollback();
        assert!(store.snapshot().table_by_name(&public("u")).is_none());
    }

    #[test]
    fn crossed_locks_are_a_deadlock_not_a_hang() {
        let store = Arc::new(Store::default());
        let mut first = store.begin();
        let mut second = store.begin();
        assert!(first.lock_name(&public("a")).is_ok());
        assert!(second.lock_name(&public("b")).is_ok());
        let waiter = std::thread::spawn(move || {
            let result = first.lock_name(&public("b"));
            drop(first);
            result
        });
        // Wait until the first transaction sleeps on "b", so that "a" closes the cycle.
        while !store.has_lock_waiters() {
            std::thread::yield_now();
        }
        let crossed = second.lock_name(&public("a"));
        assert_eq!(crossed.map_err(|e| e.sqlstate()), Err("40P01"));
        drop(second);
        assert!(
            waiter.join().is_ok_and(|r| r.is_ok()),
            "the other side proceeds"
        );
        assert!(store.locks.queues_empty(), "no wait queue is left");
    }

    #[test]
    fn writers_of_one_table_take_turns() {
        use std::sync::atomic::{AtomicU64, Ordering};
        let store = Arc::new(Store::default());
        let counter = Arc::new(AtomicU64::new(0));
        let writers: Vec<_> = (0..8)
            .map(|_| {
                let (store, counter) = (store.clone(), counter.clone());
                std::thread::spawn(move || {
                    for _ in 0..200 {
                        let mut txn = store.begin();
                        assert!(txn.lock_name(&public("t")).is_ok());
                        // A read-modify-write that only the lock keeps whole.
                        let seen = counter.load(Ordering::Relaxed);
                        std::thread::yield_now();
                        counter.store(seen + 1, Ordering::Relaxed);
                        txn.rollback();
                    }
                })
            })
            .collect();
        for writer in writers {
            assert!(writer.join().is_ok());
        }
        assert_eq!(counter.load(Ordering::Relaxed), 1600);
    }
}
