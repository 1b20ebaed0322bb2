//! Sorted runs and their k-way merge, for every operator that sorts (SortExec, TopNExec):
//! a run is rows sorted on their evaluated keys, each row knowing where a serial scan would
//! have met it. Workers of a parallel sort each sort a run of their own rows; the merge then
//! streams every run's rows in the one order a serial stable sort gives (equal keys in scan
//! order, told apart by the rows' origins), so a parallel ORDER BY equals the serial one row
//! for row. A serial sort is the merge of a single run. A loser tree picks each next row in
//! log2(k) comparisons.

use std::cmp::Ordering;

use super::parallel::MorselPosition;
use super::sort_key::{compare_key_rows, sort_order};
use crate::error::Result;
use crate::plan::SortKey;
use crate::types::PhysicalType;
use crate::vector::{concat_batches, Batch};

/// Where a serial scan meets a row: its batch's position, then the row in that batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct RowOrigin {
    pub position: MorselPosition,
    pub row: u32,
}

impl RowOrigin {
    /// The origin of the first row of a batch.
    pub fn batch(position: MorselPosition) -> RowOrigin {
        RowOrigin { position, row: 0 }
    }
}

/// Where each row of a run came from.
pub(super) enum Origins {
    /// Whole batches, each starting at a row of the run, in the run's order: a row's origin
    /// is found by its batch (only ties ask, so no per-row array is kept).
    Batches(Vec<(u32, RowOrigin)>),
    /// One origin per row.
    Rows(Vec<RowOrigin>),
}

impl Origins {
    fn of(&self, row: u32) -> RowOrigin {
        match self {
            Origins::Rows(rows) => rows[row as usize],
            Origins::Batches(batches) => {
                let at = batches.partition_point(|&(start, _)| start <= row) - 1;
                let (start, origin) = batches[at];
                RowOrigin {
                    row: origin.row + (row - start),
                    ..origin
                }
            }
        }
    }
}

/// Rows with their evaluated sort keys, and the order the keys put them in.
pub(super) struct SortedRun {
    /// The rows in batches, whose rows are numbered on from one batch to the next.
    pub rows: Vec<Batch>,
    pub keys: Batch,
    /// Row indices in key order; equal keys in origin order.
    pub order: Vec<u32>,
    pub origins: Origins,
}

/// Collects one worker's (or the serial) input of a sort, a batch at a time.
pub(super) struct RunBuilder {
    batches: Vec<(RowOrigin, Batch, Batch)>,
}

impl RunBuilder {
    pub fn new() -> RunBuilder {
        RunBuilder {
            batches: Vec::new(),
        }
    }

    pub fn push(&mut self, origin: RowOrigin, rows: Batch, keys: Batch) {
        if !rows.is_empty() {
            self.batches.push((origin, rows, keys));
        }
    }

    /// The batches in origin order, sorted (a stable sort: ties keep origin order). Only
    /// the keys are concatenated; the rows are copied once, by whoever merges the runs.
    pub fn finish(
        mut self,
        sort_keys: &[SortKey],
        key_physical: &[PhysicalType],
    ) -> Result<SortedRun> {
        self.batches.sort_by_key(|(origin, _, _)| *origin);
        let mut starts = Vec::with_capacity(self.batches.len());
        let mut rows = Vec::with_capacity(self.batches.len());
        let mut keys = Vec::with_capacity(self.batches.len());
        let mut start = 0u32;
        for (origin, batch, batch_keys) in self.batches {
            starts.push((start, origin));
            start += batch.len() as u32;
            rows.push(batch);
            keys.push(batch_keys);
        }
        let keys = concat_batches(key_physical, &keys)?;
        let order = sort_order(sort_keys, &keys.columns, keys.len());
        Ok(SortedRun {
            rows,
            keys,
            order,
            origins: Origins::Batches(starts),
        })
    }
}

/// Streams the rows of several sorted runs in one order, as indices into the runs' rows
/// concatenated in run order.
pub(super) struct RunMerger {
    keys: Vec<SortKey>,
    runs: Vec<SortedRun>,
    /// Where each run's rows start in the concatenation.
    offsets: Vec<u32>,
    /// The next position in each run's order.
    cursors: Vec<usize>,
    /// `tree[0]` is the run holding the next row; `tree[1..k]` the loser of each match, the
    /// run at leaf `i` playing from node `k + i`.
    tree: Vec<usize>,
}

impl RunMerger {
    pub fn new(keys: Vec<SortKey>, runs: Vec<SortedRun>) -> RunMerger {
        let mut offsets = Vec::with_capacity(runs.len());
        let mut total = 0u32;
        for run in &runs {
            offsets.push(total);
            total += run.keys.len() as u32;
        }
        let mut merger = RunMerger {
            keys,
            cursors: vec![0; runs.len()],
            tree: vec![0; runs.len().max(1)],
            runs,
            offsets,
        };
        if !merger.runs.is_empty() {
            merger.tree[0] = merger.play(1);
        }
        merger
    }

    /// Every run's rows, concatenated in run order (what the merged indices point into);
    /// a single run's rows are shared, not copied.
    pub fn rows(&self, physical: &[PhysicalType]) -> Result<Batch> {
        let mut batches = self.runs.iter().flat_map(|r| &r.rows);
        if let (Some(only), None) = (batches.next(), batches.next()) {
            return Ok(only.clone());
        }
        let rows: Vec<Batch> = self.runs.iter().flat_map(|r| r.rows.clone()).collect();
        concat_batches(physical, &rows)
    }

