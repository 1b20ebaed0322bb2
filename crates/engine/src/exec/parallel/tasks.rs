//! Independent tasks on the pool, for work split after a pipeline ends (a hash join's build
//! partitions): the statement's thread and the helpers it is granted each take the next
//! task from an atomic counter until none is left. Results come back in task order.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::sync::Arc;

use super::pipeline::worker_panicked;
use super::pool::Admission;
use crate::error::{Error, Result};

/// One task: its index in, its result out.
pub type Task<T> = dyn Fn(usize) -> Result<T> + Send + Sync;

/// Runs tasks `0..tasks` on up to `workers` workers (the caller is one); the first failing
/// task's error (by index) is the result if any fails.
pub fn run_tasks<T: Send + 'static>(
    workers: usize,
    tasks: usize,
    task: Arc<Task<T>>,
) -> Result<Vec<T>> {
    let next = Arc::new(AtomicUsize::new(0));
    let mut admission = Admission::request(workers.min(tasks).saturating_sub(1));
    let (sender, receiver) = channel::<(usize, Result<T>)>();
    for _ in 0..admission.helpers() {
        let (next, task, sender) = (next.clone(), task.clone(), sender.clone());
        admission.spawn(move || loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            if index >= tasks {
                return;
            }
            let result = catch_unwind(AssertUnwindSafe(|| task(index)))
                .unwrap_or_else(|_| Err(worker_panicked()));
            if sender.send((index, result)).is_err() {
                return;
            }
        });
    }
    drop(sender);
    let mut results: Vec<Option<Result<T>>> = (0..tasks).map(|_| None).collect();
    loop {
        let index = next.fetch_add(1, Ordering::Relaxed);
        if index >= tasks {
            break;
        }
        results[index] = Some(task(index));
    }
    for (index, result) in receiver.iter() {
        results[index] = Some(result);
    }
    drop(admission);
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(Error::internal("a parallel task did not run"))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_runs_once_and_results_keep_task_order() {
        let results = run_tasks(4, 100, Arc::new(|i| Ok(i * 2))).expect("no task fails");
        assert_eq!(results, (0..100).map(|i| i * 2).collect::<Vec<_>>());
    }
}
