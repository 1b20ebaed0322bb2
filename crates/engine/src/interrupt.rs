//! Why a running statement stops before its end: a cancel from another thread (a
//! CancelRequest, or a client gone mid-result) or its `statement_timeout`.
//!
//! A session owns one [`Interrupt`] for its whole life. Operators look at it once per batch
//! (`ExecContext::check_cancelled`) and a lock waiter each time it wakes, so either cause
//! ends a statement within milliseconds with PostgreSQL's 57014. Both live in atomics: the
//! check on the hot path is one load, plus a clock read only while a timeout is set.
//!
//! Work that has no `ExecContext` at hand — binding a statement of a hundred thousand terms,
//! or a function building one huge value — reaches the interrupt of the statement its
//! thread runs through [`check_running`], as PostgreSQL's CHECK_FOR_INTERRUPTS reaches its
//! backend's flags: the session makes it the thread's for the statement's run
//! ([`RunningStatement`]).
//!
//! The same holds for the statement's working memory: a function about to build a value
//! of a size the user chose (`repeat`, `lpad`, `a[100000000] = 1`) asks
//! [`check_value_bytes`] first, so the value fails with 53200 when the statement's or the
//! server's limit cannot hold it, before it is allocated (PostgreSQL's palloc fails the
//! same way, with no way around it). The account itself lives in `exec::memory`, above
//! this module; it is seen here through [`MemoryBudget`].

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use crate::error::{Error, Result, SqlState};

#[derive(Debug, Default)]
pub struct Interrupt {
    cancelled: AtomicBool,
    /// When the running statement times out, in nanoseconds after [`clock_origin`]; 0: never.
    deadline_nanos: AtomicU64,
}

/// The instant deadlines count from (an `Instant` cannot live in an atomic).
fn clock_origin() -> Instant {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    *ORIGIN.get_or_init(Instant::now)
}

fn nanos_since_origin(at: Instant) -> u64 {
    let nanos = at.saturating_duration_since(clock_origin()).as_nanos();
    u64::try_from(nanos).unwrap_or(u64::MAX).max(1)
}

impl Interrupt {
    /// Cancels the running statement (from any thread).
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// A statement starts: a cancel that came before it is forgotten (PostgreSQL, too, only
    /// cancels what is running), and `timeout` (statement_timeout) starts counting.
    pub fn start_statement(&self, timeout: Option<Duration>) {
        self.cancelled.store(false, Ordering::Relaxed);
        let deadline = timeout.map_or(0, |t| nanos_since_origin(Instant::now() + t));
        self.deadline_nanos.store(deadline, Ordering::Relaxed);
    }

    /// The statement is over: its timeout no longer applies.
    pub fn end_statement(&self) {
        self.deadline_nanos.store(0, Ordering::Relaxed);
    }

    /// When the running statement times out, if it can.
    pub fn deadline(&self) -> Option<Instant> {
        match self.deadline_nanos.load(Ordering::Relaxed) {
            0 => None,
            nanos => Some(clock_origin() + Duration::from_nanos(nanos)),
        }
    }

    /// 57014 once the statement was cancelled or its timeout passed.
    pub fn check(&self) -> Result<()> {
        if self.cancelled.load(Ordering::Relaxed) {
            return Err(Error::new(
                SqlState::QueryCanceled,
                "canceling statement due to user request",
            ));
        }
        let deadline = self.deadline_nanos.load(Ordering::Relaxed);
        if deadline != 0 && nanos_since_origin(Instant::now()) >= deadline {
            return Err(Error::new(
                SqlState::QueryCanceled,
                "canceling statement due to statement timeout",
            ));
        }
        Ok(())
    }
}

/// The working memory a statement may still take.
pub(crate) trait MemoryBudget: Send + Sync {
    /// 53200 unless `bytes` more fit in the statement's limit and in the server's; charges
    /// nothing (the value is charged by whatever keeps it).
    fn check_room(&self, bytes: usize) -> Result<()>;
}

/// What a thread's running statement is stopped by.
struct Running {
    interrupt: Arc<Interrupt>,
    memory: Arc<dyn MemoryBudget>,
}

thread_local! {
    /// The statement this thread runs, if it runs one.
    static RUNNING: RefCell<Option<Running>> = const { RefCell::new(None) };
}

/// Makes a statement's interrupt and memory the ones [`check_running`] and
/// [`check_value_bytes`] look at on this thread, until dropped (then the ones before it
/// again: statements run inside statements).
pub(crate) struct RunningStatement {
    previous: Option<Running>,
}

