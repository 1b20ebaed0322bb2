//! The lock manager: named locks held in share or exclusive mode by transactions (table
//! write locks, row locks, LOCK TABLE) and by sessions (advisory locks), with waiting,
//! NOWAIT, lock_timeout and deadlock detection over one wait-for graph.
//!
//! A name is a string key (`Transaction::lock_name` makes a table's; row and advisory locks
//! have their own prefixes), so every kind of lock is in the same graph and a cycle across
//! kinds is a deadlock like any other.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::Map;
use crate::error::{Error, Result, SqlState};
use crate::interrupt::Interrupt;
use crate::sync::lock;

/// The prefix of row lock names.
const ROW_PREFIX: &str = "row ";

/// The lock name of row `row_id` of table `table_oid`.
pub fn row_lock_name(table_oid: u32, row_id: u64) -> String {
    format!("{ROW_PREFIX}{table_oid} {row_id}")
}

/// How often a waiter yields to the holder of a lock before it sleeps on it.
const SPIN_YIELDS: u32 = 4;

/// How long a sleeping waiter sleeps before it looks for a deadlock formed meanwhile.
const RECHECK: Duration = Duration::from_millis(100);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockMode {
    /// A statement that locks rows (PostgreSQL's ROW SHARE): in conflict with exclusive
    /// holders only, whose changes it must not read half-way; writers of rows lock the rows
    /// they change, which it waits for row by row.
    RowShare,
    /// Compatible with other share holders.
    Share,
    /// A table's inserters (PostgreSQL's ROW EXCLUSIVE): compatible with each other, in
    /// conflict with share and exclusive holders.
    RowExclusive,
    Exclusive,
}

impl LockMode {
    /// Whether holders in `self` and `other` exclude each other.
    fn conflicts_with(self, other: LockMode) -> bool {
        match (self, other) {
            (LockMode::Exclusive, _) | (_, LockMode::Exclusive) => true,
            (LockMode::RowShare, _) | (_, LockMode::RowShare) => false,
            _ => self != other,
        }
    }

    /// The mode that holds both `self` and `other` (row share is in the others; share and
    /// row exclusive together conflict with everything either conflicts with: exclusive is
    /// the nearest).
    pub fn with(self, other: LockMode) -> LockMode {
        match (self, other) {
            (LockMode::RowShare, mode) | (mode, LockMode::RowShare) => mode,
            _ if self == other => self,
            _ => LockMode::Exclusive,
        }
    }
}

/// What to do when a lock is held by another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// Wait, at most this long if given (lock_timeout).
    Block(Option<Duration>),
    /// Do not wait: the caller learns the lock was not taken (NOWAIT, SKIP LOCKED, try).
    No,
}

struct Holder {
    owner: u64,
    mode: LockMode,
}

/// Who holds which name and who waits for what.
#[derive(Default)]
struct LockTable {
    holders: Map<String, Vec<Holder>>,
    waiting_for: Map<u64, (String, LockMode)>,
    /// Per name with waiters: where they sleep, and how many. A release wakes one waiter of
    /// that name only: waking every waiter of every table (as one shared condition variable
    /// did) cost each single-row INSERT of 8 concurrent writers two futex calls.
    queues: Map<String, WaitQueue>,
    /// How many row locks are held: writers look for them only when there are any.
    row_holders: usize,
    /// Each session's cancel and statement_timeout, by owner: a waiter gives up on them.
    interrupts: Map<u64, Arc<Interrupt>>,
}

struct WaitQueue {
    /// Always waited on with the `LockManager::table` mutex.
    released: Arc<Condvar>,
    waiters: usize,
}

impl LockTable {
    /// The owners other than `me` holding `name` in a mode that conflicts with `mode`.
    fn blockers(&self, name: &str, mode: LockMode, me: u64) -> Vec<u64> {
        self.holders.get(name).map_or_else(Vec::new, |holders| {
            holders
                .iter()
                .filter(|h| h.owner != me && h.mode.conflicts_with(mode))
                .map(|h| h.owner)
                .collect()
        })
    }

    /// Whether one of `blockers` (transitively) waits for a lock `me` holds.
    fn waits_for(&self, blockers: &[u64], me: u64) -> bool {
        let mut seen: Vec<u64> = Vec::new();
        let mut stack: Vec<u64> = blockers.to_vec();
        while let Some(owner) = stack.pop() {
            if owner == me {
                return true;
            }
            if seen.contains(&owner) {
                continue;
            }
            seen.push(owner);
            if let Some((name, mode)) = self.waiting_for.get(&owner) {
                stack.extend(self.blockers(name, *mode, owner));
            }
        }
        false
    }

