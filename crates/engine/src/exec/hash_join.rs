//! Hash join on equality keys: the build side is hashed once (key bytes → chain of rows),
//! each probe batch looks its keys up. NULL keys never match, as `=` is never true on NULL.

use hashbrown::HashMap;

use super::expression::evaluate;
use super::join::JoinState;
use super::{collect, BoxedOperator, ExecContext, Operator};
use crate::error::Result;
use crate::plan::{JoinKind, ScalarExpr};
use crate::types::PhysicalType;
use crate::vector::{concat_batches, encode_row_key, split_batch, Batch, Vector, NULL_ROW};

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
    table: Option<BuildTable>,
    pending: Vec<Batch>,
    finished: bool,
}

struct BuildTable {
    rows: Batch,
    heads: HashMap<Box<[u8]>, u32>,
    next: Vec<u32>,
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
            table: None,
            pending: Vec::new(),
            finished: false,
        }
    }

    fn build_table(&mut self, ctx: &ExecContext) -> Result<BuildTable> {
        let mut build = self
            .build
            .take()
            .ok_or_else(|| crate::error::Error::internal("hash join built twice"))?;
        let batches = collect(build.as_mut(), ctx)?;
        let rows = concat_batches(&self.build_types, &batches);
        let keys = self
            .build_keys
            .iter()
            .map(|k| evaluate(k, &rows, ctx))
            .collect::<Result<Vec<_>>>()?;
        let key_refs: Vec<&Vector> = keys.iter().map(|k| k.as_ref()).collect();
        let mut heads: HashMap<Box<[u8]>, u32> = HashMap::with_capacity(rows.len());
        let mut next = vec![NULL_ROW; rows.len()];
        let mut key = Vec::new();
        for (row, next_row) in next.iter_mut().enumerate() {
            key.clear();
            if encode_row_key(&key_refs, row, &mut key) {
                continue;
            }
            match heads.get_mut(key.as_slice()) {
                Some(head) => {
                    *next_row = *head;
                    *head = row as u32;
                }
                None => {
                    heads.insert(key.as_slice().into(), row as u32);
                }
            }
        }
        let state = JoinState::new(
            self.kind,
            self.residual.clone(),
            rows.len(),
            self.build_first,
        );
        Ok(BuildTable {
            rows,
            heads,
            next,
            state,
        })
    }
}

impl Operator for HashJoinExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.table.is_none() {
            self.table = Some(self.build_table(ctx)?);
        }
        loop {
            if let Some(batch) = self.pending.pop() {
                return Ok(Some(batch));
            }
            let Some(table) = self.table.as_mut() else {
                return Ok(None);
            };
            if self.finished {
                return Ok(None);
            }
            let Some(probe) = self.probe.next(ctx)? else {
                self.finished = true;
                let empty_probe = concat_batches(&self.probe_types, &[]);
                // (For a swapped join the probe side is the right input; pair_batch orders.)
                if let Some(rest) = table.state.unmatched_build(&empty_probe, &table.rows) {
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
            let key_refs: Vec<&Vector> = keys.iter().map(|k| k.as_ref()).collect();
            let (mut probe_rows, mut build_rows) = (Vec::new(), Vec::new());
            let mut key = Vec::new();
            for row in 0..probe.len() {
                key.clear();
                if encode_row_key(&key_refs, row, &mut key) {
                    continue;
                }
                let mut candidate = table.heads.get(key.as_slice()).copied().unwrap_or(NULL_ROW);
                while candidate != NULL_ROW {
                    probe_rows.push(row as u32);
                    build_rows.push(candidate);
                    candidate = table.next[candidate as usize];
                }
            }
            let joined = table
                .state
                .emit(&probe, &table.rows, probe_rows, build_rows, ctx)?;
            if !joined.is_empty() {
                self.pending = split_batch(joined);
                self.pending.reverse();
            }
        }
    }
}
