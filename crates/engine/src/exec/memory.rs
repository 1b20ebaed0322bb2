//! Working memory: what a statement holds while it runs (the inputs a sort, a window or a
//! hash join's build side materialize, aggregate groups and the values string_agg and its
//! kind keep, recursive CTE rows, the result) is counted against its own limit
//! (`kestrel.query_memory_limit`) and against the server's ([`MemoryPool`]), so one
//! statement fails with 53200 instead of the kernel killing the server and every session.
//!
//! Operators charge what they keep a batch at a time, never per row; what is kept to the
//! end is given back when the statement ends, so the count is an upper bound of what it
//! holds at once. Only a hash join gives back earlier: its matches of one probe batch.
//!
//! A value a function builds (`repeat`, an array assignment) is not charged, but asked
//! for first: the function checks that the statement has room for it (see
//! `interrupt::check_value_bytes`), so a single huge value fails before it is allocated.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::error::{Error, Result, SqlState};
use crate::interrupt::MemoryBudget;

/// The share of the machine's (or its cgroup's) memory the server's statements may hold:
/// the rest is for the tables themselves.
const SERVER_SHARE_OF_MACHINE: (u64, u64) = (3, 4);

/// A statement's default share of the server's limit (`kestrel.query_memory_limit = 0`).
const QUERY_SHARE_OF_SERVER: u64 = 4;

/// The working memory of every statement of a database.
#[derive(Debug)]
pub struct MemoryPool {
    limit_bytes: u64,
    used_bytes: AtomicU64,
}

impl Default for MemoryPool {
    /// Three quarters of the memory the process may use.
    fn default() -> MemoryPool {
        let (share, of) = SERVER_SHARE_OF_MACHINE;
        MemoryPool::with_limit(available_memory_bytes().map_or(u64::MAX, |m| m / of * share))
    }
}

impl MemoryPool {
    pub fn with_limit(limit_bytes: u64) -> MemoryPool {
        MemoryPool {
            limit_bytes,
            used_bytes: AtomicU64::new(0),
        }
    }

    pub fn limit_bytes(&self) -> u64 {
        self.limit_bytes
    }

    /// Working memory held by running statements now.
    pub fn used_bytes(&self) -> u64 {
        self.used_bytes.load(Ordering::Relaxed)
    }

    /// A statement's limit when its session sets none.
    pub fn default_query_limit_bytes(&self) -> u64 {
        self.limit_bytes / QUERY_SHARE_OF_SERVER
    }

    fn try_reserve(&self, bytes: u64) -> bool {
        let before = self.used_bytes.fetch_add(bytes, Ordering::Relaxed);
        if before.saturating_add(bytes) > self.limit_bytes {
            self.used_bytes.fetch_sub(bytes, Ordering::Relaxed);
            return false;
        }
        true
    }

    fn release(&self, bytes: u64) {
        self.used_bytes.fetch_sub(bytes, Ordering::Relaxed);
    }
}

/// What the process may use: the smaller of the machine's memory and its cgroup's limit.
fn available_memory_bytes() -> Option<u64> {
    let machine = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            kib.checked_mul(1024)
        });
    // "max" (no limit) does not parse, and is ignored like a missing file.
    let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        .ok()
        .and_then(|text| text.trim().parse::<u64>().ok());
    match (machine, cgroup) {
        (Some(m), Some(c)) => Some(m.min(c)),
        (m, c) => m.or(c),
    }
}

/// One statement's working memory; what it holds goes back to the pool when it ends. A
/// clone is the same account: a parallel statement's workers all charge the one limit.
#[derive(Debug, Clone)]
pub struct QueryMemory(Arc<QueryAccount>);

#[derive(Debug)]
struct QueryAccount {
    pool: Arc<MemoryPool>,
    limit_bytes: u64,
    used_bytes: AtomicU64,
}

impl QueryMemory {
    pub fn new(pool: Arc<MemoryPool>, limit_bytes: u64) -> QueryMemory {
        QueryMemory(Arc::new(QueryAccount {
            pool,
            limit_bytes,
            used_bytes: AtomicU64::new(0),
        }))
    }

