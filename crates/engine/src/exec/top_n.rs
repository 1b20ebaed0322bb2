//! ORDER BY ... LIMIT k: keeps only the best k rows seen so far instead of sorting
//! everything. Incoming rows are buffered unsorted; when the buffer reaches about 2k rows it
//! is compacted (sorted and cut back to the best k), so each row is copied and sorted an
//! amortised constant number of times. After the first compaction the k-th kept key is a
//! cutoff: an incoming row that does not sort strictly before it can never be returned.

use std::cmp::Ordering;
use std::sync::Arc;

use super::expression::evaluate;
use super::sort_key::{compare_key_rows, sort_order};
use super::{BoxedOperator, ExecContext, Operator};
use crate::error::Result;
use crate::plan::SortKey;
use crate::types::PhysicalType;
use crate::vector::{concat_batches, split_batch, Batch, BATCH_SIZE};

pub struct TopNExec {
    input: BoxedOperator,
    keys: Vec<SortKey>,
    physical: Vec<PhysicalType>,
    key_physical: Vec<PhysicalType>,
    k: usize,
    output: Option<std::vec::IntoIter<Batch>>,
}

/// The rows kept so far: the compacted best (sorted, at most k) followed by the batches
/// that arrived since, in arrival order, each with its evaluated sort keys.
struct Candidates {
    rows: Vec<Batch>,
    keys: Vec<Batch>,
    len: usize,
    /// Whether `rows[0]` holds k sorted rows, whose last key is the cutoff.
    full: bool,
}

impl TopNExec {
    pub fn new(
        input: BoxedOperator,
        keys: Vec<SortKey>,
        physical: Vec<PhysicalType>,
        k: usize,
    ) -> TopNExec {
        let key_physical = keys.iter().map(|k| k.expr.ty().physical()).collect();
        TopNExec {
            input,
            keys,
            physical,
            key_physical,
            k,
            output: None,
        }
    }

    /// Sorts every candidate and keeps the first k. The sort keeps equal keys in arrival
    /// order, and the compacted rows come first, so among ties the earliest rows win.
    fn compact(&self, candidates: &mut Candidates) -> Result<()> {
        let rows = concat_batches(&self.physical, &candidates.rows)?;
        let keys = concat_batches(&self.key_physical, &candidates.keys)?;
        let mut order = sort_order(&self.keys, &keys.columns, rows.len());
        order.truncate(self.k);
        candidates.len = order.len();
        candidates.full = self.k > 0 && order.len() == self.k;
        candidates.rows = vec![rows.gather(&order)];
        candidates.keys = vec![keys.gather(&order)];
        Ok(())
    }

    /// The rows of `batch` that sort strictly before the cutoff (all of them before there
    /// is one); a row equal to the k-th kept row would lose to it.
    fn admit(&self, candidates: &Candidates, batch: Batch, keys: Batch) -> (Batch, Batch) {
        let (true, Some(kept)) = (candidates.full, candidates.keys.first()) else {
            return (batch, keys);
        };
        let last = kept.len() - 1;
        let rows: Vec<u32> = (0..batch.len())
            .filter(|&r| {
                compare_key_rows(&self.keys, &keys.columns, r, &kept.columns, last)
                    == Ordering::Less
            })
            .map(|r| r as u32)
            .collect();
        if rows.len() == batch.len() {
            return (batch, keys);
        }
        (batch.gather(&rows), keys.gather(&rows))
    }

    fn run(&mut self, ctx: &ExecContext) -> Result<Vec<Batch>> {
        let mut candidates = Candidates {
            rows: Vec::new(),
            keys: Vec::new(),
            len: 0,
            full: false,
        };
        // Compacting at 2k rows (at least a batch) cuts away at least k rows each time.
        let threshold = (2 * self.k).max(BATCH_SIZE);
        while let Some(batch) = self.input.next(ctx)? {
            ctx.check_cancelled()?;
            let key_columns = self
                .keys
                .iter()
                .map(|k| evaluate(&k.expr, &batch, ctx))
                .collect::<Result<Vec<Arc<_>>>>()?;
            let batch_keys = Batch::new(key_columns, batch.len());
            if self.k == 0 {
                continue;
            }
            let (batch, batch_keys) = self.admit(&candidates, batch, batch_keys);
            if batch.is_empty() {
                continue;
            }
            candidates.len += batch.len();
            candidates.rows.push(batch);
            candidates.keys.push(batch_keys);
            if candidates.len >= threshold {
                self.compact(&mut candidates)?;
            }
        }
        self.compact(&mut candidates)?;
        let best = candidates.rows.pop().filter(|b| !b.is_empty());
        Ok(best.map_or_else(Vec::new, split_batch))
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
