//! A database: the committed state shared by all its sessions.

use std::path::Path;
use std::sync::Arc;

use super::query_cache::QueryCache;
use super::Session;
use crate::durability::DurableOptions;
use crate::error::{Error, Result};
use crate::storage::Store;

/// An in-memory database. Cheap to clone: clones share the same data.
#[derive(Clone, Default)]
pub struct Database {
    store: Arc<Store>,
    cache: Arc<QueryCache>,
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

    /// A new session (a connection, in server terms).
    pub fn connect(&self) -> Session {
        Session::new(self.store.clone(), self.cache.clone())
    }
}
