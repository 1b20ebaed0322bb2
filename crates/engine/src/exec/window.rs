//! Window functions: the input is gathered once; for each distinct (PARTITION BY, ORDER BY)
//! the rows are sorted once, split into partitions and peer groups, and every call over that
//! window is computed from the sorted positions, then put back in input order.

use std::cmp::Ordering;
use std::sync::Arc;

use super::expression::evaluate;
use super::sort_key::sort_order;
use super::window_frame::{frame_pieces, frames};
use super::window_sliding::sliding_aggregate;
use super::{materialize, BoxedOperator, ExecContext, Operator};
use crate::error::{Error, Result, SqlState};
use crate::function::aggregate::Accumulator;
use crate::function::compare::compare_rows;
use crate::function::{AggregateFunction, WindowFunction};
use crate::plan::{FrameBound, FrameExclusion, ScalarExpr, SortKey, WindowCall};
use crate::types::{PhysicalType, ScalarValue};
use crate::vector::{concat_batches, split_batch, Batch, Vector, VectorData, NULL_ROW};

pub struct WindowExec {
    input: BoxedOperator,
    calls: Vec<WindowCall>,
    /// See `LogicalPlan::Window`.
    output_order: Vec<usize>,
    input_types: Vec<PhysicalType>,
    output: Option<std::vec::IntoIter<Batch>>,
}

impl WindowExec {
    pub fn new(
        input: BoxedOperator,
        calls: Vec<WindowCall>,
        output_order: Vec<usize>,
        input_types: Vec<PhysicalType>,
    ) -> WindowExec {
        WindowExec {
            input,
            calls,
            output_order,
            input_types,
            output: None,
        }
    }

    fn run(&mut self, ctx: &ExecContext) -> Result<Vec<Batch>> {
        let batches = materialize(self.input.as_mut(), ctx)?;
        let all = concat_batches(&self.input_types, &batches)?;
        // The concatenated copy, and the window columns computed next, are as large again.
        ctx.memory.charge(2 * all.approximate_bytes())?;
        let mut columns = all.columns.clone();
        let mut layouts: Vec<(Vec<ScalarExpr>, Vec<SortKey>, Arc<Layout>)> = Vec::new();
        let mut call_layouts = Vec::with_capacity(self.calls.len());
        for call in &self.calls {
            ctx.check_cancelled()?;
            let cached = layouts
                .iter()
                .find(|(p, o, _)| *p == call.partition_by && *o == call.order_by)
                .map(|(_, _, l)| l.clone());
            let layout = match cached {
                Some(layout) => layout,
                None => {
                    let layout =
                        Arc::new(Layout::new(&all, &call.partition_by, &call.order_by, ctx)?);
                    layouts.push((
                        call.partition_by.clone(),
                        call.order_by.clone(),
                        layout.clone(),
                    ));
                    layout
                }
            };
            call_layouts.push(layout.clone());
            let args = call
                .args
                .iter()
                .map(|a| evaluate(a, &all, ctx))
                .collect::<Result<Vec<_>>>()?;
            let filter = match &call.filter {
                Some(filter) => Some(passing_rows(evaluate(filter, &all, ctx)?.as_ref())?),
                None => None,
            };
            let inputs = CallInputs {
                args: &args,
                filter: filter.as_deref(),
            };
            columns.push(Arc::new(compute(call, &layout, inputs, ctx)?));
        }
        if all.is_empty() {
            return Ok(Vec::new());
        }
        let output = Batch::new(columns, all.len());
        Ok(split_batch(
            match self.output_rows(&all, &call_layouts, ctx)? {
                Some(rows) => output.gather(&rows),
                None => output,
            },
        ))
    }

    /// The input rows in output order (`None`: input order): each window of `output_order`
    /// sorts stably what the one before it left, as PostgreSQL's stacked WindowAggs and their
    /// sorts do (where PostgreSQL finds its input presorted, a stable sort keeps it too).
    fn output_rows(
        &self,
        all: &Batch,
        layouts: &[Arc<Layout>],
        ctx: &ExecContext,
    ) -> Result<Option<Vec<u32>>> {
        let mut rows: Option<Vec<u32>> = None;
        let mut sorted_by: Option<&WindowCall> = None;
        for &index in &self.output_order {
            let call = &self.calls[index];
            let same_sort = sorted_by.is_some_and(|s| {
                s.partition_by == call.partition_by && s.order_by == call.order_by
            });
            if same_sort || (call.partition_by.is_empty() && call.order_by.is_empty()) {
                continue;
            }
            sorted_by = Some(call);
            rows = Some(match rows {
                None => layouts[index].order.clone(),
                Some(rows) => {
                    let keys = window_keys(&call.partition_by, &call.order_by);
                    let order = sorted_rows(&all.gather(&rows), &keys, ctx)?;
                    order.iter().map(|&i| rows[i as usize]).collect()
                }
            });
        }
        Ok(rows)
    }
}

