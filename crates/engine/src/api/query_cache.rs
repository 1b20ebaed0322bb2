//! The plan cache and the result cache, shared by a database's sessions (DESIGN.md §5).
//!
//! Both are exact. A cached plan is used while the catalog version it was bound against is
//! the current one. A cached result is served while every table it read still has the
//! generation it had when the result was computed; results of plans with volatile functions
//! or sequences are never stored. Memory is bounded, least recently used first out.

use std::collections::HashMap;
use std::sync::Mutex;

use super::StatementResult;
use crate::plan::BoundStatement;
use crate::storage::DbState;
use crate::types::{DataType, ScalarValue};
use crate::vector::VectorData;

/// Cached results may use this much memory in all.
const RESULT_CACHE_BYTES: usize = 256 << 20;
/// One result larger than this is not cached.
const RESULT_MAX_BYTES: usize = 32 << 20;
/// At most this many cached plans.
const PLAN_CACHE_ENTRIES: usize = 4096;

#[derive(Default)]
pub struct QueryCache {
    results: Mutex<ResultCache>,
    plans: Mutex<PlanCache>,
}

#[derive(Default)]
struct ResultCache {
    entries: HashMap<String, ResultEntry>,
    bytes: usize,
    clock: u64,
}

struct ResultEntry {
    result: StatementResult,
    /// (table OID, generation) of every table read.
    tables: Vec<(u32, u64)>,
    catalog_version: u64,
    bytes: usize,
    last_used: u64,
}

#[derive(Default)]
struct PlanCache {
    entries: HashMap<(String, Vec<DataType>), (BoundStatement, u64)>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// The result cache key of a statement text with its parameter values.
pub fn result_key(sql: &str, params: &[ScalarValue]) -> String {
    if params.is_empty() {
        return sql.to_string();
    }
    format!("{sql}\u{0}{params:?}")
}

impl QueryCache {
    /// A stored result still valid against `state`.
    pub fn result(&self, key: &str, state: &DbState) -> Option<StatementResult> {
        let mut cache = lock(&self.results);
        cache.clock += 1;
        let clock = cache.clock;
        let entry = cache.entries.get_mut(key)?;
        let valid = entry.catalog_version == state.catalog_version
            && entry.tables.iter().all(|(oid, generation)| {
                state
                    .tables
                    .get(oid)
                    .is_some_and(|t| t.generation == *generation)
            });
        if !valid {
            let bytes = entry.bytes;
            cache.entries.remove(key);
            cache.bytes -= bytes;
            return None;
        }
        entry.last_used = clock;
        Some(entry.result.clone())
    }

    /// Stores a result computed from `state` by a deterministic plan reading `tables`.
    pub fn store_result(
        &self,
        key: String,
        result: &StatementResult,
        tables: &[u32],
        state: &DbState,
    ) {
        let Some(tables) = tables
            .iter()
            .map(|oid| state.tables.get(oid).map(|t| (*oid, t.generation)))
            .collect::<Option<Vec<_>>>()
        else {
            return;
        };
        let bytes = approximate_bytes(result) + key.len();
        if bytes > RESULT_MAX_BYTES {
            return;
        }
        let mut cache = lock(&self.results);
        while cache.bytes + bytes > RESULT_CACHE_BYTES {
            let Some(oldest) = cache
                .entries
                .iter()
                .min_by_key(|(_, e)| e.last_used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some(evicted) = cache.entries.remove(&oldest) {
                cache.bytes -= evicted.bytes;
            }
        }
        cache.clock += 1;
        let entry = ResultEntry {
            result: result.clone(),
            tables,
            catalog_version: state.catalog_version,
            bytes,
            last_used: cache.clock,
        };
        if let Some(old) = cache.entries.insert(key, entry) {
            cache.bytes -= old.bytes;
        }
        cache.bytes += bytes;
    }

    /// A plan bound for `sql` with `param_types` against the catalog version `version`.
    pub fn plan(
        &self,
        sql: &str,
        param_types: &[DataType],
        version: u64,
    ) -> Option<BoundStatement> {
        let cache = lock(&self.plans);
        let (plan, bound_version) = cache
            .entries
            .get(&(sql.to_string(), param_types.to_vec()))?;
        (*bound_version == version).then(|| plan.clone())
    }

    pub fn store_plan(
        &self,
        sql: &str,
        param_types: &[DataType],
        plan: &BoundStatement,
        version: u64,
    ) {
        let mut cache = lock(&self.plans);
        if cache.entries.len() >= PLAN_CACHE_ENTRIES {
            cache.entries.retain(|_, (_, v)| *v == version);
            if cache.entries.len() >= PLAN_CACHE_ENTRIES {
                cache.entries.clear();
            }
        }
        cache.entries.insert(
            (sql.to_string(), param_types.to_vec()),
            (plan.clone(), version),
        );
    }
}

fn approximate_bytes(result: &StatementResult) -> usize {
    let mut bytes = 0;
    for batch in &result.batches {
        for column in &batch.columns {
            bytes += match &column.data {
                VectorData::Text(s) => (0..s.len()).map(|i| s.get_bytes(i).len() + 4).sum(),
                VectorData::Numeric(v) => v.len() * 32,
                other => other.len() * 8,
            };
        }
    }
    bytes + 64
}
