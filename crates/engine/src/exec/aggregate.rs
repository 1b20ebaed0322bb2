//! Hash aggregation: group keys are encoded into bytes and mapped to dense group ids; each
//! aggregate keeps typed per-group state updated a batch at a time. DISTINCT calls whose
//! result ignores order skip repeated (group, arguments) through a hash set; calls with an
//! ORDER BY (and order-sensitive DISTINCT calls, which the binder gives one) buffer their
//! rows and feed them sorted, duplicates dropped, when the input ends.

use std::sync::Arc;

use hashbrown::{HashMap, HashSet};

use super::expression::evaluate;
use super::filter::selected_rows;
use super::sort::compare_keys;
use super::{BoxedOperator, ExecContext, Operator};
use crate::error::Result;
use crate::function::aggregate::Accumulator;
use crate::function::compare::compare_rows;
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
        let mut calls = self
            .aggregates
            .iter()
            .map(CallState::new)
            .collect::<Result<Vec<_>>>()?;
        let mut keys: Vec<Vector> = self
            .group_by
            .iter()
            .map(|e| Vector::with_capacity(e.ty().physical(), 0))
            .collect();
        let mut group_ids: HashMap<Box<[u8]>, u32> = HashMap::new();
        let mut groups = if self.group_by.is_empty() { 1 } else { 0 };
        calls.iter_mut().for_each(|c| c.acc.resize(groups));
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
                calls.iter_mut().for_each(|c| c.acc.resize(groups));
            }
            for (state, call) in calls.iter_mut().zip(&self.aggregates) {
                state.update(call, &batch, &row_groups, ctx)?;
            }
        }
        let mut columns: Vec<Arc<Vector>> = keys.into_iter().map(Arc::new).collect();
        for (state, call) in calls.into_iter().zip(&self.aggregates) {
            columns.push(Arc::new(state.finish(call)?));
        }
        if groups == 0 {
            return Ok(Vec::new());
        }
        Ok(split_batch(Batch::new(columns, groups)))
    }
}

/// One aggregate call's run state.
struct CallState {
    acc: Accumulator,
    /// DISTINCT without ORDER BY: the (group, arguments) keys counted so far.
    seen: HashSet<Box<[u8]>>,
    /// With ORDER BY: every counted row, fed to `acc` sorted at the end.
    buffer: Option<OrderedRows>,
}

/// The rows an ordered aggregate call counts: group, arguments and sort keys.
struct OrderedRows {
    groups: Vec<u32>,
    args: Vec<Vector>,
    keys: Vec<Vector>,
}

impl CallState {
    fn new(call: &AggregateCall) -> Result<CallState> {
        let arg_type = call.args.first().map_or(call.ty, |e| e.ty());
        let buffer = (!call.order_by.is_empty()).then(|| OrderedRows {
            groups: Vec::new(),
            args: physical_vectors(call.args.iter()),
            keys: physical_vectors(call.order_by.iter().map(|k| &k.expr)),
        });
        Ok(CallState {
            acc: Accumulator::new(call.func, arg_type)?,
            seen: HashSet::new(),
            buffer,
        })
    }

