//! Hash aggregation: group keys are encoded into bytes and mapped to dense group ids; each
//! aggregate keeps typed per-group state updated a batch at a time.

use std::sync::Arc;

use hashbrown::{HashMap, HashSet};

use super::expression::evaluate;
use super::filter::selected_rows;
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
        let mut distinct_seen: Vec<HashSet<Box<[u8]>>> =
            self.aggregates.iter().map(|_| HashSet::new()).collect();
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
            for ((acc, call), seen) in accumulators
                .iter_mut()
                .zip(&self.aggregates)
                .zip(&mut distinct_seen)
            {
                let input = match &call.arg {
                    Some(arg) => Some(evaluate(arg, &batch, ctx)?),
                    None => None,
                };
                match counted_rows(call, &batch, input.as_deref(), &row_groups, seen, ctx)? {
                    None => acc.update(&row_groups, input.as_deref(), batch.len())?,
                    Some(rows) => {
                        let groups: Vec<u32> =
                            rows.iter().map(|&r| row_groups[r as usize]).collect();
                        let input = input.map(|v| v.gather(&rows));
                        acc.update(&groups, input.as_ref(), rows.len())?;
                    }
                }
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

/// The rows of `batch` an aggregate call takes in, when not all: those passing its FILTER,
/// and for DISTINCT only the first occurrence of each (group, value).
fn counted_rows(
    call: &AggregateCall,
    batch: &Batch,
    input: Option<&Vector>,
    row_groups: &[u32],
    seen: &mut HashSet<Box<[u8]>>,
    ctx: &ExecContext,
) -> Result<Option<Vec<u32>>> {
    if call.filter.is_none() && !call.distinct {
        return Ok(None);
    }
    let mut rows = match &call.filter {
        Some(filter) => selected_rows(batch, filter, ctx)?,
        None => (0..batch.len() as u32).collect(),
    };
    if let (true, Some(input)) = (call.distinct, input) {
        let mut key = Vec::new();
        rows.retain(|&row| {
            key.clear();
            key.extend_from_slice(&row_groups[row as usize].to_le_bytes());
            if encode_row_key(&[input], row as usize, &mut key) {
                return false; // NULLs are not counted anyway.
            }
            if seen.contains(key.as_slice()) {
                return false;
            }
            seen.insert(key.as_slice().into());
            true
        });
    }
    Ok(Some(rows))
}

impl Operator for AggregateExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.output.is_none() {
            self.output = Some(self.run(ctx)?.into_iter());
        }
        Ok(self.output.as_mut().and_then(|o| o.next()))
    }
}
