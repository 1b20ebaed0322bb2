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
use crate::vector::{encode_row_key, Vector, BATCH_SIZE};

// Row offsets and bucket bounds within a chunk are stored as u16.
const _: () = assert!(BATCH_SIZE <= u16::MAX as usize);

/// All CREATE INDEX indexes of one table, shared by its versions, by key columns.
#[derive(Debug, Default)]
pub struct SecondaryIndexes {
    by_columns: Mutex<HashMap<Vec<usize>, Vec<Option<ChunkIndex>>>>,
}

#[derive(Debug)]
struct ChunkIndex {
    /// The key vectors the index was computed from.
    keys: Vec<Arc<Vector>>,
    /// Hash buckets in compressed form: the rows of bucket `b` are
    /// `rows[starts[b]..starts[b + 1]]`, so a probe reads one bucket and nothing else.
    starts: Vec<u16>,
    /// Row offsets grouped by bucket, ascending within a bucket; rows with a NULL key are
    /// left out.
    rows: Vec<u16>,
}

/// Rows found by a lookup: per chunk index, the offsets of its matching live rows, ascending.
pub type ChunkRows = Vec<(usize, Vec<u32>)>;

impl SecondaryIndexes {
    /// How many rows of `data` have the hash of one of `keys` over `columns`, deleted ones
    /// included: a cheap upper bound on what [`Self::lookup`] returns, for choosing between
    /// indexes.
    pub fn candidates(&self, data: &TableData, columns: &[usize], keys: &[Vec<u8>]) -> usize {
        let hashes = hashes(keys);
        self.with_chunks(data, columns, |_, _, index| {
            hashes.iter().map(|&h| index.bucket(h).len()).sum::<usize>()
        })
        .into_iter()
        .sum()
    }

    /// The live rows of `data` whose key over `columns` is one of `keys` (distinct, each from
    /// `encode_row_key`).
    pub fn lookup(&self, data: &TableData, columns: &[usize], keys: &[Vec<u8>]) -> ChunkRows {
        let hashes = hashes(keys);
        let mut scratch = Vec::new();
        let per_chunk = self.with_chunks(data, columns, |chunk_idx, chunk, index| {
            let key_vectors: Vec<&Vector> = index.keys.iter().map(|k| &**k).collect();
            // Distinct keys match disjoint rows, even when they share a bucket.
            let mut offsets: Vec<u32> = Vec::new();
            for (key, &hash) in keys.iter().zip(&hashes) {
                offsets.extend(
                    index
                        .bucket(hash)
                        .iter()
                        .map(|&offset| offset as u32)
                        .filter(|&offset| !chunk.is_deleted(offset as usize))
                        .filter(|&offset| {
                            scratch.clear();
                            encode_row_key(&key_vectors, offset as usize, &mut scratch);
                            scratch.as_slice() == key.as_slice()
                        }),
                );
            }
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
        chunks.resize_with(data.chunk_count(), || None);
        data.chunks()
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
        let buckets = chunk.len.next_power_of_two();
        let mut key = Vec::new();
        // Every row, deleted or not: the deletion bitmap differs between versions that share
        // these vectors, so it is checked at lookup.
        let bucket_of: Vec<Option<usize>> = (0..chunk.len)
            .map(|row| {
                key.clear();
                let null = encode_row_key(&key_refs, row, &mut key);
                (!null).then(|| bucket(hasher.hash_one(key.as_slice()), buckets))
            })
            .collect();
        // A counting sort by bucket keeps the rows of each bucket ascending.
        let mut starts = vec![0u16; buckets + 1];
        for &b in bucket_of.iter().flatten() {
            starts[b + 1] += 1;
        }
        for b in 0..buckets {
            starts[b + 1] += starts[b];
        }
        let mut next = starts.clone();
        let mut rows = vec![0u16; starts[buckets] as usize];
        for (row, b) in bucket_of.into_iter().enumerate() {
            if let Some(b) = b {
                rows[next[b] as usize] = row as u16;
                next[b] += 1;
            }
        }
        ChunkIndex { keys, starts, rows }
    }

    /// The rows whose key hash falls in the bucket of `hash`.
    fn bucket(&self, hash: u64) -> &[u16] {
        let b = bucket(hash, self.starts.len() - 1);
        &self.rows[self.starts[b] as usize..self.starts[b + 1] as usize]
    }
}

/// The hash of each key, as the buckets use it.
fn hashes(keys: &[Vec<u8>]) -> Vec<u64> {
    let hasher = FixedState::default();
    keys.iter()
        .map(|key| hasher.hash_one(key.as_slice()))
        .collect()
}

/// The bucket of `hash` among `buckets` (a power of two).
fn bucket(hash: u64, buckets: usize) -> usize {
    (hash as usize) & (buckets - 1)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::types::{DataType, ScalarValue};
    use crate::vector::{int_key, Batch, Vector};

    use super::{SecondaryIndexes, TableData};

    fn append(data: &mut TableData, values: &[Option<i32>]) {
        let mut vector = Vector::with_capacity(DataType::Int32.physical(), values.len());
        for v in values {
            vector.push_scalar(&v.map_or(ScalarValue::Null, ScalarValue::Int32));
        }
        let batch = Batch::new(vec![Arc::new(vector)], values.len());
        assert!(data.append(&[DataType::Int32], &batch).is_ok());
    }

    fn rows(index: &SecondaryIndexes, data: &TableData, value: i32) -> Vec<(usize, Vec<u32>)> {
        index.lookup(data, &[0], &[int_key(value)])
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
        assert!(newer.delete_rows(0, &[0]).is_ok());
        assert_eq!(rows(&index, &newer, 7), vec![(0, vec![3, 4])]);
        // The older version, read after the newer one was indexed, still sees its own rows.
        assert_eq!(rows(&index, &committed, 7), vec![(0, vec![0, 3])]);
        assert_eq!(index.candidates(&committed, &[0], &[int_key(7)]), 2);

        // An appended row lands in the index even when the writer held the only other copy.
        let mut private = committed.clone();
        drop(committed);
        append(&mut private, &[Some(3)]);
        assert_eq!(rows(&index, &private, 3), vec![(0, vec![2, 4])]);
        append(&mut private, &[Some(3)]);
        assert_eq!(rows(&index, &private, 3), vec![(0, vec![2, 4, 5])]);
    }
}
