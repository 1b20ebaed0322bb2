//! Sorted runs and their k-way merge, for every operator that sorts (SortExec, TopNExec):
//! a run is rows sorted on their evaluated keys, each row knowing where a serial scan would
//! have met it. A parallel sort deals its workers' rows out into runs of equal sizes and
//! sorts each in its own task (`RunBuilder::balance`); the merge then
//! puts every run's rows in the one order a serial stable sort gives (equal keys in scan
//! order, told apart by the rows' origins), so a parallel ORDER BY equals the serial one row
//! for row. A serial sort is the merge of a single run. A loser tree picks each next row in
//! log2(k) comparisons. The merged order can be cut at sampled rows into stretches
//! (`cut_runs`) that separate tasks merge and copy out at once (`merge_stretch`), so no
//! step of a parallel sort goes through one thread row by row.

use std::cmp::Ordering;

use super::parallel::MorselPosition;
use super::sort_key::{compare_key_rows, sort_encoded, EncodedKeys, KeyLayout, KeyStats};
use crate::error::Result;
use crate::plan::SortKey;
use crate::types::PhysicalType;
use crate::vector::{concat_batches, Batch, BATCH_SIZE};

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
    pub rows: Batch,
    pub keys: Batch,
    /// The keys encoded in the layout shared by every run of the merge, which compares
    /// these bytes and asks the comparator only when they tie and are not exact.
    pub encoded: EncodedKeys,
    /// Row indices in key order; equal keys in origin order.
    pub order: Vec<u32>,
    pub origins: Origins,
}

impl SortedRun {
    /// Rows already in key order (a top-N's best k), with their keys encoded in `layout`.
    pub fn presorted(
        sort_keys: &[SortKey],
        layout: &KeyLayout,
        rows: Batch,
        keys: Batch,
        origins: Vec<RowOrigin>,
    ) -> SortedRun {
        SortedRun {
            encoded: layout.encode(sort_keys, &keys.columns, keys.len()),
            order: (0..keys.len() as u32).collect(),
            rows,
            keys,
            origins: Origins::Rows(origins),
        }
    }
}

/// The layout the keys of all `batches` of keys encode in, comparable across them.
pub(super) fn shared_layout<'a>(batches: impl Iterator<Item = &'a KeyStats>) -> KeyLayout {
    let mut stats = KeyStats::default();
    for batch in batches {
        stats.merge(batch.clone());
    }
    stats.layout()
}

/// Collects one worker's (or the serial) input of a sort, a batch at a time, with what
/// decides its keys' encoding.
pub(super) struct RunBuilder {
    batches: Vec<(RowOrigin, Batch, Batch)>,
    stats: KeyStats,
}

impl RunBuilder {
    pub fn new() -> RunBuilder {
        RunBuilder {
            batches: Vec::new(),
            stats: KeyStats::default(),
        }
    }

    pub fn push(&mut self, origin: RowOrigin, rows: Batch, keys: Batch) {
        if !rows.is_empty() {
            self.stats.merge(KeyStats::of(&keys.columns));
            self.batches.push((origin, rows, keys));
        }
    }

    /// The layout the keys of every batch of `builders` encode in.
    pub fn layout(builders: &[RunBuilder]) -> KeyLayout {
        shared_layout(builders.iter().map(|b| &b.stats))
    }

    fn rows(&self) -> usize {
        self.batches.iter().map(|(_, rows, _)| rows.len()).sum()
    }

    /// The batches of every worker's builder dealt out again into up to `runs` builders
    /// of equal row counts (each within a batch of its share), each a stretch of the scan
    /// order: how many rows a worker happened to scan then no longer decides how much it
    /// sorts.
    pub fn balance(builders: Vec<RunBuilder>, runs: usize) -> Vec<RunBuilder> {
        let total: usize = builders.iter().map(RunBuilder::rows).sum();
        // Each builder keeps the statistics of them all, so any of them gives the layout.
        let mut stats = KeyStats::default();
        let mut batches = Vec::new();
        for builder in builders {
            stats.merge(builder.stats);
            batches.extend(builder.batches);
        }
        batches.sort_by_key(|(origin, _, _)| *origin);
        let runs = runs.max(1);
        let mut balanced: Vec<RunBuilder> = (0..runs)
            .map(|_| RunBuilder {
                batches: Vec::new(),
                stats: stats.clone(),
            })
            .collect();
        let mut dealt = 0;
        for batch in batches {
            let rows = batch.1.len();
            // The run whose share the batch's first row falls in (dealt < total).
            balanced[dealt * runs / total].batches.push(batch);
            dealt += rows;
        }
        balanced.retain(|b| !b.batches.is_empty());
        balanced
    }

