//! Independent tasks, for work split after a pipeline ends (a sort's merge, a hash join's
//! build partitions): every thread that joins a [`TaskSet`] takes the next task from an
//! atomic counter until none is left — the statement's thread and the helpers
//! `run_tasks` is granted, or the workers of a pipeline waiting for the build table one of
//! them hashes. Results come back in task order.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::pipeline::worker_panicked;
use super::pool::Admission;
use super::worker::WorkerSeed;
use crate::error::{Error, Result};
use crate::exec::ExecContext;

/// One task: its index in, its result out.
pub type Task<T> = dyn Fn(usize) -> Result<T> + Send + Sync;

/// Tasks `0..tasks` that any number of threads run together.
pub struct TaskSet<T> {
    task: Arc<Task<T>>,
    tasks: usize,
    next: AtomicUsize,
    results: Mutex<Results<T>>,
    all_done: Condvar,
}

struct Results<T> {
    slots: Vec<Option<Result<T>>>,
    done: usize,
}

/// What a thread waiting for a task set to end can do meanwhile: run some of its tasks.
pub trait Help: Send + Sync {
    fn help(&self);
}

impl<T: Send> TaskSet<T> {
    pub fn new(tasks: usize, task: Arc<Task<T>>) -> Arc<TaskSet<T>> {
        Arc::new(TaskSet {
            task,
            tasks,
            next: AtomicUsize::new(0),
            results: Mutex::new(Results {
                slots: (0..tasks).map(|_| None).collect(),
                done: 0,
            }),
            all_done: Condvar::new(),
        })
    }

    /// The results, locked (never while a task runs, so never poisoned by one).
    fn results(&self) -> MutexGuard<'_, Results<T>> {
        self.results.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs tasks nobody took yet until none is left.
    fn run_untaken(&self) {
        loop {
            let index = self.next.fetch_add(1, Ordering::Relaxed);
            if index >= self.tasks {
                return;
            }
            let result = catch_unwind(AssertUnwindSafe(|| (self.task)(index)))
                .unwrap_or_else(|_| Err(worker_panicked()));
            let mut results = self.results();
            results.slots[index] = Some(result);
            results.done += 1;
            if results.done == self.tasks {
                self.all_done.notify_all();
            }
        }
    }

    /// Runs tasks until none is left, then waits for those other threads took; the first
    /// failing task's error (by index) is the result if any fails.
    pub fn join(&self) -> Result<Vec<T>> {
        self.run_untaken();
        let mut results = self.results();
        while results.done < self.tasks {
            results = self
                .all_done
                .wait(results)
                .unwrap_or_else(|e| e.into_inner());
        }
        std::mem::take(&mut results.slots)
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err(Error::internal("a parallel task did not run"))))
            .collect()
    }
}

impl<T: Send> Help for TaskSet<T> {
    fn help(&self) {
        self.run_untaken();
    }
}

/// Runs tasks `0..tasks` on up to `workers` workers of the pool (the caller is one).
pub fn run_tasks<T: Send + 'static>(
    workers: usize,
    tasks: usize,
    task: Arc<Task<T>>,
) -> Result<Vec<T>> {
    let set = TaskSet::new(tasks, task);
    let mut admission = Admission::request(workers.min(tasks).saturating_sub(1));
    for _ in 0..admission.helpers() {
        let set = set.clone();
        admission.spawn(move || set.help());
    }
    let results = set.join();
    drop(admission);
    results
}

/// A task that evaluates expressions: its index and a context of the statement's in, its
/// result out.
pub type ContextTask<T> = dyn Fn(usize, &ExecContext) -> Result<T> + Send + Sync;

/// Runs tasks `0..tasks` as [`run_tasks`] does, on up to ctx's degree of workers, each
/// with a context of the statement's (parameters, snapshot, settings, memory account).
pub fn run_tasks_in_context<T: Send + 'static>(
    ctx: &ExecContext,
    tasks: usize,
    task: Arc<ContextTask<T>>,
) -> Result<Vec<T>> {
    let seed = WorkerSeed::of(ctx);
    let in_context: Arc<Task<T>> = Arc::new(move |index| task(index, &seed.context()));
    run_tasks(ctx.parallelism.workers, tasks, in_context)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_runs_once_and_results_keep_task_order() {
        let results = run_tasks(4, 100, Arc::new(|i| Ok(i * 2))).expect("no task fails");
        assert_eq!(results, (0..100).map(|i| i * 2).collect::<Vec<_>>());
    }

    /// Threads that only help (as a pipeline's waiting workers do) and the one that joins
    /// share the tasks; the first failing task's error is the one returned.
    #[test]
    fn helpers_share_the_tasks_and_the_first_error_wins() {
        let set = TaskSet::new(
            64,
            Arc::new(|i| match i {
                20 | 40 => Err(Error::internal(format!("task {i}"))),
                _ => Ok(i),
            }),
        );
        let helpers: Vec<_> = (0..3)
            .map(|_| {
                let set = set.clone();
                std::thread::spawn(move || set.help())
            })
            .collect();
        let error = set.join().expect_err("two tasks fail");
        assert!(error.to_string().contains("task 20"), "{error}");
        helpers
            .into_iter()
            .for_each(|h| h.join().expect("a helper ends"));
    }
}