/// A window's sort: PARTITION BY (ascending, NULLs last, as PostgreSQL sorts it), then
/// ORDER BY.
fn window_keys(partition_by: &[ScalarExpr], order_by: &[SortKey]) -> Vec<SortKey> {
    partition_by
        .iter()
        .map(|e| SortKey {
            expr: e.clone(),
            descending: false,
            nulls_first: false,
        })
        .chain(order_by.iter().cloned())
        .collect()
}

/// The rows of `batch` sorted by `keys`, ties in input order.
fn sorted_rows(batch: &Batch, keys: &[SortKey], ctx: &ExecContext) -> Result<Vec<u32>> {
    let columns = keys
        .iter()
        .map(|k| evaluate(&k.expr, batch, ctx))
        .collect::<Result<Vec<_>>>()?;
    Ok(sort_order(keys, &columns, batch.len()))
}

impl Operator for WindowExec {
    fn next(&mut self, ctx: &ExecContext) -> Result<Option<Batch>> {
        if self.output.is_none() {
            self.output = Some(self.run(ctx)?.into_iter());
        }
        Ok(self.output.as_mut().and_then(|o| o.next()))
    }
}

/// The rows in window order, with each position's partition and peer group.
pub(super) struct Layout {
    /// Input row at each sorted position.
    pub(super) order: Vec<u32>,
    /// Per position: start and end (exclusive) of its partition and of its peer group.
    pub(super) partition: Vec<(usize, usize)>,
    pub(super) peers: Vec<(usize, usize)>,
    /// Per position: index of its peer group within the partition.
    pub(super) group_index: Vec<usize>,
    /// Per partition start: where each of its peer groups starts.
    group_starts: Vec<Vec<usize>>,
    /// The ORDER BY key by input row when there is exactly one: RANGE offsets measure it.
    pub(super) range_key: Option<Arc<Vector>>,
}

/// Sets `changed[pos]` where the row at sorted position `pos` differs from the one before it
/// in `column` (two NULLs are equal, as peers). One typed pass per key column instead of a
/// comparator call per row and column.
fn mark_changes(column: &Vector, order: &[u32], changed: &mut [bool]) {
    let mut differs = vec![false; changed.len()];
    column_changes(column, order, &mut differs);
    for (changed, differs) in changed.iter_mut().zip(differs) {
        *changed |= differs;
    }
}

/// `changed[pos]`: the row at `pos` differs from the one before it in `column` alone.
fn column_changes(column: &Vector, order: &[u32], changed: &mut [bool]) {
    fn typed<T: PartialEq>(values: &[T], order: &[u32], changed: &mut [bool]) {
        for (pos, pair) in order.windows(2).enumerate() {
            changed[pos + 1] = values[pair[0] as usize] != values[pair[1] as usize];
        }
    }
    match &column.data {
        VectorData::Bool(v) => typed(v, order, changed),
        VectorData::Int16(v) => typed(v, order, changed),
        VectorData::Int32(v) | VectorData::Date(v) => typed(v, order, changed),
        VectorData::Int64(v)
        | VectorData::Timestamp(v)
        | VectorData::TimestampTz(v)
        | VectorData::Time(v)
        | VectorData::TimeTz(v) => typed(v, order, changed),
        VectorData::Text(strings) => {
            for (pos, pair) in order.windows(2).enumerate() {
                changed[pos + 1] =
                    strings.get_bytes(pair[0] as usize) != strings.get_bytes(pair[1] as usize);
            }
        }
        VectorData::Bytes(values) => {
            for (pos, pair) in order.windows(2).enumerate() {
                changed[pos + 1] = values.get(pair[0] as usize) != values.get(pair[1] as usize);
            }
        }
        VectorData::Uuid(v) => typed(v, order, changed),
        VectorData::Inet(v) => typed(v, order, changed),
        // Floats (-0 = 0, NaN = NaN), NUMERIC by value, intervals, arrays: the comparator.
        VectorData::Float32(_)
        | VectorData::Float64(_)
        | VectorData::Numeric(_)
        | VectorData::Interval(_)
        | VectorData::Jsonb(_)
        | VectorData::List(_)
        | VectorData::Struct(_)
        | VectorData::FloatVector(_) => {
            for (pos, pair) in order.windows(2).enumerate() {
                let (a, b) = (pair[0] as usize, pair[1] as usize);
                changed[pos + 1] = column.is_valid(a)
                    && column.is_valid(b)
                    && compare_rows(column, a, column, b) != Ordering::Equal;
            }
        }
    }
    // Values under NULLs are meaningless: NULL vs value differs, NULL vs NULL does not.
    if column.validity.is_some() {
        for (pos, pair) in order.windows(2).enumerate() {
            let (a, b) = (
                column.is_valid(pair[0] as usize),
                column.is_valid(pair[1] as usize),
            );
            changed[pos + 1] = match (a, b) {
                (true, true) => changed[pos + 1],
                (false, false) => false,
                _ => true,
            };
        }
    }
}

