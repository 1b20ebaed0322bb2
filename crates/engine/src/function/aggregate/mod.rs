//! Aggregate functions: their signatures (PostgreSQL's result types: sum(int) is bigint,
//! avg(int) and variance(int) numeric) and typed per-group accumulators updated a batch at a
//! time. `merge.rs` folds the partial states of parallel workers, `variance.rs` holds the
//! statistics, `regression.rs` covar_*, corr and regr_*, `concat.rs` string_agg,
//! `text_fold.rs` min/max of strings, `ordered_set.rs` and `hypothetical.rs` the WITHIN
//! GROUP aggregates.

mod array_agg;
mod concat;
mod hypothetical;
mod json_agg;
mod merge;
mod ordered_set;
mod regression;
mod text_fold;
mod variance;
mod vector_sum;

use std::cmp::Ordering;

pub(crate) use self::array_agg::accumulate_arrays;
use self::array_agg::ArrayAgg;
use self::concat::Concat;
use self::hypothetical::Hypothetical;
pub use self::hypothetical::HypotheticalKind;
use self::json_agg::JsonAgg;
pub use self::merge::identical_when_equal;
use self::ordered_set::OrderedSet;
pub use self::ordered_set::OrderedSetKind;
pub use self::regression::RegressionKind;
use self::regression::RegressionMoments;
use self::text_fold::{TextFold, TextRule};
use self::variance::{FloatMoments, NumericMoments, VarianceKind};
use self::vector_sum::VectorSum;
use crate::error::{Error, Result};
use crate::function::compare::compare_rows;
use crate::types::bit_string::BitwiseOp;
use crate::types::{float, DataType, Decimal, Interval, IntervalTypmod, PhysicalType, ScalarValue};
use crate::vector::{Bitmap, Vector, VectorData};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggregateFunction {
    CountStar,
    Count,
    Sum,
    Avg,
    Min,
    Max,
    StringAgg,
    ArrayAgg,
    /// json_agg / jsonb_agg.
    JsonAgg {
        jsonb: bool,
    },
    /// json_object_agg / jsonb_object_agg.
    JsonObjectAgg {
        jsonb: bool,
    },
    /// bool_and and its SQL-standard name every.
    BoolAnd,
    BoolOr,
    BitAnd,
    BitOr,
    BitXor,
    /// var_samp and variance.
    VarSamp,
    VarPop,
    /// stddev_samp and stddev.
    StddevSamp,
    StddevPop,
    /// percentile_cont, percentile_disc and mode: only with WITHIN GROUP.
    OrderedSet(OrderedSetKind),
    /// covar_pop, covar_samp, corr and the regr_* aggregates of (Y, X).
    Regression(RegressionKind),
    /// rank, dense_rank, percent_rank and cume_dist WITHIN GROUP: the keys, then the
    /// hypothetical row's values.
    Hypothetical(HypotheticalKind),
}

impl AggregateFunction {
    /// Whether its state keeps every input value (so its memory grows with its input).
    pub fn keeps_its_inputs(&self) -> bool {
        match self {
            AggregateFunction::StringAgg
            | AggregateFunction::ArrayAgg
            | AggregateFunction::JsonAgg { .. }
            | AggregateFunction::JsonObjectAgg { .. }
            | AggregateFunction::OrderedSet(_) => true,
            AggregateFunction::Hypothetical(_)
            | AggregateFunction::CountStar
            | AggregateFunction::Count
            | AggregateFunction::Sum
            | AggregateFunction::Avg
            | AggregateFunction::Min
            | AggregateFunction::Max
            | AggregateFunction::BoolAnd
            | AggregateFunction::BoolOr
            | AggregateFunction::BitAnd
            | AggregateFunction::BitOr
            | AggregateFunction::BitXor
            | AggregateFunction::VarSamp
            | AggregateFunction::VarPop
            | AggregateFunction::StddevSamp
            | AggregateFunction::StddevPop
            | AggregateFunction::Regression(_) => false,
        }
    }

    pub fn by_name(name: &str) -> Option<AggregateFunction> {
        use AggregateFunction as F;
        Some(match name {
            "count" => F::Count,
            "sum" => F::Sum,
            "avg" => F::Avg,
            "min" => F::Min,
            "max" => F::Max,
            "string_agg" => F::StringAgg,
            "array_agg" => F::ArrayAgg,
            "json_agg" => F::JsonAgg { jsonb: false },
            "jsonb_agg" => F::JsonAgg { jsonb: true },
            "json_object_agg" => F::JsonObjectAgg { jsonb: false },
            "jsonb_object_agg" => F::JsonObjectAgg { jsonb: true },
            "bool_and" | "every" => F::BoolAnd,
            "bool_or" => F::BoolOr,
            "bit_and" => F::BitAnd,
            "bit_or" => F::BitOr,
            "bit_xor" => F::BitXor,
            "variance" | "var_samp" => F::VarSamp,
            "var_pop" => F::VarPop,
            "stddev" | "stddev_samp" => F::StddevSamp,
            "stddev_pop" => F::StddevPop,
            other => F::Regression(RegressionKind::by_name(other)?),
        })
    }

    /// Whether it is called with WITHIN GROUP, whose keys the binder orders it by.
    pub fn is_ordered_set(self) -> bool {
        matches!(
            self,
            AggregateFunction::OrderedSet(_) | AggregateFunction::Hypothetical(_)
        )
    }

