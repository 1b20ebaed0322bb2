//! Hash join on equality keys: the build side is hashed once (key bytes → chain of rows),
//! each probe batch looks its keys up. NULL keys never match, as `=` is never true on NULL.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};

use std::borrow::Cow;
use std::hash::Hash;

use hashbrown::{Equivalent, HashMap};

use super::join_cache::{partition_of, DenseHeads, HashTable, Heads, Partitioned};
use super::parallel::{run_tasks, Help, MorselPosition, Task, TaskSet};
use super::worker_input::Work;

use super::expression::evaluate;
use super::join::JoinState;
use super::{BoxedOperator, ExecContext, Operator, WorkerInput};
use crate::error::Result;
use crate::plan::{JoinKind, ScalarExpr};
use crate::types::PhysicalType;
use crate::vector::{
    concat_batches, encode_row_key, split_batch, Batch, Vector, VectorData, NULL_ROW,
};

pub struct HashJoinExec {
    probe: BoxedOperator,
    build: Option<WorkerInput>,
    probe_keys: Vec<ScalarExpr>,
    build_keys: Vec<ScalarExpr>,
    probe_types: Vec<PhysicalType>,
    build_types: Vec<PhysicalType>,
    kind: JoinKind,
    residual: Option<ScalarExpr>,
    build_first: bool,
    cache: Option<(String, Vec<u32>)>,
    shared: Option<Arc<SharedBuild>>,
    table: Option<BuildTable>,
    pending: Vec<Batch>,
    /// Working memory charged for `pending` (a probe batch's matches, which a key shared
    /// by many rows can make huge), given back once they are handed out.
    pending_bytes: usize,
    finished: bool,
}

/// How many matched pairs are collected between two charges to working memory.
const PAIRS_PER_CHARGE: usize = 64 * 1024;

struct BuildTable {
    hashed: Arc<HashTable>,
    state: JoinState,
}

pub struct HashJoinSpec {
    pub probe_keys: Vec<ScalarExpr>,
    pub build_keys: Vec<ScalarExpr>,
    pub probe_types: Vec<PhysicalType>,
    pub build_types: Vec<PhysicalType>,
    /// Seen from the probe side (a LEFT join probing its left input; mirrored when the
    /// left input is the build side).
    pub kind: JoinKind,
    pub residual: Option<ScalarExpr>,
    /// The build side is the join's left input.
    pub build_first: bool,
    /// Where the build side may be cached: its identity and the tables it reads.
    pub cache: Option<(String, Vec<u32>)>,
    /// In a parallel pipeline: the build table every worker's copy of the join shares.
    pub shared: Option<Arc<SharedBuild>>,
}

/// A build table hashed once for all the workers of a parallel pipeline: the first
/// worker's join to need it collects the build rows (from its own copy of the build side)
/// and hashes them in partitions, which the other workers, waiting for the table, help
/// hash; then all probe it read-only.
pub struct SharedBuild {
    state: Mutex<BuildState>,
    changed: Condvar,
    /// The pipeline's workers, who share the hashing.
    workers: usize,
    /// The build side's join cache identity, worked out once rather than per morsel.
    cache_key: OnceLock<Option<(String, Vec<u32>)>>,
}

enum BuildState {
    /// No worker builds it (or the one that did failed: the next meets the error itself).
    Unclaimed,
    /// A worker builds it; its partitions, once hashing starts, are open to help with.
    Building(Option<Arc<dyn Help>>),
    Built(Arc<HashTable>),
}

impl SharedBuild {
    pub fn new(workers: usize) -> SharedBuild {
        SharedBuild {
            state: Mutex::new(BuildState::Unclaimed),
            changed: Condvar::new(),
            workers,
            cache_key: OnceLock::new(),
        }
    }

    pub fn cache_key(
        &self,
        key: impl FnOnce() -> Option<(String, Vec<u32>)>,
    ) -> Option<(String, Vec<u32>)> {
        self.cache_key.get_or_init(key).clone()
    }

