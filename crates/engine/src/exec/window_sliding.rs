//! Window aggregates over frames whose head moves (not UNBOUNDED PRECEDING) and that
//! exclude nothing: one state per partition slides along the sorted positions, adding the
//! rows that enter the frame and removing the rows that leave it, so a partition costs
//! O(rows) instead of O(rows × frame).
//!
//! Only aggregates whose result cannot depend on that order are slid, matching PostgreSQL's
//! moving-aggregate support: count, and sum/avg of integers and NUMERIC have exact inverses
//! (int8dec, int8_avg_accum_inv, numeric_accum_inv); min/max keep a monotonic deque. Float
//! sum/avg have no inverse in PostgreSQL either, which re-aggregates every frame from its
//! head, so they stay on the exact per-frame path in `window.rs` with the same rounding.

use std::cmp::Ordering;
use std::collections::VecDeque;

use super::window::Layout;
use crate::error::{Error, Result};
use crate::function::aggregate::sum_or_avg;
use crate::function::compare::compare_rows;
use crate::function::AggregateFunction;
use crate::plan::{FrameExclusion, WindowCall};
use crate::types::numeric::Special;
use crate::types::{DataType, Decimal, ScalarValue};
use crate::vector::{Vector, VectorData, NULL_ROW};

/// A frame state that rows enter at the tail and leave from the head, in position order.
trait Sliding {
    fn add(&mut self, row: usize) -> Result<()>;
    fn remove(&mut self, row: usize) -> Result<()>;
    fn clear(&mut self);
}

/// The call's value for every input row when its frame can slide, or `None` for the
/// per-frame path (EXCLUDE, running frames, float sums, other aggregates).
pub(super) fn sliding_aggregate(
    call: &WindowCall,
    func: AggregateFunction,
    layout: &Layout,
    frames: &[(usize, usize)],
    args: &[std::sync::Arc<Vector>],
) -> Result<Option<Vector>> {
    use AggregateFunction as F;
    if call.frame.exclusion != FrameExclusion::NoOthers {
        return Ok(None);
    }
    let input = args.first().map(|a| a.as_ref());
    let arg_type = call.args.first().map(|a| a.ty());
    Ok(Some(match (func, input, arg_type) {
        (F::CountStar, _, _) | (F::Count, None, _) => count(layout, frames, None)?,
        (F::Count, Some(input), _) => count(layout, frames, Some(input))?,
        (
            F::Sum | F::Avg,
            Some(input),
            Some(DataType::Int16 | DataType::Int32 | DataType::Int64),
        ) => integer_sum(call, func, layout, frames, input)?,
        (F::Sum | F::Avg, Some(input), Some(DataType::Numeric(_))) => {
            numeric_sum(func, layout, frames, input)?
        }
        (F::Min | F::Max, Some(input), Some(_)) => min_max(func, layout, frames, input)?,
        (
            F::Sum
            | F::Avg
            | F::Min
            | F::Max
            | F::StringAgg
            | F::ArrayAgg
            | F::JsonAgg { .. }
            | F::JsonObjectAgg { .. }
            | F::BoolAnd
            | F::BoolOr
            | F::BitAnd
            | F::BitOr
            | F::BitXor
            | F::VarSamp
            | F::VarPop
            | F::StddevSamp
            | F::StddevPop
            | F::OrderedSet(_)
            | F::Regression(_)
            | F::Hypothetical(_),
            _,
            _,
        ) => return Ok(None),
    }))
}

/// Moves `state` along every position's frame and calls `emit` with the state and the
/// position once the state covers exactly that frame. Frames without EXCLUDE only move
/// forward within a partition; a frame that does not (or that skips past the last one)
/// starts the state afresh, which is always exact.
fn slide<S: Sliding>(
    layout: &Layout,
    frames: &[(usize, usize)],
    state: &mut S,
    mut emit: impl FnMut(&S, usize) -> Result<()>,
) -> Result<()> {
    let (mut head, mut tail) = (0, 0);
    for (pos, &(start, end)) in frames.iter().enumerate() {
        let new_partition = layout.partition[pos].0 == pos;
        if new_partition || start < head || end < tail || start >= tail {
            state.clear();
            (head, tail) = (start, start);
        }
        // Rows leave before others enter, so the state never holds more than one frame.
        while head < start {
            state.remove(layout.order[head] as usize)?;
            head += 1;
        }
        while tail < end {
            state.add(layout.order[tail] as usize)?;
            tail += 1;
        }
        emit(state, pos)?;
    }
    Ok(())
}

