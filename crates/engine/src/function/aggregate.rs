//! Aggregate functions: their result types (PostgreSQL's: sum(int) is bigint, avg(int) is
//! numeric) and typed per-group accumulators updated a batch at a time.

use std::cmp::Ordering;

use crate::error::{Error, Result};
use crate::types::{float, DataType, Decimal, Interval, ScalarValue};
use crate::vector::{Bitmap, StringVec, Vector, VectorData};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggregateFunction {
    CountStar,
    Count,
    Sum,
    Avg,
    Min,
    Max,
}

impl AggregateFunction {
    pub fn by_name(name: &str) -> Option<AggregateFunction> {
        Some(match name {
            "count" => AggregateFunction::Count,
            "sum" => AggregateFunction::Sum,
            "avg" => AggregateFunction::Avg,
            "min" => AggregateFunction::Min,
            "max" => AggregateFunction::Max,
            _ => return None,
        })
    }

    /// The result type for an argument of type `arg`, or `None` if PostgreSQL has no such
    /// aggregate (`sum(text)`).
    pub fn return_type(self, arg: DataType) -> Option<DataType> {
        use DataType as T;
        Some(match (self, arg) {
            (AggregateFunction::CountStar | AggregateFunction::Count, _) => T::Int64,
            (AggregateFunction::Sum, T::Int16 | T::Int32) => T::Int64,
            (AggregateFunction::Sum, T::Int64) => T::Numeric(None),
            (AggregateFunction::Sum, T::Float32) => T::Float32,
            (AggregateFunction::Sum, T::Float64) => T::Float64,
            (AggregateFunction::Sum, T::Numeric(_)) => T::Numeric(None),
            (AggregateFunction::Avg, T::Int16 | T::Int32 | T::Int64 | T::Numeric(_)) => {
                T::Numeric(None)
            }
            (AggregateFunction::Avg, T::Float32 | T::Float64) => T::Float64,
            (AggregateFunction::Sum | AggregateFunction::Avg, T::Interval) => T::Interval,
            (AggregateFunction::Min | AggregateFunction::Max, T::Unknown) => T::Text,
            (AggregateFunction::Min | AggregateFunction::Max, t) => t,
            (AggregateFunction::Sum | AggregateFunction::Avg, _) => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            AggregateFunction::CountStar | AggregateFunction::Count => "count",
            AggregateFunction::Sum => "sum",
            AggregateFunction::Avg => "avg",
            AggregateFunction::Min => "min",
            AggregateFunction::Max => "max",
        }
    }
}

/// Running sums per group, with whether any non-NULL value was seen.
#[derive(Debug)]
pub struct Sums<T> {
    sums: Vec<T>,
    counts: Vec<i64>,
    zero: T,
}

impl<T: Copy> Sums<T> {
    fn new(zero: T) -> Sums<T> {
        Sums {
            sums: Vec::new(),
            counts: Vec::new(),
            zero,
        }
    }

    fn resize(&mut self, groups: usize) {
        self.sums.resize(groups, self.zero);
        self.counts.resize(groups, 0);
    }
}

/// Per-group state of one aggregate call; the variant fixes the types once per query.
#[derive(Debug)]
pub enum Accumulator {
    Count(Vec<i64>),
    SumSmallInt(Sums<i64>),
    SumWide(Sums<i128>, bool),
    SumFloat32(Sums<f32>),
    SumFloat64(Sums<f64>, bool),
    SumNumeric(Sums<Decimal>, bool),
    /// sum or (with true) avg of intervals: interval_pl, then interval_div by the count.
    SumInterval(Sums<Interval>, bool),
    MinMax {
        best: Vector,
        seen: Vec<bool>,
        max: bool,
        ty: DataType,
    },
}

impl Accumulator {
    /// The accumulator for `func` over an argument of type `arg`.
    pub fn new(func: AggregateFunction, arg: DataType) -> Result<Accumulator> {
        use AggregateFunction as F;
        use DataType as T;
        Ok(match (func, arg) {
            (F::CountStar | F::Count, _) => Accumulator::Count(Vec::new()),
            (F::Sum, T::Int16 | T::Int32) => Accumulator::SumSmallInt(Sums::new(0)),
            (F::Sum, T::Int64) => Accumulator::SumWide(Sums::new(0), false),
            (F::Avg, T::Int16 | T::Int32 | T::Int64) => Accumulator::SumWide(Sums::new(0), true),
            (F::Sum, T::Float32) => Accumulator::SumFloat32(Sums::new(0.0)),
            (F::Sum, T::Float64) => Accumulator::SumFloat64(Sums::new(0.0), false),
            (F::Avg, T::Float32 | T::Float64) => Accumulator::SumFloat64(Sums::new(0.0), true),
            (F::Sum, T::Numeric(_)) => Accumulator::SumNumeric(Sums::new(Decimal::ZERO), false),
            (F::Avg, T::Numeric(_)) => Accumulator::SumNumeric(Sums::new(Decimal::ZERO), true),
            (F::Sum | F::Avg, T::Interval) => {
                Accumulator::SumInterval(Sums::new(Interval::ZERO), func == F::Avg)
            }
            (F::Min | F::Max, ty) => Accumulator::MinMax {
                best: Vector::with_capacity(ty.physical(), 0),
                seen: Vec::new(),
                max: func == F::Max,
                ty,
            },
            (F::Sum | F::Avg, ty) => {
                return Err(Error::internal(format!(
                    "no {} accumulator for {ty}",
                    func.name()
                )))
            }
        })
    }