    /// The state, locked (only ever for a moment, never while building or hashing).
    fn state(&self) -> MutexGuard<'_, BuildState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The table: built by this worker with `build` if no other builds it, else waited
    /// for, helping to hash it.
    fn get_or_build(
        &self,
        build: impl FnOnce(&Hashers<'_>) -> Result<Arc<HashTable>>,
    ) -> Result<Arc<HashTable>> {
        let mut helped = false;
        let mut state = self.state();
        loop {
            match &*state {
                BuildState::Built(table) => return Ok(table.clone()),
                BuildState::Unclaimed => break,
                BuildState::Building(Some(partitions)) if !helped => {
                    let partitions = partitions.clone();
                    drop(state);
                    partitions.help();
                    helped = true;
                    state = self.state();
                }
                BuildState::Building(_) => {
                    state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
                }
            }
        }
        *state = BuildState::Building(None);
        drop(state);
        let built = build(&Hashers::Pipeline(self));
        *self.state() = match &built {
            Ok(table) => BuildState::Built(table.clone()),
            Err(_) => BuildState::Unclaimed,
        };
        self.changed.notify_all();
        built
    }

    /// Opens the partitions being hashed to the waiting workers.
    fn publish(&self, partitions: Arc<dyn Help>) {
        *self.state() = BuildState::Building(Some(partitions));
        self.changed.notify_all();
    }
}

/// Who hashes the partitions of a build table.
enum Hashers<'a> {
    /// Up to this many workers of the pool (one: the calling thread, a single partition).
    Pool(usize),
    /// The workers of a pipeline, waiting for the table.
    Pipeline(&'a SharedBuild),
}

impl Hashers<'_> {
    fn workers(&self) -> usize {
        match self {
            Hashers::Pool(workers) => *workers,
            Hashers::Pipeline(shared) => shared.workers,
        }
    }

    fn run<T: Send + 'static>(&self, tasks: usize, task: Arc<Task<T>>) -> Result<Vec<T>> {
        match self {
            Hashers::Pool(workers) => run_tasks(*workers, tasks, task),
            Hashers::Pipeline(shared) => {
                let partitions = TaskSet::new(tasks, task);
                shared.publish(partitions.clone());
                partitions.join()
            }
        }
    }
}

impl HashJoinExec {
    pub fn new(probe: BoxedOperator, build: WorkerInput, spec: HashJoinSpec) -> HashJoinExec {
        HashJoinExec {
            probe,
            build: Some(build),
            probe_keys: spec.probe_keys,
            build_keys: spec.build_keys,
            probe_types: spec.probe_types,
            build_types: spec.build_types,
            kind: spec.kind,
            residual: spec.residual,
            build_first: spec.build_first,
            cache: spec.cache,
            shared: spec.shared,
            table: None,
            pending: Vec::new(),
            pending_bytes: 0,
            finished: false,
        }
    }

    fn build_table(&mut self, ctx: &ExecContext) -> Result<BuildTable> {
        let hashed = match self.shared.clone() {
            Some(shared) => {
                shared.get_or_build(|hashers| self.cached_or_hashed(ctx, Some(hashers)))?
            }
            None => self.cached_or_hashed(ctx, None)?,
        };
        let state = JoinState::new(
            self.kind,
            self.residual.clone(),
            hashed.rows.len(),
            self.build_first,
        );
        Ok(BuildTable { hashed, state })
    }

    /// The build side's table, from the join cache or hashed now (by `hashers`, or by
    /// the workers that collected the build rows).
    fn cached_or_hashed(
        &mut self,
        ctx: &ExecContext,
        hashers: Option<&Hashers<'_>>,
    ) -> Result<Arc<HashTable>> {
        let cached = self
            .cache
            .as_ref()
            .and_then(|(key, _)| ctx.join_cache.get(key, &ctx.state));
        let hashed = match cached {
            Some(hashed) => hashed,
            None => {
                let hashed = Arc::new(self.hash_build_side(ctx, hashers)?);
                if let Some((key, tables)) = &self.cache {
                    ctx.join_cache
                        .put(key.clone(), hashed.clone(), tables, &ctx.state);
                }
                hashed
            }
        };
        Ok(hashed)
    }

    fn hash_build_side(
        &mut self,
        ctx: &ExecContext,
        hashers: Option<&Hashers<'_>>,
    ) -> Result<HashTable> {
        let mut build = self
            .build
            .take()
            .ok_or_else(|| crate::error::Error::internal("hash join built twice"))?;
        // Each worker keeps its share of the rows; put together in serial order, they are
        // the rows a serial build hashes, so the chains and the join's output are the same.
        let collect: Arc<Work<Vec<(MorselPosition, Batch)>>> = Arc::new(|source, ctx| {
            let mut batches = Vec::new();
            while let Some((position, batch)) = source()? {
                ctx.check_cancelled()?;
                ctx.memory.charge(batch.approximate_bytes())?;
                batches.push((position, batch));
            }
            Ok(batches)
        });
        let shares = build.run(ctx, collect)?;
        let workers = shares.len();
        let mut batches: Vec<(MorselPosition, Batch)> = shares.into_iter().flatten().collect();
        batches.sort_by_key(|(position, _)| *position);
        let batches: Vec<Batch> = batches.into_iter().map(|(_, b)| b).collect();
        let rows = concat_batches(&self.build_types, &batches)?;
        let keys = self
            .build_keys
            .iter()
            .map(|k| evaluate(k, &rows, ctx))
            .collect::<Result<Vec<_>>>()?;
        let (heads, next) = match hashers {
            Some(hashers) => build_heads(keys, rows.len(), hashers)?,
            None => build_heads(keys, rows.len(), &Hashers::Pool(workers))?,
        };
        Ok(HashTable { rows, heads, next })
    }
}

