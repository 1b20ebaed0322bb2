//! EXPLAIN ANALYZE: wraps an operator to count the rows it returns and the time spent in it
//! (its inputs included).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::{BoxedOperator, ExecContext, Operator};
use crate::error::Result;
use crate::plan::OperatorActuals;
use crate::vector::Batch;

#[derive(Debug, Default)]
pub struct OperatorStats {
    pub rows: AtomicU64,
    /// Time in the operator and its inputs, summed over the workers that ran it.
    pub nanos: AtomicU64,
    /// Helpers a parallel operator was given (EXPLAIN ANALYZE's "workers launched").
    pub workers: AtomicU64,
}

impl OperatorStats {
    /// The counters as EXPLAIN ANALYZE prints them, once the plan has run.
    pub fn actuals(&self) -> OperatorActuals {
        OperatorActuals {
            rows: self.rows.load(Ordering::Relaxed),
            nanos: self.nanos.load(Ordering::Relaxed),
            workers: self.workers.load(Ordering::Relaxed),
        }
    }
}

pub struct InstrumentedExec {
    inner: BoxedOperator,
    stats: Arc<OperatorStats>,
}

impl InstrumentedExec {
    pub fn new(inner: BoxedOperator, stats: Arc<OperatorStats>) -> InstrumentedExec {
        InstrumentedExec { inner, stats }
    }
}

impl Operator for InstrumentedExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        let start = Instant::now();
        let batch = self.inner.next(ctx)?;
        self.stats
            .nanos
            .fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        if let Some(batch) = &batch {
            self.stats
                .rows
                .fetch_add(batch.len() as u64, Ordering::Relaxed);
        }
        Ok(batch)
    }
}