    /// The batches in origin order, concatenated, encoded in `layout` and sorted (a stable
    /// sort: ties keep origin order), on the worker that collected them.
    pub fn finish(
        mut self,
        layout: &KeyLayout,
        sort_keys: &[SortKey],
        physical: &[PhysicalType],
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
        let keys = one_batch(key_physical, keys)?;
        let encoded = layout.encode(sort_keys, &keys.columns, keys.len());
        let order = sort_encoded(sort_keys, &keys.columns, &encoded);
        Ok(SortedRun {
            rows: one_batch(physical, rows)?,
            keys,
            encoded,
            order,
            origins: Origins::Batches(starts),
        })
    }
}

/// `batches` as one batch; a single batch is kept, not copied.
pub(super) fn one_batch(physical: &[PhysicalType], mut batches: Vec<Batch>) -> Result<Batch> {
    if batches.len() == 1 {
        if let Some(only) = batches.pop() {
            return Ok(only);
        }
    }
    concat_batches(physical, &batches)
}

/// The order of row `row_a` of run `a` and row `row_b` of run `b` in the merge: by the
/// encoded keys' bytes, by the comparator where those tie without being exact, then, among
/// equal keys, by origin (so two rows are never equal).
fn merge_order(keys: &[SortKey], a: &SortedRun, row_a: u32, b: &SortedRun, row_b: u32) -> Ordering {
    let (row_a, row_b) = (row_a as usize, row_b as usize);
    a.encoded
        .row(row_a)
        .cmp(b.encoded.row(row_b))
        .then_with(|| match a.encoded.exact() {
            true => Ordering::Equal,
            false => compare_key_rows(keys, &a.keys.columns, row_a, &b.keys.columns, row_b),
        })
        .then_with(|| a.origins.of(row_a as u32).cmp(&b.origins.of(row_b as u32)))
}

/// Rows sampled per stretch to place the cuts: enough that the stretches come out about
/// equal whatever the keys' distribution, few enough to sort in no time.
const SAMPLES_PER_STRETCH: usize = 32;

/// Cuts the runs' merged order into up to `stretches` stretches of about equal size, at
/// rows sampled evenly over all runs: `cuts[s][r]` is where stretch `s` starts in run
/// `r`'s order (the last cut is every run's end). Rows are totally ordered (keys, then
/// origin), so a cut places every row once.
pub(super) fn cut_runs(keys: &[SortKey], runs: &[SortedRun], stretches: usize) -> Vec<Vec<usize>> {
    let total: usize = runs.iter().map(|r| r.order.len()).sum();
    let stride = (total / (SAMPLES_PER_STRETCH * stretches).max(1)).max(1);
    let mut samples: Vec<(usize, u32)> = runs
        .iter()
        .enumerate()
        .flat_map(|(r, run)| {
            run.order
                .iter()
                .skip(stride / 2)
                .step_by(stride)
                .map(move |&row| (r, row))
        })
        .collect();
    samples.sort_by(|&(a, row_a), &(b, row_b)| merge_order(keys, &runs[a], row_a, &runs[b], row_b));
    let mut cuts = vec![vec![0; runs.len()]];
    for s in 1..stretches {
        let Some(&(at, at_row)) = samples.get(s * samples.len() / stretches) else {
            break;
        };
        let splitter = &runs[at];
        cuts.push(
            runs.iter()
                .map(|run| {
                    run.order.partition_point(|&row| {
                        merge_order(keys, run, row, splitter, at_row).is_lt()
                    })
                })
                .collect(),
        );
    }
    cuts.push(runs.iter().map(|r| r.order.len()).collect());
    cuts.dedup();
    cuts
}

