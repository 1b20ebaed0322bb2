//! Locking a mutex whose holder may have panicked.
//!
//! A statement's panic is caught at the session boundary and reported as XX000; the mutexes
//! of the store and the log are only changed in steps that leave their data consistent, so
//! a lock poisoned by such a panic is still usable and the server carries on.

use std::sync::{Mutex, MutexGuard};

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}