    /// Makes room for `groups` groups.
    pub fn resize(&mut self, groups: usize) {
        match self {
            Accumulator::Count(counts) => counts.resize(groups, 0),
            Accumulator::SumSmallInt(s) => s.resize(groups),
            Accumulator::SumWide(s, _) => s.resize(groups),
            Accumulator::SumFloat32(s) => s.resize(groups),
            Accumulator::SumFloat64(s, _) => s.resize(groups),
            Accumulator::SumNumeric(s, _) => s.resize(groups),
            Accumulator::SumInterval(s, _) => s.resize(groups),
            Accumulator::MinMax { best, seen, .. } => {
                while seen.len() < groups {
                    best.push_null();
                    seen.push(false);
                }
            }
        }
    }

    /// Adds row i of `input` (`None` for count(*)) to group `groups[i]`.
    pub fn update(&mut self, groups: &[u32], input: Option<&Vector>, rows: usize) -> Result<()> {
        let Some(input) = input else {
            if let Accumulator::Count(counts) = self {
                for &g in &groups[..rows] {
                    counts[g as usize] += 1;
                }
            }
            return Ok(());
        };
        let valid = |row: usize| input.is_valid(row);
        match (self, &input.data) {
            (Accumulator::Count(counts), _) => {
                for (row, &g) in groups.iter().enumerate() {
                    if valid(row) {
                        counts[g as usize] += 1;
                    }
                }
            }
            (Accumulator::SumSmallInt(s), VectorData::Int16(v)) => {
                sum_checked(s, groups, v, valid, |x| x as i64)?
            }
            (Accumulator::SumSmallInt(s), VectorData::Int32(v)) => {
                sum_checked(s, groups, v, valid, |x| x as i64)?
            }
            (Accumulator::SumWide(s, _), VectorData::Int16(v)) => {
                sum_plain(s, groups, v, valid, |acc, x| acc + x as i128)
            }
            (Accumulator::SumWide(s, _), VectorData::Int32(v)) => {
                sum_plain(s, groups, v, valid, |acc, x| acc + x as i128)
            }
            (Accumulator::SumWide(s, _), VectorData::Int64(v)) => {
                sum_plain(s, groups, v, valid, |acc, x| acc + x as i128)
            }
            (Accumulator::SumFloat32(s), VectorData::Float32(v)) => {
                sum_plain(s, groups, v, valid, |acc, x| acc + x)
            }
            (Accumulator::SumFloat64(s, _), VectorData::Float32(v)) => {
                sum_plain(s, groups, v, valid, |acc, x| acc + x as f64)
            }
            (Accumulator::SumFloat64(s, _), VectorData::Float64(v)) => {
                sum_plain(s, groups, v, valid, |acc, x| acc + x)
            }
            (Accumulator::SumNumeric(s, _), VectorData::Numeric(v)) => {
                for (row, &g) in groups.iter().enumerate() {
                    if valid(row) {
                        let g = g as usize;
                        s.sums[g] = s.sums[g].checked_add(&v[row])?;
                        s.counts[g] += 1;
                    }
                }
            }
            (Accumulator::SumInterval(s, _), VectorData::Interval(v)) => {
                for (row, &g) in groups.iter().enumerate() {
                    if valid(row) {
                        let g = g as usize;
                        s.sums[g] = s.sums[g].checked_add(v[row])?;
                        s.counts[g] += 1;
                    }
                }
            }
            (
                Accumulator::MinMax {
                    best, seen, max, ..
                },
                _,
            ) => update_min_max(best, seen, *max, groups, input),
            (acc, data) => {
                return Err(Error::internal(format!(
                    "aggregate input {:?} does not fit accumulator {acc:?}",
                    data.physical()
                )))
            }
        }
        Ok(())
    }

