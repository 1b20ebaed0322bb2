//! A database: the committed state shared by all its sessions.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::query_cache::QueryCache;
use super::settings::Defaults;
use super::Session;
use crate::durability::{DataDir, Disk, DurableLog, DurableOptions, RealDisk};
use crate::error::Result;
use crate::exec::memory::MemoryPool;
use crate::storage::{CommitLog, Store};

/// A database, in memory or durable in a data directory. Cheap to clone: clones share the
/// same data.
#[derive(Clone, Default)]
pub struct Database {
    store: Arc<Store>,
    cache: Arc<QueryCache>,
    durable: Option<Arc<Durable>>,
    /// What every new session's settings start from.
    defaults: Arc<Defaults>,
    /// The working memory all its statements share.
    memory: Arc<MemoryPool>,
}

/// What a durable database keeps open besides its store.
struct Durable {
    path: PathBuf,
    report: String,
}

impl Database {
    /// An in-memory database: nothing is written anywhere, everything is gone with it.
    pub fn new() -> Database {
        Database::default()
    }

    /// The same as [`Database::new`], named for what it is.
    pub fn in_memory() -> Database {
        Database::default()
    }

    /// Opens (creating it if needed) the durable database in data directory `dir`.
    pub fn open(dir: impl AsRef<Path>) -> Result<Database> {
        Database::open_with(dir, DurableOptions::default())
    }

    /// [`Database::open`] with checkpoint settings.
    pub fn open_with(dir: impl AsRef<Path>, options: DurableOptions) -> Result<Database> {
        let data_dir = DataDir::open(dir.as_ref())?;
        let path = data_dir.path().to_path_buf();
        Database::open_on(Arc::new(RealDisk), &path, options, Some(data_dir))
    }

    /// A durable database in `path` on `disk` (a simulated one in tests).
    pub(crate) fn open_on(
        disk: Arc<dyn Disk>,
        path: &Path,
        options: DurableOptions,
        data_dir: Option<DataDir>,
    ) -> Result<Database> {
        let recovered = DurableLog::recover(disk, path, options, data_dir)?;
        let log: Arc<dyn CommitLog> = recovered.log.clone();
        let store = Arc::new(Store::with_state(
            recovered.state,
            recovered.next_oid,
            Some(log),
        ));
        recovered.log.start_background(Arc::downgrade(&store))?;
        Ok(Database {
            store,
            cache: Arc::default(),
            defaults: Arc::default(),
            memory: Arc::default(),
            durable: Some(Arc::new(Durable {
                path: path.to_path_buf(),
                report: recovered.report,
            })),
        })
    }

    /// The data directory, or `None` for an in-memory database.
    pub fn data_directory(&self) -> Option<&Path> {
        self.durable.as_ref().map(|d| d.path.as_path())
    }

    /// What opening the data directory found and did (checkpoint loaded, log replayed, a
    /// torn log tail cut), for the server's log; `None` in memory.
    pub fn startup_report(&self) -> Option<&str> {
        self.durable.as_ref().map(|d| d.report.as_str())
    }

    /// A clean shutdown: writes a checkpoint that also keeps the rows of unlogged tables
    /// and every sequence's counter, as PostgreSQL's shutdown checkpoint does. Dropping a
    /// database without it is a crash as far as the data directory knows: nothing
    /// committed is lost, but unlogged tables come back empty and a sequence may skip back
    /// over values nextval handed out to statements that did not commit.
    pub fn close(self) -> Result<()> {
        self.store.shutdown()
    }

    /// CHECKPOINT: writes the committed state to the data directory now.
    pub fn checkpoint(&self) -> Result<()> {
        self.store.checkpoint()
    }

    /// The store behind the database, for tests that look at storage after SQL.
    #[cfg(test)]
    pub(crate) fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// Sets the value every session connected from now on starts with, and that RESET
    /// returns to, like `postgres -c name=value`. Checked as SET checks it; settings that
    /// SET refuses (`checkpoint_timeout`, `max_wal_size`) are accepted here, except
    /// `data_directory`, which is where the database was opened.
    pub fn set_setting_default(&mut self, name: &str, value: &str) -> Result<()> {
        Arc::make_mut(&mut self.defaults).set(name, value)
    }

