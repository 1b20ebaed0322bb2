//! Sorted runs and their k-way merge, for every operator that sorts (SortExec, TopNExec):
//! a run is rows sorted on their evaluated keys, each row knowing where a serial scan would
//! have met it. Workers of a parallel sort each sort a run of their own rows; the merge then
//! streams every run's rows in the one order a serial stable sort gives (equal keys in scan
//! order, told apart by the rows' origins), so a parallel ORDER BY equals the serial one row
//! for row. A serial sort is the merge of a single run. A loser tree picks each next row in
//! log2(k) comparisons, of the runs' normalized keys (plain integers) when every run
//! encoded its keys alike, else of the key columns. `cut_runs` splits the merge into
//! stretches of its order that workers merge at once, each into its own output.

use std::cmp::Ordering;
use std::ops::Range;
use std::sync::Arc;

use super::parallel::MorselPosition;
use super::sort_key::{compare_key_rows, sorted, NormalizedKeys};
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
    /// The keys in `order`'s order as integers, when they encode exactly.
    pub normalized: Option<NormalizedKeys>,
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
        let (order, normalized) = sorted(sort_keys, &keys.columns, keys.len());
        Ok(SortedRun {
            rows,
            keys,
            order,
            origins: Origins::Batches(starts),
            normalized,
        })
    }
}

/// Every run's rows, concatenated in run order (what a merge's indices point into); a
/// single batch is shared, not copied.
pub(super) fn merged_rows(runs: &[SortedRun], physical: &[PhysicalType]) -> Result<Batch> {
    let mut batches = runs.iter().flat_map(|r| &r.rows);
    if let (Some(only), None) = (batches.next(), batches.next()) {
        return Ok(only.clone());
    }
    let rows: Vec<Batch> = runs.iter().flat_map(|r| r.rows.clone()).collect();
    concat_batches(physical, &rows)
}

/// The merge's order of row `row_a` of run `a` and row `row_b` of run `b`: by key, then
/// by origin (a total order, as no two rows share an origin).
fn merge_order(keys: &[SortKey], a: &SortedRun, row_a: u32, b: &SortedRun, row_b: u32) -> Ordering {
    compare_key_rows(
        keys,
        &a.keys.columns,
        row_a as usize,
        &b.keys.columns,
        row_b as usize,
    )
    .then_with(|| origin_order(a, row_a, b, row_b))
}

/// Which of two rows with equal keys a serial scan meets first.
fn origin_order(a: &SortedRun, row_a: u32, b: &SortedRun, row_b: u32) -> Ordering {
    a.origins.of(row_a).cmp(&b.origins.of(row_b))
}

/// Rows sampled from each run per part, to place the cuts.
const SAMPLES_PER_PART: usize = 64;

/// Cuts the merge of `runs` into `parts` consecutive stretches of about equal size: part
/// `p` is `cuts[p][r]` of each run `r`'s order, so merging every part on its own and
/// putting the parts end to end gives the whole merge. The cuts are rows sampled evenly
/// from the runs, and each run is cut by binary search before each of them; the order is
/// key then origin, so equal keys may be cut anywhere and still come out in serial order.
pub(super) fn cut_runs(
    keys: &[SortKey],
    runs: &[SortedRun],
    parts: usize,
) -> Vec<Vec<Range<usize>>> {
    let per_run = SAMPLES_PER_PART * parts;
    let mut samples: Vec<(usize, u32)> = Vec::new();
    for (r, run) in runs.iter().enumerate() {
        let n = run.order.len();
        let taken = per_run.min(n);
        samples.extend((0..taken).map(|i| (r, run.order[i * n / taken])));
    }
    samples.sort_by(|&(a, row_a), &(b, row_b)| merge_order(keys, &runs[a], row_a, &runs[b], row_b));
    // cuts[p][r]: where part p starts in run r.
    let mut starts: Vec<Vec<usize>> = vec![vec![0; runs.len()]];
    for p in 1..parts {
        let Some(&(s, row_s)) = samples.get(p * samples.len() / parts) else {
            break;
        };
        starts.push(
            runs.iter()
                .map(|run| {
                    run.order.partition_point(|&row| {
                        merge_order(keys, run, row, &runs[s], row_s) == Ordering::Less
                    })
                })
                .collect(),
        );
    }
    let ends: Vec<usize> = runs.iter().map(|r| r.order.len()).collect();
    (0..starts.len())
        .map(|p| {
            let next = starts.get(p + 1).unwrap_or(&ends);
            starts[p].iter().zip(next).map(|(&a, &b)| a..b).collect()
        })
        .collect()
}

