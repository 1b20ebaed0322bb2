//! The join build cache (DESIGN.md §5.3): a hash join's build-side table, kept across
//! queries while every table the build side reads keeps its generation. Keyed by the build
//! side's plan and keys, so only identical build sides share a table; stored like cached
//! results (`storage::GenerationCache`: exact, bounded, O(1) eviction).

use std::sync::{Arc, RwLock};

use std::hash::{BuildHasher, Hash};

use hashbrown::{Equivalent, HashMap as HashTableMap};

use crate::storage::{generations, DbState, GenerationCache, Lookup};
use crate::vector::{Batch, NULL_ROW};

/// Cached build tables may use this much memory in all.
const JOIN_CACHE_BYTES: usize = 256 << 20;

/// A hashed build side: its rows, and key → first row with a chain to the next.
pub struct HashTable {
    pub rows: Batch,
    pub heads: Heads,
    pub next: Vec<u32>,
}

/// Join keys: one integer-like column indexed by its value when its values are dense,
/// else hashed as its value; anything else as key bytes.
pub enum Heads {
    Int(Partitioned<i64>),
    Dense(DenseHeads),
    Bytes(Partitioned<Box<[u8]>>),
}

impl Heads {
    fn bytes(&self) -> usize {
        match self {
            Heads::Int(map) => map.len() * 16,
            Heads::Dense(dense) => dense.heads.len() * 4,
            Heads::Bytes(map) => map.keys().map(|k| k.len() + 32).sum(),
        }
    }
}

/// Key → first row of its chain, split by the key's hash into partitions that are built
/// apart, in parallel (a single one when built serially, so a serial probe hashes once).
pub struct Partitioned<K> {
    maps: Vec<HashTableMap<K, u32>>,
}

/// The partition of a key among `partitions`: a hash independent of the maps' own.
pub fn partition_of<Q: Hash + ?Sized>(key: &Q, partitions: usize) -> usize {
    let hash = foldhash::fast::FixedState::with_seed(PARTITION_SEED).hash_one(key);
    ((u128::from(hash) * partitions as u128) >> 64) as usize
}

const PARTITION_SEED: u64 = 0x9e37_79b9_7f4a_7c15;

/// Key → first row of its chain for a single integer key whose values span few slots per
/// build row: an array indexed by key − min (DuckDB's perfect hash join). A probe reads one
/// slot where a hash map reads a random bucket, and keys probed in order (ids, dates) read
/// the array in order; smaller than the map, it also stays in cache longer.
pub struct DenseHeads {
    pub min: i64,
    /// Per key from `min` on: its chain's first row, or `NULL_ROW`.
    pub heads: Vec<u32>,
}

impl DenseHeads {
    /// The first row of `key`'s chain, or `NULL_ROW`.
    pub fn get(&self, key: i64) -> u32 {
        // Below `min` the difference wraps past every slot (the span fits in an i64).
        let slot = key.wrapping_sub(self.min) as u64;
        usize::try_from(slot)
            .ok()
            .and_then(|slot| self.heads.get(slot))
            .copied()
            .unwrap_or(NULL_ROW)
    }
}

impl<K: Hash + Eq> Partitioned<K> {
    /// The maps of partitions `0..n`, in order.
    pub fn new(maps: Vec<HashTableMap<K, u32>>) -> Partitioned<K> {
        Partitioned { maps }
    }

    pub fn get<Q: Hash + Equivalent<K> + ?Sized>(&self, key: &Q) -> Option<&u32> {
        match self.maps.as_slice() {
            [only] => only.get(key),
            maps => maps[partition_of(key, maps.len())].get(key),
        }
    }

    fn len(&self) -> usize {
        self.maps.iter().map(|m| m.len()).sum()
    }

    fn keys(&self) -> impl Iterator<Item = &K> {
        self.maps.iter().flat_map(|m| m.keys())
    }
}

impl HashTable {
    fn bytes(&self) -> usize {
        self.next.len() * 4 + self.heads.bytes() + self.rows.approximate_bytes()
    }
}

/// Keyed by the build side's plan and keys; a stale entry is removed when met.
pub struct JoinCache {
    tables: RwLock<GenerationCache<Arc<HashTable>>>,
}

impl Default for JoinCache {
    fn default() -> Self {
        JoinCache {
            tables: RwLock::new(GenerationCache::new(JOIN_CACHE_BYTES)),
        }
    }
}

impl JoinCache {
    pub fn get(&self, key: &str, state: &DbState) -> Option<Arc<HashTable>> {
        let found = match self.tables.read() {
            Ok(cache) => cache.get(key, state),
            Err(poisoned) => poisoned.into_inner().get(key, state),
        };
        match found {
            Lookup::Hit(table) => return Some(table),
            Lookup::Miss => return None,
            Lookup::Stale => {}
        }
        self.write().remove(key);
        None
    }

    pub fn put(&self, key: String, table: Arc<HashTable>, tables: &[u32], state: &DbState) {
        let Some(tables) = generations(tables, state) else {
            return;
        };
        let size = table.bytes() + key.len();
        if size > JOIN_CACHE_BYTES / 4 {
            return;
        }
        self.write()
            .insert(&key, table, tables, state.catalog_version, size);
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, GenerationCache<Arc<HashTable>>> {
        match self.tables.write() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}
