//! The join build cache (DESIGN.md §5.3): a hash join's build-side table, kept across
//! queries while every table the build side reads keeps its generation. Keyed by the build
//! side's plan and keys, so only identical build sides share a table.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use hashbrown::HashMap as HashTableMap;

use crate::storage::DbState;
use crate::vector::{Batch, VectorData};

/// Cached build tables may use this much memory in all.
const JOIN_CACHE_BYTES: usize = 256 << 20;

/// A hashed build side: its rows, and key → first row with a chain to the next.
pub struct HashTable {
    pub rows: Batch,
    pub heads: Heads,
    pub next: Vec<u32>,
}

/// Join keys: one integer-like column hashed as its value, anything else as key bytes.
pub enum Heads {
    Int(HashTableMap<i64, u32>),
    Bytes(HashTableMap<Box<[u8]>, u32>),
}

impl Heads {
    fn bytes(&self) -> usize {
        match self {
            Heads::Int(map) => map.len() * 16,
            Heads::Bytes(map) => map.keys().map(|k| k.len() + 32).sum(),
        }
    }
}

impl HashTable {
    fn bytes(&self) -> usize {
        let mut bytes = self.next.len() * 4 + self.heads.bytes();
        for column in &self.rows.columns {
            bytes += match &column.data {
                VectorData::Text(s) => (0..s.len()).map(|i| s.get_bytes(i).len() + 4).sum(),
                VectorData::Numeric(v) => v.len() * 32,
                other => other.len() * 8,
            };
        }
        bytes
    }
}

struct Entry {
    table: Arc<HashTable>,
    tables: Vec<(u32, u64)>,
    catalog_version: u64,
    bytes: usize,
    last_used: u64,
}

#[derive(Default)]
pub struct JoinCache {
    entries: Mutex<(HashMap<String, Entry>, usize, u64)>,
}

impl JoinCache {
    pub fn get(&self, key: &str, state: &DbState) -> Option<Arc<HashTable>> {
        let mut guard = match self.entries.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        let (entries, bytes, clock) = &mut *guard;
        *clock += 1;
        let entry = entries.get_mut(key)?;
        let valid = entry.catalog_version == state.catalog_version
            && entry
                .tables
                .iter()
                .all(|(oid, g)| state.tables.get(oid).is_some_and(|t| t.generation == *g));
        if !valid {
            let freed = entry.bytes;
            entries.remove(key);
            *bytes -= freed;
            return None;
        }
        entry.last_used = *clock;
        Some(entry.table.clone())
    }

    pub fn put(&self, key: String, table: Arc<HashTable>, tables: &[u32], state: &DbState) {
        let Some(tables) = tables
            .iter()
            .map(|oid| state.tables.get(oid).map(|t| (*oid, t.generation)))
            .collect::<Option<Vec<_>>>()
        else {
            return;
        };
        let size = table.bytes() + key.len();
        if size > JOIN_CACHE_BYTES / 4 {
            return;
        }
        let mut guard = match self.entries.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        let (entries, bytes, clock) = &mut *guard;
        while *bytes + size > JOIN_CACHE_BYTES {
            let Some(oldest) = entries
                .iter()
                .min_by_key(|(_, e)| e.last_used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some(evicted) = entries.remove(&oldest) {
                *bytes -= evicted.bytes;
            }
        }
        *clock += 1;
        let entry = Entry {
            table,
            tables,
            catalog_version: state.catalog_version,
            bytes: size,
            last_used: *clock,
        };
        if let Some(old) = entries.insert(key, entry) {
            *bytes -= old.bytes;
        }
        *bytes += size;
    }
}
