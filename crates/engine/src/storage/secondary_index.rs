//! The indexes of CREATE INDEX (non-unique): per chunk, the chunk's rows sorted by the hash of
//! their key. A chunk's index is built on the first lookup that needs it and keeps `Arc` clones
//! of the key vectors it was built from; it serves a table version exactly while that version's
//! chunk holds the same vectors. Holding them also means no writer can change them in place
//! (`Arc::make_mut` copies a shared vector), so every write shows up as new vectors and the chunk
//! is indexed again at its next lookup. Writes therefore never maintain these indexes and a
//! lookup can never miss a row; deleted rows are dropped against the version's own bitmap.

use std::hash::BuildHasher;
use std::sync::{Arc, Mutex};

use foldhash::fast::FixedState;
use hashbrown::HashMap;

use super::table_data::{Chunk, TableData};
use crate::vector::{encode_row_key, Vector};

/// All CREATE INDEX indexes of one table, shared by its versions, by key columns.
#[derive(Debug, Default)]
pub struct SecondaryIndexes {
    by_columns: Mutex<HashMap<Vec<usize>, Vec<Option<ChunkIndex>>>>,
}

#[derive(Debug)]
struct ChunkIndex {
    /// The key vectors the entries were computed from.
    keys: Vec<Arc<Vector>>,
    /// (hash of the key, row offset), sorted; rows with a NULL key are left out.
    entries: Vec<(u64, u32)>,
}

/// Rows found by a lookup: per chunk index, the offsets of its matching live rows, ascending.
pub type ChunkRows = Vec<(usize, Vec<u32>)>;

impl SecondaryIndexes {
    /// How many rows of `data` have the hash of `key` over `columns`, deleted ones included: a
    /// cheap upper bound on what [`Self::lookup`] returns, for choosing between indexes.
    pub fn candidates(&self, data: &TableData, columns: &[usize], key: &[u8]) -> usize {
        let hash = FixedState::default().hash_one(key);
        self.with_chunks(data, columns, |_, _, index| matching(index, hash).len())
            .into_iter()
            .sum()
    }

    /// The live rows of `data` whose key over `columns` is `key` (from `encode_row_key`).
    pub fn lookup(&self, data: &TableData, columns: &[usize], key: &[u8]) -> ChunkRows {
        let hash = FixedState::default().hash_one(key);
        let mut scratch = Vec::new();
        let per_chunk = self.with_chunks(data, columns, |chunk_idx, chunk, index| {
            let mut offsets: Vec<u32> = matching(index, hash)
                .iter()
                .map(|&(_, offset)| offset)
                .filter(|&offset| !chunk.is_deleted(offset as usize))
                .filter(|&offset| {
                    scratch.clear();
                    let keys: Vec<&Vector> = index.keys.iter().map(|k| &**k).collect();
                    encode_row_key(&keys, offset as usize, &mut scratch);
                    scratch.as_slice() == key
                })
                .collect();
            offsets.sort_unstable();
            (chunk_idx, offsets)
        });
        per_chunk
            .into_iter()
            .filter(|(_, offsets)| !offsets.is_empty())
            .collect()
    }

    /// Runs `visit` on every chunk of `data` with its index over `columns`, indexing the chunks
    /// whose key vectors changed since they were last indexed.
    fn with_chunks<T>(
        &self,
        data: &TableData,
        columns: &[usize],
        mut visit: impl FnMut(usize, &Chunk, &ChunkIndex) -> T,
    ) -> Vec<T> {
        let mut by_columns = match self.by_columns.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        let chunks = by_columns.entry(columns.to_vec()).or_default();
        chunks.resize_with(data.chunks.len(), || None);
        data.chunks
            .iter()
            .zip(chunks.iter_mut())
            .enumerate()
            .map(|(chunk_idx, (chunk, index))| {
                let current = index.as_ref().is_some_and(|index| {
                    index
                        .keys
                        .iter()
                        .zip(columns)
                        .all(|(key, &c)| Arc::ptr_eq(key, &chunk.columns[c]))
                });
                let index = match index {
                    Some(index) if current => index,
                    _ => index.insert(ChunkIndex::build(chunk, columns)),
                };
                visit(chunk_idx, chunk, index)
            })
            .collect()
    }
}

