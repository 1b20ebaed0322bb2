//! Nested-loop join, for conditions without an equality key (and CROSS JOIN): every probe
//! row is paired with every build row and the condition filters the pairs, a probe row at a
//! time so the pairs of one row form one vectorized batch.

use super::join::JoinState;
use super::{materialize, BoxedOperator, ExecContext, Operator};
use crate::error::{Error, Result};
use crate::plan::{JoinKind, ScalarExpr};
use crate::types::PhysicalType;
use crate::vector::{concat_batches, split_batch, Batch, BATCH_SIZE};

pub struct NestedLoopJoinExec {
    probe: BoxedOperator,
    build: Option<BoxedOperator>,
    probe_types: Vec<PhysicalType>,
    build_types: Vec<PhysicalType>,
    kind: JoinKind,
    condition: Option<ScalarExpr>,
    built: Option<(Batch, JoinState)>,
    /// The probe batch being paired, and its next row: one block of pairs per call, so a
    /// cross join's output is never held whole (a probe batch of 2,048 rows against 100,000
    /// build rows would be 200 million pairs).
    probing: Option<(Batch, usize)>,
    pending: Vec<Batch>,
    finished: bool,
}

impl NestedLoopJoinExec {
    pub fn new(
        probe: BoxedOperator,
        build: BoxedOperator,
        types: (Vec<PhysicalType>, Vec<PhysicalType>),
        kind: JoinKind,
        condition: Option<ScalarExpr>,
    ) -> NestedLoopJoinExec {
        NestedLoopJoinExec {
            probe,
            build: Some(build),
            probe_types: types.0,
            build_types: types.1,
            kind,
            condition,
            built: None,
            probing: None,
            pending: Vec::new(),
            finished: false,
        }
    }
}

impl Operator for NestedLoopJoinExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.built.is_none() {
            let mut build = self
                .build
                .take()
                .ok_or_else(|| Error::internal("join built twice"))?;
            let rows = concat_batches(&self.build_types, &materialize(build.as_mut(), ctx)?)?;
            let state = JoinState::new(self.kind, self.condition.clone(), rows.len(), false);
            self.built = Some((rows, state));
        }
        loop {
            if let Some(batch) = self.pending.pop() {
                return Ok(Some(batch));
            }
            let Some((build, state)) = self.built.as_mut() else {
                return Ok(None);
            };
            if let Some((probe, next_row)) = self.probing.as_mut() {
                if *next_row < probe.len() {
                    ctx.check_cancelled()?;
                    // Pair a block of probe rows with all build rows.
                    let rows_per_block = (BATCH_SIZE / build.len().max(1)).max(1);
                    let start = *next_row;
                    let end = (start + rows_per_block).min(probe.len());
                    *next_row = end;
                    let block: Vec<u32> = (start as u32..end as u32).collect();
                    let block_batch = probe.gather(&block);
                    let mut probe_rows = Vec::with_capacity(block.len() * build.len());
                    let mut build_rows = Vec::with_capacity(block.len() * build.len());
                    for p in 0..block.len() as u32 {
                        for b in 0..build.len() as u32 {
                            probe_rows.push(p);
                            build_rows.push(b);
                        }
                    }
                    let joined = state.emit(&block_batch, build, probe_rows, build_rows, ctx)?;
                    if !joined.is_empty() {
                        return Ok(Some(joined));
                    }
                    continue;
                }
                self.probing = None;
            }
            if self.finished {
                return Ok(None);
            }
            let Some(probe) = self.probe.next(ctx)? else {
                self.finished = true;
                let empty_probe = concat_batches(&self.probe_types, &[])?;
                if let Some(rest) = state.unmatched_build(&empty_probe, build) {
                    self.pending = split_batch(rest);
                    self.pending.reverse();
                }
                continue;
            };
            self.probing = Some((probe, 0));
        }
    }
}