    /// The hypothetical-set aggregate `name` (called with WITHIN GROUP; without, `rank`
    /// and the others are window functions).
    pub fn hypothetical_by_name(name: &str) -> Option<AggregateFunction> {
        HypotheticalKind::by_name(name).map(AggregateFunction::Hypothetical)
    }

    /// The ordered-set aggregate `name` (called with WITHIN GROUP).
    pub fn ordered_set_by_name(name: &str) -> Option<AggregateFunction> {
        Some(AggregateFunction::OrderedSet(match name {
            "percentile_cont" => OrderedSetKind::PercentileCont,
            "percentile_disc" => OrderedSetKind::PercentileDisc,
            "mode" => OrderedSetKind::Mode,
            _ => return None,
        }))
    }

    /// PostgreSQL's signature of `func` for arguments of types `args`: the types to coerce
    /// the arguments to and the result type, or `None` if there is no such aggregate
    /// (`sum(text)`, `string_agg(integer, text)`).
    pub fn signature(self, args: &[DataType]) -> Option<(Vec<DataType>, DataType)> {
        use AggregateFunction as F;
        use DataType as T;
        let text_like = |t: DataType| t == T::Unknown || t.is_string();
        let (arg, ty) = match (self, args) {
            (F::CountStar, []) => return Some((vec![], T::Int64)),
            (F::OrderedSet(kind), args) => return ordered_set_signature(kind, args),
            // The binder brings each key and its direct argument to their common type.
            (F::Hypothetical(kind), args) if !args.is_empty() && args.len() % 2 == 0 => {
                let ty = match kind {
                    HypotheticalKind::Rank | HypotheticalKind::DenseRank => T::Int64,
                    HypotheticalKind::PercentRank | HypotheticalKind::CumeDist => T::Float64,
                };
                return Some((args.to_vec(), ty));
            }
            (F::StringAgg, &[value, delimiter]) if text_like(value) && text_like(delimiter) => {
                return Some((vec![T::Text, T::Text], T::Text))
            }
            (F::StringAgg, &[T::Bytea, T::Bytea | T::Unknown])
            | (F::StringAgg, &[T::Unknown, T::Bytea]) => {
                return Some((vec![T::Bytea, T::Bytea], T::Bytea))
            }
            (F::JsonAgg { jsonb }, &[value]) => {
                return Some((vec![json_arg(value)], json_result(jsonb)))
            }
            (F::JsonObjectAgg { jsonb }, &[key, value]) => {
                return Some((vec![json_arg(key), json_arg(value)], json_result(jsonb)))
            }
            (F::Regression(kind), &[y, x]) => {
                let float = |t: DataType| {
                    crate::function::cast::can_cast(
                        t,
                        T::Float64,
                        crate::function::cast::CastContext::Implicit,
                    )
                };
                let ty = match kind {
                    RegressionKind::Count => T::Int64,
                    _ => T::Float64,
                };
                return (float(y) && float(x)).then(|| (vec![T::Float64, T::Float64], ty));
            }
            (_, &[arg]) => (arg, self.return_type(arg)?),
            _ => return None,
        };
        Some((vec![if arg == T::Unknown { ty } else { arg }], ty))
    }

    /// The result type of a one-argument call.
    fn return_type(self, arg: DataType) -> Option<DataType> {
        use AggregateFunction as F;
        use DataType as T;
        Some(match (self, arg) {
            (F::CountStar | F::Count, _) => T::Int64,
            (F::Sum, T::Int16 | T::Int32) => T::Int64,
            (F::Sum, T::Int64) => T::Numeric(None),
            (F::Sum, T::Float32) => T::Float32,
            (F::Sum, T::Float64) => T::Float64,
            (F::Sum, T::Numeric(_)) => T::Numeric(None),
            (F::Sum | F::Avg, T::Interval(_)) => T::Interval(IntervalTypmod::NONE),
            (F::Sum | F::Avg, T::FloatVector(_)) => T::FloatVector(None),
            (
                F::Avg | F::VarSamp | F::VarPop | F::StddevSamp | F::StddevPop,
                T::Int16 | T::Int32 | T::Int64 | T::Numeric(_),
            ) => T::Numeric(None),
            (
                F::Avg | F::VarSamp | F::VarPop | F::StddevSamp | F::StddevPop,
                T::Float32 | T::Float64,
            ) => T::Float64,
            (F::Min | F::Max, T::Unknown) => T::Text,
            // PostgreSQL has no min/max of these (nor of json, which has no order at all).
            (
                F::Min | F::Max,
                T::Bytea
                | T::Uuid
                | T::Json
                | T::Jsonb
                | T::FloatVector(_)
                | T::Bit(_)
                | T::VarBit(_)
                | T::Record(_),
            ) => return None,
            // array_agg(unknown) is ambiguous in PostgreSQL (anynonarray or anyarray).
            (F::ArrayAgg, T::Unknown) => return None,
            // array_agg(anyarray): the same array type, one dimension more.
            (F::ArrayAgg, t @ T::Array(_)) => t,
            (F::ArrayAgg, t) => DataType::array_of_values(t)?,
            (F::JsonAgg { jsonb } | F::JsonObjectAgg { jsonb }, _) => json_result(jsonb),
            (F::Min | F::Max, t) => t,
            (F::BoolAnd | F::BoolOr, T::Bool | T::Unknown) => T::Bool,
            (F::BitAnd | F::BitOr | F::BitXor, t @ (T::Int16 | T::Int32 | T::Int64)) => t,
            (F::BitAnd | F::BitOr | F::BitXor, T::Bit(_) | T::VarBit(_)) => T::Bit(None),
            (
                F::Sum
                | F::Avg
                | F::VarSamp
                | F::VarPop
                | F::StddevSamp
                | F::StddevPop
                | F::StringAgg
                | F::BoolAnd
                | F::BoolOr
                | F::BitAnd
                | F::BitOr
                | F::BitXor
                | F::OrderedSet(_)
                | F::Regression(_)
                | F::Hypothetical(_),
                _,
            ) => return None,
        })
    }