impl Layout {
    fn new(
        all: &Batch,
        partition_by: &[ScalarExpr],
        order_by: &[SortKey],
        ctx: &ExecContext,
    ) -> Result<Layout> {
        let n = all.len();
        let keys = window_keys(partition_by, order_by);
        let key_columns = keys
            .iter()
            .map(|k| evaluate(&k.expr, all, ctx))
            .collect::<Result<Vec<_>>>()?;
        let order = sort_order(&keys, &key_columns, n);
        let (part_cols, order_cols) = key_columns.split_at(partition_by.len());
        let mut layout = Layout {
            order,
            partition: vec![(0, 0); n],
            peers: vec![(0, 0); n],
            group_index: vec![0; n],
            group_starts: Vec::new(),
            range_key: match order_cols {
                [key] => Some(key.clone()),
                _ => None,
            },
        };
        // Where a partition starts, and where a peer group starts (a new partition or a
        // change in an ORDER BY key).
        let mut new_partition = vec![false; n];
        for column in part_cols {
            mark_changes(column, &layout.order, &mut new_partition);
        }
        let mut new_group = new_partition.clone();
        for column in order_cols {
            mark_changes(column, &layout.order, &mut new_group);
        }
        let mut start = 0;
        while start < n {
            let mut end = start + 1;
            while end < n && !new_partition[end] {
                end += 1;
            }
            let mut starts = Vec::new();
            let mut g = start;
            while g < end {
                let mut g_end = g + 1;
                while g_end < end && !new_group[g_end] {
                    g_end += 1;
                }
                for pos in g..g_end {
                    layout.partition[pos] = (start, end);
                    layout.peers[pos] = (g, g_end);
                    layout.group_index[pos] = starts.len();
                }
                starts.push(g);
                g = g_end;
            }
            layout.group_starts.push(starts);
            start = end;
        }
        Ok(layout)
    }

    pub(super) fn groups_of(&self, pos: usize) -> &[usize] {
        let (start, _) = self.partition[pos];
        let index = self
            .group_starts
            .partition_point(|g| g.first().is_some_and(|&s| s < start));
        self.group_starts.get(index).map_or(&[], |g| g.as_slice())
    }
}

/// The call's value for every input row, in input order.
/// A call's evaluated arguments by input row, and for an aggregate with FILTER whether each
/// input row passes it.
#[derive(Clone, Copy)]
struct CallInputs<'a> {
    args: &'a [Arc<Vector>],
    filter: Option<&'a [bool]>,
}

/// FILTER (WHERE ...) per row: NULL rejects, as in WHERE.
fn passing_rows(condition: &Vector) -> Result<Vec<bool>> {
    let VectorData::Bool(values) = &condition.data else {
        return Err(Error::internal("FILTER condition is not boolean"));
    };
    Ok(values
        .iter()
        .enumerate()
        .map(|(row, &pass)| pass && condition.is_valid(row))
        .collect())
}