    /// No limit but the server's (a statement run outside a session).
    pub fn unlimited() -> QueryMemory {
        QueryMemory::new(Arc::new(MemoryPool::with_limit(u64::MAX)), u64::MAX)
    }

    /// Counts `bytes` more held by the statement; 53200 past either limit.
    pub fn charge(&self, bytes: usize) -> Result<()> {
        let account = &self.0;
        let bytes = bytes as u64;
        let before = account.used_bytes.fetch_add(bytes, Ordering::Relaxed);
        if before.saturating_add(bytes) > account.limit_bytes {
            account.used_bytes.fetch_sub(bytes, Ordering::Relaxed);
            return Err(account.over_own_limit(bytes));
        }
        if !account.pool.try_reserve(bytes) {
            account.used_bytes.fetch_sub(bytes, Ordering::Relaxed);
            return Err(account.over_pool_limit(bytes));
        }
        Ok(())
    }

    /// The account as the running statement's [`MemoryBudget`], which functions ask before
    /// building a large value.
    pub(crate) fn budget(&self) -> Arc<dyn MemoryBudget> {
        self.0.clone()
    }

    /// Gives back `bytes` charged earlier, for memory an operator no longer holds.
    pub fn release(&self, bytes: usize) {
        let account = &self.0;
        let mut released = 0;
        // Never below zero, even if workers race to give back the last bytes.
        let _ = account
            .used_bytes
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                released = (bytes as u64).min(used);
                Some(used - released)
            });
        account.pool.release(released);
    }
}

impl QueryAccount {
    fn over_own_limit(&self, request_bytes: u64) -> Error {
        out_of_memory(
            request_bytes,
            format!(
                "The statement needs more than kestrel.query_memory_limit ({}) of working memory.",
                megabytes(self.limit_bytes)
            ),
        )
    }

    fn over_pool_limit(&self, request_bytes: u64) -> Error {
        out_of_memory(
            request_bytes,
            format!(
                "The running statements together need more than the server's memory limit ({}).",
                megabytes(self.pool.limit_bytes)
            ),
        )
    }
}

impl MemoryBudget for QueryAccount {
    fn check_room(&self, bytes: usize) -> Result<()> {
        let bytes = bytes as u64;
        let used = self.used_bytes.load(Ordering::Relaxed);
        if used.saturating_add(bytes) > self.limit_bytes {
            return Err(self.over_own_limit(bytes));
        }
        if self.pool.used_bytes().saturating_add(bytes) > self.pool.limit_bytes {
            return Err(self.over_pool_limit(bytes));
        }
        Ok(())
    }
}

impl Drop for QueryAccount {
    fn drop(&mut self) {
        self.pool.release(*self.used_bytes.get_mut());
    }
}

fn megabytes(bytes: u64) -> String {
    format!("{}MB", bytes / (1024 * 1024))
}

fn out_of_memory(request_bytes: u64, detail: String) -> Error {
    Error::new(SqlState::OutOfMemory, "out of memory").with_detail(format!(
        "Failed on request of size {request_bytes} in memory context \"ExecutorState\". {detail}"
    ))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{MemoryPool, QueryMemory};

    #[test]
    fn a_statement_fails_past_its_limit_or_the_pools_and_gives_its_memory_back() {
        let pool = Arc::new(MemoryPool::with_limit(1000));
        let first = QueryMemory::new(pool.clone(), 600);
        assert!(first.charge(500).is_ok());
        let no_room = first.budget().check_room(101).map_err(|e| e.sqlstate());
        assert_eq!(no_room, Err("53200"));
        assert!(first.budget().check_room(100).is_ok());
        let over_own = first.charge(200).map_err(|e| e.sqlstate());
        assert_eq!(over_own, Err("53200"));
        let second = QueryMemory::new(pool.clone(), 600);
        let over_pool = second.charge(600).map_err(|e| e.sqlstate());
        assert_eq!(over_pool, Err("53200"));
        assert_eq!(pool.used_bytes(), 500);
        drop(first);
        assert!(second.charge(600).is_ok());
        drop(second);
        assert_eq!(pool.used_bytes(), 0);
    }
}
