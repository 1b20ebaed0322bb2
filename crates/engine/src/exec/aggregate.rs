//! Hash aggregation: group keys are encoded into bytes and mapped to dense group ids; each
//! aggregate keeps typed per-group state updated a batch at a time. DISTINCT calls whose
//! result ignores order skip repeated (group, arguments) through a hash set; calls with an
//! ORDER BY (and order-sensitive DISTINCT calls, which the binder gives one) buffer their
//! rows and feed them sorted, duplicates dropped, when the input ends.

use std::sync::Arc;

use hashbrown::HashSet;

use super::aggregate_parallel::ParallelInput;
use super::expression::evaluate;
use super::filter::selected_rows;
use super::group_keys::Groups;
use super::sort_key::compare_keys;
use super::{BoxedOperator, ExecContext, Operator};
use crate::error::{Error, Result};
use crate::function::aggregate::Accumulator;
use crate::function::compare::compare_rows;
use crate::plan::{AggregateCall, ScalarExpr};
use crate::types::PhysicalType;
use crate::vector::{encode_row_key, split_batch, Batch, Vector, VectorData};

/// What an aggregation computes: the logical node's fields.
pub struct AggregateSpec {
    pub group_by: Vec<ScalarExpr>,
    pub aggregates: Vec<AggregateCall>,
    /// Key positions per grouping set; empty for one set of every key.
    pub grouping_sets: Vec<Vec<usize>>,
    /// Key positions each grouping() call tests, most significant bit first.
    pub grouping_calls: Vec<Vec<usize>>,
}

pub struct AggregateExec {
    input: BoxedOperator,
    spec: Arc<AggregateSpec>,
    /// The input as a parallel-safe pipeline whose partial aggregates merge exactly
    /// (`aggregate_parallel.rs`): the workers aggregate it when the session allows.
    parallel: Option<ParallelInput>,
    output: Option<std::vec::IntoIter<Batch>>,
}

impl AggregateExec {
    /// `parallel`: the plan of `input` when it may be aggregated in parallel.
    pub fn new(
        input: BoxedOperator,
        spec: AggregateSpec,
        parallel: Option<ParallelInput>,
    ) -> AggregateExec {
        AggregateExec {
            input,
            spec: Arc::new(spec),
            parallel,
            output: None,
        }
    }

    fn run(&mut self, ctx: &ExecContext) -> Result<Vec<Batch>> {
        if let Some(output) = self.parallel.as_ref().and_then(|p| p.run(ctx, &self.spec)) {
            return output;
        }
        let mut table = GroupTable::new(&self.spec, ctx)?;
        while let Some(batch) = self.input.next(ctx)? {
            ctx.check_cancelled()?;
            table.add_batch(&self.spec, &batch, ctx)?;
        }
        table.finish(&self.spec)
    }
}

/// An aggregation's groups and the state of each call, fed a batch at a time: the whole
/// run state of a serial aggregate, or one worker's partial table of a parallel one.
pub(super) struct GroupTable {
    /// Key positions per grouping set.
    sets: Vec<Vec<usize>>,
    pub(super) groups: Groups,
    calls: Vec<CallState>,
    /// Per set: the one group of a set without keys.
    empty_set_groups: Vec<Option<u32>>,
    /// Scratch: the group of each row of a batch.
    row_groups: Vec<u32>,
}

impl GroupTable {
    pub(super) fn new(spec: &AggregateSpec, ctx: &ExecContext) -> Result<GroupTable> {
        let sets: Vec<Vec<usize>> = if spec.grouping_sets.is_empty() {
            vec![(0..spec.group_by.len()).collect()]
        } else {
            spec.grouping_sets.clone()
        };
        let calls = spec
            .aggregates
            .iter()
            .map(|call| CallState::new(call, ctx))
            .collect::<Result<Vec<_>>>()?;
        let key_types: Vec<PhysicalType> =
            spec.group_by.iter().map(|e| e.ty().physical()).collect();
        let set_refs: Vec<&[usize]> = sets.iter().map(Vec::as_slice).collect();
        let mut groups = Groups::new(&key_types, &set_refs);
        // A set without keys has its one group (and output row) even on empty input.
        let empty_set_groups: Vec<Option<u32>> = sets
            .iter()
            .enumerate()
            .map(|(set, keys)| keys.is_empty().then(|| groups.add_absent(set)))
            .collect();
        Ok(GroupTable {
            sets,
            groups,
            calls,
            empty_set_groups,
            row_groups: Vec::new(),
        })
    }