/// Streams the rows of several sorted runs (or of one stretch of each) in one order, as
/// indices into the runs' rows concatenated in run order.
pub(super) struct RunMerger {
    keys: Vec<SortKey>,
    runs: Arc<[SortedRun]>,
    /// Where each run's rows start in the concatenation.
    offsets: Vec<u32>,
    /// The next position in each run's order.
    cursors: Vec<usize>,
    /// Where each run's stretch ends in its order.
    ends: Vec<usize>,
    /// `tree[0]` is the run holding the next row; `tree[1..k]` the loser of each match, the
    /// run at leaf `i` playing from node `k + i`.
    tree: Vec<usize>,
    /// Whether every run's normalized keys compare with every other's.
    normalized: bool,
}

impl RunMerger {
    /// Merges the whole of every run.
    pub fn new(keys: Vec<SortKey>, runs: Vec<SortedRun>) -> RunMerger {
        let whole = runs.iter().map(|r| 0..r.order.len()).collect();
        RunMerger::over(keys, runs.into(), whole)
    }

    /// Merges `stretches[r]` of each run `r`'s order.
    pub fn over(
        keys: Vec<SortKey>,
        runs: Arc<[SortedRun]>,
        stretches: Vec<Range<usize>>,
    ) -> RunMerger {
        let mut offsets = Vec::with_capacity(runs.len());
        let mut total = 0u32;
        for run in runs.iter() {
            offsets.push(total);
            total += run.keys.len() as u32;
        }
        let normalized = match runs.first().map(|r| &r.normalized) {
            Some(Some(first)) => runs
                .iter()
                .all(|r| r.normalized.as_ref().is_some_and(|n| n.comparable(first))),
            _ => false,
        };
        let mut merger = RunMerger {
            keys,
            normalized,
            cursors: stretches.iter().map(|s| s.start).collect(),
            ends: stretches.iter().map(|s| s.end).collect(),
            tree: vec![0; runs.len().max(1)],
            runs,
            offsets,
        };
        if !merger.runs.is_empty() {
            merger.tree[0] = merger.play(1);
        }
        merger
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

    /// The row run `run` offers next, if its stretch has one left.
    fn head(&self, run: usize) -> Option<u32> {
        let cursor = self.cursors[run];
        (cursor < self.ends[run]).then(|| self.runs[run].order[cursor])
    }

    /// Whether run `a`'s next row comes strictly before run `b`'s (an exhausted run never
    /// does).
    fn beats(&self, a: usize, b: usize) -> bool {
        let (Some(row_a), Some(row_b)) = (self.head(a), self.head(b)) else {
            return self.head(a).is_some();
        };
        let (run_a, run_b) = (&self.runs[a], &self.runs[b]);
        let ord = if self.normalized {
            let word = |run: &SortedRun, at: usize| run.normalized.as_ref().map(|n| n.words[at]);
            word(run_a, self.cursors[a])
                .cmp(&word(run_b, self.cursors[b]))
                .then_with(|| origin_order(run_a, row_a, run_b, row_b))
        } else {
            merge_order(&self.keys, run_a, row_a, run_b, row_b)
        };
        ord == Ordering::Less
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
    /// cut into `parts` stretches merged one by one: the same ids in the same order as one
    /// stable sort of them all.
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
            let ids = |workers: usize, morsel: usize, parts: usize| {
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
                let runs: Arc<[SortedRun]> = builders
                    .into_iter()
                    .map(|b| {
                        b.finish(&keys, &physical[..1])
                            .expect("int4 runs concatenate")
                    })
                    .collect();
                let all = merged_rows(&runs, &physical).expect("int4 runs concatenate");
                let mut out = Vec::new();
                for stretches in cut_runs(&keys, &runs, parts) {
                    let mut merger = RunMerger::over(keys.clone(), runs.clone(), stretches);
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
                }
                out
            };
            let serial = ids(1, 1000, 1);
            assert_eq!(serial.len(), 1000);
            for (workers, morsel) in [(2, 1), (3, 10), (4, 64), (5, 333), (8, 7)] {
                for parts in [1, 2, 3, 8, 40] {
                    assert_eq!(
                        ids(workers, morsel, parts),
                        serial,
                        "{workers} workers, morsels of {morsel}, {parts} parts, flags {flags}"
                    );
                }
            }
        }
    }
}
