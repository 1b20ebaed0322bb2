//! Morsel-driven parallel execution (HyPer's morsels, DuckDB's pipelines), fitted to the
//! pull-based operators: a parallel-safe pipeline (`pipeline.rs`: a table scan under
//! filters and projections) runs on several workers at once, each pulling morsels (ranges
//! of the table's rows, `morsel.rs`) and running its own copy of the pipeline's operators
//! with its own context (`worker.rs`). The workers are the statement's own thread plus
//! helpers from one process-wide pool (`pool.rs`) that admits only as many as are free, so
//! concurrent clients keep their cores. `gather.rs` hands the workers' batches on in
//! exactly the serial order; `run_pipeline_counted` lets an operator consume each worker's stream
//! where it runs (thread-local aggregation or sort runs).
//!
//! Every batch carries its [`MorselPosition`], which orders it as a serial scan would, so
//! results and their order stay exactly those of serial execution.

mod gather;
mod morsel;
mod pipeline;
mod pool;
mod tasks;
mod worker;

pub use gather::GatherExec;
pub use morsel::MorselPosition;
pub(crate) use morsel::MorselScanExec;
pub use pipeline::{
    is_gather_point, is_pipeline, parallel_pipeline, run_pipeline_counted, Consume,
    PipelineCounters, WorkerStream,
};
pub use pool::{configure_threads, pool_threads};
pub use tasks::{run_tasks, run_tasks_in_context, ContextTask, Help, Task, TaskSet};

/// How a session lets its statements run in parallel (`max_parallel_workers_per_gather`,
/// `force_parallel_mode`, `kestrel.parallel_min_rows`), as [`crate::exec::ExecContext`]
/// carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parallelism {
    /// Workers a pipeline may run on, the statement's own thread included (1: serial).
    pub workers: usize,
    /// Pipelines reading fewer rows run serially: threads cost more than they save there.
    pub min_rows: u64,
    /// Rows per morsel (a multiple of the chunk size, or 1 when forced).
    pub morsel_rows: usize,
    pub forced: ForceParallel,
}

/// PostgreSQL 15's `force_parallel_mode`: `on` runs every parallel-safe pipeline through
/// the parallel path with one-row morsels, whatever its size; `regress` does the same but
/// EXPLAIN does not show the Gather, so plans print as they do serially.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForceParallel {
    Off,
    On,
    Regress,
}

/// Rows per morsel: eight chunks, enough to make a morsel's hand-out and operator set-up
/// negligible, few enough that the workers of a 100K-row scan share it evenly.
pub const MORSEL_ROWS: usize = 8 * crate::vector::BATCH_SIZE;

impl Parallelism {
    /// One worker, never forced: what statements outside a session and the helpers'
    /// own nested plans run with.
    pub const SERIAL: Parallelism = Parallelism {
        workers: 1,
        min_rows: u64::MAX,
        morsel_rows: MORSEL_ROWS,
        forced: ForceParallel::Off,
    };

    /// From the session's setting values.
    pub fn from_settings(workers_per_gather: usize, min_rows: u64, forced: ForceParallel) -> Self {
        Parallelism {
            workers: workers_per_gather
                .saturating_add(1)
                .min(pool_threads().max(1)),
            min_rows,
            morsel_rows: match forced {
                ForceParallel::Off => MORSEL_ROWS,
                ForceParallel::On | ForceParallel::Regress => 1,
            },
            forced,
        }
    }
}
