//! Morsel-driven parallel execution (HyPer's morsels, DuckDB's pipelines), fitted to the
//! pull-based operators: a parallel-safe pipeline (a table scan under filters and
//! projections, as `physical/parallel.rs` decides; run by `pipeline.rs`) runs on several
//! workers at once, each pulling morsels (ranges
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
pub use pipeline::{run_pipeline_counted, Consume, PipelineCounters, WorkerStream};
pub use pool::{configure_threads, pool_threads};
pub use tasks::{run_tasks, run_tasks_in_context, ContextTask, Help, Task, TaskSet};
