//! A database: the committed state shared by all its sessions.

use std::path::Path;
use std::sync::Arc;

use super::query_cache::QueryCache;
use super::settings::Defaults;
use super::Session;
use crate::durability::DurableOptions;
use crate::error::{Error, Result};
use crate::storage::Store;

/// An in-memory database. Cheap to clone: clones share the same data.
#[derive(Clone, Default)]
pub struct Database {
    store: Arc<Store>,
    cache: Arc<QueryCache>,
    /// What every new session's settings start from.
    defaults: Arc<Defaults>,
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
        let _ = (dir.as_ref(), options);
        Err(Error::unsupported("durable databases"))
    }

    /// The data directory, or `None` for an in-memory database.
    pub fn data_directory(&self) -> Option<&Path> {
        None
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

    /// A new session (a connection, in server terms).
    pub fn connect(&self) -> Session {
        let directory = self
            .data_directory()
            .map(|dir| dir.display().to_string())
            .unwrap_or_default();
        let defaults = self.defaults.in_directory(&directory);
        Session::new(self.store.clone(), self.cache.clone(), defaults)
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