    fn grant(&mut self, name: &str, mode: LockMode, owner: u64) {
        let holders = self.holders.entry(name.to_string()).or_default();
        match holders.iter_mut().find(|h| h.owner == owner) {
            Some(held) => held.mode = held.mode.with(mode),
            None => {
                holders.push(Holder { owner, mode });
                if name.starts_with(ROW_PREFIX) {
                    self.row_holders += 1;
                }
            }
        }
    }
}

/// The store's locks.
#[derive(Default)]
pub struct LockManager {
    table: Mutex<LockTable>,
    /// `LockTable::row_holders`, readable without the mutex.
    row_holders: AtomicUsize,
}

impl LockManager {
    /// Whether some owner sleeps waiting for a lock (tests wait for this instead of sleeping).
    #[cfg(test)]
    pub(crate) fn has_waiters(&self) -> bool {
        !lock(&self.table).waiting_for.is_empty()
    }

    /// Takes `name` in `mode` for `owner` (a stronger mode it holds already does); `Ok(false)`
    /// when it is held by another and `wait` is [`Wait::No`]. Errors: 40P01 when waiting would
    /// close a cycle, 55P03 when lock_timeout passes.
    pub fn acquire(&self, owner: u64, name: &str, mode: LockMode, wait: Wait) -> Result<bool> {
        let mut table = lock(&self.table);
        // Taking a second mode of a lock held takes the mode that holds both.
        let mode = table
            .holders
            .get(name)
            .and_then(|holders| holders.iter().find(|h| h.owner == owner))
            .map_or(mode, |held| held.mode.with(mode));
        let mut yields = 0;
        let deadline = match wait {
            Wait::Block(Some(timeout)) => Some(Instant::now() + timeout),
            Wait::Block(None) | Wait::No => None,
        };
        loop {
            let blockers = table.blockers(name, mode, owner);
            if blockers.is_empty() {
                table.grant(name, mode, owner);
                table.waiting_for.remove(&owner);
                self.row_holders.store(table.row_holders, Ordering::Relaxed);
                // Waiters of a mode holders share, behind the same release, may all go ahead:
                // pass the wakeup on.
                let shared = mode != LockMode::Exclusive;
                if let (true, Some(queue)) = (shared, table.queues.get(name)) {
                    queue.released.notify_one();
                }
                return Ok(true);
            }
            if wait == Wait::No {
                return Ok(false);
            }
            if table.waits_for(&blockers, owner) {
                table.waiting_for.remove(&owner);
                return Err(Error::new(SqlState::DeadlockDetected, "deadlock detected")
                    .with_detail(format!(
                        "Process {owner} waits for {} on {name}; blocked by process {}, which \
                         waits for process {owner}.",
                        match mode {
                            LockMode::RowShare => "RowShareLock",
                            LockMode::Share => "ShareLock",
                            LockMode::RowExclusive => "RowExclusiveLock",
                            LockMode::Exclusive => "ExclusiveLock",
                        },
                        blockers[0]
                    ))
                    .with_hint("See server log for query details."));
            }
            let interrupt = table.interrupts.get(&owner).cloned();
            if let Some(Err(error)) = interrupt.as_ref().map(|i| i.check()) {
                table.waiting_for.remove(&owner);
                return Err(error);
            }
            let now = Instant::now();
            if deadline.is_some_and(|d| now >= d) {
                table.waiting_for.remove(&owner);
                return Err(Error::new(
                    SqlState::LockNotAvailable,
                    "canceling statement due to lock timeout",
                ));
            }
            // A write statement holds its lock for microseconds: giving the holder the
            // processor a few times is cheaper than sleeping and being woken (two context
            // switches and two futex calls).
            if yields < SPIN_YIELDS {
                yields += 1;
                drop(table);
                std::thread::yield_now();
                table = lock(&self.table);
                continue;
            }
            table.waiting_for.insert(owner, (name.to_string(), mode));
            let queue = table
                .queues
                .entry(name.to_string())
                .or_insert_with(|| WaitQueue {
                    released: Arc::default(),
                    waiters: 0,
                });
            queue.waiters += 1;
            let released = Arc::clone(&queue.released);
            // The timeout re-checks for a deadlock formed while asleep; a cancel wakes the
            // waiter (`wake`), a statement_timeout is a deadline like lock_timeout.
            let statement_deadline = interrupt.and_then(|i| i.deadline());
            let sleep = [deadline, statement_deadline]
                .into_iter()
                .flatten()
                .fold(RECHECK, |sleep, d| {
                    sleep.min(d.saturating_duration_since(now))
                });
            table = match released.wait_timeout(table, sleep) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
            if let Some(queue) = table.queues.get_mut(name) {
                queue.waiters -= 1;
                if queue.waiters == 0 {
                    table.queues.remove(name);
                }
            }
        }
    }