/// A single integer-like key of every build row (NULL rows hold 0).
struct IntKeys {
    values: Vec<i64>,
    column: Arc<Vector>,
}

/// The encoded keys of every build row, back to back; a row with a NULL key has none.
struct EncodedKeys {
    bytes: Vec<u8>,
    /// Where each row's key starts in `bytes` and ends, or None.
    spans: Vec<Option<(usize, usize)>>,
}

impl IntKeys {
    fn key(&self, row: u32) -> Option<&i64> {
        let row = row as usize;
        self.column.is_valid(row).then(|| &self.values[row])
    }
}

impl EncodedKeys {
    fn key(&self, row: u32) -> Option<&[u8]> {
        self.spans[row as usize].map(|(start, end)| &self.bytes[start..end])
    }
}

/// The key → first row maps and the chains of rows with equal keys (`next`: each row's
/// previous row with its key, so chains run from the last row to the first as one serial
/// pass makes them), in partitions built by `hashers` (a single map when one worker), or
/// in one array when the keys are dense integers.
fn build_heads(
    keys: Vec<Arc<Vector>>,
    rows: usize,
    hashers: &Hashers<'_>,
) -> Result<(Heads, Vec<u32>)> {
    let mut next = vec![NULL_ROW; rows];
    let heads = match single_int_key(&keys) {
        Some((values, _)) => {
            let keys = IntKeys {
                values: values.into_owned(),
                column: keys[0].clone(),
            };
            match dense_heads(&keys, &mut next) {
                Some(dense) => Heads::Dense(dense),
                None => Heads::Int(Partitioned::new(partition_maps(
                    keys,
                    IntKeys::key,
                    |v| *v,
                    hashers,
                    &mut next,
                )?)),
            }
        }
        None => {
            let key_refs: Vec<&Vector> = keys.iter().map(|k| k.as_ref()).collect();
            let mut encoded = EncodedKeys {
                bytes: Vec::new(),
                spans: Vec::with_capacity(rows),
            };
            let mut key = Vec::new();
            for row in 0..rows {
                key.clear();
                let null = encode_row_key(&key_refs, row, &mut key);
                let start = encoded.bytes.len();
                encoded.bytes.extend_from_slice(&key);
                encoded
                    .spans
                    .push((!null).then_some((start, encoded.bytes.len())));
            }
            Heads::Bytes(Partitioned::new(partition_maps(
                encoded,
                EncodedKeys::key,
                |b: &[u8]| b.into(),
                hashers,
                &mut next,
            )?))
        }
    };
    Ok((heads, next))
}

/// A dense array of heads takes at most this many slots per build row: then it is no larger
/// than a hash map of the keys (16 bytes an entry, 4 a slot), and one pass over the rows,
/// without hashing or partitioning, builds it faster than workers build the map.
const DENSE_SLOTS_PER_ROW: usize = 4;

/// The heads of `keys` in one array, chaining `next` as a serial pass does, when the
/// keys' values span at most `DENSE_SLOTS_PER_ROW` slots per row (None: they do not, or
/// every key is NULL, and `next` is untouched).
fn dense_heads(keys: &IntKeys, next: &mut [u32]) -> Option<DenseHeads> {
    let rows = next.len() as u32;
    let valid = || (0..rows).filter_map(|row| Some((row, *keys.key(row)?)));
    let (min, max) = valid().fold(None, |range, (_, v)| match range {
        None => Some((v, v)),
        Some((min, max)) => Some((v.min(min), v.max(max))),
    })?;
    let span = usize::try_from(i128::from(max) - i128::from(min) + 1).ok()?;
    if span > DENSE_SLOTS_PER_ROW.saturating_mul(next.len()) {
        return None;
    }
    let mut heads = vec![NULL_ROW; span];
    for (row, value) in valid() {
        // In 0..span: min <= value <= max.
        let slot = &mut heads[value.wrapping_sub(min) as u64 as usize];
        next[row as usize] = *slot;
        *slot = row;
    }
    Some(DenseHeads { min, heads })
}

