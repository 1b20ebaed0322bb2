//! ORDER BY ... LIMIT k: keeps only the best k rows seen so far instead of sorting
//! everything. Incoming rows are buffered unsorted; when the buffer reaches about 2k rows it
//! is compacted (sorted and cut back to the best k), so each row is copied and sorted an
//! amortised constant number of times. After the first compaction the k-th kept key is a
//! cutoff: an incoming row that does not sort strictly before it can never be returned.
//! Each worker of a parallel top-N keeps its own best k ([`TopN`]); their sorted runs are
//! merged (sorted_runs.rs) and the first k of the merge are the answer.

use std::cmp::Ordering;
use std::sync::Arc;

use super::sort::{evaluate_keys, key_types};
use super::sort_key::KeyStats;
use super::sort_key::{compare_key_rows, sort_order};
use super::sorted_runs::{merge_stretch, one_batch, shared_layout, RowOrigin, SortedRun};
use super::{ExecContext, Operator, WorkerInput};
use crate::error::Result;
use crate::plan::SortKey;
use crate::types::PhysicalType;
use crate::vector::{concat_batches, Batch, BATCH_SIZE};

pub struct TopNExec {
    input: WorkerInput,
    spec: Arc<TopNSpec>,
    output: Option<std::vec::IntoIter<Batch>>,
}

/// What a top-N keeps: the best `k` rows of `physical` columns under `keys`.
pub(super) struct TopNSpec {
    pub keys: Vec<SortKey>,
    pub physical: Vec<PhysicalType>,
    pub key_physical: Vec<PhysicalType>,
    pub k: usize,
}

/// The best k rows of one stream so far: the compacted best (sorted, at most k) followed
/// by the batches that arrived since, in arrival order, each with its evaluated sort keys
/// and each row's origin. Arrival order must be origin order (a worker meets its morsels
/// in increasing position), so among ties the earliest rows win, as in a serial scan.
pub(super) struct TopN<'a> {
    spec: &'a TopNSpec,
    rows: Vec<Batch>,
    keys: Vec<Batch>,
    origins: Vec<RowOrigin>,
    /// Whether `rows[0]` holds k sorted rows, whose last key is the cutoff.
    full: bool,
}

impl<'a> TopN<'a> {
    pub fn new(spec: &'a TopNSpec) -> TopN<'a> {
        TopN {
            spec,
            rows: Vec::new(),
            keys: Vec::new(),
            origins: Vec::new(),
            full: false,
        }
    }

    /// Offers the rows of `batch`, the first of which a serial scan meets at `origin`.
    pub fn push(&mut self, origin: RowOrigin, batch: Batch, ctx: &ExecContext) -> Result<()> {
        let spec = self.spec;
        if spec.k == 0 {
            return Ok(());
        }
        let keys = evaluate_keys(&spec.keys, &batch, ctx)?;
        let admitted = self.admitted(&keys);
        let (batch, keys) = match &admitted {
            Some(rows) => (batch.gather(rows), keys.gather(rows)),
            None => (batch, keys),
        };
        if batch.is_empty() {
            return Ok(());
        }
        let rows = admitted.unwrap_or_else(|| (0..batch.len() as u32).collect());
        self.origins.extend(rows.iter().map(|&row| RowOrigin {
            row: origin.row + row,
            ..origin
        }));
        self.rows.push(batch);
        self.keys.push(keys);
        // Compacting at 2k rows (at least a batch) cuts away at least k rows each time.
        if self.origins.len() >= (2 * spec.k).max(BATCH_SIZE) {
            self.compact()?;
        }
        Ok(())
    }

    /// The rows of a batch with `keys` that sort strictly before the cutoff, or None for
    /// all of them (before there is a cutoff); a row equal to the k-th kept row would lose
    /// to it.
    fn admitted(&self, keys: &Batch) -> Option<Vec<u32>> {
        let (true, Some(kept)) = (self.full, self.keys.first()) else {
            return None;
        };
        let last = kept.len() - 1;
        let rows: Vec<u32> = (0..keys.len())
            .filter(|&r| {
                compare_key_rows(&self.spec.keys, &keys.columns, r, &kept.columns, last)
                    == Ordering::Less
            })
            .map(|r| r as u32)
            .collect();
        (rows.len() < keys.len()).then_some(rows)
    }

    /// Sorts every candidate and keeps the first k. The sort keeps equal keys in arrival
    /// order, and the compacted rows come first, so among ties the earliest rows win.
    fn compact(&mut self) -> Result<()> {
        let spec = self.spec;
        let rows = concat_batches(&spec.physical, &self.rows)?;
        let keys = concat_batches(&spec.key_physical, &self.keys)?;
        let mut order = sort_order(&spec.keys, &keys.columns, rows.len());
        order.truncate(spec.k);
        self.full = order.len() == spec.k;
        self.rows = vec![rows.gather(&order)];
        self.keys = vec![keys.gather(&order)];
        self.origins = order.iter().map(|&r| self.origins[r as usize]).collect();
        Ok(())
    }

    /// The best k rows, sorted.
    pub fn finish(mut self) -> Result<Best> {
        self.compact()?;
        let keys = one_batch(&self.spec.key_physical, self.keys)?;
        Ok(Best {
            stats: KeyStats::of(&keys.columns),
            rows: one_batch(&self.spec.physical, self.rows)?,
            keys,
            origins: self.origins,
        })
    }
}

/// One stream's best k rows in key order, with their keys and origins.
pub(super) struct Best {
    rows: Batch,
    keys: Batch,
    stats: KeyStats,
    origins: Vec<RowOrigin>,
}

impl TopNSpec {
    /// The first k rows of the merge of several workers' best k.
    pub fn merge(&self, bests: Vec<Best>) -> Result<Vec<Batch>> {
        let layout = shared_layout(bests.iter().map(|b| &b.stats));
        let runs: Vec<SortedRun> = bests
            .into_iter()
            .map(|b| SortedRun::presorted(&self.keys, &layout, b.rows, b.keys, b.origins))
            .collect();
        let ends: Vec<usize> = runs.iter().map(|r| r.order.len()).collect();
        let starts = vec![0; runs.len()];
        merge_stretch(&self.keys, &runs, &starts, &ends, &self.physical, self.k)
    }
}

impl TopNExec {
    pub fn new(
        input: WorkerInput,
        keys: Vec<SortKey>,
        physical: Vec<PhysicalType>,
        k: usize,
    ) -> TopNExec {
        TopNExec {
            input,
            spec: Arc::new(TopNSpec {
                key_physical: key_types(&keys),
                keys,
                physical,
                k,
            }),
            output: None,
        }
    }

    fn run(&mut self, ctx: &ExecContext) -> Result<Vec<Batch>> {
        let spec = self.spec.clone();
        let runs = self.input.run(
            ctx,
            Arc::new(move |source, ctx| {
                let mut top_n = TopN::new(&spec);
                while let Some((position, batch)) = source()? {
                    ctx.check_cancelled()?;
                    top_n.push(RowOrigin::batch(position), batch, ctx)?;
                }
                top_n.finish()
            }),
        )?;
        self.spec.merge(runs)
    }
}

impl Operator for TopNExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.output.is_none() {
            self.output = Some(self.run(ctx)?.into_iter());
        }
        Ok(self.output.as_mut().and_then(|o| o.next()))
    }
}