impl RunningStatement {
    pub(crate) fn enter(
        interrupt: &Arc<Interrupt>,
        memory: Arc<dyn MemoryBudget>,
    ) -> RunningStatement {
        let entered = Running {
            interrupt: Arc::clone(interrupt),
            memory,
        };
        let previous = RUNNING.with(|running| running.replace(Some(entered)));
        RunningStatement { previous }
    }
}

impl Drop for RunningStatement {
    fn drop(&mut self) {
        let previous = self.previous.take();
        RUNNING.with(|running| *running.borrow_mut() = previous);
    }
}

/// Makes a statement's interrupt and memory the ones [`check_running`] and
/// [`check_value_bytes`] look at on a parallel helper thread, which runs nothing but the
/// pieces of the statement it was last given.
pub(crate) fn install(interrupt: &Arc<Interrupt>, memory: Arc<dyn MemoryBudget>) {
    let entered = Running {
        interrupt: Arc::clone(interrupt),
        memory,
    };
    RUNNING.with(|running| *running.borrow_mut() = Some(entered));
}

/// Makes `memory` the account [`check_value_bytes`] asks for the rest of the statement
/// this thread runs: its execution's, which replaces the one it was bound with.
pub(crate) fn use_memory(memory: Arc<dyn MemoryBudget>) {
    RUNNING.with(|running| {
        if let Some(running) = &mut *running.borrow_mut() {
            running.memory = memory;
        }
    });
}

/// 57014 once the statement this thread runs was cancelled or timed out; `Ok` on a thread
/// that runs none. For loops whose length a user chooses, every so many steps.
pub(crate) fn check_running() -> Result<()> {
    RUNNING.with(|running| match &*running.borrow() {
        Some(running) => running.interrupt.check(),
        None => Ok(()),
    })
}

/// [`check_running`], and 53200 when the statement this thread runs has no room for
/// `bytes` more of working memory: asked before building (or while growing) a value whose
/// size a user chose.
pub(crate) fn check_value_bytes(bytes: usize) -> Result<()> {
    RUNNING.with(|running| match &*running.borrow() {
        Some(running) => {
            running.interrupt.check()?;
            running.memory.check_room(bytes)
        }
        None => Ok(()),
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use std::sync::Arc;

    use super::{check_running, check_value_bytes, Interrupt, MemoryBudget, RunningStatement};
    use crate::error::{Error, Result, SqlState};

    /// A budget with room for `.0` bytes more.
    struct Room(usize);

    impl MemoryBudget for Room {
        fn check_room(&self, bytes: usize) -> Result<()> {
            match bytes <= self.0 {
                true => Ok(()),
                false => Err(Error::new(SqlState::OutOfMemory, "out of memory")),
            }
        }
    }

    #[test]
    fn check_running_sees_the_interrupt_of_the_statement_the_thread_runs() {
        let outer = Arc::new(Interrupt::default());
        let inner = Arc::new(Interrupt::default());
        outer.cancel();
        assert!(check_running().is_ok(), "no statement runs");
        let _outer = RunningStatement::enter(&outer, Arc::new(Room(usize::MAX)));
        assert!(check_running().is_err());
        {
            let _inner = RunningStatement::enter(&inner, Arc::new(Room(10)));
            let over = check_value_bytes(11).map_err(|e| e.sqlstate());
            assert_eq!(over, Err("53200"));
            assert!(check_value_bytes(10).is_ok());
            assert!(check_running().is_ok());
        }
        assert!(check_running().is_err(), "the outer statement's again");
    }

    #[test]
    fn a_cancel_or_a_passed_deadline_stops_the_statement_until_the_next_starts() {
        let interrupt = Interrupt::default();
        assert!(interrupt.check().is_ok());
        interrupt.cancel();
        let cancelled = interrupt.check().map_err(|e| e.message);
        assert_eq!(
            cancelled,
            Err("canceling statement due to user request".into())
        );
        interrupt.start_statement(Some(Duration::ZERO));
        let timed_out = interrupt.check().map_err(|e| e.message);
        assert_eq!(
            timed_out,
            Err("canceling statement due to statement timeout".into())
        );
        interrupt.end_statement();
        assert!(interrupt.check().is_ok());
        interrupt.start_statement(Some(Duration::from_secs(3600)));
        assert!(interrupt.check().is_ok() && interrupt.deadline().is_some());
    }
}