    /// Sets how much working memory its running statements may hold together (by default
    /// three quarters of the machine's or the cgroup's memory); for sessions connected
    /// from now on.
    pub fn set_memory_limit(&mut self, bytes: u64) {
        self.memory = Arc::new(MemoryPool::with_limit(bytes));
    }

    /// The server-wide working memory limit, in bytes.
    pub fn memory_limit(&self) -> u64 {
        self.memory.limit_bytes()
    }

    /// What a setting starts as in every new session (`max_connections` tells the server
    /// how many it may open); `None` for an unknown name.
    pub fn setting_default(&self, name: &str) -> Option<&str> {
        self.defaults.value(name)
    }

    /// How long a server waits for a client to finish its startup and authentication
    /// (`authentication_timeout`).
    pub fn authentication_timeout(&self) -> std::time::Duration {
        let seconds = self
            .setting_default(super::AUTHENTICATION_TIMEOUT.name)
            .and_then(|value| super::AUTHENTICATION_TIMEOUT.parse(value).ok())
            .unwrap_or(60);
        std::time::Duration::from_secs(seconds.unsigned_abs())
    }

    /// Role `name` as the latest commit has it, for authentication.
    pub fn role(&self, name: &str) -> Option<Arc<crate::catalog::Role>> {
        self.store.snapshot().roles.by_name(name).cloned()
    }

    /// Whether role `member` is role `role` or a member of it, directly or not (pg_hba's
    /// `+role`).
    pub fn is_role_member(&self, member: &str, role: &str) -> bool {
        let state = self.store.snapshot();
        match (state.roles.by_name(member), state.roles.by_name(role)) {
            (Some(member), Some(role)) => state.roles.is_member_of(member.oid, role.oid),
            _ => false,
        }
    }

    /// A new session (a connection, in server terms).
    pub fn connect(&self) -> Session {
        let directory = self
            .data_directory()
            .map(|dir| dir.display().to_string())
            .unwrap_or_default();
        let defaults = self.defaults.in_directory(&directory);
        let mut session = Session::new(
            self.store.clone(),
            self.cache.clone(),
            defaults,
            self.memory.clone(),
        );
        session.apply_role_settings();
        session
    }
}

#[cfg(test)]
mod tests {
    use super::Database;

    fn show(session: &mut super::Session, name: &str) -> String {
        match session.execute(&format!("SHOW {name}")) {
            Ok(results) => results[0].text_lines().join("\n"),
            Err(error) => format!("{} {}", error.sqlstate(), error.message),
        }
    }

    #[test]
    fn show_all_lists_what_pg_settings_lists_by_name() {
        let mut session = Database::new().connect();
        assert!(session.execute("SET work_mem = '8MB'").is_ok());
        let Ok(results) = session.execute("SHOW ALL") else {
            panic!("SHOW ALL failed");
        };
        let names: Vec<String> = (results[0].columns.iter().flat_map(|c| c.iter()))
            .map(|c| c.name.clone())
            .collect();
        assert_eq!(names, ["name", "setting", "description"]);
        let lines = results[0].text_lines();
        let position = |name: &str| {
            lines
                .iter()
                .position(|l| l.starts_with(&format!("{name}|")))
        };
        assert!(position("DateStyle") < position("default_statistics_target"));
        assert!(position("default_statistics_target") < position("IntervalStyle"));
        assert_eq!(position("is_superuser"), None);
        assert!(lines.contains(
            &"work_mem|8MB|Sets the maximum memory to be used for query workspaces.".to_string()
        ));
    }

