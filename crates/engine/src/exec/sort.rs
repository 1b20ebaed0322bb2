//! Sort: gathers the input, evaluates the keys once, sorts row positions on their
//! normalized keys (sort_key.rs) and gathers every output column once.

use super::expression::evaluate;
use super::sort_key::sort_order;
use super::{BoxedOperator, ExecContext, Operator};
use crate::error::Result;
use crate::plan::SortKey;
use crate::types::PhysicalType;
use crate::vector::{concat_batches, split_batch, Batch};

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
            ctx.check_cancelled()?;
            let key_columns = self
                .keys
                .iter()
                .map(|k| evaluate(&k.expr, &batch, ctx))
                .collect::<Result<Vec<_>>>()?;
            let keys = Batch::new(key_columns, batch.len());
            ctx.memory
                .charge(batch.approximate_bytes() + keys.approximate_bytes())?;
            key_batches.push(keys);
            batches.push(batch);
        }
        let all = concat_batches(&self.physical, &batches)?;
        // The concatenated copy, and the sorted one made from it.
        ctx.memory.charge(2 * all.approximate_bytes())?;
        let key_physical: Vec<PhysicalType> =
            self.keys.iter().map(|k| k.expr.ty().physical()).collect();
        let keys = concat_batches(&key_physical, &key_batches)?;
        let order = sort_order(&self.keys, &keys.columns, all.len());
        Ok(split_batch(all.gather(&order)))
    }
}

impl Operator for SortExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.output.is_none() {
            self.output = Some(self.run(ctx)?.into_iter());
        }
        Ok(self.output.as_mut().and_then(|o| o.next()))
    }
}
