//! A batch: equally long column vectors, at most [`BATCH_SIZE`] rows.

use super::Vector;

/// Rows per batch, and per storage chunk.
pub const BATCH_SIZE: usize = 2048;

#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    pub columns: Vec<Vector>,
    /// Row count, kept apart from the columns so that a batch with no columns
    /// (`SELECT FROM t`, `SELECT count(*)`) still has rows.
    pub len: usize,
}

impl Batch {
    pub fn new(columns: Vec<Vector>, len: usize) -> Batch {
        Batch { columns, len }
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
            columns: self.columns.iter().map(|c| c.gather(indices)).collect(),
            len: indices.len(),
        }
    }
}