fn compute(
    call: &WindowCall,
    layout: &Layout,
    inputs: CallInputs,
    ctx: &ExecContext,
) -> Result<Vector> {
    let args = inputs.args;
    // PostgreSQL evaluates the frame offsets (and rejects NULL ones) for every call, even
    // one that ignores its frame.
    let frames = frames(call, layout, ctx)?;
    let n = layout.order.len();
    let scatter_i64 = |value: &dyn Fn(usize) -> i64| {
        let mut out = vec![0i64; n];
        for pos in 0..n {
            out[layout.order[pos] as usize] = value(pos);
        }
        Vector::new(VectorData::Int64(out), None)
    };
    let scatter_f64 = |value: &dyn Fn(usize) -> f64| {
        let mut out = vec![0f64; n];
        for pos in 0..n {
            out[layout.order[pos] as usize] = value(pos);
        }
        Vector::new(VectorData::Float64(out), None)
    };
    Ok(match call.func {
        WindowFunction::RowNumber => scatter_i64(&|pos| (pos - layout.partition[pos].0 + 1) as i64),
        WindowFunction::Rank => {
            scatter_i64(&|pos| (layout.peers[pos].0 - layout.partition[pos].0 + 1) as i64)
        }
        WindowFunction::DenseRank => scatter_i64(&|pos| layout.group_index[pos] as i64 + 1),
        WindowFunction::PercentRank => scatter_f64(&|pos| {
            let (ps, pe) = layout.partition[pos];
            if pe - ps <= 1 {
                0.0
            } else {
                (layout.peers[pos].0 - ps) as f64 / (pe - ps - 1) as f64
            }
        }),
        WindowFunction::CumeDist => scatter_f64(&|pos| {
            let (ps, pe) = layout.partition[pos];
            (layout.peers[pos].1 - ps) as f64 / (pe - ps) as f64
        }),
        WindowFunction::Ntile => ntile(layout, &args[0])?,
        WindowFunction::Lag | WindowFunction::Lead => lag_lead(call, layout, args)?,
        WindowFunction::FirstValue | WindowFunction::LastValue | WindowFunction::NthValue => {
            frame_value(call, layout, &frames, args)?
        }
        WindowFunction::Aggregate(func) => aggregate(call, func, layout, &frames, inputs)?,
    })
}

fn int_arg(arg: &Vector, row: usize) -> Option<i64> {
    match arg.get_scalar(row) {
        ScalarValue::Int32(v) => Some(v as i64),
        ScalarValue::Int64(v) => Some(v),
        _ => None,
    }
}

fn ntile(layout: &Layout, buckets: &Vector) -> Result<Vector> {
    let n = layout.order.len();
    let mut out = Vector::with_capacity(PhysicalType::Int32, n);
    let mut values: Vec<Option<i32>> = vec![None; n];
    for pos in 0..n {
        let row = layout.order[pos] as usize;
        let Some(k) = int_arg(buckets, row) else {
            continue;
        };
        if k <= 0 {
            return Err(Error::new(
                SqlState::InvalidArgumentForNtile,
                "argument of ntile must be greater than zero",
            ));
        }
        let (ps, pe) = layout.partition[pos];
        let (size, k, i) = ((pe - ps) as i64, k, (pos - ps) as i64);
        // The first size % k buckets hold one row more.
        let small = size / k;
        let extra = size % k;
        let bucket = if i < extra * (small + 1) {
            i / (small + 1)
        } else {
            extra + (i - extra * (small + 1)) / small.max(1)
        };
        values[row] = Some(bucket as i32 + 1);
    }
    for value in values {
        match value {
            Some(v) => out.push_scalar(&ScalarValue::Int32(v)),
            None => {
                out.push_null();
                Ok(())
            }
        }?;
    }
    Ok(out)
}

fn lag_lead(call: &WindowCall, layout: &Layout, args: &[Arc<Vector>]) -> Result<Vector> {
    let n = layout.order.len();
    let sign: i64 = if call.func == WindowFunction::Lag {
        -1
    } else {
        1
    };
    let value = &args[0];
    let mut out = Vector::with_capacity(call.ty.physical(), n);
    let mut picks: Vec<Option<(bool, usize)>> = vec![None; n];
    for pos in 0..n {
        let row = layout.order[pos] as usize;
        let offset = match args.get(1) {
            Some(o) => match int_arg(o, row) {
                Some(o) => o,
                None => continue,
            },
            None => 1,
        };
        let (ps, pe) = layout.partition[pos];
        let target = pos as i64 + sign * offset;
        picks[row] = if target >= ps as i64 && target < pe as i64 {
            Some((true, layout.order[target as usize] as usize))
        } else {
            args.get(2).map(|_| (false, row))
        };
    }
    for pick in picks {
        match pick {
            Some((true, row)) => out.push_from(value, row),
            Some((false, row)) => out.push_from(&args[2], row),
            None => {
                out.push_null();
                Ok(())
            }
        }?;
    }
    Ok(out)
}

