//! `max_connections`: how many sessions may be open at once. A connection takes a slot once
//! its StartupMessage arrives and gives it back when its thread ends; past the limit a
//! client gets PostgreSQL's 53300 and the server spends no thread on it.
//!
//! The last `superuser_reserved_connections` slots are for superusers: once its role is
//! known, a connection of another role that finds fewer free slots than that is refused
//! with 53300, as PostgreSQL's InitPostgres does; so is one past its role's CONNECTION
//! LIMIT.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

pub(crate) struct ConnectionSlots {
    max: usize,
    reserved: usize,
    taken: AtomicUsize,
    /// Connections per role name, of the slots claimed for a role.
    per_role: Mutex<HashMap<String, usize>>,
}

/// A taken slot, given back on drop.
pub(crate) struct Slot {
    slots: Arc<ConnectionSlots>,
    role: Option<String>,
}

impl Slot {
    /// Counts the slot as one of `role`'s connections; `false` (and not counted) when the
    /// role already has `limit` (-1: no limit).
    pub(crate) fn claim_for_role(&mut self, role: &str, limit: i32) -> bool {
        let mut per_role = self
            .slots
            .per_role
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let count = per_role.entry(role.to_string()).or_default();
        if usize::try_from(limit).is_ok_and(|limit| *count >= limit) {
            return false;
        }
        *count += 1;
        self.role = Some(role.to_string());
        true
    }
}

impl ConnectionSlots {
    pub(crate) fn new(max: usize, reserved: usize) -> ConnectionSlots {
        ConnectionSlots {
            max,
            reserved,
            taken: AtomicUsize::new(0),
            per_role: Mutex::default(),
        }
    }

    /// Whether a connection that holds a slot may keep it without being a superuser.
    pub(crate) fn left_for_others(&self) -> bool {
        let free = self.max.saturating_sub(self.taken.load(Ordering::Acquire));
        free >= self.reserved
    }

    /// A slot, or `None` when all are taken.
    pub(crate) fn take(self: &Arc<Self>) -> Option<Slot> {
        let taken = self
            .taken
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |taken| {
                (taken < self.max).then_some(taken + 1)
            });
        taken.ok().map(|_| Slot {
            slots: Arc::clone(self),
            role: None,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.slots.taken.fetch_sub(1, Ordering::AcqRel);
        if let Some(role) = self.role.take() {
            let mut per_role = self
                .slots
                .per_role
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if let Some(count) = per_role.get_mut(&role) {
                *count -= 1;
                if *count == 0 {
                    per_role.remove(&role);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::ConnectionSlots;

    #[test]
    fn slots_run_out_and_come_back() {
        let slots = Arc::new(ConnectionSlots::new(2, 0));
        let first = slots.take();
        let second = slots.take();
        assert!(first.is_some() && second.is_some());
        assert!(slots.take().is_none());
        drop(first);
        assert!(slots.take().is_some());
    }

    #[test]
    fn the_last_slots_are_reserved() {
        let slots = Arc::new(ConnectionSlots::new(4, 2));
        let first = slots.take();
        let second = slots.take();
        assert!(first.is_some() && second.is_some() && slots.left_for_others());
        let third = slots.take();
        assert!(third.is_some() && !slots.left_for_others());
    }

    #[test]
    fn a_role_gets_its_connection_limit() {
        let slots = Arc::new(ConnectionSlots::new(10, 0));
        let (Some(mut first), Some(mut second)) = (slots.take(), slots.take()) else {
            panic!("slots must be free");
        };
        assert!(first.claim_for_role("alice", 1));
        assert!(!second.claim_for_role("alice", 1));
        assert!(second.claim_for_role("bob", -1));
        drop(first);
        let Some(mut third) = slots.take() else {
            panic!("a slot must be free");
        };
        assert!(third.claim_for_role("alice", 1));
    }
}