    /// Releases `names` held by `owner` and wakes one waiter of each. A woken waiter takes
    /// the lock or, if another took it first, waits again and is woken by that one's
    /// release: a waiter leaves the queue only holding the lock or with an error, while the
    /// lock is held by someone else, so no wakeup is lost.
    pub fn release(&self, owner: u64, names: &[String]) {
        let mut table = lock(&self.table);
        let mut wake = Vec::new();
        for name in names {
            let Some(holders) = table.holders.get_mut(name) else {
                continue;
            };
            let before = holders.len();
            holders.retain(|h| h.owner != owner);
            if holders.len() == before {
                continue;
            }
            let empty = holders.is_empty();
            if name.starts_with(ROW_PREFIX) {
                table.row_holders -= 1;
            }
            if empty {
                table.holders.remove(name);
            }
            if let Some(queue) = table.queues.get(name) {
                wake.push(Arc::clone(&queue.released));
            }
        }
        table.waiting_for.remove(&owner);
        self.row_holders.store(table.row_holders, Ordering::Relaxed);
        drop(table);
        for released in wake {
            released.notify_one();
        }
    }

    /// Makes `owner`'s waits end on `interrupt` (a session's, for its life).
    pub fn watch_interrupt(&self, owner: u64, interrupt: Arc<Interrupt>) {
        lock(&self.table).interrupts.insert(owner, interrupt);
    }

    /// The session `owner` is gone.
    pub fn forget_interrupt(&self, owner: u64) {
        lock(&self.table).interrupts.remove(&owner);
    }

    /// Wakes `owner` if it sleeps waiting for a lock, so it sees its interrupt at once. The
    /// waiter checks the interrupt under the same mutex before it sleeps, so a cancel set
    /// before this call is never missed.
    pub fn wake(&self, owner: u64) {
        let table = lock(&self.table);
        let queue = table
            .waiting_for
            .get(&owner)
            .and_then(|(name, _)| table.queues.get(name));
        if let Some(queue) = queue {
            // Every waiter of the name wakes; the others find the lock still held and sleep.
            queue.released.notify_all();
        }
    }

    /// Whether `owner` sleeps waiting for a lock.
    pub fn is_waiting(&self, owner: u64) -> bool {
        lock(&self.table).waiting_for.contains_key(&owner)
    }

    /// Whether any row lock is held.
    pub fn any_row_locks(&self) -> bool {
        self.row_holders.load(Ordering::Relaxed) > 0
    }

    /// The mode in which `owner` holds `name`, if it does (tests).
    #[cfg(test)]
    pub(crate) fn mode_held(&self, owner: u64, name: &str) -> Option<LockMode> {
        let table = lock(&self.table);
        let holders = table.holders.get(name)?;
        holders.iter().find(|h| h.owner == owner).map(|h| h.mode)
    }

    /// Whether nobody but `owner` holds `name`.
    pub fn holds_alone(&self, owner: u64, name: &str) -> bool {
        lock(&self.table)
            .holders
            .get(name)
            .is_none_or(|holders| holders.iter().all(|h| h.owner == owner))
    }

    /// Whether anyone waits on a lock (tests).
    #[cfg(test)]
    pub(crate) fn queues_empty(&self) -> bool {
        lock(&self.table).queues.is_empty()
    }