    /// Takes in one input batch whose rows belong to `row_groups`.
    fn update(
        &mut self,
        call: &AggregateCall,
        batch: &Batch,
        row_groups: &[u32],
        ctx: &ExecContext,
    ) -> Result<()> {
        let args = call
            .args
            .iter()
            .map(|a| evaluate(a, batch, ctx))
            .collect::<Result<Vec<_>>>()?;
        let mut rows = match &call.filter {
            Some(filter) => Some(selected_rows(batch, filter, ctx)?),
            None => None,
        };
        if let Some(buffer) = &mut self.buffer {
            let keys = call
                .order_by
                .iter()
                .map(|k| evaluate(&k.expr, batch, ctx))
                .collect::<Result<Vec<_>>>()?;
            return buffer.push(row_groups, &args, &keys, rows.as_deref());
        }
        if call.distinct {
            let all = || (0..batch.len() as u32).collect();
            let mut candidates: Vec<u32> = rows.take().unwrap_or_else(all);
            let arg_refs: Vec<&Vector> = args.iter().map(|a| a.as_ref()).collect();
            let mut key = Vec::new();
            candidates.retain(|&row| {
                key.clear();
                key.extend_from_slice(&row_groups[row as usize].to_le_bytes());
                // Rows with a NULL argument are not counted anyway.
                !encode_row_key(&arg_refs, row as usize, &mut key)
                    && self.seen.insert(key.as_slice().into())
            });
            rows = Some(candidates);
        }
        match rows {
            None => {
                let arg_refs: Vec<&Vector> = args.iter().map(|a| a.as_ref()).collect();
                self.acc.update(row_groups, &arg_refs)
            }
            Some(rows) => {
                let groups: Vec<u32> = rows.iter().map(|&r| row_groups[r as usize]).collect();
                let gathered: Vec<Vector> = args.iter().map(|a| a.gather(&rows)).collect();
                let arg_refs: Vec<&Vector> = gathered.iter().collect();
                self.acc.update(&groups, &arg_refs)
            }
        }
    }

    fn finish(mut self, call: &AggregateCall) -> Result<Vector> {
        if let Some(buffer) = self.buffer.take() {
            buffer.feed(call, &mut self.acc)?;
        }
        self.acc.finish()
    }
}

fn physical_vectors<'a>(exprs: impl Iterator<Item = &'a ScalarExpr>) -> Vec<Vector> {
    exprs
        .map(|e| Vector::with_capacity(e.ty().physical(), 0))
        .collect()
}

impl OrderedRows {
    fn push(
        &mut self,
        row_groups: &[u32],
        args: &[Arc<Vector>],
        keys: &[Arc<Vector>],
        rows: Option<&[u32]>,
    ) -> Result<()> {
        let append = |targets: &mut Vec<Vector>, sources: &[Arc<Vector>]| {
            for (target, source) in targets.iter_mut().zip(sources) {
                match rows {
                    Some(rows) => target.extend(&source.gather(rows)),
                    None => target.extend(source),
                }
            }
        };
        append(&mut self.args, args);
        append(&mut self.keys, keys);
        match rows {
            Some(rows) => self
                .groups
                .extend(rows.iter().map(|&r| row_groups[r as usize])),
            None => self.groups.extend_from_slice(row_groups),
        }
        Ok(())
    }

    /// Sorts the rows by group and the call's ORDER BY, drops repeated argument tuples for
    /// DISTINCT, and feeds the rest to `acc` in that order.
    fn feed(self, call: &AggregateCall, acc: &mut Accumulator) -> Result<()> {
        let keys: Vec<Arc<Vector>> = self.keys.into_iter().map(Arc::new).collect();
        let mut order: Vec<u32> = (0..self.groups.len() as u32).collect();
        order.sort_by(|&a, &b| {
            let (a, b) = (a as usize, b as usize);
            self.groups[a]
                .cmp(&self.groups[b])
                .then_with(|| compare_keys(&call.order_by, &keys, a, b))
        });
        if call.distinct {
            let same_args = |a: usize, b: usize| {
                self.args
                    .iter()
                    .all(|v| match (v.is_valid(a), v.is_valid(b)) {
                        (true, true) => compare_rows(v, a, v, b).is_eq(),
                        (valid_a, valid_b) => valid_a == valid_b,
                    })
            };
            let mut previous: Option<usize> = None;
            order.retain(|&row| {
                let row = row as usize;
                let repeated = previous
                    .is_some_and(|p| self.groups[p] == self.groups[row] && same_args(p, row));
                previous = Some(row);
                !repeated
            });
        }
        let groups: Vec<u32> = order.iter().map(|&r| self.groups[r as usize]).collect();
        let args: Vec<Vector> = self.args.iter().map(|a| a.gather(&order)).collect();
        let arg_refs: Vec<&Vector> = args.iter().collect();
        acc.update(&groups, &arg_refs)
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
