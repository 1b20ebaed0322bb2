//! A unique index: key bytes → candidate row ids. One index serves every version of its
//! table; only the transaction holding the table's write lock changes it. Entries are hints:
//! a candidate counts only if the row is live in the version being checked and still has the
//! key, so entries left behind by rolled-back or updated rows do no harm.

use std::sync::Mutex;

use hashbrown::HashMap;

use super::table_data::TableData;
use crate::vector::{encode_row_key, BATCH_SIZE};

#[derive(Debug, Default)]
pub struct UniqueIndex {
    entries: Mutex<HashMap<Box<[u8]>, Vec<u64>>>,
}

impl UniqueIndex {
    /// Records `row_id` under `key` unless a live row of `data` other than `row_id` already
    /// has that key; returns false on such a conflict.
    pub fn insert(&self, key: &[u8], row_id: u64, data: &TableData, columns: &[usize]) -> bool {
        let mut entries = match self.entries.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut scratch = Vec::new();
        if let Some(candidates) = entries.get_mut(key) {
            candidates.retain(|&candidate| {
                candidate == row_id || row_has_key(data, candidate, columns, key, &mut scratch)
            });
            if candidates.iter().any(|&c| c != row_id) {
                return false;
            }
            if !candidates.contains(&row_id) {
                candidates.push(row_id);
            }
            return true;
        }
        entries.insert(key.into(), vec![row_id]);
        true
    }
}

impl UniqueIndex {
    /// A live row of `data` whose key over `columns` is `key`, if any.
    pub fn find(&self, key: &[u8], data: &TableData, columns: &[usize]) -> Option<u64> {
        let entries = match self.entries.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut scratch = Vec::new();
        entries
            .get(key)?
            .iter()
            .copied()
            .find(|&candidate| row_has_key(data, candidate, columns, key, &mut scratch))
    }
}

/// Whether row `row_id` is live in `data` and its key over `columns` is `key`.
fn row_has_key(
    data: &TableData,
    row_id: u64,
    columns: &[usize],
    key: &[u8],
    scratch: &mut Vec<u8>,
) -> bool {
    let chunk_idx = row_id as usize / BATCH_SIZE;
    let offset = row_id as usize % BATCH_SIZE;
    let Some(chunk) = data.chunks.get(chunk_idx) else {
        return false;
    };
    if offset >= chunk.len || chunk.is_deleted(offset) {
        return false;
    }
    let vectors: Vec<&crate::vector::Vector> =
        columns.iter().map(|&c| &*chunk.columns[c]).collect();
    scratch.clear();
    encode_row_key(&vectors, offset, scratch);
    scratch.as_slice() == key
}
