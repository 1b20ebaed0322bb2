//! Morsels: the pieces of a table the workers of a pipeline take one at a time, from an
//! atomic counter. A morsel is a run of whole chunks, or (forced parallelism) a range of
//! rows of one chunk; its number orders it as a serial scan would, so the batches it
//! yields can be put back in serial order.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::error::Result;
use crate::exec::scan::{chunk_batch, table_data};
use crate::exec::{ExecContext, Operator};
use crate::storage::TableData;
use crate::vector::{Batch, BATCH_SIZE};

/// Where a batch a worker's pipeline yields comes from: its morsel's number, then the
/// batch's place among the batches of that morsel. Ordering by position reproduces the
/// serial order of rows exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MorselPosition {
    pub morsel: u64,
    pub seq: u32,
}

/// Hands out the morsels of one table version to the workers of one pipeline run.
pub(super) struct MorselDispenser {
    data: Arc<TableData>,
    columns: Vec<usize>,
    /// Whole chunks per morsel, or 0 when a morsel is `rows_per_morsel` rows of a chunk.
    chunks_per_morsel: usize,
    rows_per_morsel: usize,
    morsels: u64,
    next: AtomicU64,
    /// No morsel from here on is handed out: set past the first failing morsel (so the
    /// error serial execution would meet first is the one reported) or to 0 to stop.
    end: AtomicU64,
}

impl MorselDispenser {
    pub(super) fn new(
        ctx: &ExecContext,
        table_oid: u32,
        table_name: &str,
        columns: Vec<usize>,
        morsel_rows: usize,
    ) -> Result<MorselDispenser> {
        let data = table_data(ctx, table_oid, table_name)?;
        let chunks = data.chunk_count();
        let (chunks_per_morsel, rows_per_morsel, morsels) = if morsel_rows >= BATCH_SIZE {
            let per = morsel_rows / BATCH_SIZE;
            (per, morsel_rows, chunks.div_ceil(per))
        } else {
            let rows = morsel_rows.max(1);
            let per_chunk = BATCH_SIZE.div_ceil(rows);
            let last = data.chunk(chunks.wrapping_sub(1)).map_or(0, |c| c.len);
            let morsels = chunks.saturating_sub(1) * per_chunk + last.div_ceil(rows);
            (0, rows, morsels)
        };
        Ok(MorselDispenser {
            data,
            columns,
            chunks_per_morsel,
            rows_per_morsel,
            morsels: morsels as u64,
            next: AtomicU64::new(0),
            end: AtomicU64::new(u64::MAX),
        })
    }

    /// The next morsel's number, if any is left.
    pub(super) fn take(&self) -> Option<u64> {
        let morsel = self.next.fetch_add(1, Ordering::Relaxed);
        (morsel < self.morsel_count()).then_some(morsel)
    }

    /// How many morsels are (or were) handed out in all.
    pub(super) fn morsel_count(&self) -> u64 {
        self.morsels.min(self.end.load(Ordering::Relaxed))
    }

    /// Morsel `morsel` failed: those after it are not worth running.
    pub(super) fn stop_after(&self, morsel: u64) {
        self.end
            .fetch_min(morsel.saturating_add(1), Ordering::Relaxed);
    }

    /// The consumer is gone: hand out nothing more.
    pub(super) fn stop(&self) {
        self.end.store(0, Ordering::Relaxed);
    }

    /// The live rows of morsel `morsel`, a batch per chunk (or chunk slice).
    pub(super) fn read(&self, morsel: u64, ctx: &ExecContext) -> Result<Vec<Batch>> {
        ctx.check_cancelled()?;
        let morsel = morsel as usize;
        let mut batches = Vec::new();
        if self.chunks_per_morsel > 0 {
            let first = morsel * self.chunks_per_morsel;
            for index in first..first + self.chunks_per_morsel {
                let Some(chunk) = self.data.chunk(index) else {
                    break;
                };
                batches.push(chunk_batch(chunk, index, &self.columns));
            }
        } else {
            let per_chunk = BATCH_SIZE.div_ceil(self.rows_per_morsel);
            let index = morsel / per_chunk;
            if let Some(chunk) = self.data.chunk(index) {
                let start = (morsel % per_chunk) * self.rows_per_morsel;
                let end = (start + self.rows_per_morsel).min(chunk.len);
                let live: Vec<u32> = (start..end)
                    .filter(|&row| !chunk.is_deleted(row))
                    .map(|row| row as u32)
                    .collect();
                let columns = self
                    .columns
                    .iter()
                    .map(|&c| chunk.gather_column(index, c, &live))
                    .collect();
                batches.push(Batch::new(columns, live.len()));
            }
        }
        batches.retain(|b| !b.is_empty());
        let rows: usize = batches.iter().map(Batch::len).sum();
        ctx.rows_read.set(ctx.rows_read.get() + rows as u64);
        Ok(batches)
    }
}

/// The scan at the bottom of a worker's copy of a pipeline: the batches of one morsel.
pub(crate) struct MorselScanExec {
    batches: std::vec::IntoIter<Batch>,
}

impl MorselScanExec {
    pub(crate) fn new(batches: Vec<Batch>) -> MorselScanExec {
        MorselScanExec {
            batches: batches.into_iter(),
        }
    }
}

impl Operator for MorselScanExec {
    fn next(&mut self, _ctx: &ExecContext) -> Result<Option<Batch>> {
        Ok(self.batches.next())
    }
}
