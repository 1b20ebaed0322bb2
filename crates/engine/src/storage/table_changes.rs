//! What a transaction changed in a table version since the committed version it copied:
//! the rows it appended (every row id from `base_rows` on), the older rows it deleted and
//! the cells of older rows it overwrote. COMMIT logs exactly these, reading the values from
//! the new version, so a single-row UPDATE logs one row, not its chunk.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::vector::BATCH_SIZE;

/// Source of lineage ids: a table version made from scratch (CREATE, TRUNCATE, compaction,
/// a load from disk) starts a new row-id space, which a delta can never bridge.
static NEXT_LINEAGE: AtomicU64 = AtomicU64::new(1);

#[derive(Debug, Clone)]
pub struct TableChanges {
    /// Equal for two versions only if one was derived from the other by appends, deletes
    /// and updates: row ids mean the same rows in both.
    pub lineage: u64,
    /// Rows of the committed version this one started from; row ids from here on were
    /// appended since.
    pub base_rows: usize,
    /// ALTER TABLE rewrote columns in place: only a full image describes the new version.
    pub rewritten: bool,
    /// Offsets deleted in each chunk, among the rows below `base_rows` (may repeat).
    pub deleted: Arc<BTreeMap<usize, Vec<u32>>>,
    /// Offsets overwritten per (chunk, column), among the rows below `base_rows`.
    pub updated: Arc<BTreeMap<(usize, usize), Vec<u32>>>,
}

impl TableChanges {
    /// No changes yet over a version of `rows` row ids, in a new row-id space.
    pub fn fresh(rows: usize) -> TableChanges {
        TableChanges {
            lineage: NEXT_LINEAGE.fetch_add(1, Ordering::Relaxed),
            base_rows: rows,
            rewritten: false,
            deleted: Arc::default(),
            updated: Arc::default(),
        }
    }

    /// No changes over a version of `rows` row ids in the same row-id space: what the
    /// committed version carries for the next transaction.
    pub fn committed(&self, rows: usize) -> TableChanges {
        TableChanges {
            lineage: self.lineage,
            base_rows: rows,
            rewritten: false,
            deleted: Arc::default(),
            updated: Arc::default(),
        }
    }

    pub fn is_empty(&self) -> bool {
        !self.rewritten && self.deleted.is_empty() && self.updated.is_empty()
    }

    /// The offsets of chunk `chunk` that existed in the base version.
    fn older(&self, chunk: usize, offsets: &[u32]) -> Vec<u32> {
        let first = chunk * BATCH_SIZE;
        offsets
            .iter()
            .copied()
            .filter(|&o| first + (o as usize) < self.base_rows)
            .collect()
    }

    pub fn record_delete(&mut self, chunk: usize, offsets: &[u32]) {
        let older = self.older(chunk, offsets);
        if !older.is_empty() {
            Arc::make_mut(&mut self.deleted)
                .entry(chunk)
                .or_default()
                .extend(older);
        }
    }

    pub fn record_update(&mut self, chunk: usize, column: usize, offsets: &[u32]) {
        let older = self.older(chunk, offsets);
        if !older.is_empty() {
            Arc::make_mut(&mut self.updated)
                .entry((chunk, column))
                .or_default()
                .extend(older);
        }
    }
}