    /// Whether its arguments are values of any type made json by their types' output
    /// functions, so the binder presents them first (`binder/present.rs`).
    pub fn renders_arguments(self) -> bool {
        matches!(
            self,
            AggregateFunction::JsonAgg { .. } | AggregateFunction::JsonObjectAgg { .. }
        )
    }

    /// Whether the result can depend on the order rows arrive in: string_agg's output, and
    /// the rounding of float sums. ORDER BY inside other calls changes nothing.
    pub fn order_sensitive(self, arg: DataType) -> bool {
        use AggregateFunction as F;
        match self {
            F::StringAgg
            | F::ArrayAgg
            | F::JsonAgg { .. }
            | F::JsonObjectAgg { .. }
            | F::OrderedSet(_)
            | F::Hypothetical(_) => true,
            // Float sums: their rounding depends on the order (regr_count's does not).
            F::Regression(kind) => kind != RegressionKind::Count,
            F::Sum | F::Avg | F::VarSamp | F::VarPop | F::StddevSamp | F::StddevPop => {
                matches!(
                    arg,
                    DataType::Float32 | DataType::Float64 | DataType::FloatVector(_)
                )
            }
            F::CountStar
            | F::Count
            | F::Min
            | F::Max
            | F::BoolAnd
            | F::BoolOr
            | F::BitAnd
            | F::BitOr
            | F::BitXor => false,
        }
    }

    pub fn name(self) -> &'static str {
        use AggregateFunction as F;
        match self {
            F::CountStar | F::Count => "count",
            F::Sum => "sum",
            F::Avg => "avg",
            F::Min => "min",
            F::Max => "max",
            F::StringAgg => "string_agg",
            F::ArrayAgg => "array_agg",
            F::JsonAgg { jsonb: false } => "json_agg",
            F::JsonAgg { jsonb: true } => "jsonb_agg",
            F::JsonObjectAgg { jsonb: false } => "json_object_agg",
            F::JsonObjectAgg { jsonb: true } => "jsonb_object_agg",
            F::BoolAnd => "bool_and",
            F::BoolOr => "bool_or",
            F::BitAnd => "bit_and",
            F::BitOr => "bit_or",
            F::BitXor => "bit_xor",
            F::VarSamp => "var_samp",
            F::VarPop => "var_pop",
            F::StddevSamp => "stddev_samp",
            F::StddevPop => "stddev_pop",
            F::OrderedSet(OrderedSetKind::PercentileCont) => "percentile_cont",
            F::OrderedSet(OrderedSetKind::PercentileDisc) => "percentile_disc",
            F::OrderedSet(OrderedSetKind::Mode) => "mode",
            F::Regression(kind) => kind.name(),
            F::Hypothetical(kind) => kind.name(),
        }
    }

    fn variance_kind(self) -> Option<VarianceKind> {
        use AggregateFunction as F;
        let (sample, stddev) = match self {
            F::VarSamp => (true, false),
            F::VarPop => (false, false),
            F::StddevSamp => (true, true),
            F::StddevPop => (false, true),
            F::CountStar
            | F::Count
            | F::Sum
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
            | F::OrderedSet(_)
            | F::Regression(_)
            | F::Hypothetical(_) => return None,
        };
        Some(VarianceKind { sample, stddev })
    }
}

/// A json aggregate's argument keeps its type (the binder turns it into json); an untyped
/// literal is text.
fn json_arg(ty: DataType) -> DataType {
    match ty {
        DataType::Unknown => DataType::Text,
        other => other,
    }
}

fn json_result(jsonb: bool) -> DataType {
    match jsonb {
        true => DataType::Jsonb,
        false => DataType::Json,
    }
}