    /// The result of every group, in group order.
    pub fn finish(self) -> Result<Vector> {
        Ok(match self {
            Accumulator::Count(counts) => Vector::new(VectorData::Int64(counts), None),
            Accumulator::SumSmallInt(s) => {
                let validity = seen_bitmap(&s.counts);
                Vector::new(VectorData::Int64(s.sums), validity)
            }
            Accumulator::SumWide(s, avg) => {
                let validity = seen_bitmap(&s.counts);
                let mut out = Vec::with_capacity(s.sums.len());
                for (sum, count) in s.sums.iter().zip(&s.counts) {
                    out.push(sum_or_avg(Decimal::new(*sum, 0), *count, avg)?);
                }
                Vector::new(VectorData::Numeric(out), validity)
            }
            Accumulator::SumFloat32(s) => {
                let validity = seen_bitmap(&s.counts);
                Vector::new(VectorData::Float32(s.sums), validity)
            }
            Accumulator::SumFloat64(s, avg) => {
                let validity = seen_bitmap(&s.counts);
                let sums = if avg {
                    s.sums
                        .iter()
                        .zip(&s.counts)
                        .map(|(sum, &count)| float_avg(*sum, count))
                        .collect()
                } else {
                    s.sums
                };
                Vector::new(VectorData::Float64(sums), validity)
            }
            Accumulator::SumNumeric(s, avg) => {
                let validity = seen_bitmap(&s.counts);
                let mut out = Vec::with_capacity(s.sums.len());
                for (sum, count) in s.sums.iter().zip(&s.counts) {
                    out.push(sum_or_avg(*sum, *count, avg)?);
                }
                Vector::new(VectorData::Numeric(out), validity)
            }
            Accumulator::SumInterval(s, avg) => {
                let validity = seen_bitmap(&s.counts);
                let mut out = Vec::with_capacity(s.sums.len());
                for (sum, count) in s.sums.iter().zip(&s.counts) {
                    out.push(interval_sum_or_avg(*sum, *count, avg)?);
                }
                Vector::new(VectorData::Interval(out), validity)
            }
            Accumulator::MinMax { best, .. } => best,
        })
    }
}

impl Accumulator {
    /// The current result of one group, without ending the aggregation (running window
    /// aggregates read it after every row).
    pub fn value(&self, group: usize) -> Result<ScalarValue> {
        let seen = |count: i64| count > 0;
        Ok(match self {
            Accumulator::Count(counts) => ScalarValue::Int64(counts[group]),
            Accumulator::SumSmallInt(s) if seen(s.counts[group]) => {
                ScalarValue::Int64(s.sums[group])
            }
            Accumulator::SumWide(s, avg) if seen(s.counts[group]) => ScalarValue::Numeric(
                sum_or_avg(Decimal::new(s.sums[group], 0), s.counts[group], *avg)?,
            ),
            Accumulator::SumFloat32(s) if seen(s.counts[group]) => {
                ScalarValue::Float32(s.sums[group])
            }
            Accumulator::SumFloat64(s, avg) if seen(s.counts[group]) => {
                ScalarValue::Float64(if *avg {
                    float_avg(s.sums[group], s.counts[group])
                } else {
                    s.sums[group]
                })
            }
            Accumulator::SumNumeric(s, avg) if seen(s.counts[group]) => {
                ScalarValue::Numeric(sum_or_avg(s.sums[group], s.counts[group], *avg)?)
            }
            Accumulator::SumInterval(s, avg) if seen(s.counts[group]) => {
                ScalarValue::Interval(interval_sum_or_avg(s.sums[group], s.counts[group], *avg)?)
            }
            Accumulator::MinMax { best, .. } => best.get_scalar(group),
            Accumulator::SumInterval(..)
            | Accumulator::SumSmallInt(_)
            | Accumulator::SumWide(..)
            | Accumulator::SumFloat32(_)
            | Accumulator::SumFloat64(..)
            | Accumulator::SumNumeric(..) => ScalarValue::Null,
        })
    }
}

/// A sum, or the average (numeric division with PostgreSQL's result scale) when `avg`.
fn sum_or_avg(sum: Decimal, count: i64, avg: bool) -> Result<Decimal> {
    match (avg, count) {
        (_, 0) => Ok(Decimal::ZERO),
        (true, count) => sum.checked_div(&Decimal::from_i64(count)),
        (false, _) => Ok(sum),
    }
}

fn interval_sum_or_avg(sum: Interval, count: i64, avg: bool) -> Result<Interval> {
    match (avg, count) {
        (true, count) if count > 0 => sum.div_f64(count as f64),
        _ => Ok(sum),
    }
}

fn float_avg(sum: f64, count: i64) -> f64 {
    if count == 0 {
        0.0
    } else {
        sum / count as f64
    }
}

fn seen_bitmap(counts: &[i64]) -> Option<Bitmap> {
    if counts.iter().all(|&c| c > 0) {
        return None;
    }
    let mut bitmap = Bitmap::new(counts.len(), true);
    for (g, &count) in counts.iter().enumerate() {
        if count == 0 {
            bitmap.set(g, false);
        }
    }
    Some(bitmap)
}

fn sum_plain<T: Copy, A: Copy>(
    s: &mut Sums<A>,
    groups: &[u32],
    values: &[T],
    valid: impl Fn(usize) -> bool,
    add: impl Fn(A, T) -> A,
) {
    for (row, &g) in groups.iter().enumerate() {
        if valid(row) {
            let g = g as usize;
            s.sums[g] = add(s.sums[g], values[row]);
            s.counts[g] += 1;
        }
    }
}

fn sum_checked<T: Copy>(
    s: &mut Sums<i64>,
    groups: &[u32],
    values: &[T],
    valid: impl Fn(usize) -> bool,
    widen: impl Fn(T) -> i64,
) -> Result<()> {
    for (row, &g) in groups.iter().enumerate() {
        if valid(row) {
            let g = g as usize;
            s.sums[g] = s.sums[g]
                .checked_add(widen(values[row]))
                .ok_or_else(|| Error::out_of_range("bigint out of range"))?;
            s.counts[g] += 1;
        }
    }
    Ok(())
}

fn update_min_max(best: &mut Vector, seen: &mut [bool], max: bool, groups: &[u32], input: &Vector) {
    let wanted = if max {
        Ordering::Greater
    } else {
        Ordering::Less
    };
    macro_rules! typed {
        ($best:expr, $input:expr, $cmp:expr) => {{
            for (row, &g) in groups.iter().enumerate() {
                if !input.is_valid(row) {
                    continue;
                }
                let g = g as usize;
                if !seen[g] || $cmp(&$input[row], &$best[g]) == wanted {
                    $best[g] = $input[row];
                    seen[g] = true;
                }
            }
        }};
    }
    match (&mut best.data, &input.data) {
        (VectorData::Bool(b), VectorData::Bool(i)) => typed!(b, i, |a: &bool, b| a.cmp(b)),
        (VectorData::Int16(b), VectorData::Int16(i)) => typed!(b, i, |a: &i16, b| a.cmp(b)),
        (VectorData::Int32(b), VectorData::Int32(i)) => typed!(b, i, |a: &i32, b| a.cmp(b)),
        (VectorData::Int64(b), VectorData::Int64(i)) => typed!(b, i, |a: &i64, b| a.cmp(b)),
        (VectorData::Float32(b), VectorData::Float32(i)) => {
            typed!(b, i, |a: &f32, b: &f32| float::total_cmp_f32(*a, *b))
        }
        (VectorData::Float64(b), VectorData::Float64(i)) => {
            typed!(b, i, |a: &f64, b: &f64| float::total_cmp_f64(*a, *b))
        }
        (VectorData::Numeric(b), VectorData::Numeric(i)) => {
            typed!(b, i, |a: &Decimal, b| a.cmp(b))
        }
        (VectorData::Date(b), VectorData::Date(i)) => typed!(b, i, |a: &i32, b| a.cmp(b)),
        (VectorData::Timestamp(b), VectorData::Timestamp(i))
        | (VectorData::TimestampTz(b), VectorData::TimestampTz(i)) => {
            typed!(b, i, |a: &i64, b| a.cmp(b))
        }
        (VectorData::Interval(b), VectorData::Interval(i)) => {
            typed!(b, i, Interval::cmp_span)
        }
        (VectorData::Text(b), VectorData::Text(i)) => {
            // Strings change length, so rebuild the column once per batch that changed it.
            let mut current: Vec<Option<&str>> = Vec::new();
            let mut changed = false;
            for (row, &g) in groups.iter().enumerate() {
                if !input.is_valid(row) {
                    continue;
                }
                let g = g as usize;
                if current.len() <= g {
                    current.resize(g + 1, None);
                }
                let candidate = i.get(row);
                let incumbent = current[g].or(if seen[g] { Some(b.get(g)) } else { None });
                if incumbent.is_none_or(|inc| candidate.as_bytes().cmp(inc.as_bytes()) == wanted) {
                    current[g] = Some(candidate);
                    changed = true;
                }
            }
            if changed {
                let mut rebuilt = StringVec::with_capacity(b.len(), 0);
                for (g, seen_group) in seen.iter_mut().enumerate().take(b.len()) {
                    match current.get(g).copied().flatten() {
                        Some(value) => {
                            rebuilt.push(value);
                            *seen_group = true;
                        }
                        None => rebuilt.push(b.get(g)),
                    }
                }
                *b = rebuilt;
            }
        }
        _ => return,
    }
    // Groups that got a value are valid now.
    if let Some(validity) = &mut best.validity {
        for (g, &s) in seen.iter().enumerate() {
            if s {
                validity.set(g, true);
            }
        }
        if validity.all_set() {
            best.validity = None;
        }
    }
}