/// count(*) (`input` None) or count(value): the rows or the non-NULL values in the frame.
struct Count<'a> {
    input: Option<&'a Vector>,
    count: i64,
}

impl Sliding for Count<'_> {
    fn add(&mut self, row: usize) -> Result<()> {
        if self.input.is_none_or(|v| v.is_valid(row)) {
            self.count += 1;
        }
        Ok(())
    }
    fn remove(&mut self, row: usize) -> Result<()> {
        if self.input.is_none_or(|v| v.is_valid(row)) {
            self.count -= 1;
        }
        Ok(())
    }
    fn clear(&mut self) {
        self.count = 0;
    }
}

fn count(layout: &Layout, frames: &[(usize, usize)], input: Option<&Vector>) -> Result<Vector> {
    let mut out = vec![0i64; frames.len()];
    let mut state = Count { input, count: 0 };
    slide(layout, frames, &mut state, |s, pos| {
        out[layout.order[pos] as usize] = s.count;
        Ok(())
    })?;
    Ok(Vector::new(VectorData::Int64(out), None))
}

/// sum/avg of integers: an exact i128 sum and the count of values.
struct IntegerSum<'a> {
    input: &'a Vector,
    values: &'a [i64],
    sum: i128,
    count: i64,
}

impl Sliding for IntegerSum<'_> {
    fn add(&mut self, row: usize) -> Result<()> {
        if self.input.is_valid(row) {
            self.sum += i128::from(self.values[row]);
            self.count += 1;
        }
        Ok(())
    }
    fn remove(&mut self, row: usize) -> Result<()> {
        if self.input.is_valid(row) {
            self.sum -= i128::from(self.values[row]);
            self.count -= 1;
        }
        Ok(())
    }
    fn clear(&mut self) {
        (self.sum, self.count) = (0, 0);
    }
}

fn integer_sum(
    call: &WindowCall,
    func: AggregateFunction,
    layout: &Layout,
    frames: &[(usize, usize)],
    input: &Vector,
) -> Result<Vector> {
    let values: Vec<i64> = match &input.data {
        VectorData::Int16(v) => v.iter().map(|&x| i64::from(x)).collect(),
        VectorData::Int32(v) => v.iter().map(|&x| i64::from(x)).collect(),
        VectorData::Int64(v) => v.clone(),
        other => return Err(mismatch(other)),
    };
    // sum(smallint/integer) is bigint; sum(bigint) and every avg are numeric.
    let bigint = func == AggregateFunction::Sum && call.ty == DataType::Int64;
    let avg = func == AggregateFunction::Avg;
    let mut state = IntegerSum {
        input,
        values: &values,
        sum: 0,
        count: 0,
    };
    let mut out = vec![ScalarValue::Null; frames.len()];
    slide(layout, frames, &mut state, |s, pos| {
        out[layout.order[pos] as usize] = match (s.count, bigint) {
            (0, _) => ScalarValue::Null,
            (_, true) => ScalarValue::Int64(
                i64::try_from(s.sum).map_err(|_| Error::out_of_range("bigint out of range"))?,
            ),
            (count, false) => ScalarValue::Numeric(sum_or_avg(Decimal::new(s.sum, 0), count, avg)?),
        };
        Ok(())
    })?;
    scalars(call.ty, &out)
}

/// sum/avg of NUMERIC. A sum's display scale is the largest of its values', so the values
/// in the frame are counted by scale (numeric_accum_inv's maxScale/maxScaleCount) and the
/// sum, exact at any scale it was kept at, is shown at the frame's largest. NaN and the
/// infinities are counted apart, as numeric_accum_inv does, since Infinity - Infinity
/// cannot take one back out of a sum.
struct NumericSum<'a> {
    input: &'a Vector,
    values: &'a [Decimal],
    sum: Decimal,
    count: i64,
    /// Values in the frame per display scale.
    scales: Vec<u32>,
    /// NaN, Infinity and -Infinity values in the frame.
    specials: [i64; 3],
}

impl NumericSum<'_> {
    fn frame_scale(&self) -> u32 {
        self.scales.iter().rposition(|&c| c > 0).unwrap_or(0) as u32
    }
    fn special_slot(special: Special) -> usize {
        match special {
            Special::NaN => 0,
            Special::PosInf => 1,
            Special::NegInf => 2,
        }
    }
    /// The frame's sum: NaN if it holds a NaN or both infinities, else its infinity if any.
    fn frame_sum(&self) -> Result<Decimal> {
        Ok(match self.specials {
            [nan, pos, neg] if nan > 0 || (pos > 0 && neg > 0) => Decimal::NAN,
            [_, pos, _] if pos > 0 => Decimal::POS_INFINITY,
            [_, _, neg] if neg > 0 => Decimal::NEG_INFINITY,
            // Digits below the frame's largest scale are zero: rounding drops only them.
            _ => self.sum.round(self.frame_scale() as i32)?,
        })
    }
}

