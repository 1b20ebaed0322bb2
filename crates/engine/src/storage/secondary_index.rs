//! The indexes of CREATE INDEX (non-unique): per chunk, the chunk's rows sorted by the hash of
//! their key. A chunk's index is built on the first lookup that needs it and keeps `Arc` clones
//! of the key vectors it was built from; it serves a table version exactly while that version's
//! chunk holds the same vectors. Holding them also means no writer can change them in place
//! (`Arc::make_mut` copies a shared vector), so every write shows up as new vectors and the chunk
//! is indexed again at its next lookup. Writes therefore never maintain these indexes and a
//! lookup can never miss a row; deleted rows are dropped against the version's own bitmap.
//!
//! Lookups take no lock. Each chunk's index sits in a slot of its own and is published with
//! `ArcSwap`: a stale one is replaced whole, never changed, so a lookup that builds one chunk's
//! index holds up no lookup of another chunk, and readers of built indexes only load pointers.
//! Two lookups that find the same chunk stale may both build it; either result is exact.

use std::hash::BuildHasher;
use std::sync::Arc;

use arc_swap::{ArcSwap, ArcSwapOption};
use foldhash::fast::FixedState;
use hashbrown::HashMap;

use super::hnsw::HnswIndex;
use super::table_data::{Chunk, TableData};
use crate::catalog::HnswOptions;
use crate::vector::{encode_row_key, Vector, BATCH_SIZE};

// Row offsets and bucket bounds within a chunk are stored as u16.
const _: () = assert!(BATCH_SIZE <= u16::MAX as usize);

/// All CREATE INDEX indexes of one table, shared by its versions: the hash indexes by key
/// columns, the hnsw graphs by column and options.
#[derive(Debug, Default)]
pub struct SecondaryIndexes {
    by_columns: ArcSwap<HashMap<Vec<usize>, Arc<ChunkSlots>>>,
    hnsw: ArcSwap<HashMap<(usize, HnswOptions), Arc<HnswIndex>>>,
}

/// One index: a slot per chunk, holding the chunk's index once a lookup built it. The list is
/// copied to grow when the table gains chunks; slots are shared by every copy.
#[derive(Debug, Default)]
struct ChunkSlots(ArcSwap<Vec<Arc<ArcSwapOption<ChunkIndex>>>>);

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
        let slots = self.slots(columns).at_least(data.chunk_count());
        data.chunks()
            .zip(slots.iter())
            .enumerate()
            .map(|(chunk_idx, (chunk, slot))| {
                let published = slot.load();
                match published.as_deref().filter(|i| i.indexes(chunk, columns)) {
                    Some(index) => visit(chunk_idx, chunk, index),
                    None => {
                        let built = Arc::new(ChunkIndex::build(chunk, columns));
                        slot.store(Some(built.clone()));
                        visit(chunk_idx, chunk, &built)
                    }
                }
            })
            .collect()
    }

    /// The slots of the index over `columns`, made on its first lookup.
    fn slots(&self, columns: &[usize]) -> Arc<ChunkSlots> {
        shared_entry(&self.by_columns, columns, |c| c.to_vec(), Arc::default)
    }

    /// The hnsw graph over `column` (of `dims` elements) built with `options`, made empty on
    /// first use.
    pub fn hnsw(&self, column: usize, dims: usize, options: &HnswOptions) -> Arc<HnswIndex> {
        shared_entry(
            &self.hnsw,
            &(column, *options),
            |key| *key,
            || Arc::new(HnswIndex::new(column, dims, options)),
        )
    }
}

/// The value of `key` in a map published with `ArcSwap`, inserted with `make` when missing;
/// two callers racing to insert get the same value.
fn shared_entry<K, Q, V>(
    map: &ArcSwap<HashMap<K, Arc<V>>>,
    key: &Q,
    owned: impl Fn(&Q) -> K,
    make: impl Fn() -> Arc<V>,
) -> Arc<V>
where
    K: std::hash::Hash + Eq + Clone + std::borrow::Borrow<Q>,
    Q: std::hash::Hash + Eq + ?Sized,
{
    if let Some(value) = map.load().get(key) {
        return value.clone();
    }
    let mut found = None;
    map.rcu(|current| {
        if let Some(value) = current.get(key) {
            found = Some(value.clone());
            return current.clone();
        }
        let value = make();
        found = Some(value.clone());
        let mut grown = HashMap::clone(current);
        grown.insert(owned(key), value);
        Arc::new(grown)
    });
    found.unwrap_or_else(make)
}

