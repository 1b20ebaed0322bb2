//! Sort: gathers the input, evaluates the keys once, sorts row positions.

use std::cmp::Ordering;
use std::sync::Arc;

use super::expression::evaluate;
use super::{BoxedOperator, ExecContext, Operator};
use crate::error::Result;
use crate::function::compare::compare_rows;
use crate::plan::SortKey;
use crate::types::PhysicalType;
use crate::vector::{concat_batches, split_batch, Batch, Vector};

pub struct SortExec {
    input: BoxedOperator,
    keys: Vec<SortKey>,
    physical: Vec<PhysicalType>,
    output: Option<std::vec::IntoIter<Batch>>,
}

impl SortExec {
    pub fn new(input: BoxedOperator, keys: Vec<SortKey>, physical: Vec<PhysicalType>) -> SortExec {
        SortExec {
            input,
            keys,
            physical,
            output: None,
        }
    }

    fn run(&mut self, ctx: &ExecContext) -> Result<Vec<Batch>> {
        let mut batches = Vec::new();
        let mut key_batches = Vec::new();
        while let Some(batch) = self.input.next(ctx)? {
            let key_columns = self
                .keys
                .iter()
                .map(|k| evaluate(&k.expr, &batch, ctx))
                .collect::<Result<Vec<_>>>()?;
            key_batches.push(Batch::new(key_columns, batch.len()));
            batches.push(batch);
        }
        let all = concat_batches(&self.physical, &batches);
        let key_physical: Vec<PhysicalType> =
            self.keys.iter().map(|k| k.expr.ty().physical()).collect();
        let keys = concat_batches(&key_physical, &key_batches);
        let mut order: Vec<u32> = (0..all.len() as u32).collect();
        order.sort_by(|&a, &b| compare_keys(&self.keys, &keys.columns, a as usize, b as usize));
        Ok(split_batch(all.gather(&order)))
    }
}

pub(super) fn compare_keys(
    keys: &[SortKey],
    columns: &[Arc<Vector>],
    a: usize,
    b: usize,
) -> Ordering {
    compare_key_rows(keys, columns, a, columns, b)
}

/// Order of row `a` of `left` and row `b` of `right` (the evaluated sort keys of two
/// batches) under `keys`.
pub(super) fn compare_key_rows(
    keys: &[SortKey],
    left: &[Arc<Vector>],
    a: usize,
    right: &[Arc<Vector>],
    b: usize,
) -> Ordering {
    for ((key, l), r) in keys.iter().zip(left).zip(right) {
        let ord = match (l.is_valid(a), r.is_valid(b)) {
            (true, true) => {
                let ord = compare_rows(l, a, r, b);
                if key.descending {
                    ord.reverse()
                } else {
                    ord
                }
            }
            (false, false) => Ordering::Equal,
            (false, true) => {
                if key.nulls_first {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }
            }
            (true, false) => {
                if key.nulls_first {
                    Ordering::Greater
                } else {
                    Ordering::Less
                }
            }
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    Ordering::Equal
}

impl Operator for SortExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.output.is_none() {
            self.output = Some(self.run(ctx)?.into_iter());
        }
        Ok(self.output.as_mut().and_then(|o| o.next()))
    }
}
