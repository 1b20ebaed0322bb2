//! Hash join on equality keys: the build side is hashed once (key bytes → chain of rows),
//! each probe batch looks its keys up. NULL keys never match, as `=` is never true on NULL.

use std::sync::Arc;

use hashbrown::HashMap;

use std::borrow::Cow;

use super::join_cache::{HashTable, Heads};

use super::expression::evaluate;
use super::join::JoinState;
use super::{materialize, BoxedOperator, ExecContext, Operator};
use crate::error::Result;
use crate::plan::{JoinKind, ScalarExpr};
use crate::types::PhysicalType;
use crate::vector::{
    concat_batches, encode_row_key, split_batch, Batch, Vector, VectorData, NULL_ROW,
};

pub struct HashJoinExec {
    probe: BoxedOperator,
    build: Option<BoxedOperator>,
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
/// worker's join to need it builds it (from its own copy of the build side) while the
/// others wait for it, then all probe it read-only.
#[derive(Default)]
pub struct SharedBuild {
    table: std::sync::Mutex<Option<Arc<HashTable>>>,
    /// The build side's join cache identity, worked out once rather than per morsel.
    cache_key: std::sync::OnceLock<Option<(String, Vec<u32>)>>,
}

impl SharedBuild {
    pub fn cache_key(
        &self,
        key: impl FnOnce() -> Option<(String, Vec<u32>)>,
    ) -> Option<(String, Vec<u32>)> {
        self.cache_key.get_or_init(key).clone()
    }

    fn get_or_build(
        &self,
        build: impl FnOnce() -> Result<Arc<HashTable>>,
    ) -> Result<Arc<HashTable>> {
        let mut table = self
            .table
            .lock()
            .map_err(|_| crate::error::Error::internal("a parallel hash join build failed"))?;
        if let Some(table) = table.as_ref() {
            return Ok(table.clone());
        }
        let built = build()?;
        *table = Some(built.clone());
        Ok(built)
    }
}

impl HashJoinExec {
    pub fn new(probe: BoxedOperator, build: BoxedOperator, spec: HashJoinSpec) -> HashJoinExec {
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
            Some(shared) => shared.get_or_build(|| self.cached_or_hashed(ctx))?,
            None => self.cached_or_hashed(ctx)?,
        };
        let state = JoinState::new(
            self.kind,
            self.residual.clone(),
            hashed.rows.len(),
            self.build_first,
        );
        Ok(BuildTable { hashed, state })
    }

    /// The build side's table, from the join cache or hashed now.
    fn cached_or_hashed(&mut self, ctx: &ExecContext) -> Result<Arc<HashTable>> {
        let cached = self
            .cache
            .as_ref()
            .and_then(|(key, _)| ctx.join_cache.get(key, &ctx.state));
        let hashed = match cached {
            Some(hashed) => hashed,
            None => {
                let hashed = Arc::new(self.hash_build_side(ctx)?);
                if let Some((key, tables)) = &self.cache {
                    ctx.join_cache
                        .put(key.clone(), hashed.clone(), tables, &ctx.state);
                }
                hashed
            }
        };
        Ok(hashed)
    }

    fn hash_build_side(&mut self, ctx: &ExecContext) -> Result<HashTable> {
        let mut build = self
            .build
            .take()
            .ok_or_else(|| crate::error::Error::internal("hash join built twice"))?;
        let batches = materialize(build.as_mut(), ctx)?;
        let rows = concat_batches(&self.build_types, &batches)?;
        let keys = self
            .build_keys
            .iter()
            .map(|k| evaluate(k, &rows, ctx))
            .collect::<Result<Vec<_>>>()?;
        let mut next = vec![NULL_ROW; rows.len()];
        let chain = |head: &mut u32, row: usize, next: &mut Vec<u32>| {
            next[row] = *head;
            *head = row as u32;
        };
        let heads = match single_int_key(&keys) {
            Some((values, column)) => {
                let mut heads: HashMap<i64, u32> = HashMap::with_capacity(rows.len());
                for (row, value) in values.iter().enumerate() {
                    if !column.is_valid(row) {
                        continue;
                    }
                    match heads.get_mut(value) {
                        Some(head) => chain(head, row, &mut next),
                        None => {
                            heads.insert(*value, row as u32);
                        }
                    }
                }
                Heads::Int(heads)
            }
            None => {
                let key_refs: Vec<&Vector> = keys.iter().map(|k| k.as_ref()).collect();
                let mut heads: HashMap<Box<[u8]>, u32> = HashMap::with_capacity(rows.len());
                let mut key = Vec::new();
                for row in 0..rows.len() {
                    key.clear();
                    if encode_row_key(&key_refs, row, &mut key) {
                        continue;
                    }
                    match heads.get_mut(key.as_slice()) {
                        Some(head) => chain(head, row, &mut next),
                        None => {
                            heads.insert(key.as_slice().into(), row as u32);
                        }
                    }
                }
                Heads::Bytes(heads)
            }
        };
        Ok(HashTable { rows, heads, next })
    }
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
            let mut emit_chain = |row: usize, head: Option<&u32>| -> Result<()> {
                let mut candidate = head.copied().unwrap_or(NULL_ROW);
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
                    for (row, value) in values.iter().enumerate() {
                        if column.is_valid(row) {
                            emit_chain(row, heads.get(value))?;
                        }
                    }
                }
                (Heads::Bytes(heads), _) => {
                    let key_refs: Vec<&Vector> = keys.iter().map(|k| k.as_ref()).collect();
                    let mut key = Vec::new();
                    for row in 0..probe.len() {
                        key.clear();
                        if !encode_row_key(&key_refs, row, &mut key) {
                            emit_chain(row, heads.get(key.as_slice()))?;
                        }
                    }
                }
                (Heads::Int(_), None) => {
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