    /// The winner of the subtree at `node`, recording the losers of its matches.
    fn play(&mut self, node: usize) -> usize {
        let k = self.runs.len();
        if node >= k {
            return node - k;
        }
        let left = self.play(2 * node);
        let right = self.play(2 * node + 1);
        let (winner, loser) = if self.beats(right, left) {
            (right, left)
        } else {
            (left, right)
        };
        self.tree[node] = loser;
        winner
    }

    /// The row run `run` offers next, if it has one left.
    fn head(&self, run: usize) -> Option<u32> {
        self.runs[run].order.get(self.cursors[run]).copied()
    }

    /// Whether run `a`'s next row comes strictly before run `b`'s (an exhausted run never
    /// does).
    fn beats(&self, a: usize, b: usize) -> bool {
        let (Some(row_a), Some(row_b)) = (self.head(a), self.head(b)) else {
            return self.head(a).is_some();
        };
        let (run_a, run_b) = (&self.runs[a], &self.runs[b]);
        let ord = compare_key_rows(
            &self.keys,
            &run_a.keys.columns,
            row_a as usize,
            &run_b.keys.columns,
            row_b as usize,
        );
        match ord {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => run_a.origins.of(row_a) < run_b.origins.of(row_b),
        }
    }

    /// Up to `n` next rows, as indices into the concatenated rows; empty once every run is
    /// exhausted.
    pub fn next_rows(&mut self, n: usize) -> Vec<u32> {
        let mut out = Vec::with_capacity(n);
        let k = self.runs.len();
        while out.len() < n && k > 0 {
            let mut winner = self.tree[0];
            let Some(row) = self.head(winner) else {
                break;
            };
            out.push(self.offsets[winner] + row);
            self.cursors[winner] += 1;
            // Replay the winner's path to the root against the losers kept on it.
            let mut node = (k + winner) / 2;
            while node > 0 {
                let loser = self.tree[node];
                if self.beats(loser, winner) {
                    self.tree[node] = winner;
                    winner = loser;
                }
                node /= 2;
            }
            self.tree[0] = winner;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::exec::sort_key::tests::key;
    use crate::types::ScalarValue;
    use crate::vector::{Vector, VectorData};

    /// A batch of (key, id) rows; the key column doubles as the sort key.
    fn batch(keys: &[Option<i32>], ids: std::ops::Range<i32>) -> (Batch, Batch) {
        let mut key = Vector::with_capacity(PhysicalType::Int32, keys.len());
        for k in keys {
            match k {
                Some(v) => key
                    .push_scalar(&ScalarValue::Int32(*v))
                    .expect("an int4 column takes int4"),
                None => key.push_null(),
            }
        }
        let key = Arc::new(key);
        let id = Arc::new(Vector::new(VectorData::Int32(ids.collect()), None));
        (
            Batch::new(vec![key.clone(), id], keys.len()),
            Batch::new(vec![key], keys.len()),
        )
    }

    /// Rows dealt out to `workers` runs, a morsel of `morsel` rows at a time round-robin,
    /// merged: the same ids in the same order as one stable sort of them all.
    #[test]
    fn merged_runs_equal_the_serial_stable_sort() {
        let mut state = 7u64;
        let values: Vec<Option<i32>> = (0..1000)
            .map(|_| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                let v = (state >> 33) % 12;
                (v != 0).then_some(v as i32)
            })
            .collect();
        let physical = [PhysicalType::Int32, PhysicalType::Int32];
        for flags in 0..4 {
            let keys = vec![key(flags & 1 != 0, flags & 2 != 0)];
            let ids = |workers: usize, morsel: usize| {
                let mut builders: Vec<RunBuilder> =
                    (0..workers).map(|_| RunBuilder::new()).collect();
                for (m, start) in (0..values.len()).step_by(morsel).enumerate() {
                    let end = (start + morsel).min(values.len());
                    let (rows, batch_keys) = batch(&values[start..end], start as i32..end as i32);
                    let origin = RowOrigin::batch(MorselPosition {
                        morsel: m as u64,
                        seq: 0,
                    });
                    builders[(m * 7 + 3) % workers].push(origin, rows, batch_keys);
                }
                let runs = builders
                    .into_iter()
                    .map(|b| {
                        b.finish(&keys, &physical[..1])
                            .expect("int4 runs concatenate")
                    })
                    .collect();
                let mut merger = RunMerger::new(keys.clone(), runs);
                let all = merger.rows(&physical).expect("int4 runs concatenate");
                let mut out = Vec::new();
                loop {
                    let rows = merger.next_rows(100);
                    if rows.is_empty() {
                        break;
                    }
                    let VectorData::Int32(id) = &all.gather(&rows).columns[1].data else {
                        unreachable!()
                    };
                    out.extend_from_slice(id);
                }
                out
            };
            let serial = ids(1, 1000);
            assert_eq!(serial.len(), 1000);
            for (workers, morsel) in [(2, 1), (3, 10), (4, 64), (5, 333), (8, 7)] {
                assert_eq!(
                    ids(workers, morsel),
                    serial,
                    "{workers} workers, morsels of {morsel}, flags {flags}"
                );
            }
        }
    }
}
