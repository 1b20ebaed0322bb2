//! The plan cache and the result cache, shared by a database's sessions (DESIGN.md §5).
//!
//! Both are exact. A cached plan is used while the catalog version it was bound against is
//! the current one. A cached result is served while every table it read still has the
//! generation it had when the result was computed; results of plans with volatile functions
//! or sequences are never stored. Memory is bounded, least recently used first out.

use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::StatementResult;
use crate::catalog::SearchPath;
use crate::exec::JoinCache;
use crate::plan::BoundStatement;
use crate::storage::{generations, DbState, GenerationCache, Lookup};
use crate::types::{DataType, ScalarValue};
use crate::vector::Batch;

/// Results computed from fewer rows than this (a point lookup, a small table) are cheaper
/// to compute again than to keep: they are not stored.
const RESULT_MIN_ROWS_READ: u64 = 1024;
/// Cached results may use this much memory in all.
const RESULT_CACHE_BYTES: usize = 256 << 20;
/// One result larger than this is not cached.
const RESULT_MAX_BYTES: usize = 32 << 20;
/// At most this many cached plans (a point query's is about a kilobyte). Simple-protocol
/// clients send their values as literals, so every value is a text of its own: 4,096 plans
/// were cleared before 8 clients updating and reading 5,000 rows by key came round again.
const PLAN_CACHE_ENTRIES: usize = 16384;
/// At most this many statements remembered as bound once (8 bytes each).
const BOUND_ONCE_ENTRIES: usize = 4 * PLAN_CACHE_ENTRIES;

pub struct QueryCache {
    results: RwLock<GenerationCache<StatementResult>>,
    plans: RwLock<PlanCache>,
    /// Hashes of the statements bound once since the last reset. A plan is stored the
    /// second time its statement is bound: a stream of one-off texts (single-row INSERTs
    /// with literal values) would otherwise copy every plan into the cache only for it to
    /// be evicted unused.
    bound_once: Mutex<HashSet<u64, foldhash::fast::RandomState>>,
    /// Hash join build sides (exec::JoinCache), shared the same way.
    pub joins: Arc<JoinCache>,
}

impl Default for QueryCache {
    fn default() -> Self {
        QueryCache {
            results: RwLock::new(GenerationCache::new(RESULT_CACHE_BYTES)),
            plans: RwLock::default(),
            bound_once: Mutex::default(),
            joins: Arc::default(),
        }
    }
}

/// Keyed by statement text, hashed on every statement: foldhash, not SipHash.
type TextMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Plans by statement text, then by parameter types (one entry for almost every text): a
/// lookup hashes the borrowed text and allocates nothing.
#[derive(Default)]
struct PlanCache {
    entries: TextMap<String, Vec<CachedPlan>>,
    len: usize,
}

struct CachedPlan {
    param_types: Vec<DataType>,
    /// The path unqualified names were resolved along: a plan is never used under another.
    search_path: SearchPath,
    /// The date/time settings literals were read with: never used under others.
    datetime: String,
    plan: BoundStatement,
    catalog_version: u64,
}

impl CachedPlan {
    fn matches(&self, key: &CacheKey<'_>, param_types: &[DataType]) -> bool {
        self.param_types == param_types
            && self.search_path == *key.search_path
            && self.datetime == key.datetime
    }
}

fn read<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    match lock.read() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

fn write<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    match lock.write() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// What names a statement in the caches: its text, the search path its names resolve
/// along and, once bound, its parameter values.
#[derive(Clone, Copy)]
pub struct CacheKey<'a> {
    pub sql: &'a str,
    pub params: &'a [ScalarValue],
    pub search_path: &'a SearchPath,
    /// The session's TimeZone, DateStyle and IntervalStyle: they change how date/time
    /// literals are read (so the plan) and how results are shown.
    pub datetime: &'a str,
}

impl CacheKey<'_> {
    /// The result cache key, built only for statements that may have a cached result: on
    /// the path of a cached answer, so one allocation and no formatting unless there are
    /// parameters.
    pub fn result_key(&self) -> String {
        let [setting, user, temp_schema] = self.search_path.cache_tag();
        let mut key = String::with_capacity(
            self.sql.len()
                + setting.len()
                + user.len()
                + temp_schema.len()
                + self.datetime.len()
                + 4,
        );
        for part in [
            self.sql,
            "\u{0}",
            setting,
            "\u{0}",
            user,
            "\u{0}",
            temp_schema,
            "\u{0}",
            self.datetime,
        ] {
            key.push_str(part);
        }
        if !self.params.is_empty() {
            use std::fmt::Write;
            let _ = write!(key, "\u{0}{:?}", self.params);
        }
        key
    }
}

