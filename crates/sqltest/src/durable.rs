//! The durable target's connections: the engine in-process on a database in a data
//! directory, plus the statement `RESTART`, which closes that database and opens the
//! directory again, as a server restart would, so that a file can check what survives.
//!
//! All connections of a file share the database. A restart drops only the restarting
//! connection's session, and the directory stays locked while any other session is open, so
//! `RESTART` works in files that use the default connection only.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use kestrel::{Database, Session};
use sqllogictest::{DBOutput, DefaultColumnType, DB};

use crate::engine::{without_panics, EngineDb};
use crate::format::SqlError;

/// The data directory of one test file and the database open on it. Clones share both, so
/// a connection made after a restart gets the reopened database.
#[derive(Clone)]
pub struct DurableDatabase {
    dir: PathBuf,
    /// `None` only while reopening, or after a reopen failed.
    database: Arc<Mutex<Option<Database>>>,
}

impl DurableDatabase {
    /// Opens (creating it if needed) the database in `dir`.
    pub fn open(dir: &Path) -> Result<DurableDatabase, SqlError> {
        Ok(DurableDatabase {
            dir: dir.to_path_buf(),
            database: Arc::new(Mutex::new(Some(open(dir)?))),
        })
    }

    /// A new connection: a session on the database as it is now.
    pub fn connect(&self) -> Result<DurableEngineDb, SqlError> {
        Ok(DurableEngineDb {
            database: self.clone(),
            engine: Some(EngineDb::new(self.session()?)),
        })
    }

    fn session(&self) -> Result<Session, SqlError> {
        match &*self.lock() {
            Some(database) => Ok(database.connect()),
            None => Err(not_open()),
        }
    }

    /// Closes the database and opens its directory again; the caller's session is gone.
    fn reopen(&self) -> Result<(), SqlError> {
        let mut database = self.lock();
        // Closed first: an open database keeps its directory locked.
        *database = None;
        *database = Some(open(&self.dir)?);
        Ok(())
    }

    fn lock(&self) -> MutexGuard<'_, Option<Database>> {
        // A panic under the lock leaves at worst `None`, which reads as "not open".
        self.database.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn open(dir: &Path) -> Result<Database, SqlError> {
    without_panics(|| Database::open(dir))?.map_err(SqlError::from)
}

fn not_open() -> SqlError {
    SqlError {
        message: "the database is not open: a restart failed".to_string(),
        sqlstate: None,
    }
}

/// `RESTART` alone, as the durable target's directive (see the module doc).
fn is_restart(sql: &str) -> bool {
    sql.trim()
        .trim_end_matches(';')
        .trim_end()
        .eq_ignore_ascii_case("RESTART")
}

/// One connection of a test file to its durable database.
pub struct DurableEngineDb {
    database: DurableDatabase,
    /// `None` while restarting, and after a restart failed.
    engine: Option<EngineDb>,
}

impl DurableEngineDb {
    /// Tells whether the current session waits for a lock (a restart makes a new one; it
    /// is only possible in a file with one connection, where nothing waits).
    pub fn lock_wait_probe(&self) -> Option<kestrel::LockWaitProbe> {
        self.engine.as_ref().map(EngineDb::lock_wait_probe)
    }

    fn restart(&mut self) -> Result<(), SqlError> {
        // The session goes first: it holds the database open too.
        self.engine = None;
        self.database.reopen()?;
        self.engine = Some(EngineDb::new(self.database.session()?));
        Ok(())
    }
}

impl DB for DurableEngineDb {
    type Error = SqlError;
    type ColumnType = DefaultColumnType;

    fn run(&mut self, sql: &str) -> Result<DBOutput<DefaultColumnType>, SqlError> {
        if is_restart(sql) {
            self.restart()?;
            return Ok(DBOutput::StatementComplete(0));
        }
        match &mut self.engine {
            Some(engine) => engine.run(sql),
            None => Err(not_open()),
        }
    }

    fn error_sql_state(err: &SqlError) -> Option<String> {
        err.sqlstate.clone()
    }
}