impl ChunkSlots {
    /// The slots, at least `chunk_count` of them.
    fn at_least(&self, chunk_count: usize) -> Arc<Vec<Arc<ArcSwapOption<ChunkIndex>>>> {
        let slots = self.0.load_full();
        if slots.len() >= chunk_count {
            return slots;
        }
        let mut grown = slots;
        self.0.rcu(|current| {
            grown = current.clone();
            if current.len() < chunk_count {
                let mut longer = Vec::clone(current);
                longer.resize_with(chunk_count, Arc::default);
                grown = Arc::new(longer);
            }
            grown.clone()
        });
        grown
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

    /// Whether this is the index of `chunk` as it is: built from the vectors it holds (which
    /// the index keeps alive, so equal pointers mean equal contents).
    fn indexes(&self, chunk: &Chunk, columns: &[usize]) -> bool {
        self.keys
            .iter()
            .zip(columns)
            .all(|(key, &c)| Arc::ptr_eq(key, &chunk.columns[c]))
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
    use crate::vector::{encode_row_key, int_key, Batch, Vector, BATCH_SIZE};

    use super::{SecondaryIndexes, TableData};

    fn append(data: &mut TableData, values: &[Option<i32>]) {
        let mut vector = Vector::with_capacity(DataType::Int32.physical(), values.len());
        for v in values {
            assert!(vector
                .push_scalar(&v.map_or(ScalarValue::Null, ScalarValue::Int32))
                .is_ok());
        }
        let batch = Batch::new(vec![Arc::new(vector)], values.len());
        assert!(data.append(&[DataType::Int32], &batch).is_ok());
    }

    fn rows(index: &SecondaryIndexes, data: &TableData, value: i32) -> Vec<(usize, Vec<u32>)> {
        index.lookup(data, &[0], &[int_key(value)])
    }

    /// The rows of `data` with value `value`, by scanning.
    fn scanned(data: &TableData, value: i32) -> Vec<(usize, Vec<u32>)> {
        let key = int_key(value);
        let mut scratch = Vec::new();
        data.chunks()
            .enumerate()
            .map(|(chunk_idx, chunk)| {
                let offsets = (0..chunk.len)
                    .filter(|&row| !chunk.is_deleted(row))
                    .filter(|&row| {
                        scratch.clear();
                        encode_row_key(&[&*chunk.columns[0]], row, &mut scratch);
                        scratch == key
                    })
                    .map(|row| row as u32)
                    .collect::<Vec<u32>>();
                (chunk_idx, offsets)
            })
            .filter(|(_, offsets)| !offsets.is_empty())
            .collect()
    }

    #[test]
    fn concurrent_readers_of_two_versions_see_exactly_their_own_rows() {
        let index = SecondaryIndexes::default();
        let mut committed = TableData::default();
        let values: Vec<Option<i32>> = (0..3 * BATCH_SIZE as i32 + 100)
            .map(|i| (i % 11 != 0).then_some(i % 7))
            .collect();
        append(&mut committed, &values);
        // A newer version changes the last chunk and deletes rows in the first.
        let mut newer = committed.clone();
        append(&mut newer, &[Some(3), Some(4)]);
        assert!(newer.delete_rows(0, &[3, 10]).is_ok());
        let versions = [&committed, &newer];
        std::thread::scope(|scope| {
            for reader in 0..4 {
                let (index, versions) = (&index, &versions);
                scope.spawn(move || {
                    for round in 0..40 {
                        let data = versions[(reader + round) % 2];
                        let value = (round % 8) as i32;
                        assert_eq!(
                            index.lookup(data, &[0], &[int_key(value)]),
                            scanned(data, value),
                            "reader {reader}, round {round}"
                        );
                    }
                });
            }
        });
        assert_eq!(rows(&index, &newer, 3), scanned(&newer, 3));
        assert_eq!(rows(&index, &committed, 3), scanned(&committed, 3));
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