impl QueryCache {
    /// A stored result still valid against `state`.
    pub fn result(&self, key: &str, state: &DbState) -> Option<StatementResult> {
        match read(&self.results).get(key, state) {
            Lookup::Hit(result) => return Some(result),
            Lookup::Miss => return None,
            Lookup::Stale => {}
        }
        write(&self.results).remove(key);
        None
    }

    /// Stores a result computed from `state` by a deterministic plan reading `tables`, with
    /// a slot for its encoded rows shared by every later hit; returns the result as stored
    /// (`result` itself when it is not kept). A result computed from fewer than
    /// [`RESULT_MIN_ROWS_READ`] rows is not kept: computing it again costs no more than a
    /// lookup, and keeping each would fill the cache with one-row answers.
    pub fn store_result(
        &self,
        key: String,
        mut result: StatementResult,
        rows_read: u64,
        tables: &[u32],
        state: &DbState,
    ) -> StatementResult {
        if rows_read < RESULT_MIN_ROWS_READ {
            return result;
        }
        let Some(tables) = generations(tables, state) else {
            return result;
        };
        // The encoded rows a front end may add take about as much again.
        let bytes = 2 * approximate_bytes(&result) + key.len();
        if bytes > RESULT_MAX_BYTES {
            return result;
        }
        result.encoded = Some(Arc::default());
        write(&self.results).insert(&key, result.clone(), tables, state.catalog_version, bytes);
        result
    }

    /// A plan bound for `key` with `param_types` against the catalog version `version`.
    pub fn plan(
        &self,
        key: &CacheKey<'_>,
        param_types: &[DataType],
        version: u64,
    ) -> Option<BoundStatement> {
        let cache = read(&self.plans);
        let cached = cache
            .entries
            .get(key.sql)?
            .iter()
            .find(|c| c.matches(key, param_types))?;
        (cached.catalog_version == version).then(|| cached.plan.clone())
    }

    /// Caches the plan of a statement bound for the second time (see `bound_once`).
    pub fn store_plan(
        &self,
        key: &CacheKey<'_>,
        param_types: &[DataType],
        plan: &BoundStatement,
        version: u64,
    ) {
        let sql = key.sql;
        if !self.bound_before(sql, param_types) {
            return;
        }
        let mut cache = write(&self.plans);
        if cache.len >= PLAN_CACHE_ENTRIES {
            for plans in cache.entries.values_mut() {
                plans.retain(|c| c.catalog_version == version);
            }
            cache.entries.retain(|_, plans| !plans.is_empty());
            cache.len = cache.entries.values().map(Vec::len).sum();
            if cache.len >= PLAN_CACHE_ENTRIES {
                cache.entries.clear();
                cache.len = 0;
            }
        }
        let cached = CachedPlan {
            param_types: param_types.to_vec(),
            search_path: key.search_path.clone(),
            datetime: key.datetime.to_string(),
            plan: plan.clone(),
            catalog_version: version,
        };
        let plans = cache.entries.entry(sql.to_string()).or_default();
        match plans.iter_mut().find(|c| c.matches(key, param_types)) {
            Some(slot) => *slot = cached,
            None => {
                plans.push(cached);
                cache.len += 1;
            }
        }
    }

    /// Whether `sql` with `param_types` was bound before (remembering it if not).
    fn bound_before(&self, sql: &str, param_types: &[DataType]) -> bool {
        let hash = foldhash::fast::FixedState::default().hash_one((sql, param_types));
        let mut once = match self.bound_once.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        if once.remove(&hash) {
            return true;
        }
        if once.len() >= BOUND_ONCE_ENTRIES {
            once.clear();
        }
        once.insert(hash);
        false
    }
}

fn approximate_bytes(result: &StatementResult) -> usize {
    result
        .batches
        .iter()
        .map(Batch::approximate_bytes)
        .sum::<usize>()
        + 64
}