impl ChunkIndex {
    fn build(chunk: &Chunk, columns: &[usize]) -> ChunkIndex {
        let keys: Vec<Arc<Vector>> = columns.iter().map(|&c| chunk.columns[c].clone()).collect();
        let key_refs: Vec<&Vector> = keys.iter().map(|k| &**k).collect();
        let hasher = FixedState::default();
        let mut key = Vec::new();
        let mut entries = Vec::with_capacity(chunk.len);
        // Every row, deleted or not: the deletion bitmap differs between versions that share
        // these vectors, so it is checked at lookup.
        for row in 0..chunk.len {
            key.clear();
            if !encode_row_key(&key_refs, row, &mut key) {
                entries.push((hasher.hash_one(key.as_slice()), row as u32));
            }
        }
        entries.sort_unstable();
        ChunkIndex { keys, entries }
    }
}

/// The entries of `index` with hash `hash`.
fn matching(index: &ChunkIndex, hash: u64) -> &[(u64, u32)] {
    let start = index.entries.partition_point(|&(h, _)| h < hash);
    let end = index.entries.partition_point(|&(h, _)| h <= hash);
    &index.entries[start..end]
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::types::{DataType, ScalarValue};
    use crate::vector::{encode_row_key, Batch, Vector};

    use super::{SecondaryIndexes, TableData};

    fn key(value: i32) -> Vec<u8> {
        let vector = Vector::from_scalar(&ScalarValue::Int32(value), DataType::Int32, 1);
        let mut key = Vec::new();
        encode_row_key(&[&vector], 0, &mut key);
        key
    }

    fn append(data: &mut TableData, values: &[Option<i32>]) {
        let mut vector = Vector::with_capacity(DataType::Int32.physical(), values.len());
        for v in values {
            vector.push_scalar(&v.map_or(ScalarValue::Null, ScalarValue::Int32));
        }
        let batch = Batch::new(vec![Arc::new(vector)], values.len());
        assert!(data.append(&[DataType::Int32], &batch).is_ok());
    }

    fn rows(index: &SecondaryIndexes, data: &TableData, value: i32) -> Vec<(usize, Vec<u32>)> {
        index.lookup(data, &[0], &key(value))
    }

    #[test]
    fn every_version_sees_exactly_its_own_rows() {
        let index = SecondaryIndexes::default();
        let mut committed = TableData::default();
        append(&mut committed, &[Some(7), None, Some(3), Some(7)]);
        assert_eq!(rows(&index, &committed, 7), vec![(0, vec![0, 3])]);
        assert_eq!(rows(&index, &committed, 5), vec![]);

        // A newer version appends to the indexed chunk and deletes a row.
        let mut newer = committed.clone();
        append(&mut newer, &[Some(7)]);
        newer.delete_rows(0, &[0]);
        assert_eq!(rows(&index, &newer, 7), vec![(0, vec![3, 4])]);
        // The older version, read after the newer one was indexed, still sees its own rows.
        assert_eq!(rows(&index, &committed, 7), vec![(0, vec![0, 3])]);
        assert_eq!(index.candidates(&committed, &[0], &key(7)), 2);

        // An appended row lands in the index even when the writer held the only other copy.
        let mut private = committed.clone();
        drop(committed);
        append(&mut private, &[Some(3)]);
        assert_eq!(rows(&index, &private, 3), vec![(0, vec![2, 4])]);
        append(&mut private, &[Some(3)]);
        assert_eq!(rows(&index, &private, 3), vec![(0, vec![2, 4, 5])]);
    }
}
