//! A database: the committed state shared by all its sessions.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::query_cache::QueryCache;
use super::Session;
use crate::durability::{DataDir, Disk, DurableLog, DurableOptions, RealDisk};
use crate::error::Result;
use crate::storage::{CommitLog, Store};

/// A database, in memory or durable in a data directory. Cheap to clone: clones share the
/// same data.
#[derive(Clone, Default)]
pub struct Database {
    store: Arc<Store>,
    cache: Arc<QueryCache>,
    durable: Option<Arc<Durable>>,
}

/// What a durable database keeps open besides its store.
struct Durable {
    path: PathBuf,
    /// The directory's lock, held while any clone of the database lives.
    _dir: Option<DataDir>,
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
        let recovered = DurableLog::recover(disk, path, options)?;
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
            durable: Some(Arc::new(Durable {
                path: path.to_path_buf(),
                _dir: data_dir,
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

    /// A new session (a connection, in server terms).
    pub fn connect(&self) -> Session {
        Session::new(self.store.clone(), self.cache.clone())
    }
}