    /// Adds the rows of `batch` to their groups, creating groups as needed.
    pub(super) fn add_batch(
        &mut self,
        spec: &AggregateSpec,
        batch: &Batch,
        ctx: &ExecContext,
    ) -> Result<()> {
        let key_values = evaluate_keys(spec, batch, ctx)?;
        let inputs = spec
            .aggregates
            .iter()
            .map(|call| CallInput::evaluate(call, batch, ctx))
            .collect::<Result<Vec<_>>>()?;
        let groups_before = self.groups.len();
        for (set, keys) in self.sets.iter().enumerate() {
            self.row_groups.clear();
            match self.empty_set_groups[set] {
                Some(id) => self.row_groups.resize(batch.len(), id),
                None => {
                    self.groups
                        .assign(set, keys, &key_values, batch.len(), &mut self.row_groups)?
                }
            }
            for ((state, call), input) in self.calls.iter_mut().zip(&spec.aggregates).zip(&inputs) {
                state.acc.resize(self.groups.len());
                state.update(call, input, &self.row_groups, self.empty_set_groups[set])?;
            }
        }
        ctx.memory.charge(kept_bytes(
            spec,
            &inputs,
            &key_values,
            self.groups.len() - groups_before,
            batch.len(),
        ))
    }

    /// Folds the groups `from` of `other`, a table of the same aggregation over other rows,
    /// into this one. Only for one grouping set and calls whose states merge exactly
    /// (`AggregateFunction::merges_exactly`), and `other`'s states sized to its groups.
    pub(super) fn merge(&mut self, other: &GroupTable, from: &[u32]) -> Result<()> {
        let mut into = Vec::with_capacity(from.len());
        match (self.sets.as_slice(), self.empty_set_groups.as_slice()) {
            ([_], [Some(id)]) => into.resize(from.len(), *id),
            ([keys], [None]) => {
                let key_values: Vec<Arc<Vector>> = other
                    .groups
                    .keys
                    .iter()
                    .map(|key| Arc::new(key.gather(from)))
                    .collect();
                self.groups
                    .assign(0, keys, &key_values, from.len(), &mut into)?;
            }
            _ => return Err(Error::internal("merging tables of several grouping sets")),
        }
        for (ours, theirs) in self.calls.iter_mut().zip(&other.calls) {
            ours.acc.resize(self.groups.len());
            ours.acc.merge(&theirs.acc, from, &into)?;
        }
        Ok(())
    }

    /// Sizes every call's state to the groups: a set without keys has its group before
    /// any row sized the states, and a table other threads merge from is read-only.
    pub(super) fn size_states(&mut self) {
        for state in &mut self.calls {
            state.acc.resize(self.groups.len());
        }
    }

    /// The output rows: every group's keys, aggregates and grouping() masks, in group
    /// order.
    pub(super) fn finish(self, spec: &AggregateSpec) -> Result<Vec<Batch>> {
        let group_count = self.groups.len();
        let mut columns: Vec<Vector> = self.groups.keys;
        for (mut state, call) in self.calls.into_iter().zip(&spec.aggregates) {
            state.acc.resize(group_count);
            columns.push(state.finish(call)?);
        }
        for tested in &spec.grouping_calls {
            let masks = self
                .groups
                .set_of_group
                .iter()
                .map(|&set| grouping_mask(tested, &self.sets[set as usize]))
                .collect();
            columns.push(Vector::new(VectorData::Int32(masks), None));
        }
        if group_count == 0 {
            return Ok(Vec::new());
        }
        let columns = columns.into_iter().map(Arc::new).collect();
        Ok(split_batch(Batch::new(columns, group_count)))
    }
}

/// The GROUP BY key values of the rows of `batch`.
pub(super) fn evaluate_keys(
    spec: &AggregateSpec,
    batch: &Batch,
    ctx: &ExecContext,
) -> Result<Vec<Arc<Vector>>> {
    spec.group_by
        .iter()
        .map(|e| evaluate(e, batch, ctx))
        .collect()
}

