//! Hash aggregation: group keys are encoded into bytes and mapped to dense group ids; each
//! aggregate keeps typed per-group state updated a batch at a time.

use std::sync::Arc;

use hashbrown::HashMap;

use super::expression::evaluate;
use super::{BoxedOperator, ExecContext, Operator};
use crate::error::Result;
use crate::function::aggregate::Accumulator;
use crate::plan::{AggregateCall, ScalarExpr};
use crate::vector::{encode_row_key, split_batch, Batch, Vector};

pub struct AggregateExec {
    input: BoxedOperator,
    group_by: Vec<ScalarExpr>,
    aggregates: Vec<AggregateCall>,
    output: Option<std::vec::IntoIter<Batch>>,
}

impl AggregateExec {
    pub fn new(
        input: BoxedOperator,
        group_by: Vec<ScalarExpr>,
        aggregates: Vec<AggregateCall>,
    ) -> AggregateExec {
        AggregateExec {
            input,
            group_by,
            aggregates,
            output: None,
        }
    }

    fn run(&mut self, ctx: &ExecContext) -> Result<Vec<Batch>> {
        let mut accumulators = self
            .aggregates
            .iter()
            .map(|a| Accumulator::new(a.func, a.arg.as_ref().map_or(a.ty, |e| e.ty())))
            .collect::<Result<Vec<_>>>()?;
        let mut keys: Vec<Vector> = self
            .group_by
            .iter()
            .map(|e| Vector::with_capacity(e.ty().physical(), 0))
            .collect();
        let mut group_ids: HashMap<Box<[u8]>, u32> = HashMap::new();
        let mut groups = if self.group_by.is_empty() { 1 } else { 0 };
        accumulators.iter_mut().for_each(|a| a.resize(groups));
        let mut row_groups: Vec<u32> = Vec::new();
        let mut key_buf = Vec::new();
        while let Some(batch) = self.input.next(ctx)? {
            row_groups.clear();
            if self.group_by.is_empty() {
                row_groups.resize(batch.len(), 0);
            } else {
                let key_values = self
                    .group_by
                    .iter()
                    .map(|e| evaluate(e, &batch, ctx))
                    .collect::<Result<Vec<_>>>()?;
                let key_refs: Vec<&Vector> = key_values.iter().map(|v| v.as_ref()).collect();
                for row in 0..batch.len() {
                    key_buf.clear();
                    encode_row_key(&key_refs, row, &mut key_buf);
                    let id = match group_ids.get(key_buf.as_slice()) {
                        Some(&id) => id,
                        None => {
                            let id = groups as u32;
                            groups += 1;
                            group_ids.insert(key_buf.as_slice().into(), id);
                            for (key, source) in keys.iter_mut().zip(&key_refs) {
                                key.push_from(source, row);
                            }
                            id
                        }
                    };
                    row_groups.push(id);
                }
                accumulators.iter_mut().for_each(|a| a.resize(groups));
            }
            for (acc, call) in accumulators.iter_mut().zip(&self.aggregates) {
                let input = match &call.arg {
                    Some(arg) => Some(evaluate(arg, &batch, ctx)?),
                    None => None,
                };
                acc.update(&row_groups, input.as_deref(), batch.len())?;
            }
        }
        let mut columns: Vec<Arc<Vector>> = keys.into_iter().map(Arc::new).collect();
        for acc in accumulators {
            columns.push(Arc::new(acc.finish()?));
        }
        if groups == 0 {
            return Ok(Vec::new());
        }
        Ok(split_batch(Batch::new(columns, groups)))
    }
}

impl Operator for AggregateExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.output.is_none() {
            self.output = Some(self.run(ctx)?.into_iter());
        }
        Ok(self.output.as_mut().and_then(|o| o.next()))
    }
}
