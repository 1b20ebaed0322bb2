//! The rows UPDATE ... FROM and DELETE ... USING act on: each live target row paired with
//! the first row of the FROM items that satisfies the WHERE clause, as PostgreSQL's join
//! does (a target row matched several times is still changed once, with one of its
//! matches). The FROM items run once; equality conjuncts between target and FROM columns
//! probe a hash table over them, anything else is checked on the candidate pairs.

use std::sync::Arc;

use hashbrown::HashMap;

use super::expression::evaluate;
use super::filter::selected_rows;
use super::modify::{live_rows, Matched};
use super::{materialize, ExecContext};
use crate::error::Result;
use crate::physical::create_operator;
use crate::plan::{ColumnSide, CompareOp, LogicalPlan, ScalarExpr};
use crate::storage::TableEntry;
use crate::vector::{concat_batches, encode_row_key, Batch, Vector};

/// Equality conjuncts of `filter` between a target expression and a source expression
/// (the latter renumbered over the source's own columns).
fn equality_keys(filter: Option<&ScalarExpr>, width: usize) -> (Vec<ScalarExpr>, Vec<ScalarExpr>) {
    let (mut target, mut source) = (Vec::new(), Vec::new());
    let Some(filter) = filter else {
        return (target, source);
    };
    for conjunct in filter.clone().into_conjuncts() {
        let ScalarExpr::Compare {
            op: CompareOp::Eq,
            left,
            right,
        } = conjunct
        else {
            continue;
        };
        let (t, s) = match (left.side(width), right.side(width)) {
            (ColumnSide::Left, ColumnSide::Right) => (*left, *right),
            (ColumnSide::Right, ColumnSide::Left) => (*right, *left),
            _ => continue,
        };
        if t.is_volatile() || s.is_volatile() {
            continue;
        }
        target.push(t);
        source.push(s.map_columns(&|i| i - width));
    }
    (target, source)
}

fn key_vectors(exprs: &[ScalarExpr], batch: &Batch, ctx: &ExecContext) -> Result<Vec<Arc<Vector>>> {
    exprs.iter().map(|e| evaluate(e, batch, ctx)).collect()
}

pub(super) fn joined_matches(
    entry: &TableEntry,
    source: &LogicalPlan,
    filter: Option<&ScalarExpr>,
    ctx: &ExecContext,
) -> Result<Vec<Matched>> {
    let width = entry.schema.columns.len();
    let source_batches = materialize(create_operator(source, &ctx.state).as_mut(), ctx)?;
    let physical: Vec<_> = source.output_types().iter().map(|t| t.physical()).collect();
    let source_rows = concat_batches(&physical, &source_batches)?;
    let (target_keys, source_keys) = equality_keys(filter, width);

    // Source rows by key; rows with a NULL key match nothing.
    let mut index: HashMap<Vec<u8>, Vec<u32>> = HashMap::new();
    if !source_keys.is_empty() {
        let keys = key_vectors(&source_keys, &source_rows, ctx)?;
        let keys: Vec<&Vector> = keys.iter().map(|k| k.as_ref()).collect();
        for row in 0..source_rows.len() {
            let mut key = Vec::new();
            if !encode_row_key(&keys, row, &mut key) {
                index.entry(key).or_default().push(row as u32);
            }
        }
    }

    let mut matches = Vec::new();
    let mut key = Vec::new();
    let all_sources: Vec<u32> = (0..source_rows.len() as u32).collect();
    for chunk_idx in 0..entry.data.chunk_count() {
        ctx.check_cancelled()?;
        let (batch, offsets) = live_rows(&entry.data, chunk_idx, None)?;
        let target_key_vectors = key_vectors(&target_keys, &batch, ctx)?;
        let target_key_refs: Vec<&Vector> = target_key_vectors.iter().map(|k| k.as_ref()).collect();
        let mut pairs = PairBuffer::default();
        let mut kept = Vec::new();
        for t in 0..batch.len() {
            let candidates: &[u32] = if target_keys.is_empty() {
                &all_sources
            } else {
                key.clear();
                if encode_row_key(&target_key_refs, t, &mut key) {
                    continue;
                }
                index.get(&key).map_or(&[][..], Vec::as_slice)
            };
            for &s in candidates {
                pairs.target_rows.push(t as u32);
                pairs.source_rows.push(s);
                if pairs.target_rows.len() >= PAIRS_PER_CHECK {
                    pairs.check(&batch, &source_rows, filter, ctx, &mut kept)?;
                }
            }
        }
        pairs.check(&batch, &source_rows, filter, ctx, &mut kept)?;
        if kept.is_empty() {
            continue;
        }
        let chunk_offsets = kept.iter().map(|(t, _)| offsets[*t as usize]).collect();
        let (target_rows, source_pick): (Vec<u32>, Vec<u32>) = kept.into_iter().unzip();
        let rows = (0..target_rows.len() as u32).collect();
        matches.push(Matched {
            chunk_idx,
            batch: pair_batch(&batch, &target_rows, &source_rows, &source_pick),
            rows,
            chunk_offsets,
        });
    }
    Ok(matches)
}

/// Candidate pairs are checked against the WHERE clause this many at a time, so a join
/// without equality keys (every target row with every source row) stays in bounded memory.
const PAIRS_PER_CHECK: usize = 1 << 16;

/// Candidate (target row, source row) pairs, in target row order.
#[derive(Default)]
struct PairBuffer {
    target_rows: Vec<u32>,
    source_rows: Vec<u32>,
}

impl PairBuffer {
    /// Checks the buffered pairs and appends to `kept` the first passing pair of each target
    /// row not matched before; empties the buffer.
    fn check(
        &mut self,
        target: &Batch,
        source: &Batch,
        filter: Option<&ScalarExpr>,
        ctx: &ExecContext,
        kept: &mut Vec<(u32, u32)>,
    ) -> Result<()> {
        if self.target_rows.is_empty() {
            return Ok(());
        }
        let pairs = pair_batch(target, &self.target_rows, source, &self.source_rows);
        let passing = match filter {
            Some(f) => selected_rows(&pairs, f, ctx)?,
            None => (0..pairs.len() as u32).collect(),
        };
        for pair in passing {
            let (t, s) = (
                self.target_rows[pair as usize],
                self.source_rows[pair as usize],
            );
            if kept.last().is_none_or(|&(last, _)| last != t) {
                kept.push((t, s));
            }
        }
        self.target_rows.clear();
        self.source_rows.clear();
        Ok(())
    }
}

/// Target rows `target_rows` of `target` side by side with source rows `source_pick`.
fn pair_batch(target: &Batch, target_rows: &[u32], source: &Batch, source_pick: &[u32]) -> Batch {
    let mut columns: Vec<Arc<Vector>> = target
        .columns
        .iter()
        .map(|c| Arc::new(c.gather(target_rows)))
        .collect();
    columns.extend(
        source
            .columns
            .iter()
            .map(|c| Arc::new(c.gather(source_pick))),
    );
    Batch::new(columns, target_rows.len())
}