fn frame_value(
    call: &WindowCall,
    layout: &Layout,
    frames: &[(usize, usize)],
    args: &[Arc<Vector>],
) -> Result<Vector> {
    let mut sources = vec![NULL_ROW; layout.order.len()];
    for (pos, &frame) in frames.iter().enumerate() {
        let row = layout.order[pos] as usize;
        let pieces = frame_pieces(frame, pos, layout.peers[pos], call.frame.exclusion);
        let mut positions = pieces.iter().flat_map(|&(s, e)| s..e);
        let index = match call.func {
            WindowFunction::FirstValue => positions.next(),
            WindowFunction::LastValue => positions.next_back(),
            _ => match args.get(1).and_then(|a| int_arg(a, row)) {
                Some(k) if k <= 0 => {
                    return Err(Error::new(
                        SqlState::InvalidArgumentForNthValue,
                        "argument of nth_value must be greater than zero",
                    ))
                }
                Some(k) => usize::try_from(k - 1).ok().and_then(|k| positions.nth(k)),
                None => None,
            },
        };
        if let Some(index) = index {
            sources[row] = layout.order[index];
        }
    }
    Ok(args[0].gather_or_null(&sources))
}

fn aggregate(
    call: &WindowCall,
    func: AggregateFunction,
    layout: &Layout,
    frames: &[(usize, usize)],
    inputs: CallInputs,
) -> Result<Vector> {
    let args = inputs.args;
    let n = layout.order.len();
    let func = if args.is_empty() {
        AggregateFunction::CountStar
    } else {
        func
    };
    // A frame that grows from the partition start with nothing excluded is aggregated
    // incrementally below; a moving one slides where the aggregate allows it; any other
    // frame is aggregated afresh.
    let running = call.frame.start == FrameBound::UnboundedPreceding
        && call.frame.exclusion == FrameExclusion::NoOthers;
    if !running && inputs.filter.is_none() {
        if let Some(out) = sliding_aggregate(call, func, layout, frames, args)? {
            return Ok(out);
        }
    }
    let arg_type = call.args.first().map_or(call.ty, |a| a.ty());
    let mut values: Vec<ScalarValue> = vec![ScalarValue::Null; n];
    let fresh = || -> Result<Accumulator> {
        let mut acc = Accumulator::new(func, arg_type)?;
        acc.resize(1);
        Ok(acc)
    };
    let add = |acc: &mut Accumulator, (start, end): (usize, usize)| -> Result<()> {
        if end > start {
            let passing: Vec<u32>;
            let rows = match inputs.filter {
                None => &layout.order[start..end],
                Some(pass) => {
                    passing = layout.order[start..end]
                        .iter()
                        .copied()
                        .filter(|&row| pass[row as usize])
                        .collect();
                    &passing
                }
            };
            let inputs: Vec<Vector> = args.iter().map(|a| a.gather(rows)).collect();
            let inputs: Vec<&Vector> = inputs.iter().collect();
            acc.update(&vec![0; rows.len()], &inputs)?;
        }
        Ok(())
    };
    let mut acc: Option<Accumulator> = None;
    let mut added_until = 0;
    for pos in 0..n {
        let (start, end) = frames[pos];
        let state = if running {
            let (ps, _) = layout.partition[pos];
            let state = match acc.take() {
                Some(state) if pos != ps && end >= added_until => state,
                _ => {
                    added_until = start;
                    fresh()?
                }
            };
            let state = acc.insert(state);
            add(state, (added_until, end.max(added_until)))?;
            added_until = end.max(added_until);
            state
        } else {
            let state = acc.insert(fresh()?);
            for piece in frame_pieces(frames[pos], pos, layout.peers[pos], call.frame.exclusion) {
                add(state, piece)?;
            }
            state
        };
        values[layout.order[pos] as usize] = state.value(0)?;
    }
    let mut out = Vector::with_capacity(call.ty.physical(), n);
    for value in &values {
        out.push_scalar(value)?;
    }
    Ok(out)
}