    /// Every lock held, as (name, owner, mode): what pg_locks lists.
    pub fn held(&self) -> Vec<(String, u64, LockMode)> {
        let table = lock(&self.table);
        let mut held: Vec<(String, u64, LockMode)> = table
            .holders
            .iter()
            .flat_map(|(name, holders)| holders.iter().map(|h| (name.clone(), h.owner, h.mode)))
            .collect();
        held.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
        held
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{LockManager, LockMode, Wait};

    #[test]
    fn share_holders_coexist_and_exclusive_waits_for_them() {
        let locks = LockManager::default();
        let name = "t";
        assert_eq!(
            locks.acquire(1, name, LockMode::Share, Wait::No).ok(),
            Some(true)
        );
        assert_eq!(
            locks.acquire(2, name, LockMode::Share, Wait::No).ok(),
            Some(true)
        );
        assert_eq!(
            locks.acquire(3, name, LockMode::Exclusive, Wait::No).ok(),
            Some(false)
        );
        // Upgrading is refused while another share holder remains.
        assert_eq!(
            locks.acquire(1, name, LockMode::Exclusive, Wait::No).ok(),
            Some(false)
        );
        locks.release(2, &[name.to_string()]);
        assert_eq!(
            locks.acquire(1, name, LockMode::Exclusive, Wait::No).ok(),
            Some(true)
        );
        assert_eq!(
            locks.acquire(2, name, LockMode::Share, Wait::No).ok(),
            Some(false)
        );
        locks.release(1, &[name.to_string()]);
        assert!(locks.held().is_empty());
    }

    #[test]
    fn inserters_share_a_table_that_share_holders_and_a_second_mode_exclude() {
        let locks = LockManager::default();
        let take = |owner, mode| locks.acquire(owner, "t", mode, Wait::No).ok();
        assert_eq!(take(1, LockMode::RowExclusive), Some(true));
        assert_eq!(take(2, LockMode::RowExclusive), Some(true));
        assert_eq!(take(3, LockMode::Share), Some(false));
        assert_eq!(take(3, LockMode::Exclusive), Some(false));
        locks.release(2, &["t".to_string()]);
        // Share and row exclusive together exclude the other inserter.
        assert_eq!(take(1, LockMode::Share), Some(true));
        assert_eq!(locks.mode_held(1, "t"), Some(LockMode::Exclusive));
        assert_eq!(take(2, LockMode::RowExclusive), Some(false));
        locks.release(1, &["t".to_string()]);
        assert_eq!(take(3, LockMode::Share), Some(true));
        assert_eq!(take(2, LockMode::RowExclusive), Some(false));
        assert_eq!(take(4, LockMode::Share), Some(true));
    }

    #[test]
    fn a_row_locking_statement_waits_for_exclusive_holders_only() {
        let locks = LockManager::default();
        let take = |owner, mode| locks.acquire(owner, "t", mode, Wait::No).ok();
        assert_eq!(take(1, LockMode::RowExclusive), Some(true));
        assert_eq!(take(2, LockMode::Share), Some(false));
        assert_eq!(take(3, LockMode::RowShare), Some(true));
        assert_eq!(locks.mode_held(3, "t"), Some(LockMode::RowShare));
        // Taking another mode keeps that mode: row share is in every other.
        assert_eq!(take(3, LockMode::RowExclusive), Some(true));
        assert_eq!(locks.mode_held(3, "t"), Some(LockMode::RowExclusive));
        locks.release(1, &["t".to_string()]);
        locks.release(3, &["t".to_string()]);
        assert_eq!(take(2, LockMode::Share), Some(true));
        assert_eq!(take(4, LockMode::RowShare), Some(true));
        locks.release(2, &["t".to_string()]);
        locks.release(4, &["t".to_string()]);
        assert_eq!(take(1, LockMode::Exclusive), Some(true));
        assert_eq!(take(4, LockMode::RowShare), Some(false));
    }

    #[test]
    fn a_wait_ends_at_the_lock_timeout() {
        let locks = LockManager::default();
        assert_eq!(
            locks.acquire(1, "t", LockMode::Exclusive, Wait::No).ok(),
            Some(true)
        );
        let waited = locks.acquire(
            2,
            "t",
            LockMode::Share,
            Wait::Block(Some(Duration::from_millis(20))),
        );
        assert_eq!(waited.map_err(|e| e.sqlstate()), Err("55P03"));
        assert!(!locks.is_waiting(2), "a timed-out waiter leaves the graph");
    }

    #[test]
    fn row_locks_are_counted() {
        let locks = LockManager::default();
        let row = super::row_lock_name(16384, 7);
        assert!(!locks.any_row_locks());
        assert_eq!(
            locks.acquire(1, &row, LockMode::Exclusive, Wait::No).ok(),
            Some(true)
        );
        assert!(locks.any_row_locks());
        assert!(locks.holds_alone(1, &row));
        assert!(!locks.holds_alone(2, &row));
        locks.release(1, &[row]);
        assert!(!locks.any_row_locks());
    }
}