/// A partition's map, and each of its rows with the previous row of its key.
type Partition<K> = (HashMap<K, u32>, Vec<(u32, u32)>);

/// The maps of the partitions of the rows' keys (`key` of a row in `keys`; None never
/// matches), chaining each row to the previous row with its key in `next`.
fn partition_maps<S, Q, K>(
    keys: S,
    key: fn(&S, u32) -> Option<&Q>,
    owned: fn(&Q) -> K,
    hashers: &Hashers<'_>,
    next: &mut [u32],
) -> Result<Vec<HashMap<K, u32>>>
where
    S: Send + Sync + 'static,
    Q: Hash + Equivalent<K> + ?Sized + 'static,
    K: Hash + Eq + Send + 'static,
{
    let rows = next.len() as u32;
    let workers = hashers.workers();
    if workers <= 1 {
        let all = (0..rows).filter_map(|r| Some((r, key(&keys, r)?)));
        let map = chain_rows(all, rows as usize, owned, |row, previous| {
            next[row as usize] = previous
        });
        return Ok(vec![map]);
    }
    // Twice as many partitions as workers, so an uneven one is not the last to finish.
    let partitions = 2 * workers;
    let mut by_partition: Vec<Vec<u32>> = vec![Vec::new(); partitions];
    for row in 0..rows {
        if let Some(k) = key(&keys, row) {
            by_partition[partition_of(k, partitions)].push(row);
        }
    }
    let shared = Arc::new((keys, by_partition));
    let task: Arc<Task<Partition<K>>> = Arc::new(move |partition| {
        let (keys, by_partition) = &*shared;
        let rows = &by_partition[partition];
        let mine = rows.iter().filter_map(|&r| Some((r, key(keys, r)?)));
        let mut links = Vec::new();
        let map = chain_rows(mine, rows.len(), owned, |row, previous| {
            links.push((row, previous))
        });
        Ok((map, links))
    });
    let mut maps = Vec::with_capacity(partitions);
    for (map, links) in hashers.run(partitions, task)? {
        for (row, previous) in links {
            next[row as usize] = previous;
        }
        maps.push(map);
    }
    Ok(maps)
}

/// Key → last row with it over `rows` (ascending), calling `link(row, previous)` for each
/// row whose key an earlier row had.
fn chain_rows<'a, Q, K>(
    rows: impl Iterator<Item = (u32, &'a Q)>,
    capacity: usize,
    owned: fn(&Q) -> K,
    mut link: impl FnMut(u32, u32),
) -> HashMap<K, u32>
where
    Q: Hash + Equivalent<K> + ?Sized + 'a,
    K: Hash + Eq,
{
    let mut heads: HashMap<K, u32> = HashMap::with_capacity(capacity);
    for (row, key) in rows {
        match heads.get_mut(key) {
            Some(head) => {
                link(row, *head);
                *head = row;
            }
            None => {
                heads.insert(owned(key), row);
            }
        }
    }
    heads
}

/// A single join key of an integer-like type, as i64 values (NULL rows hold 0).
fn single_int_key(keys: &[Arc<Vector>]) -> Option<(Cow<'_, [i64]>, &Vector)> {
    let [column] = keys else { return None };
    let values: Cow<'_, [i64]> = match &column.data {
        VectorData::Int64(v) | VectorData::Timestamp(v) => Cow::Borrowed(v),
        VectorData::Int32(v) | VectorData::Date(v) => {
            Cow::Owned(v.iter().map(|&x| x as i64).collect())
        }
        VectorData::Int16(v) => Cow::Owned(v.iter().map(|&x| x as i64).collect()),
        _ => return None,
    };
    Some((values, column))
}

/// Each non-NULL probe key's chain head (`head`, `NULL_ROW` for none), emitted by row.
fn probe_int_keys(
    values: &[i64],
    column: &Vector,
    head: impl Fn(&i64) -> u32,
    emit_chain: &mut impl FnMut(usize, u32) -> Result<()>,
) -> Result<()> {
    for (row, value) in values.iter().enumerate() {
        if column.is_valid(row) {
            emit_chain(row, head(value))?;
        }
    }
    Ok(())
}