/// The first `limit` rows of the merge of each run's stretch `from[r]..to[r]` of its
/// order, copied out in batches of at most [`BATCH_SIZE`] rows.
pub(super) fn merge_stretch(
    keys: &[SortKey],
    runs: &[SortedRun],
    from: &[usize],
    to: &[usize],
    physical: &[PhysicalType],
    limit: usize,
) -> Result<Vec<Batch>> {
    let stretch = |r: usize| &runs[r].order[from[r]..to[r]];
    let copy_out = |rows: &Batch, order: &[u32]| {
        let order = &order[..order.len().min(limit)];
        order
            .chunks(BATCH_SIZE)
            .map(|chunk| rows.gather(chunk))
            .collect()
    };
    let mut filled = (0..runs.len()).filter(|&r| from[r] < to[r]);
    match (filled.next(), filled.next()) {
        (None, _) => Ok(Vec::new()),
        // One run's stretch is already in order: copied out straight from its rows.
        (Some(only), None) => Ok(copy_out(&runs[only].rows, stretch(only))),
        (Some(_), Some(_)) => {
            let pieces: Vec<Batch> = (0..runs.len())
                .map(|r| runs[r].rows.gather(stretch(r)))
                .collect();
            let order = RunMerger::new(keys, runs, from, to).next_rows(limit);
            Ok(copy_out(&concat_batches(physical, &pieces)?, &order))
        }
    }
}

/// Merges stretches of several sorted runs into one order, as indices into the stretches'
/// rows concatenated in run order.
struct RunMerger<'r> {
    keys: &'r [SortKey],
    runs: &'r [SortedRun],
    /// Where each run's stretch starts in its order, and in the concatenation.
    starts: &'r [usize],
    offsets: Vec<u32>,
    /// The next and the end position in each run's order.
    cursors: Vec<usize>,
    ends: &'r [usize],
    /// `tree[0]` is the run holding the next row; `tree[1..k]` the loser of each match, the
    /// run at leaf `i` playing from node `k + i`.
    tree: Vec<usize>,
}

impl<'r> RunMerger<'r> {
    fn new(
        keys: &'r [SortKey],
        runs: &'r [SortedRun],
        starts: &'r [usize],
        ends: &'r [usize],
    ) -> RunMerger<'r> {
        let mut offsets = Vec::with_capacity(runs.len());
        let mut total = 0u32;
        for (start, end) in starts.iter().zip(ends) {
            offsets.push(total);
            total += (end - start) as u32;
        }
        let mut merger = RunMerger {
            keys,
            runs,
            starts,
            offsets,
            cursors: starts.to_vec(),
            ends,
            tree: vec![0; runs.len().max(1)],
        };
        if !runs.is_empty() {
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
        let at = self.cursors[run];
        (at < self.ends[run]).then(|| self.runs[run].order[at])
    }

    /// Whether run `a`'s next row comes strictly before run `b`'s (an exhausted run never
    /// does).
    fn beats(&self, a: usize, b: usize) -> bool {
        let (Some(row_a), Some(row_b)) = (self.head(a), self.head(b)) else {
            return self.head(a).is_some();
        };
        merge_order(self.keys, &self.runs[a], row_a, &self.runs[b], row_b).is_lt()
    }