    #[test]
    fn sessions_start_from_the_server_defaults_and_reset_to_them() {
        let mut db = Database::new();
        assert!(db
            .set_setting_default("synchronous_commit", "false")
            .is_ok());
        assert!(db.set_setting_default("checkpoint_timeout", "600").is_ok());
        assert!(db.set_setting_default("max_wal_size", "2048MB").is_ok());
        assert!(db.set_setting_default("myapp.mode", "fast").is_ok());
        let mut session = db.connect();
        assert!(!session.synchronous_commit());
        assert_eq!(show(&mut session, "checkpoint_timeout"), "10min");
        assert_eq!(show(&mut session, "max_wal_size"), "2GB");
        assert_eq!(show(&mut session, "myapp.mode"), "fast");
        assert!(session.execute("SET synchronous_commit = local").is_ok());
        assert!(session.synchronous_commit());
        assert!(session.execute("RESET synchronous_commit").is_ok());
        assert_eq!(show(&mut session, "synchronous_commit"), "off");
        assert!(session
            .execute("SET synchronous_commit = on; SET myapp.mode = slow; RESET ALL")
            .is_ok());
        assert_eq!(show(&mut session, "synchronous_commit"), "off");
        assert_eq!(show(&mut session, "myapp.mode"), "fast");
    }

    #[test]
    fn sessions_start_with_their_roles_kept_settings() {
        let db = Database::new();
        let mut admin = db.connect();
        let setup = "CREATE ROLE rs_user LOGIN; CREATE ROLE rs_other LOGIN; \
                     ALTER ROLE ALL SET lock_timeout = '3s'; \
                     ALTER ROLE ALL SET statement_timeout = '5s'; \
                     ALTER ROLE rs_user SET lock_timeout = '2s'; \
                     ALTER ROLE rs_user IN DATABASE kestrel SET lock_timeout = '1s'";
        assert!(admin.execute(setup).is_ok());
        // An embedded session is the bootstrap superuser's: everyone's settings apply.
        let mut embedded = db.connect();
        assert_eq!(show(&mut embedded, "lock_timeout"), "3s");
        let mut user = db.connect();
        user.set_identity("rs_user", "kestrel", 1);
        assert_eq!(show(&mut user, "lock_timeout"), "1s");
        assert_eq!(show(&mut user, "statement_timeout"), "5s");
        assert!(user
            .execute("SET lock_timeout = '8s'; RESET lock_timeout")
            .is_ok());
        assert_eq!(show(&mut user, "lock_timeout"), "1s");
        let mut other = db.connect();
        other.set_identity("rs_other", "kestrel", 1);
        assert_eq!(show(&mut other, "lock_timeout"), "3s");
        // The client's own settings come after the role's and win.
        let mut client = db.connect();
        client.set_identity("rs_user", "kestrel", 1);
        assert!(client.set_startup_parameter("lock_timeout", "7s").is_ok());
        assert_eq!(show(&mut client, "lock_timeout"), "7s");
    }

    #[test]
    fn server_defaults_are_checked_like_set() {
        let mut db = Database::new();
        let error = |result: crate::Result<()>| result.err().map(|e| (e.sqlstate(), e.message));
        assert_eq!(
            error(db.set_setting_default("no_such_setting", "1")),
            Some((
                "42704",
                "unrecognized configuration parameter \"no_such_setting\"".into()
            ))
        );
        assert_eq!(
            error(db.set_setting_default("synchronous_commit", "sometimes")),
            Some((
                "22023",
                "invalid value for parameter \"synchronous_commit\": \"sometimes\"".into()
            ))
        );
        assert_eq!(
            error(db.set_setting_default("data_directory", "/tmp")),
            Some((
                "55P02",
                "parameter \"data_directory\" cannot be changed without restarting the server"
                    .into()
            ))
        );
    }

    #[test]
    fn an_in_memory_database_has_an_empty_data_directory() {
        let mut session = Database::in_memory().connect();
        assert_eq!(show(&mut session, "data_directory"), "");
        let set = session.execute("SET data_directory = '/tmp'").err();
        assert_eq!(set.map(|e| e.sqlstate()), Some("55P02"));
    }

    #[test]
    fn a_clone_made_before_a_default_changes_keeps_its_defaults() {
        let mut db = Database::new();
        let before = db.clone();
        assert!(db.set_setting_default("synchronous_commit", "off").is_ok());
        assert!(before.connect().synchronous_commit());
        assert!(!db.connect().synchronous_commit());
    }
}