impl Operator for HashJoinExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.table.is_none() {
            self.table = Some(self.build_table(ctx)?);
        }
        loop {
            // A probe batch may match many build rows: its output comes out a batch at a time.
            ctx.check_cancelled()?;
            if let Some(batch) = self.pending.pop() {
                return Ok(Some(batch));
            }
            ctx.memory.release(std::mem::take(&mut self.pending_bytes));
            let Some(table) = self.table.as_mut() else {
                return Ok(None);
            };
            if self.finished {
                return Ok(None);
            }
            let Some(probe) = self.probe.next(ctx)? else {
                self.finished = true;
                let empty_probe = concat_batches(&self.probe_types, &[])?;
                // (For a swapped join the probe side is the right input; pair_batch orders.)
                if let Some(rest) = table
                    .state
                    .unmatched_build(&empty_probe, &table.hashed.rows)
                {
                    self.pending = split_batch(rest);
                    self.pending.reverse();
                }
                continue;
            };
            let keys = self
                .probe_keys
                .iter()
                .map(|k| evaluate(k, &probe, ctx))
                .collect::<Result<Vec<_>>>()?;
            let (mut probe_rows, mut build_rows) = (Vec::new(), Vec::new());
            let hashed = &table.hashed;
            let pending_bytes = &mut self.pending_bytes;
            let mut emit_chain = |row: usize, head: u32| -> Result<()> {
                let mut candidate = head;
                while candidate != NULL_ROW {
                    probe_rows.push(row as u32);
                    build_rows.push(candidate);
                    candidate = hashed.next[candidate as usize];
                    if probe_rows.len() % PAIRS_PER_CHARGE == 0 {
                        let bytes = PAIRS_PER_CHARGE * 2 * std::mem::size_of::<u32>();
                        ctx.memory.charge(bytes)?;
                        *pending_bytes += bytes;
                    }
                }
                Ok(())
            };
            match (&hashed.heads, single_int_key(&keys)) {
                (Heads::Int(heads), Some((values, column))) => {
                    let head = |v: &i64| heads.get(v).copied().unwrap_or(NULL_ROW);
                    probe_int_keys(&values, column, head, &mut emit_chain)?;
                }
                (Heads::Dense(heads), Some((values, column))) => {
                    let head = |v: &i64| heads.get(*v);
                    probe_int_keys(&values, column, head, &mut emit_chain)?;
                }
                (Heads::Bytes(heads), _) => {
                    let key_refs: Vec<&Vector> = keys.iter().map(|k| k.as_ref()).collect();
                    let mut key = Vec::new();
                    for row in 0..probe.len() {
                        key.clear();
                        if !encode_row_key(&key_refs, row, &mut key) {
                            let head = heads.get(key.as_slice()).copied();
                            emit_chain(row, head.unwrap_or(NULL_ROW))?;
                        }
                    }
                }
                (Heads::Int(_) | Heads::Dense(_), None) => {
                    return Err(crate::error::Error::internal(
                        "join key types differ between the sides",
                    ))
                }
            }
            let joined =
                table
                    .state
                    .emit(&probe, &table.hashed.rows, probe_rows, build_rows, ctx)?;
            if !joined.is_empty() {
                let bytes = joined.approximate_bytes();
                ctx.memory.charge(bytes)?;
                self.pending_bytes += bytes;
                self.pending = split_batch(joined);
                self.pending.reverse();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ScalarValue;

    fn column(values: impl Iterator<Item = Option<i64>>) -> Arc<Vector> {
        let mut column = Vector::with_capacity(PhysicalType::Int64, 0);
        for value in values {
            match value {
                Some(v) => column
                    .push_scalar(&ScalarValue::Int64(v))
                    .expect("an int8 column takes int8"),
                None => column.push_null(),
            }
        }
        Arc::new(column)
    }

    /// Every key's chain of rows, following `next` from its head.
    fn chains(heads: &Heads, next: &[u32], probes: &[Vec<Arc<Vector>>]) -> Vec<Vec<u32>> {
        let mut all = Vec::new();
        for keys in probes {
            let head = match (heads, single_int_key(keys)) {
                (Heads::Int(map), Some((values, _))) => map.get(&values[0]).copied(),
                (Heads::Dense(dense), Some((values, _))) => Some(dense.get(values[0])),
                (Heads::Bytes(map), _) => {
                    let refs: Vec<&Vector> = keys.iter().map(|k| k.as_ref()).collect();
                    let mut key = Vec::new();
                    encode_row_key(&refs, 0, &mut key);
                    map.get(key.as_slice()).copied()
                }
                (Heads::Int(_) | Heads::Dense(_), None) => {
                    unreachable!("probe keys match the build keys")
                }
            };
            let mut chain = Vec::new();
            let mut row = head.unwrap_or(NULL_ROW);
            while row != NULL_ROW {
                chain.push(row);
                row = next[row as usize];
            }
            all.push(chain);
        }
        all
    }

    /// Built in partitions by several workers, or in a dense array, the table holds the
    /// chains one serial pass makes, for an integer key (dense and sparse) and for a
    /// two-column (encoded) key with NULLs.
    #[test]
    fn partitioned_build_equals_the_serial_one() {
        let rows = 5000;
        let key = |r: usize| (!r.is_multiple_of(7)).then_some((r * 31 % 97) as i64 - 48);
        // Keys -48..=48 (a dense array), or spread over far more than 4 slots a row: the
        // same rows match, so the chains are the same.
        for columns in [1, 2] {
            let chains_at = |scale: i64| {
                let mut build = vec![column((0..rows).map(|r| key(r).map(|k| k * scale)))];
                if columns == 2 {
                    build.push(column((0..rows).map(|r| Some((r % 3) as i64))));
                }
                partitioned_build_chains(build, rows, scale)
            };
            assert_eq!(chains_at(1), chains_at(1_000_003), "{columns} key columns");
        }
    }

    /// The chains of probes below, inside and above the keys' range, checking that every
    /// number of workers builds what one does.
    fn partitioned_build_chains(build: Vec<Arc<Vector>>, rows: usize, scale: i64) -> Vec<Vec<u32>> {
        let probes: Vec<Vec<Arc<Vector>>> = (-60..60)
            .map(|v: i64| {
                let first = column(std::iter::once(Some(v * scale)));
                let second = column(std::iter::once(Some(v.rem_euclid(3))));
                [first, second].into_iter().take(build.len()).collect()
            })
            .collect();
        let (heads, next) =
            build_heads(build.clone(), rows, &Hashers::Pool(1)).expect("serial build");
        let dense = matches!(heads, Heads::Dense(_));
        assert_eq!(dense, build.len() == 1 && scale == 1);
        let serial = chains(&heads, &next, &probes);
        assert!(serial.iter().any(|c| c.len() > 10));
        for workers in [2, 3, 8] {
            let (heads, next) =
                build_heads(build.clone(), rows, &Hashers::Pool(workers)).expect("parallel build");
            assert_eq!(chains(&heads, &next, &probes), serial, "{workers} workers");
        }
        serial
    }

    /// The workers of a pipeline asking for a shared build at once get one table, built
    /// once and hashed by all of them: the one a serial build makes.
    #[test]
    fn a_shared_build_is_hashed_once_with_the_waiting_workers() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let rows = 20_000;
        // Sparse keys, hashed in partitions (dense ones are not hashed).
        let build = vec![column(
            (0..rows).map(|r| Some((r % 997) as i64 * 1_000_003)),
        )];
        let shared = Arc::new(SharedBuild::new(4));
        let builds = Arc::new(AtomicUsize::new(0));
        let workers: Vec<_> = (0..4)
            .map(|_| {
                let (shared, build, builds) = (shared.clone(), build.clone(), builds.clone());
                std::thread::spawn(move || {
                    shared.get_or_build(|hashers| {
                        builds.fetch_add(1, Ordering::Relaxed);
                        let (heads, next) = build_heads(build.clone(), rows, hashers)?;
                        let rows = Batch::new(build, rows);
                        Ok(Arc::new(HashTable { rows, heads, next }))
                    })
                })
            })
            .collect();
        let tables: Vec<Arc<HashTable>> = workers
            .into_iter()
            .map(|w| {
                w.join()
                    .expect("a worker ends")
                    .expect("the build succeeds")
            })
            .collect();
        assert_eq!(builds.load(Ordering::Relaxed), 1);
        assert!(tables.iter().all(|t| Arc::ptr_eq(t, &tables[0])));
        let (heads, next) = build_heads(build, rows, &Hashers::Pool(1)).expect("serial build");
        let probes: Vec<Vec<Arc<Vector>>> = (0..50)
            .map(|v| vec![column(std::iter::once(Some(v * 1_000_003)))])
            .collect();
        assert!(matches!(tables[0].heads, Heads::Int(_)));
        assert_eq!(tables[0].next, next);
        assert_eq!(
            chains(&tables[0].heads, &tables[0].next, &probes),
            chains(&heads, &next, &probes)
        );
    }
}
