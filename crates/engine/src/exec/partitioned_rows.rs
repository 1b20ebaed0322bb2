//! Input rows split by the hash of their group keys, for a parallel aggregate whose worker
//! found its own table reducing the rows poorly (`aggregate_parallel.rs`): instead of
//! building a table that would hold nearly every group, the worker copies each row to its
//! key's partition, and each partition is aggregated later by one task, in a small table no
//! other partition shares (DuckDB's radix-partitioned aggregation).

use std::sync::Arc;

use super::group_keys::hash_partitions;
use super::ExecContext;
use crate::error::Result;
use crate::vector::{concat_batches, Batch, Vector, BATCH_SIZE};

/// One worker's rows, by partition: full batches, and the pieces of the next one.
pub(super) struct PartitionedRows {
    batches: Vec<Vec<Batch>>,
    pieces: Vec<Vec<Batch>>,
    piece_rows: Vec<usize>,
    /// Scratch: each row's partition, and the rows of the batch ordered by partition.
    partition_of_row: Vec<u32>,
    rows_by_partition: Vec<u32>,
}

impl PartitionedRows {
    pub(super) fn new(partitions: usize) -> PartitionedRows {
        PartitionedRows {
            batches: vec![Vec::new(); partitions],
            pieces: vec![Vec::new(); partitions],
            piece_rows: vec![0; partitions],
            partition_of_row: Vec::new(),
            rows_by_partition: Vec::new(),
        }
    }

    /// Copies the rows of `batch`, whose group keys are `keys`, to their partitions.
    pub(super) fn add(
        &mut self,
        batch: &Batch,
        keys: &[Arc<Vector>],
        ctx: &ExecContext,
    ) -> Result<()> {
        let count = self.pieces.len();
        let keys: Vec<&Vector> = keys.iter().map(|k| k.as_ref()).collect();
        self.partition_of_row.clear();
        hash_partitions(&keys, batch.len(), count, &mut self.partition_of_row);
        // A counting sort of the rows by partition: `ends[p]` is where partition p's end.
        let mut ends = vec![0usize; count];
        for &p in &self.partition_of_row {
            ends[p as usize] += 1;
        }
        let mut next = 0;
        for end in &mut ends {
            next += *end;
            *end = next;
        }
        self.rows_by_partition.clear();
        self.rows_by_partition.resize(batch.len(), 0);
        for (row, &p) in self.partition_of_row.iter().enumerate().rev() {
            ends[p as usize] -= 1;
            self.rows_by_partition[ends[p as usize]] = row as u32;
        }
        // After the sort `ends[p]` is where partition p starts.
        for p in 0..count {
            let end = ends.get(p + 1).copied().unwrap_or(batch.len());
            if end == ends[p] {
                continue;
            }
            let piece = batch.gather(&self.rows_by_partition[ends[p]..end]);
            ctx.memory.charge(piece.approximate_bytes())?;
            self.piece_rows[p] += piece.len();
            self.pieces[p].push(piece);
            if self.piece_rows[p] >= BATCH_SIZE {
                self.flush(p)?;
            }
        }
        Ok(())
    }

    /// The pieces of partition `p` joined into one batch.
    fn flush(&mut self, p: usize) -> Result<()> {
        let pieces = std::mem::take(&mut self.pieces[p]);
        self.piece_rows[p] = 0;
        match pieces.len() {
            0 => {}
            1 => self.batches[p].extend(pieces),
            _ => {
                let types: Vec<_> = pieces[0]
                    .columns
                    .iter()
                    .map(|c| c.data.physical())
                    .collect();
                self.batches[p].push(concat_batches(&types, &pieces)?);
            }
        }
        Ok(())
    }

    /// The batches of every partition, in partition order.
    pub(super) fn finish(mut self) -> Result<Vec<Vec<Batch>>> {
        for p in 0..self.pieces.len() {
            self.flush(p)?;
        }
        Ok(self.batches)
    }
}