/// Ordered-set aggregates take the WITHIN GROUP value first, then the fraction of the
/// percentiles: percentile_cont(float8) over float8 values gives float8, percentile_disc
/// and mode give the value's type.
fn ordered_set_signature(
    kind: OrderedSetKind,
    args: &[DataType],
) -> Option<(Vec<DataType>, DataType)> {
    use DataType as T;
    let value = match args.first()? {
        T::Unknown => T::Text,
        T::Varchar(_) | T::Char(_) => T::Text,
        other => *other,
    };
    // An array of fractions gives an array of percentiles.
    let (fraction, result) = match args.get(1) {
        Some(T::Array(_)) => (T::array_of(T::Float64)?, T::array_of_values(value)),
        _ => (T::Float64, Some(value)),
    };
    match (kind, args.len()) {
        (OrderedSetKind::Mode, 1) => Some((vec![value], value)),
        (OrderedSetKind::PercentileDisc, 2) => Some((vec![value, fraction], result?)),
        (OrderedSetKind::PercentileCont, 2) => crate::function::cast::can_cast(
            value,
            T::Float64,
            crate::function::cast::CastContext::Implicit,
        )
        .then(|| {
            let result = match fraction {
                T::Float64 => T::Float64,
                _ => T::array_of(T::Float64)?,
            };
            Some((vec![T::Float64, fraction], result))
        })
        .flatten(),
        _ => None,
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

/// bit_and / bit_or / bit_xor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BitOp {
    And,
    Or,
    Xor,
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
    /// min/max of text, bit_and/bit_or/bit_xor of bit strings.
    TextFold(TextFold),
    /// bool_and (`and`) or bool_or; `None` until a non-NULL value arrives.
    Bool {
        state: Vec<Option<bool>>,
        and: bool,
    },
    /// Integer bit operations, kept as i64 and narrowed back to the input type (`ty`) by
    /// `narrow`: every bitwise result of values of a type fits that type.
    Bits {
        state: Vec<Option<i64>>,
        op: BitOp,
        ty: PhysicalType,
        narrow: fn(i64) -> ScalarValue,
    },
    StringAgg(Concat),
    ArrayAgg(ArrayAgg),
    JsonAgg(JsonAgg),
    VarianceFloat(FloatMoments, VarianceKind),
    VarianceNumeric(NumericMoments, VarianceKind),
    OrderedSet(OrderedSet),
    Regression(RegressionMoments, RegressionKind),
    Hypothetical(Hypothetical),
    /// sum or (with avg) avg of vectors.
    VectorSum(VectorSum),
}

impl Accumulator {
    /// The accumulator for `func` over a (first) argument of type `arg`.
    pub fn new(func: AggregateFunction, arg: DataType) -> Result<Accumulator> {
        use AggregateFunction as F;
        use DataType as T;
        if let Some(kind) = func.variance_kind() {
            return match arg {
                T::Float32 | T::Float64 => {
                    Ok(Accumulator::VarianceFloat(FloatMoments::default(), kind))
                }
                T::Int16 | T::Int32 | T::Int64 | T::Numeric(_) => Ok(Accumulator::VarianceNumeric(
                    NumericMoments::default(),
                    kind,
                )),
                ty => Err(no_accumulator(func, ty)),
            };
        }
        Ok(match (func, arg) {
            (F::CountStar | F::Count, _) => Accumulator::Count(Vec::new()),
            (F::Sum, T::Int16 | T::Int32) => Accumulator::SumSmallInt(Sums::new(0)),
            (F::Sum, T::Int64) => Accumulator::SumWide(Sums::new(0), false),
            (F::Avg, T::Int16 | T::Int32 | T::Int64) => Accumulator::SumWide(Sums::new(0), true),
            // sum starts from its first value in PostgreSQL (float8pl over a NULL state), so
            // a sum of -0 is -0: start from -0.0, which adding any value leaves that value.
            // avg's state starts at 0 (float8_accum), so avg(-0) is 0.
            (F::Sum, T::Float32) => Accumulator::SumFloat32(Sums::new(-0.0)),
            (F::Sum, T::Float64) => Accumulator::SumFloat64(Sums::new(-0.0), false),
            (F::Avg, T::Float32 | T::Float64) => Accumulator::SumFloat64(Sums::new(0.0), true),
            (F::Sum, T::Numeric(_)) => Accumulator::SumNumeric(Sums::new(Decimal::ZERO), false),
            (F::Avg, T::Numeric(_)) => Accumulator::SumNumeric(Sums::new(Decimal::ZERO), true),
            (F::Sum | F::Avg, T::Interval(_)) => {
                Accumulator::SumInterval(Sums::new(Interval::ZERO), func == F::Avg)
            }
            (F::Sum | F::Avg, T::FloatVector(_)) => {
                Accumulator::VectorSum(VectorSum::new(func == F::Avg))
            }
            (F::Min | F::Max, ty) if ty.physical() == PhysicalType::Text => {
                Accumulator::TextFold(TextFold::new(TextRule::Keep(match func == F::Max {
                    true => Ordering::Greater,
                    false => Ordering::Less,
                })))
            }
            (F::BitAnd | F::BitOr | F::BitXor, T::Bit(_) | T::VarBit(_)) => {
                let op = match bit_op(func)? {
                    BitOp::And => BitwiseOp::And,
                    BitOp::Or => BitwiseOp::Or,
                    BitOp::Xor => BitwiseOp::Xor,
                };
                Accumulator::TextFold(TextFold::new(TextRule::Bitwise(op)))
            }
            (F::Min | F::Max, ty) => Accumulator::MinMax {
                best: Vector::with_capacity(ty.physical(), 0),
                seen: Vec::new(),
                max: func == F::Max,
                ty,
            },
            (F::BoolAnd | F::BoolOr, T::Bool) => Accumulator::Bool {
                state: Vec::new(),
                and: func == F::BoolAnd,
            },
            (F::BitAnd | F::BitOr | F::BitXor, T::Int16) => {
                bits(func, PhysicalType::Int16, |v| ScalarValue::Int16(v as i16))?
            }
            (F::BitAnd | F::BitOr | F::BitXor, T::Int32) => {
                bits(func, PhysicalType::Int32, |v| ScalarValue::Int32(v as i32))?
            }
            (F::BitAnd | F::BitOr | F::BitXor, T::Int64) => {
                bits(func, PhysicalType::Int64, ScalarValue::Int64)?
            }
            (F::StringAgg, T::Text) => Accumulator::StringAgg(Concat::new(false)),
            (F::StringAgg, T::Bytea) => Accumulator::StringAgg(Concat::new(true)),
            (F::ArrayAgg, ty) => Accumulator::ArrayAgg(ArrayAgg::new(ty.physical())),
            (F::JsonAgg { jsonb }, ty) => Accumulator::JsonAgg(JsonAgg::new(Some(ty), jsonb)),
            (F::JsonObjectAgg { jsonb }, _) => Accumulator::JsonAgg(JsonAgg::new(None, jsonb)),
            (F::OrderedSet(kind), ty) => {
                Accumulator::OrderedSet(OrderedSet::new(kind, ty.physical()))
            }
            (F::Regression(kind), T::Float64) => {
                Accumulator::Regression(RegressionMoments::default(), kind)
            }
            (F::Hypothetical(kind), _) => Accumulator::Hypothetical(Hypothetical::new(kind)),
            (
                F::Sum
                | F::Avg
                | F::StringAgg
                | F::BoolAnd
                | F::BoolOr
                | F::BitAnd
                | F::BitOr
                | F::BitXor
                | F::VarSamp
                | F::VarPop
                | F::StddevSamp
                | F::StddevPop
                | F::Regression(_),
                ty,
            ) => return Err(no_accumulator(func, ty)),
        })
    }

    /// The direct arguments of an ordered-set aggregate, one row each (the percentile
    /// fraction, or the hypothetical row), and its WITHIN GROUP order as (descending,
    /// nulls first) per key.
    pub fn set_direct_arguments(
        &mut self,
        values: Vec<Vector>,
        order: Vec<(bool, bool)>,
    ) -> Result<()> {
        match self {
            // mode has no direct argument.
            Accumulator::OrderedSet(o) => match values.first() {
                Some(fraction) => o.set_fraction(&fraction.get_scalar(0)),
                None => Ok(()),
            },
            Accumulator::Hypothetical(h) => h.set_row(values, order),
            other => Err(Error::internal(format!(
                "a direct argument for accumulator {other:?}"
            ))),
        }
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
            Accumulator::TextFold(t) => t.resize(groups),
            Accumulator::Bool { state, .. } => state.resize(groups, None),
            Accumulator::Bits { state, .. } => state.resize(groups, None),
            Accumulator::StringAgg(c) => c.resize(groups),
            Accumulator::ArrayAgg(a) => a.resize(groups),
            Accumulator::JsonAgg(a) => a.resize(groups),
            Accumulator::VarianceFloat(m, _) => m.resize(groups),
            Accumulator::VarianceNumeric(m, _) => m.resize(groups),
            Accumulator::OrderedSet(o) => o.resize(groups),
            Accumulator::Regression(m, _) => m.resize(groups),
            Accumulator::Hypothetical(h) => h.resize(groups),
            Accumulator::VectorSum(v) => v.resize(groups),
        }
    }

    /// [`Self::update`] for `rows` rows all in `group` (every batch without GROUP BY): counts
    /// and sums run in registers instead of through the group's slot, which chains each row's
    /// add on the previous row's store. False when this accumulator has no such path.
    pub fn update_one_group(
        &mut self,
        group: usize,
        rows: usize,
        args: &[&Vector],
    ) -> Result<bool> {
        let Some(&input) = args.first() else {
            if let Accumulator::Count(counts) = self {
                counts[group] += rows as i64;
                return Ok(true);
            }
            return Ok(false);
        };
        if input.len() != rows {
            return Ok(false);
        }
        let valid = |row: usize| input.is_valid(row);
        match (self, &input.data) {
            (Accumulator::Count(counts), _) => {
                counts[group] += (rows - input.null_count()) as i64;
            }
            (Accumulator::SumSmallInt(s), VectorData::Int32(v)) => {
                let (mut sum, mut count) = (s.sums[group], 0);
                for (row, &x) in v.iter().enumerate().take(rows) {
                    if valid(row) {
                        sum = sum
                            .checked_add(i64::from(x))
                            .ok_or_else(|| Error::out_of_range("bigint out of range"))?;
                        count += 1;
                    }
                }
                (s.sums[group], s.counts[group]) = (sum, s.counts[group] + count);
            }
            (Accumulator::SumWide(s, _), VectorData::Int64(v)) => {
                let (mut sum, mut count) = (s.sums[group], 0);
                for (row, &x) in v.iter().enumerate().take(rows) {
                    if valid(row) {
                        sum += i128::from(x);
                        count += 1;
                    }
                }
                (s.sums[group], s.counts[group]) = (sum, s.counts[group] + count);
            }
            (Accumulator::SumNumeric(s, _), VectorData::Numeric(v)) => {
                let (mut sum, mut count) = (s.sums[group], 0);
                for (row, x) in v.iter().enumerate().take(rows) {
                    if valid(row) {
                        sum = sum.checked_add(x)?;
                        count += 1;
                    }
                }
                (s.sums[group], s.counts[group]) = (sum, s.counts[group] + count);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Adds row i of the arguments `args` (none for count(*)) to group `groups[i]`.
    pub fn update(&mut self, groups: &[u32], args: &[&Vector]) -> Result<()> {
        // The two that read several arguments together.
        if let Accumulator::Regression(m, _) = self {
            return m.update(groups, args);
        }
        if let Accumulator::Hypothetical(h) = self {
            return h.update(groups, args);
        }
        let Some(&input) = args.first() else {
            if let Accumulator::Count(counts) = self {
                for &g in groups {
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
                sum_into(s, groups, v, valid, |acc, x| add_bigint(acc, x as i64))?
            }
            (Accumulator::SumSmallInt(s), VectorData::Int32(v)) => {
                sum_into(s, groups, v, valid, |acc, x| add_bigint(acc, x as i64))?
            }
            (Accumulator::SumWide(s, _), VectorData::Int16(v)) => {
                sum_into(s, groups, v, valid, |acc, x| Ok(acc + x as i128))?
            }
            (Accumulator::SumWide(s, _), VectorData::Int32(v)) => {
                sum_into(s, groups, v, valid, |acc, x| Ok(acc + x as i128))?
            }
            (Accumulator::SumWide(s, _), VectorData::Int64(v)) => {
                sum_into(s, groups, v, valid, |acc, x| Ok(acc + x as i128))?
            }
            (Accumulator::SumFloat32(s), VectorData::Float32(v)) => {
                sum_into(s, groups, v, valid, add_float)?
            }
            (Accumulator::SumFloat64(s, _), VectorData::Float32(v)) => {
                sum_into(s, groups, v, valid, |acc, x| add_float(acc, f64::from(x)))?
            }
            (Accumulator::SumFloat64(s, _), VectorData::Float64(v)) => {
                sum_into(s, groups, v, valid, add_float)?
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
            (Accumulator::SumNumeric(s, _), VectorData::Numeric(v)) => {
                for (row, &g) in groups.iter().enumerate() {
                    if valid(row) {
                        let g = g as usize;
                        s.sums[g] = s.sums[g].checked_add(&v[row])?;
                        s.counts[g] += 1;
                    }
                }
            }
            (
                Accumulator::MinMax {
                    best, seen, max, ..
                },
                _,
            ) => update_min_max(best, seen, *max, groups, input)?,
            (Accumulator::TextFold(t), _) => t.update(groups, input)?,
            (Accumulator::Bool { state, and }, VectorData::Bool(v)) => {
                for (row, &g) in groups.iter().enumerate() {
                    if valid(row) {
                        fold_bool(&mut state[g as usize], *and, v[row]);
                    }
                }
            }
            (Accumulator::Bits { state, op, .. }, data) => {
                let op = *op;
                let mut add = |row: usize, g: u32, x: i64| {
                    if valid(row) {
                        fold_bits(&mut state[g as usize], op, x);
                    }
                };
                match data {
                    VectorData::Int16(v) => {
                        for (row, &g) in groups.iter().enumerate() {
                            add(row, g, i64::from(v[row]));
                        }
                    }
                    VectorData::Int32(v) => {
                        for (row, &g) in groups.iter().enumerate() {
                            add(row, g, i64::from(v[row]));
                        }
                    }
                    VectorData::Int64(v) => {
                        for (row, &g) in groups.iter().enumerate() {
                            add(row, g, v[row]);
                        }
                    }
                    other => return Err(mismatch(other)),
                }
            }
            (Accumulator::ArrayAgg(a), _) => a.update(groups, input)?,
            (Accumulator::VectorSum(v), _) => v.update(groups, input)?,
            (Accumulator::JsonAgg(a), _) => a.update(groups, args)?,
            (Accumulator::StringAgg(c), _) => c.update(groups, input, args.get(1).copied())?,
            (Accumulator::OrderedSet(o), _) => o.update(groups, args)?,
            (Accumulator::VarianceFloat(m, _), VectorData::Float32(v)) => {
                for (row, &g) in groups.iter().enumerate() {
                    if valid(row) {
                        m.add(g as usize, f64::from(v[row]))?;
                    }
                }
            }
            (Accumulator::VarianceFloat(m, _), VectorData::Float64(v)) => {
                for (row, &g) in groups.iter().enumerate() {
                    if valid(row) {
                        m.add(g as usize, v[row])?;
                    }
                }
            }
            (Accumulator::VarianceNumeric(m, _), data) => {
                for (row, &g) in groups.iter().enumerate() {
                    if !valid(row) {
                        continue;
                    }
                    let g = g as usize;
                    match data {
                        VectorData::Int16(v) => m.add_integer(g, i64::from(v[row]))?,
                        VectorData::Int32(v) => m.add_integer(g, i64::from(v[row]))?,
                        VectorData::Int64(v) => m.add_integer(g, v[row])?,
                        VectorData::Numeric(v) => m.add_numeric(g, &v[row])?,
                        other => return Err(mismatch(other)),
                    }
                }
            }
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
            Accumulator::SumFloat32(s) => {
                let validity = seen_bitmap(&s.counts);
                Vector::new(VectorData::Float32(s.sums), validity)
            }
            Accumulator::MinMax { best, .. } => best,
            Accumulator::TextFold(t) => t.finish(),
            acc @ (Accumulator::SumWide(..)
            | Accumulator::SumInterval(..)
            | Accumulator::SumFloat64(..)
            | Accumulator::SumNumeric(..)
            | Accumulator::Bool { .. }
            | Accumulator::Bits { .. }
            | Accumulator::StringAgg(_)
            | Accumulator::ArrayAgg(_)
            | Accumulator::JsonAgg(_)
            | Accumulator::VarianceFloat(..)
            | Accumulator::VarianceNumeric(..)
            | Accumulator::OrderedSet(_)
            | Accumulator::Regression(..)
            | Accumulator::Hypothetical(_)
            | Accumulator::VectorSum(_)) => {
                // Results computed per group; one pass over the groups.
                let (groups, physical) = acc.shape();
                let mut out = Vector::with_capacity(physical, groups);
                for group in 0..groups {
                    out.push_scalar(&acc.value(group)?)?;
                }
                out
            }
        })
    }

    /// The number of groups and the physical type of the result.
    fn shape(&self) -> (usize, PhysicalType) {
        match self {
            Accumulator::Count(counts) => (counts.len(), PhysicalType::Int64),
            Accumulator::SumSmallInt(s) => (s.counts.len(), PhysicalType::Int64),
            Accumulator::SumWide(s, _) => (s.counts.len(), PhysicalType::Numeric),
            Accumulator::SumFloat32(s) => (s.counts.len(), PhysicalType::Float32),
            Accumulator::SumFloat64(s, _) => (s.counts.len(), PhysicalType::Float64),
            Accumulator::SumNumeric(s, _) => (s.counts.len(), PhysicalType::Numeric),
            Accumulator::SumInterval(s, _) => (s.counts.len(), PhysicalType::Interval),
            Accumulator::MinMax { seen, ty, .. } => (seen.len(), ty.physical()),
            Accumulator::TextFold(t) => (t.len(), PhysicalType::Text),
            Accumulator::Bool { state, .. } => (state.len(), PhysicalType::Bool),
            Accumulator::Bits { state, ty, .. } => (state.len(), *ty),
            Accumulator::StringAgg(c) => (c.len(), c.physical()),
            Accumulator::ArrayAgg(a) => (a.len(), a.physical()),
            Accumulator::JsonAgg(a) => (a.len(), a.physical()),
            Accumulator::VarianceFloat(m, _) => (m.len(), PhysicalType::Float64),
            Accumulator::VarianceNumeric(m, _) => (m.len(), PhysicalType::Numeric),
            Accumulator::OrderedSet(o) => (o.len(), o.physical()),
            Accumulator::Regression(m, RegressionKind::Count) => (m.len(), PhysicalType::Int64),
            Accumulator::Regression(m, _) => (m.len(), PhysicalType::Float64),
            Accumulator::Hypothetical(h) => (h.len(), h.physical()),
            Accumulator::VectorSum(v) => (v.len(), PhysicalType::FloatVector),
        }
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
            Accumulator::TextFold(t) => t.value(group),
            Accumulator::Bool { state, .. } => {
                state[group].map_or(ScalarValue::Null, ScalarValue::Bool)
            }
            Accumulator::Bits { state, narrow, .. } => {
                state[group].map_or(ScalarValue::Null, *narrow)
            }
            Accumulator::StringAgg(c) => c.value(group)?,
            Accumulator::ArrayAgg(a) => a.value(group),
            Accumulator::JsonAgg(a) => a.value(group)?,
            Accumulator::OrderedSet(o) => o.value(group)?,
            Accumulator::Regression(m, kind) => m.value(group, *kind),
            Accumulator::Hypothetical(h) => h.value(group),
            Accumulator::VectorSum(v) => v.value(group)?,
            Accumulator::VarianceFloat(m, kind) => m
                .value(group, *kind)
                .map_or(ScalarValue::Null, ScalarValue::Float64),
            Accumulator::VarianceNumeric(m, kind) => m
                .value(group, *kind)?
                .map_or(ScalarValue::Null, ScalarValue::Numeric),
            Accumulator::SumInterval(..)
            | Accumulator::SumSmallInt(_)
            | Accumulator::SumWide(..)
            | Accumulator::SumFloat32(_)
            | Accumulator::SumFloat64(..)
            | Accumulator::SumNumeric(..) => ScalarValue::Null,
        })
    }
}

/// bool_and (`and`) or bool_or of a group's state and a value.
fn fold_bool(slot: &mut Option<bool>, and: bool, value: bool) {
    *slot = Some(match *slot {
        None => value,
        Some(acc) if and => acc && value,
        Some(acc) => acc || value,
    });
}

/// bit_and / bit_or / bit_xor of a group's state and a value.
fn fold_bits(slot: &mut Option<i64>, op: BitOp, value: i64) {
    *slot = Some(match (*slot, op) {
        (None, _) => value,
        (Some(acc), BitOp::And) => acc & value,
        (Some(acc), BitOp::Or) => acc | value,
        (Some(acc), BitOp::Xor) => acc ^ value,
    });
}

/// A bit_and / bit_or / bit_xor accumulator over integers of type `ty`; `narrow` converts
/// back, which cannot truncate: bitwise results of values of a type fit that type.
fn bits(
    func: AggregateFunction,
    ty: PhysicalType,
    narrow: fn(i64) -> ScalarValue,
) -> Result<Accumulator> {
    Ok(Accumulator::Bits {
        state: Vec::new(),
        op: bit_op(func)?,
        ty,
        narrow,
    })
}

/// The operator of bit_and, bit_or or bit_xor.
fn bit_op(func: AggregateFunction) -> Result<BitOp> {
    use AggregateFunction as F;
    Ok(match func {
        F::BitAnd => BitOp::And,
        F::BitOr => BitOp::Or,
        F::BitXor => BitOp::Xor,
        F::CountStar
        | F::Count
        | F::Sum
        | F::Avg
        | F::Min
        | F::Max
        | F::StringAgg
        | F::ArrayAgg
        | F::JsonAgg { .. }
        | F::JsonObjectAgg { .. }
        | F::BoolAnd
        | F::BoolOr
        | F::VarSamp
        | F::VarPop
        | F::StddevSamp
        | F::StddevPop
        | F::OrderedSet(_)
        | F::Regression(_)
        | F::Hypothetical(_) => return Err(Error::internal("not a bit aggregate")),
    })
}

fn no_accumulator(func: AggregateFunction, ty: DataType) -> Error {
    Error::internal(format!("no {} accumulator for {ty}", func.name()))
}

fn mismatch(data: &VectorData) -> Error {
    Error::internal(format!(
        "aggregate input {:?} does not fit its accumulator",
        data.physical()
    ))
}

/// A sum, or the average (numeric division with PostgreSQL's result scale) when `avg`.
pub(crate) fn sum_or_avg(sum: Decimal, count: i64, avg: bool) -> Result<Decimal> {
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

/// Adds each valid row of `values` into its group's sum with `add`, which may refuse
/// (an overflow) with an error.
fn sum_into<T: Copy, A: Copy>(
    s: &mut Sums<A>,
    groups: &[u32],
    values: &[T],
    valid: impl Fn(usize) -> bool,
    add: impl Fn(A, T) -> Result<A>,
) -> Result<()> {
    for (row, &g) in groups.iter().enumerate() {
        if valid(row) {
            let g = g as usize;
            s.sums[g] = add(s.sums[g], values[row])?;
            s.counts[g] += 1;
        }
    }
    Ok(())
}

/// bigint addition, 22003 past its range.
fn add_bigint(acc: i64, value: i64) -> Result<i64> {
    acc.checked_add(value)
        .ok_or_else(|| Error::out_of_range("bigint out of range"))
}

/// Float addition as PostgreSQL's float4pl/float8pl: finite values that add up to an
/// infinity are 22003, not `Infinity`.
fn add_float<A: Copy + Into<f64> + std::ops::Add<Output = A>>(acc: A, value: A) -> Result<A> {
    let sum = acc + value;
    if sum.into().is_infinite() && acc.into().is_finite() && value.into().is_finite() {
        return Err(Error::out_of_range("value out of range: overflow"));
    }
    Ok(sum)
}

/// min/max of every type but text (`text_min_max.rs`): typed kernels, rows for arrays.
fn update_min_max(
    best: &mut Vector,
    seen: &mut [bool],
    max: bool,
    groups: &[u32],
    input: &Vector,
) -> Result<()> {
    let wanted = if max {
        Ordering::Greater
    } else {
        Ordering::Less
    };
    // Among equal values the later one wins, as in PostgreSQL (numeric_smaller returns its
    // second argument unless the first is smaller): min(1.0, 1.00) is 1.00.
    let unwanted = wanted.reverse();
    macro_rules! typed {
        ($best:expr, $input:expr, $cmp:expr) => {{
            for (row, &g) in groups.iter().enumerate() {
                if !input.is_valid(row) {
                    continue;
                }
                let g = g as usize;
                if !seen[g] || $cmp(&$input[row], &$best[g]) != unwanted {
                    $best[g] = $input[row];
                    seen[g] = true;
                }
            }
        }};
    }
    if let VectorData::List(_) = input.data {
        return update_min_max_rows(best, seen, wanted, groups, input);
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
        | (VectorData::TimestampTz(b), VectorData::TimestampTz(i))
        | (VectorData::Time(b), VectorData::Time(i))
        | (VectorData::TimeTz(b), VectorData::TimeTz(i)) => {
            typed!(b, i, |a: &i64, b| a.cmp(b))
        }
        (VectorData::Inet(b), VectorData::Inet(i)) => typed!(b, i, Ord::cmp),
        (VectorData::Interval(b), VectorData::Interval(i)) => {
            typed!(b, i, Interval::cmp_span)
        }
        // Text has its own accumulator, lists are handled above: anything else is a
        // caller's bug, never a value to skip.
        (best, input) => {
            return Err(Error::internal(format!(
                "min/max input {:?} does not fit its accumulator of {:?}",
                input.physical(),
                best.physical()
            )))
        }
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
    Ok(())
}

/// min/max over types without a typed fast path (arrays): each group's winning input row
/// is found by row comparison, then the best values are rebuilt once per batch.
fn update_min_max_rows(
    best: &mut Vector,
    seen: &mut [bool],
    wanted: Ordering,
    groups: &[u32],
    input: &Vector,
) -> Result<()> {
    let mut winner: Vec<Option<usize>> = vec![None; seen.len()];
    for (row, &g) in groups.iter().enumerate() {
        if !input.is_valid(row) {
            continue;
        }
        let g = g as usize;
        let better = match winner[g] {
            Some(w) => compare_rows(input, row, input, w) != wanted.reverse(),
            None => !seen[g] || compare_rows(input, row, best, g) != wanted.reverse(),
        };
        if better {
            winner[g] = Some(row);
        }
    }
    if winner.iter().all(Option::is_none) {
        return Ok(());
    }
    let mut rebuilt = Vector::with_capacity(best.data.physical(), best.len());
    for (g, won) in winner.iter().enumerate().take(best.len()) {
        match won {
            Some(row) => {
                rebuilt.push_from(input, *row)?;
                seen[g] = true;
            }
            None => rebuilt.push_from(best, g)?,
        }
    }
    *best = rebuilt;
    Ok(())
}
