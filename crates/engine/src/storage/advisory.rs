//! A session's advisory locks (pg_advisory_lock and its family): named locks in the
//! store's lock manager, owned by the session's id (its transactions use the same id, so
//! one wait-for graph covers advisory, table and row locks). PostgreSQL counts each level
//! apart: a session may take a lock several times, at session level (until unlocked as
//! many times) and at transaction level (until the transaction ends); the manager's lock
//! is released when the session holds it no more at either level.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{LockMode, Store, Wait};
use crate::error::Result;
use crate::sync::lock;

/// An advisory lock's key: one bigint, or two integers (a separate key space in PostgreSQL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdvisoryKey {
    Big(i64),
    Pair(i32, i32),
}

impl AdvisoryKey {
    fn lock_name(self) -> String {
        match self {
            AdvisoryKey::Big(key) => format!("advisory {key}"),
            AdvisoryKey::Pair(a, b) => format!("advisory {a}:{b}"),
        }
    }
}

struct Hold {
    name: String,
    mode: LockMode,
    transaction: bool,
    count: usize,
}

pub struct AdvisoryLocks {
    store: Arc<Store>,
    owner: u64,
    held: Mutex<Vec<Hold>>,
    timeout: Mutex<Option<Duration>>,
}

impl AdvisoryLocks {
    pub fn new(store: Arc<Store>, owner: u64) -> AdvisoryLocks {
        AdvisoryLocks {
            store,
            owner,
            held: Mutex::default(),
            timeout: Mutex::default(),
        }
    }

    /// How long a lock is waited for (lock_timeout), set before each statement.
    pub fn set_timeout(&self, timeout: Option<Duration>) {
        *lock(&self.timeout) = timeout;
    }

    /// Takes `key`; `Ok(false)` if another session holds it and `wait` is false.
    pub fn lock(
        &self,
        key: AdvisoryKey,
        mode: LockMode,
        transaction: bool,
        wait: bool,
    ) -> Result<bool> {
        let name = key.lock_name();
        let wait = match wait {
            true => Wait::Block(*lock(&self.timeout)),
            false => Wait::No,
        };
        if !self.store.locks().acquire(self.owner, &name, mode, wait)? {
            return Ok(false);
        }
        let mut held = lock(&self.held);
        match held
            .iter_mut()
            .find(|h| h.name == name && h.mode == mode && h.transaction == transaction)
        {
            Some(hold) => hold.count += 1,
            None => held.push(Hold {
                name,
                mode,
                transaction,
                count: 1,
            }),
        }
        Ok(true)
    }

    /// Releases one session-level hold of `key` in `mode`; false if there was none.
    pub fn unlock(&self, key: AdvisoryKey, mode: LockMode) -> bool {
        let name = key.lock_name();
        let mut held = lock(&self.held);
        let Some(position) = held
            .iter()
            .position(|h| h.name == name && h.mode == mode && !h.transaction)
        else {
            return false;
        };
        held[position].count -= 1;
        if held[position].count == 0 {
            held.remove(position);
        }
        self.release_unheld(&held, vec![name]);
        true
    }

    /// pg_advisory_unlock_all (and the end of the session): every session-level hold.
    pub fn unlock_all(&self) {
        self.release_level(false);
    }

    /// The end of a transaction: its transaction-level holds.
    pub fn end_transaction(&self) {
        self.release_level(true);
    }

    fn release_level(&self, transaction: bool) {
        let mut held = lock(&self.held);
        if held.is_empty() {
            return;
        }
        let mut names = Vec::new();
        held.retain(|h| {
            if h.transaction == transaction {
                names.push(h.name.clone());
            }
            h.transaction != transaction
        });
        self.release_unheld(&held, names);
    }

    /// Releases those of `names` that no remaining hold keeps.
    fn release_unheld(&self, held: &[Hold], mut names: Vec<String>) {
        names.retain(|name| !held.iter().any(|h| &h.name == name));
        names.dedup();
        if !names.is_empty() {
            self.store.locks().release(self.owner, &names);
        }
    }
}

impl Drop for AdvisoryLocks {
    fn drop(&mut self) {
        self.release_level(false);
        self.release_level(true);
    }
}
