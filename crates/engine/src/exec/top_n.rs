//! ORDER BY ... LIMIT k: keeps only the best k rows seen so far instead of sorting
//! everything. Rows are buffered and cut back to k whenever the buffer doubles.

use std::sync::Arc;

use super::expression::evaluate;
use std::cmp::Ordering;

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

    /// The first `limit` rows of `rows` (with their evaluated `keys`) in key order.
    fn best(&self, rows: &Batch, keys: &Batch, limit: usize) -> (Batch, Batch) {
        let mut order = sort_order(&self.keys, &keys.columns, rows.len());
        order.truncate(limit);
        (rows.gather(&order), keys.gather(&order))
    }

    fn run(&mut self, ctx: &ExecContext) -> Result<Vec<Batch>> {
        let mut kept = concat_batches(&self.physical, &[])?;
        let mut kept_keys = concat_batches(&self.key_physical, &[])?;
        let threshold = (2 * self.k).max(BATCH_SIZE);
        while let Some(batch) = self.input.next(ctx)? {
            let key_columns = self
                .keys
                .iter()
                .map(|k| evaluate(&k.expr, &batch, ctx))
                .collect::<Result<Vec<Arc<_>>>>()?;
            let mut batch_keys = Batch::new(key_columns, batch.len());
            let mut batch = batch;
            // Once k rows are kept (sorted), only rows before the k-th can enter.
            if kept.len() >= self.k && self.k > 0 {
                let last = kept.len() - 1;
                let rows: Vec<u32> = (0..batch.len())
                    .filter(|&r| {
                        compare_key_rows(
                            &self.keys,
                            &batch_keys.columns,
                            r,
                            &kept_keys.columns,
                            last,
                        ) == Ordering::Less
                    })
                    .map(|r| r as u32)
                    .collect();
                if rows.is_empty() {
                    continue;
                }
                batch = batch.gather(&rows);
                batch_keys = batch_keys.gather(&rows);
            }
            kept = concat_batches(&self.physical, &[kept, batch])?;
            kept_keys = concat_batches(&self.key_physical, &[kept_keys, batch_keys])?;
            if kept.len() > threshold || kept.len() >= self.k {
                (kept, kept_keys) = self.best(&kept, &kept_keys, self.k);
            }
        }
        let (best, _) = self.best(&kept, &kept_keys, self.k);
        if best.is_empty() {
            return Ok(Vec::new());
        }
        Ok(split_batch(best))
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
