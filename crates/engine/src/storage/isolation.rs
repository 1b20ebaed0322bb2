//! Isolation levels over the store's versions: which committed state a transaction reads,
//! and the conflicts that end a REPEATABLE READ or SERIALIZABLE transaction with 40001.
//!
//! READ COMMITTED reads the latest commit at each statement; its writes lock the table, then
//! read its newest version, so a row changed by a concurrent commit is seen as committed
//! (PostgreSQL re-checks such a row the same way); its inserts share the table with other
//! inserters (`rebase.rs`). REPEATABLE READ and SERIALIZABLE read the state of their first
//! statement until they end. Their writes lock whole tables, inserts included, so the
//! conflicts are found per table, which is stricter than PostgreSQL's rows and predicates
//! but never lets an anomaly through:
//!
//! - a write to a table committed to since the snapshot fails (PostgreSQL: only if the row
//!   written was changed);
//! - a SERIALIZABLE transaction that wrote fails at COMMIT if a table it read was committed
//!   to since its snapshot. The writers then commit in an order in which each read what it
//!   would have read at its commit, so their history is serial; a transaction that only
//!   reads sees a prefix of that order and never fails.

use std::sync::Arc;

use super::DbState;
use crate::error::{Error, Result, SqlState};

/// A transaction's isolation level; READ UNCOMMITTED is READ COMMITTED, as in PostgreSQL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Isolation {
    ReadCommitted,
    RepeatableRead,
    Serializable,
}

impl Isolation {
    /// The level named by a `transaction_isolation` value.
    pub fn from_setting(value: &str) -> Isolation {
        match value {
            "serializable" => Isolation::Serializable,
            "repeatable read" => Isolation::RepeatableRead,
            _ => Isolation::ReadCommitted,
        }
    }
}

/// What a transaction reads with: set by its first statement that needs a snapshot.
pub(super) struct Snapshot {
    /// The state every statement reads (REPEATABLE READ and up).
    pub(super) fixed: Option<Arc<DbState>>,
    pub(super) serializable: bool,
    /// The tables a SERIALIZABLE transaction read, checked at COMMIT.
    pub(super) reads: Vec<u32>,
}

impl Snapshot {
    pub(super) fn new(isolation: Isolation, latest: Arc<DbState>) -> Snapshot {
        Snapshot {
            fixed: (isolation >= Isolation::RepeatableRead).then_some(latest),
            serializable: isolation == Isolation::Serializable,
            reads: Vec::new(),
        }
    }

    /// 40001 when table `oid` was committed to after the snapshot (or created or dropped):
    /// this transaction is about to write it.
    pub(super) fn check_write(&self, oid: u32, newest: &DbState) -> Result<()> {
        let Some(fixed) = &self.fixed else {
            return Ok(());
        };
        let before = fixed.tables.get(&oid).map(|t| t.generation);
        let now = newest.tables.get(&oid).map(|t| t.generation);
        if before == now {
            return Ok(());
        }
        Err(match self.serializable {
            true => read_write_conflict(),
            false => Error::new(
                SqlState::SerializationFailure,
                "could not serialize access due to concurrent update",
            ),
        })
    }

    /// At COMMIT of a SERIALIZABLE transaction that wrote: 40001 if a table it read was
    /// committed to since its snapshot (`head` is the newest committed state).
    pub(super) fn check_commit(&self, head: &DbState) -> Result<()> {
        let Some(fixed) = &self.fixed else {
            return Ok(());
        };
        for oid in &self.reads {
            let before = fixed.tables.get(oid).map(|t| t.generation);
            let now = head.tables.get(oid).map(|t| t.generation);
            if before != now {
                return Err(read_write_conflict()
                    .with_detail("Reason code: Canceled on identification as a pivot, during commit attempt.")
                    .with_hint("The transaction might succeed if retried."));
            }
        }
        Ok(())
    }
}

fn read_write_conflict() -> Error {
    Error::new(
        SqlState::SerializationFailure,
        "could not serialize access due to read/write dependencies among transactions",
    )
}
