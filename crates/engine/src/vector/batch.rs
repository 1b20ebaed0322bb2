//! A batch: equally long column vectors, at most [`BATCH_SIZE`] rows.

use std::sync::Arc;

use super::Vector;

/// Rows per batch, and per storage chunk.
pub const BATCH_SIZE: usize = 2048;

#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    pub columns: Vec<Arc<Vector>>,
    /// Row count, kept apart from the columns so that a batch with no columns
    /// (`SELECT FROM t`, `SELECT count(*)`) still has rows.
    pub len: usize,
}

impl Batch {
    pub fn new(columns: Vec<Arc<Vector>>, len: usize) -> Batch {
        Batch { columns, len }
    }

    /// About how many bytes the batch's columns hold (see `Vector::approximate_bytes`).
    pub fn approximate_bytes(&self) -> usize {
        self.columns.iter().map(|c| c.approximate_bytes()).sum()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The rows at `indices`, in that order.
    pub fn gather(&self, indices: &[u32]) -> Batch {
        Batch {
            columns: self
                .columns
                .iter()
                .map(|c| Arc::new(c.gather(indices)))
                .collect(),
            len: indices.len(),
        }
    }
}

/// One batch holding every row of `batches`, whose columns have the physical types of
/// `template` (used when `batches` is empty).
pub fn concat_batches(
    physical: &[crate::types::PhysicalType],
    batches: &[Batch],
) -> crate::error::Result<Batch> {
    let rows = batches.iter().map(|b| b.len()).sum();
    let mut columns: Vec<Vector> = physical
        .iter()
        .map(|&p| Vector::with_capacity(p, rows))
        .collect();
    for batch in batches {
        for (column, source) in columns.iter_mut().zip(&batch.columns) {
            column.extend(source)?;
        }
    }
    Ok(Batch::new(
        columns.into_iter().map(Arc::new).collect(),
        rows,
    ))
}

/// Splits a batch of any size into batches of at most [`BATCH_SIZE`] rows.
pub fn split_batch(batch: Batch) -> Vec<Batch> {
    if batch.len() <= BATCH_SIZE {
        return vec![batch];
    }
    (0..batch.len())
        .step_by(BATCH_SIZE)
        .map(|start| {
            let end = (start + BATCH_SIZE).min(batch.len());
            let rows: Vec<u32> = (start as u32..end as u32).collect();
            batch.gather(&rows)
        })
        .collect()
}
