//! The boundary around every engine call: a panic inside the engine (a bug) becomes an
//! XX000 error for this statement instead of killing the connection or the server.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use kestrel::Error;

/// Runs `call`, turning a panic into an internal error.
pub(crate) fn catch_panic<T>(call: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    // AssertUnwindSafe: after a panic the session may hold half-updated state; the engine's
    // transactions keep committed data consistent, and the client sees the error.
    catch_unwind(AssertUnwindSafe(call)).unwrap_or_else(|payload| {
        Err(Error::internal(format!(
            "internal error: {}",
            panic_message(payload.as_ref())
        )))
    })
}

/// Like [`catch_panic`] for calls that cannot fail: a panic yields `fallback`.
pub(crate) fn or_fallback<T>(call: impl FnOnce() -> T, fallback: T) -> T {
    catch_unwind(AssertUnwindSafe(call)).unwrap_or(fallback)
}

fn panic_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(message) = payload.downcast_ref::<&'static str>() {
        message
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message
    } else {
        "panic in the engine"
    }
}
