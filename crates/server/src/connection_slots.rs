//! `max_connections`: how many sessions may be open at once. A connection takes a slot once
//! its StartupMessage arrives and gives it back when its thread ends; past the limit a
//! client gets PostgreSQL's 53300 and the server spends no thread on it.
//!
//! Every user is a superuser while KestrelDB has no roles, so PostgreSQL's
//! `superuser_reserved_connections` would reserve nothing from anyone: it is not kept.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

pub(crate) struct ConnectionSlots {
    max: usize,
    taken: AtomicUsize,
}

/// A taken slot, given back on drop.
pub(crate) struct Slot(Arc<ConnectionSlots>);

impl ConnectionSlots {
    pub(crate) fn new(max: usize) -> ConnectionSlots {
        ConnectionSlots {
            max,
            taken: AtomicUsize::new(0),
        }
    }

    /// A slot, or `None` when all are taken.
    pub(crate) fn take(self: &Arc<Self>) -> Option<Slot> {
        let taken = self
            .taken
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |taken| {
                (taken < self.max).then_some(taken + 1)
            });
        taken.ok().map(|_| Slot(Arc::clone(self)))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.taken.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::ConnectionSlots;

    #[test]
    fn slots_run_out_and_come_back() {
        let slots = Arc::new(ConnectionSlots::new(2));
        let first = slots.take();
        let second = slots.take();
        assert!(first.is_some() && second.is_some());
        assert!(slots.take().is_none());
        drop(first);
        assert!(slots.take().is_some());
    }
}
