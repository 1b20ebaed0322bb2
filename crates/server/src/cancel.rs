//! CancelRequest support: every connection registers its engine session's
//! [`CancelHandle`] under the process id and secret key it announced in BackendKeyData; a
//! CancelRequest arriving on another connection looks the pair up and cancels.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use kestrel::CancelHandle;

#[derive(Default)]
pub(crate) struct CancelRegistry {
    inner: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    last_process_id: i32,
    by_process_id: HashMap<i32, (i32, CancelHandle)>,
}

/// A connection's entry; dropping it (when the connection ends) unregisters it.
pub(crate) struct Registration {
    registry: Arc<CancelRegistry>,
    pub process_id: i32,
    pub secret_key: i32,
}

impl CancelRegistry {
    fn entries(&self) -> MutexGuard<'_, Entries> {
        // The map stays consistent even if a holder panicked: every update is one insert
        // or remove.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn register(self: &Arc<Self>, handle: CancelHandle) -> Registration {
        let mut entries = self.entries();
        let mut process_id = entries.last_process_id;
        loop {
            process_id = process_id.checked_add(1).unwrap_or(1);
            if !entries.by_process_id.contains_key(&process_id) {
                break;
            }
        }
        entries.last_process_id = process_id;
        let secret_key = random_secret(process_id);
        entries
            .by_process_id
            .insert(process_id, (secret_key, handle));
        Registration {
            registry: Arc::clone(self),
            process_id,
            secret_key,
        }
    }

    /// Cancels the connection's running statement if the key matches; silently ignores a
    /// wrong key, as PostgreSQL does.
    pub(crate) fn cancel(&self, process_id: i32, secret_key: i32) {
        let entries = self.entries();
        if let Some((secret, handle)) = entries.by_process_id.get(&process_id) {
            if *secret == secret_key {
                handle.cancel();
            }
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.registry
            .entries()
            .by_process_id
            .remove(&self.process_id);
    }
}

/// A secret a client cannot guess: SipHash under the process's random keys.
fn random_secret(process_id: i32) -> i32 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    RandomState::new().hash_one((process_id, nanos)) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancels_only_with_the_right_key_and_unregisters() {
        let registry = Arc::new(CancelRegistry::default());
        let first = registry.register(CancelHandle::default());
        let second = registry.register(CancelHandle::default());
        assert_ne!(first.process_id, second.process_id);
        registry.cancel(first.process_id, first.secret_key.wrapping_add(1));
        registry.cancel(first.process_id, first.secret_key);
        let pid = first.process_id;
        drop(first);
        assert!(!registry.entries().by_process_id.contains_key(&pid));
        assert!(registry
            .entries()
            .by_process_id
            .contains_key(&second.process_id));
    }
}