/// grouping(): bit i (counting from the last argument) is set when that key is not in the
/// group's set.
fn grouping_mask(tested: &[usize], set: &[usize]) -> i32 {
    tested
        .iter()
        .fold(0, |mask, key| (mask << 1) | i32::from(!set.contains(key)))
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
    fn new(call: &AggregateCall, ctx: &ExecContext) -> Result<CallState> {
        let arg_type = call.args.first().map_or(call.ty, |e| e.ty());
        let buffer = (!call.order_by.is_empty()).then(|| OrderedRows {
            groups: Vec::new(),
            args: physical_vectors(call.args.iter()),
            keys: physical_vectors(call.order_by.iter().map(|k| &k.expr)),
        });
        let mut acc = Accumulator::new(call.func, arg_type)?;
        // An ordered-set aggregate's direct arguments read no column (the binder checks):
        // evaluated once, they also decide the result of a group without rows. They follow
        // its WITHIN GROUP values.
        if call.func.is_ordered_set() {
            let one_row = Batch::new(Vec::new(), 1);
            let values = call.args[call.order_by.len()..]
                .iter()
                .map(|direct| Ok(evaluate(direct, &one_row, ctx)?.as_ref().clone()))
                .collect::<Result<Vec<Vector>>>()?;
            let order = call
                .order_by
                .iter()
                .map(|k| (k.descending, k.nulls_first))
                .collect();
            acc.set_direct_arguments(values, order)?;
        }
        Ok(CallState {
            acc,
            seen: HashSet::new(),
            buffer,
        })
    }

    /// Takes in one evaluated input batch whose rows belong to `row_groups`; `one_group` when
    /// they all belong to that one (a grouping set without keys).
    fn update(
        &mut self,
        call: &AggregateCall,
        input: &CallInput,
        row_groups: &[u32],
        one_group: Option<u32>,
    ) -> Result<()> {
        let mut rows = input.rows.clone();
        if let Some(buffer) = &mut self.buffer {
            return buffer.push(row_groups, &input.args, &input.keys, rows.as_deref());
        }
        if call.distinct {
            let all = || (0..row_groups.len() as u32).collect();
            let mut candidates: Vec<u32> = rows.take().unwrap_or_else(all);
            let arg_refs: Vec<&Vector> = input.args.iter().map(|a| a.as_ref()).collect();
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
                let arg_refs: Vec<&Vector> = input.args.iter().map(|a| a.as_ref()).collect();
                if let Some(group) = one_group {
                    if self
                        .acc
                        .update_one_group(group as usize, row_groups.len(), &arg_refs)?
                    {
                        return Ok(());
                    }
                }
                self.acc.update(row_groups, &arg_refs)
            }
            Some(rows) => {
                let groups: Vec<u32> = rows.iter().map(|&r| row_groups[r as usize]).collect();
                let gathered: Vec<Vector> = input.args.iter().map(|a| a.gather(&rows)).collect();
                let arg_refs: Vec<&Vector> = gathered.iter().collect();
                if let Some(group) = one_group {
                    if self
                        .acc
                        .update_one_group(group as usize, rows.len(), &arg_refs)?
                    {
                        return Ok(());
                    }
                }
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

/// One aggregate call's view of an input batch, evaluated once for every grouping set:
/// its arguments, its ORDER BY keys and the rows its FILTER keeps (`None`: all).
/// About how much working memory one input batch added: its new groups (keys and a state
/// per call) and the arguments of the calls that keep their inputs (string_agg,
/// array_agg, DISTINCT or ORDER BY calls).
fn kept_bytes(
    spec: &AggregateSpec,
    inputs: &[CallInput],
    key_values: &[Arc<Vector>],
    new_groups: usize,
    rows: usize,
) -> usize {
    const GROUP_STATE_BYTES: usize = 32;
    let key_bytes: usize = key_values.iter().map(|k| k.approximate_bytes()).sum();
    let per_group = key_bytes / rows.max(1) + GROUP_STATE_BYTES * (1 + spec.aggregates.len());
    let kept_arguments: usize = spec
        .aggregates
        .iter()
        .zip(inputs)
        .filter(|(call, _)| {
            call.func.keeps_its_inputs() || call.distinct || !call.order_by.is_empty()
        })
        .flat_map(|(_, input)| input.args.iter().chain(&input.keys))
        .map(|v| v.approximate_bytes())
        .sum();
    new_groups * per_group + kept_arguments
}

struct CallInput {
    args: Vec<Arc<Vector>>,
    keys: Vec<Arc<Vector>>,
    rows: Option<Vec<u32>>,
}

impl CallInput {
    fn evaluate(call: &AggregateCall, batch: &Batch, ctx: &ExecContext) -> Result<CallInput> {
        let evaluate_all = |exprs: &mut dyn Iterator<Item = &ScalarExpr>| {
            exprs
                .map(|e| evaluate(e, batch, ctx))
                .collect::<Result<Vec<_>>>()
        };
        Ok(CallInput {
            args: evaluate_all(&mut call.args.iter())?,
            keys: evaluate_all(&mut call.order_by.iter().map(|k| &k.expr))?,
            rows: match &call.filter {
                Some(filter) => Some(selected_rows(batch, filter, ctx)?),
                None => None,
            },
        })
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
                    Some(rows) => target.extend(&source.gather(rows))?,
                    None => target.extend(source)?,
                }
            }
            Ok::<(), crate::error::Error>(())
        };
        append(&mut self.args, args)?;
        append(&mut self.keys, keys)?;
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
