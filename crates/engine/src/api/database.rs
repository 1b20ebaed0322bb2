//! A database: the committed state shared by all its sessions.

use std::sync::Arc;

use super::query_cache::QueryCache;
use super::Session;
use crate::storage::Store;

/// An in-memory database. Cheap to clone: clones share the same data.
#[derive(Clone, Default)]
pub struct Database {
    store: Arc<Store>,
    cache: Arc<QueryCache>,
}

impl Database {
    pub fn new() -> Database {
        Database::default()
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