    /// Up to `n` next rows, as indices into the stretches' concatenated rows.
    fn next_rows(&mut self, n: usize) -> Vec<u32> {
        let remaining: usize = self
            .ends
            .iter()
            .zip(&self.cursors)
            .map(|(e, c)| e - c)
            .sum();
        let mut out = Vec::with_capacity(n.min(remaining));
        let k = self.runs.len();
        while out.len() < n && k > 0 {
            let mut winner = self.tree[0];
            if self.head(winner).is_none() {
                break;
            }
            let at = self.cursors[winner] - self.starts[winner];
            out.push(self.offsets[winner] + at as u32);
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
    use crate::exec::sort_key::compare_keys;
    use crate::exec::sort_key::tests::{column, key};
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

    /// Batches collected very unevenly (one worker all but one batch) come out in runs
    /// each within a batch of an equal share, every row kept once.
    #[test]
    fn balanced_runs_hold_equal_row_counts() {
        let collected = || {
            let (mut uneven, mut lone) = (RunBuilder::new(), RunBuilder::new());
            for m in 0..50u64 {
                let len = 1 + (m as i32 * 37) % 100;
                let values: Vec<Option<i32>> = (0..len).map(Some).collect();
                let (rows, keys) = batch(&values, 0..len);
                let origin = RowOrigin::batch(MorselPosition { morsel: m, seq: 0 });
                match m {
                    17 => lone.push(origin, rows, keys),
                    _ => uneven.push(origin, rows, keys),
                }
            }
            vec![uneven, lone]
        };
        let total: usize = collected().iter().map(RunBuilder::rows).sum();
        for runs in [1, 2, 3, 7, 50, 80] {
            let balanced = RunBuilder::balance(collected(), runs);
            let sizes: Vec<usize> = balanced.iter().map(RunBuilder::rows).collect();
            assert_eq!(sizes.iter().sum::<usize>(), total, "{runs} runs");
            assert!(balanced.len() <= runs);
            let share = total / runs;
            assert!(
                sizes.iter().all(|&size| size.abs_diff(share) <= 100),
                "{runs} runs of {share}: {sizes:?}"
            );
        }
    }

    /// Rows dealt out to `workers` runs, a morsel of `morsel` rows at a time round-robin,
    /// cut into stretches and merged: the same ids in the same order as one stable sort of
    /// them all. Every key kind of the encoding (integers, floats, long text that encodes
    /// only in part, NUMERIC of mixed scales, INTERVAL that does not encode, booleans), with
    /// and without NULLs, so runs differ in what their own keys alone would encode to.
    #[test]
    fn merged_runs_equal_the_serial_stable_sort() {
        let physical = |key: &Vector| [key.data.physical(), PhysicalType::Int32];
        for kind in 0..6 {
            for seed in [2, 3] {
                let key_column = Arc::new(column(kind, seed));
                let rows = key_column.len();
                let ids = Arc::new(Vector::new(
                    VectorData::Int32((0..rows as i32).collect()),
                    None,
                ));
                let all = Batch::new(vec![key_column.clone(), ids], rows);
                let physical = physical(&key_column);
                for flags in 0..4 {
                    let keys = vec![key(flags & 1 != 0, flags & 2 != 0)];
                    let merged = |workers: usize, morsel: usize, stretches: usize, balanced| {
                        let mut builders: Vec<RunBuilder> =
                            (0..workers).map(|_| RunBuilder::new()).collect();
                        for (m, start) in (0..rows).step_by(morsel).enumerate() {
                            let end = (start + morsel).min(rows);
                            let picked: Vec<u32> = (start as u32..end as u32).collect();
                            let batch = all.gather(&picked);
                            let batch_keys =
                                Batch::new(vec![batch.columns[0].clone()], batch.len());
                            let origin = RowOrigin::batch(MorselPosition {
                                morsel: m as u64,
                                seq: 0,
                            });
                            builders[(m * 7 + 3) % workers].push(origin, batch, batch_keys);
                        }
                        if balanced {
                            builders = RunBuilder::balance(builders, workers);
                        }
                        let layout = RunBuilder::layout(&builders);
                        let runs: Vec<SortedRun> = builders
                            .into_iter()
                            .map(|b| {
                                b.finish(&layout, &keys, &physical, &physical[..1])
                                    .expect("runs of one type concatenate")
                            })
                            .collect();
                        let cuts = cut_runs(&keys, &runs, stretches);
                        let mut out = Vec::new();
                        for (from, to) in cuts.iter().zip(&cuts[1..]) {
                            let batches =
                                merge_stretch(&keys, &runs, from, to, &physical, usize::MAX)
                                    .expect("runs of one type concatenate");
                            for batch in batches {
                                let VectorData::Int32(id) = &batch.columns[1].data else {
                                    unreachable!()
                                };
                                out.extend_from_slice(id);
                            }
                        }
                        out
                    };
                    let mut serial: Vec<i32> = (0..rows as i32).collect();
                    serial.sort_by(|&a, &b| {
                        compare_keys(&keys, &all.columns, a as usize, b as usize)
                    });
                    let cases = [
                        (1, rows, 1),
                        (2, 1, 1),
                        (2, 1, 7),
                        (3, 10, 3),
                        (4, 64, 16),
                        (5, 333, 2),
                        (8, 7, 40),
                    ];
                    for (workers, morsel, stretches) in cases {
                        for balanced in [false, true] {
                            assert_eq!(
                                merged(workers, morsel, stretches, balanced),
                                serial,
                                "kind {kind} seed {seed}: {workers} workers, morsels of \
                                 {morsel}, {stretches} stretches, flags {flags}, \
                                 balanced {balanced}"
                            );
                        }
                    }
                }
            }
        }
    }
}
