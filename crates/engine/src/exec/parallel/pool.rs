//! The one worker pool of the process, shared by every session and embedded database:
//! `threads` workers in all (`kestrel serve --threads`, by default the machine's cores),
//! of which the statements' own threads are some, so it keeps `threads - 1` helper
//! threads.
//!
//! Admission keeps concurrent clients from losing cores: a statement that runs a pipeline
//! in parallel counts itself busy, and gets only the helpers free at that moment, so eight
//! clients running large queries on two cores each run alone on their own thread instead
//! of sharing helpers. Helpers run `'static` jobs holding `Arc`s of what they read, so a
//! consumer that stops early (LIMIT) simply drops its end of the channel.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, OnceLock};

type Job = Box<dyn FnOnce() + Send>;

/// Helpers run the engine's recursive expression evaluation, like connection threads.
const HELPER_STACK_BYTES: usize = 64 * 1024 * 1024;

static THREADS: OnceLock<usize> = OnceLock::new();
static POOL: OnceLock<Pool> = OnceLock::new();

struct Pool {
    threads: usize,
    /// Statements running a parallel pipeline plus helpers running a job.
    busy: AtomicUsize,
    jobs: Mutex<Sender<Job>>,
}

/// Sets the pool's size (`kestrel serve --threads`) before any statement uses it; false
/// when it was already fixed.
pub fn configure_threads(threads: usize) -> bool {
    THREADS.set(threads.max(1)).is_ok()
}

/// Workers in the pool, the statements' own threads included.
pub fn pool_threads() -> usize {
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

fn pool() -> &'static Pool {
    POOL.get_or_init(|| {
        let threads = pool_threads();
        let (sender, receiver) = channel::<Job>();
        let receiver = Arc::new(Mutex::new(receiver));
        for index in 1..threads {
            let receiver = Arc::clone(&receiver);
            // A helper that cannot start leaves the pool smaller: admission still counts
            // it, so a job waits for another helper instead of being lost.
            let _ = std::thread::Builder::new()
                .name(format!("kestrel-worker-{index}"))
                .stack_size(HELPER_STACK_BYTES)
                .spawn(move || run_helper(&receiver));
        }
        Pool {
            threads,
            busy: AtomicUsize::new(0),
            jobs: Mutex::new(sender),
        }
    })
}

fn run_helper(receiver: &Mutex<Receiver<Job>>) {
    loop {
        let job = match receiver.lock() {
            Ok(receiver) => receiver.recv(),
            Err(_) => return,
        };
        let Ok(job) = job else { return };
        // A panicking job drops its channel end, which its statement reports as an
        // internal error; the helper stays.
        let _ = catch_unwind(AssertUnwindSafe(job));
    }
}

/// A statement's place in the pool while it runs a parallel pipeline, and the helpers it
/// was granted; given back on drop.
pub(super) struct Admission {
    helpers: usize,
}

impl Admission {
    /// Counts the calling thread busy and grants up to `wanted` helpers among those free.
    pub(super) fn request(wanted: usize) -> Admission {
        let pool = pool();
        pool.busy.fetch_add(1, Ordering::AcqRel);
        // The helpers are reserved with the caller's own place, so two statements
        // arriving at once never count on the same free core.
        let mut granted = 0;
        let _ = pool
            .busy
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |busy| {
                granted = wanted.min(pool.threads.saturating_sub(busy));
                Some(busy + granted)
            });
        Admission { helpers: granted }
    }

    pub(super) fn helpers(&self) -> usize {
        self.helpers
    }

    /// Runs `job` on a helper granted by this admission; the helper's place is given back
    /// when the job ends.
    pub(super) fn spawn(&mut self, job: impl FnOnce() + Send + 'static) {
        if self.helpers == 0 {
            return;
        }
        self.helpers -= 1;
        let job: Job = Box::new(move || {
            let _release = Release;
            job();
        });
        let sent = pool().jobs.lock().is_ok_and(|jobs| jobs.send(job).is_ok());
        if !sent {
            pool().busy.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

impl Drop for Admission {
    fn drop(&mut self) {
        // The calling thread, and helpers granted but never started.
        pool().busy.fetch_sub(1 + self.helpers, Ordering::AcqRel);
    }
}

/// Gives a helper's place back when its job ends, even by a panic.
struct Release;

impl Drop for Release {
    fn drop(&mut self) {
        pool().busy.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::Admission;

    #[test]
    fn a_statement_gets_only_the_helpers_that_are_free() {
        let threads = super::pool_threads();
        let first = Admission::request(usize::MAX);
        // The first took every free place: together they never exceed the pool.
        let second = Admission::request(usize::MAX);
        assert!(first.helpers() + second.helpers() < threads.max(2));
        drop((first, second));
    }
}