impl Sliding for NumericSum<'_> {
    fn add(&mut self, row: usize) -> Result<()> {
        if self.input.is_valid(row) {
            let value = &self.values[row];
            self.count += 1;
            if let Some(special) = value.special() {
                self.specials[Self::special_slot(special)] += 1;
                return Ok(());
            }
            self.sum = self.sum.checked_add(value)?;
            let scale = value.scale() as usize;
            if self.scales.len() <= scale {
                self.scales.resize(scale + 1, 0);
            }
            self.scales[scale] += 1;
        }
        Ok(())
    }
    fn remove(&mut self, row: usize) -> Result<()> {
        if self.input.is_valid(row) {
            let value = &self.values[row];
            self.count -= 1;
            if let Some(special) = value.special() {
                self.specials[Self::special_slot(special)] -= 1;
                return Ok(());
            }
            self.sum = self.sum.checked_sub(value)?;
            self.scales[value.scale() as usize] -= 1;
        }
        Ok(())
    }
    fn clear(&mut self) {
        (self.sum, self.count) = (Decimal::ZERO, 0);
        self.scales.clear();
        self.specials = [0; 3];
    }
}

fn numeric_sum(
    func: AggregateFunction,
    layout: &Layout,
    frames: &[(usize, usize)],
    input: &Vector,
) -> Result<Vector> {
    let VectorData::Numeric(values) = &input.data else {
        return Err(mismatch(&input.data));
    };
    let avg = func == AggregateFunction::Avg;
    let mut state = NumericSum {
        input,
        values,
        sum: Decimal::ZERO,
        count: 0,
        scales: Vec::new(),
        specials: [0; 3],
    };
    let mut out = vec![ScalarValue::Null; frames.len()];
    slide(layout, frames, &mut state, |s, pos| {
        if s.count > 0 {
            let sum = s.frame_sum()?;
            out[layout.order[pos] as usize] = ScalarValue::Numeric(sum_or_avg(sum, s.count, avg)?);
        }
        Ok(())
    })?;
    scalars(DataType::Numeric(None), &out)
}

/// min/max: the frame's rows that can still become its extreme, best first. A new row
/// evicts every kept row it ties or beats, so among equal values the latest wins, as
/// PostgreSQL's numeric_smaller, float8smaller and interval_smaller return their second
/// argument on ties (1.0 and 1.00 are equal but print differently).
struct Extreme<'a> {
    input: &'a Vector,
    wanted: Ordering,
    rows: VecDeque<usize>,
}

impl Sliding for Extreme<'_> {
    fn add(&mut self, row: usize) -> Result<()> {
        if !self.input.is_valid(row) {
            return Ok(());
        }
        while let Some(&last) = self.rows.back() {
            if compare_rows(self.input, last, self.input, row) == self.wanted {
                break;
            }
            self.rows.pop_back();
        }
        self.rows.push_back(row);
        Ok(())
    }
    fn remove(&mut self, row: usize) -> Result<()> {
        if self.rows.front() == Some(&row) {
            self.rows.pop_front();
        }
        Ok(())
    }
    fn clear(&mut self) {
        self.rows.clear();
    }
}

fn min_max(
    func: AggregateFunction,
    layout: &Layout,
    frames: &[(usize, usize)],
    input: &Vector,
) -> Result<Vector> {
    let mut state = Extreme {
        input,
        wanted: if func == AggregateFunction::Max {
            Ordering::Greater
        } else {
            Ordering::Less
        },
        rows: VecDeque::new(),
    };
    let mut sources = vec![NULL_ROW; frames.len()];
    slide(layout, frames, &mut state, |s, pos| {
        if let Some(&best) = s.rows.front() {
            sources[layout.order[pos] as usize] = best as u32;
        }
        Ok(())
    })?;
    Ok(input.gather_or_null(&sources))
}

fn scalars(ty: DataType, values: &[ScalarValue]) -> Result<Vector> {
    let mut out = Vector::with_capacity(ty.physical(), values.len());
    for value in values {
        out.push_scalar(value)?;
    }
    Ok(out)
}

fn mismatch(data: &VectorData) -> Error {
    Error::internal(format!(
        "sliding window aggregate input {:?} does not fit its accumulator",
        data.physical()
    ))
}
