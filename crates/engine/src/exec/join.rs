//! What hash and nested-loop joins share: pairing rows into output batches, the residual
//! condition, and the NULL-padded rows of outer joins.

use std::sync::Arc;

use super::filter::selected_rows;
use super::ExecContext;
use crate::error::Result;
use crate::plan::{JoinKind, ScalarExpr};
use crate::vector::{Batch, Vector, NULL_ROW};

/// The joined rows for pairs (probe row, build row); NULL_ROW on either side pads. The
/// build side's columns come first when `build_first` (the build side is the join's left).
pub fn pair_batch(
    probe: &Batch,
    build: &Batch,
    probe_rows: &[u32],
    build_rows: &[u32],
    build_first: bool,
) -> Batch {
    let gather = |side: &Batch, rows: &[u32]| -> Vec<Arc<Vector>> {
        side.columns
            .iter()
            .map(|c| Arc::new(c.gather_or_null(rows)))
            .collect()
    };
    let (mut columns, rest) = match build_first {
        false => (gather(probe, probe_rows), gather(build, build_rows)),
        true => (gather(build, build_rows), gather(probe, probe_rows)),
    };
    columns.extend(rest);
    Batch::new(columns, probe_rows.len())
}

/// Run state of a join: which build rows found a partner (RIGHT and FULL joins emit the
/// others at the end).
pub struct JoinState {
    pub kind: JoinKind,
    pub residual: Option<ScalarExpr>,
    pub build_matched: Vec<bool>,
    /// The build side is the join's left input (its columns come first in the output).
    pub build_first: bool,
}

impl JoinState {
    /// `kind` is seen from the probe side: LEFT pads unmatched probe rows, RIGHT unmatched
    /// build rows.
    pub fn new(
        kind: JoinKind,
        residual: Option<ScalarExpr>,
        build_rows: usize,
        build_first: bool,
    ) -> JoinState {
        JoinState {
            kind,
            residual,
            build_matched: vec![false; build_rows],
            build_first,
        }
    }

    fn pads_probe(&self) -> bool {
        matches!(self.kind, JoinKind::Left | JoinKind::Full)
    }

    fn pads_build(&self) -> bool {
        matches!(self.kind, JoinKind::Right | JoinKind::Full)
    }

    /// Joins one probe batch given candidate pairs (equal keys, or all pairs for a nested
    /// loop), applying the residual condition and LEFT/FULL padding.
    pub fn emit(
        &mut self,
        probe: &Batch,
        build: &Batch,
        mut probe_rows: Vec<u32>,
        mut build_rows: Vec<u32>,
        ctx: &ExecContext,
    ) -> Result<Batch> {
        let mut joined = pair_batch(probe, build, &probe_rows, &build_rows, self.build_first);
        if let Some(residual) = &self.residual {
            let keep = selected_rows(&joined, residual, ctx)?;
            if keep.len() != probe_rows.len() {
                probe_rows = keep.iter().map(|&i| probe_rows[i as usize]).collect();
                build_rows = keep.iter().map(|&i| build_rows[i as usize]).collect();
                joined = joined.gather(&keep);
            }
        }
        if self.pads_build() {
            for &b in &build_rows {
                self.build_matched[b as usize] = true;
            }
        }
        if !self.pads_probe() {
            return Ok(joined);
        }
        let mut matched = vec![false; probe.len()];
        for &p in &probe_rows {
            matched[p as usize] = true;
        }
        let unmatched: Vec<u32> = (0..probe.len() as u32)
            .filter(|&p| !matched[p as usize])
            .collect();
        if unmatched.is_empty() {
            return Ok(joined);
        }
        probe_rows.extend_from_slice(&unmatched);
        build_rows.extend(std::iter::repeat_n(NULL_ROW, unmatched.len()));
        // Re-pair so that the padded rows follow the matched ones.
        Ok(pair_batch(
            probe,
            build,
            &probe_rows,
            &build_rows,
            self.build_first,
        ))
    }

    /// RIGHT/FULL: the build rows that never matched, with NULLs for the probe side.
    pub fn unmatched_build(&self, probe_width: &Batch, build: &Batch) -> Option<Batch> {
        if !self.pads_build() {
            return None;
        }
        let build_rows: Vec<u32> = (0..build.len() as u32)
            .filter(|&b| !self.build_matched[b as usize])
            .collect();
        if build_rows.is_empty() {
            return None;
        }
        let probe_rows = vec![NULL_ROW; build_rows.len()];
        Some(pair_batch(
            probe_width,
            build,
            &probe_rows,
            &build_rows,
            self.build_first,
        ))
    }
}
