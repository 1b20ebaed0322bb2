//! Merging partial aggregate states: parallel workers aggregate disjoint parts of the input
//! each into its own groups, and their states fold into one table here. Only for calls whose
//! merge gives exactly the serial result ([`AggregateFunction::merges_exactly`]); the others
//! aggregate serially.

use super::{
    add_bigint, fold_bits, fold_bool, update_min_max, Accumulator, AggregateFunction, Sums,
};
use crate::error::{Error, Result};
use crate::types::{DataType, Interval, PhysicalType};

impl AggregateFunction {
    /// Whether partial states over disjoint parts of the input (another worker's rows)
    /// combine into exactly the serial result, whatever the parts. Not for float sums and
    /// moments (rounding depends on the order), the order-sensitive aggregates, nor min/max
    /// of types whose equal values can differ (1.0 and 1.00, -0 and 0, '1 day' and
    /// '24 hours'): there the serial result keeps the last of the equal values.
    pub fn merges_exactly(self, arg: DataType) -> bool {
        use AggregateFunction as F;
        match self {
            F::CountStar | F::Count | F::BoolAnd | F::BoolOr | F::BitAnd | F::BitOr | F::BitXor => {
                true
            }
            F::Sum | F::Avg | F::VarSamp | F::VarPop | F::StddevSamp | F::StddevPop => {
                !self.order_sensitive(arg)
            }
            F::Min | F::Max => identical_when_equal(arg.physical()),
            F::StringAgg
            | F::ArrayAgg
            | F::JsonAgg { .. }
            | F::JsonObjectAgg { .. }
            | F::OrderedSet(_)
            | F::Regression(_)
            | F::Hypothetical(_) => false,
        }
    }
}

/// Whether two values of the type compare equal only when they are the same value: not
/// numeric (1.0 = 1.00), floats (-0 = 0), intervals ('1 day' = '24 hours') nor the types
/// holding them. Where equal values can differ, which one an aggregate keeps (min/max:
/// the last; a group's key: the first) depends on the order rows come in.
pub fn identical_when_equal(ty: PhysicalType) -> bool {
    match ty {
        PhysicalType::Bool
        | PhysicalType::Int16
        | PhysicalType::Int32
        | PhysicalType::Int64
        | PhysicalType::Date
        | PhysicalType::Timestamp
        | PhysicalType::TimestampTz
        | PhysicalType::Time
        | PhysicalType::TimeTz
        | PhysicalType::Text
        | PhysicalType::Bytes
        | PhysicalType::Uuid
        | PhysicalType::Inet => true,
        PhysicalType::Float32
        | PhysicalType::Float64
        | PhysicalType::Numeric
        | PhysicalType::Interval
        | PhysicalType::Jsonb
        | PhysicalType::List(_)
        | PhysicalType::Struct(_)
        | PhysicalType::FloatVector => false,
    }
}

impl Accumulator {
    /// Folds groups of `other`, the state of the same call over other rows, into this one:
    /// its group `from[i]` into group `into[i]` (this accumulator already has room for it),
    /// so a partitioned merge folds only the groups of its partition. Only for calls whose
    /// [`AggregateFunction::merges_exactly`] holds; any other pair is a caller's bug.
    pub fn merge(&mut self, other: &Accumulator, from: &[u32], into: &[u32]) -> Result<()> {
        let pairs = || {
            from.iter()
                .map(|&f| f as usize)
                .zip(into.iter().map(|&g| g as usize))
        };
        fn sums<T: Copy>(
            ours: &mut Sums<T>,
            theirs: &Sums<T>,
            pairs: impl Iterator<Item = (usize, usize)>,
            add: impl Fn(T, T) -> Result<T>,
        ) -> Result<()> {
            for (f, g) in pairs {
                if theirs.counts[f] > 0 {
                    ours.sums[g] = add(ours.sums[g], theirs.sums[f])?;
                    ours.counts[g] += theirs.counts[f];
                }
            }
            Ok(())
        }
        match (self, other) {
            (Accumulator::Count(ours), Accumulator::Count(theirs)) => {
                for (f, g) in pairs() {
                    ours[g] += theirs[f];
                }
            }
            (Accumulator::SumSmallInt(ours), Accumulator::SumSmallInt(theirs)) => {
                sums(ours, theirs, pairs(), add_bigint)?
            }
            (Accumulator::SumWide(ours, _), Accumulator::SumWide(theirs, _)) => {
                sums(ours, theirs, pairs(), |a, b| Ok(a + b))?
            }
            (Accumulator::SumNumeric(ours, _), Accumulator::SumNumeric(theirs, _)) => {
                sums(ours, theirs, pairs(), |a, b| a.checked_add(&b))?
            }
            (Accumulator::SumInterval(ours, _), Accumulator::SumInterval(theirs, _)) => {
                sums(ours, theirs, pairs(), Interval::checked_add)?
            }
            (
                Accumulator::MinMax {
                    best, seen, max, ..
                },
                Accumulator::MinMax { best: theirs, .. },
            ) => update_min_max(best, seen, *max, into, &theirs.gather(from))?,
            (Accumulator::TextFold(ours), Accumulator::TextFold(theirs)) => {
                ours.merge(theirs, pairs())?
            }
            (Accumulator::Bool { state, and }, Accumulator::Bool { state: theirs, .. }) => {
                for (f, g) in pairs() {
                    if let Some(value) = theirs[f] {
                        fold_bool(&mut state[g], *and, value);
                    }
                }
            }
            (Accumulator::Bits { state, op, .. }, Accumulator::Bits { state: theirs, .. }) => {
                for (f, g) in pairs() {
                    if let Some(value) = theirs[f] {
                        fold_bits(&mut state[g], *op, value);
                    }
                }
            }
            (Accumulator::VarianceNumeric(ours, _), Accumulator::VarianceNumeric(theirs, _)) => {
                ours.merge(theirs, pairs())?
            }
            (ours, theirs) => {
                return Err(Error::internal(format!(
                    "no exact merge of aggregate state {:?} into {:?}",
                    theirs.shape().1,
                    ours.shape().1
                )))
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Decimal, Interval, IntervalTypmod, ScalarValue};
    use crate::vector::Vector;

    /// The groups of the rows and their values, for `func` over `ty`.
    struct Case {
        func: AggregateFunction,
        ty: DataType,
        values: Vec<ScalarValue>,
    }

    fn column(ty: DataType, values: &[ScalarValue]) -> Vector {
        let mut column = Vector::with_capacity(ty.physical(), values.len());
        for v in values {
            column.push_scalar(v).expect("test value fits its type");
        }
        column
    }

    /// Every group's result, aggregated over `rows` (group, value) in one accumulator.
    fn aggregate(case: &Case, rows: &[(u32, ScalarValue)], groups: usize) -> Accumulator {
        let mut acc = Accumulator::new(case.func, case.ty).expect("accumulator exists");
        acc.resize(groups);
        let ids: Vec<u32> = rows.iter().map(|(g, _)| *g).collect();
        let values: Vec<ScalarValue> = rows.iter().map(|(_, v)| v.clone()).collect();
        let input = column(case.ty, &values);
        let args: Vec<&Vector> = match case.func {
            AggregateFunction::CountStar => vec![],
            _ => vec![&input],
        };
        acc.update(&ids, &args).expect("update succeeds");
        acc
    }

    /// Splits the rows into `parts` interleaved runs (as workers take morsels), aggregates
    /// each with its own dense group ids, merges the partial states and compares every group
    /// with the serial result.
    fn check_merge(case: &Case, parts: usize) {
        const GROUPS: u32 = 3;
        let rows: Vec<(u32, ScalarValue)> = case
            .values
            .iter()
            .enumerate()
            .map(|(i, v)| ((i as u32 * 7) % GROUPS, v.clone()))
            .collect();
        let serial = aggregate(case, &rows, GROUPS as usize);
        let mut merged = Accumulator::new(case.func, case.ty).expect("accumulator exists");
        // The merged table numbers its groups as the parts bring them.
        let mut merged_ids: Vec<Option<u32>> = vec![None; GROUPS as usize];
        let mut merged_groups = 0u32;
        let mut serial_of_merged = Vec::new();
        for part in 0..parts {
            let mine: Vec<(u32, ScalarValue)> = rows
                .chunks(2)
                .enumerate()
                .filter(|(morsel, _)| morsel % parts == part)
                .flat_map(|(_, chunk)| chunk.iter().cloned())
                .collect();
            // Dense local ids in order of appearance; `local[i]` is local group i's global one.
            let mut local: Vec<u32> = Vec::new();
            let renumbered: Vec<(u32, ScalarValue)> = mine
                .iter()
                .map(|(g, v)| {
                    let id = local.iter().position(|l| l == g).unwrap_or_else(|| {
                        local.push(*g);
                        local.len() - 1
                    });
                    (id as u32, v.clone())
                })
                .collect();
            let partial = aggregate(case, &renumbered, local.len());
            let map: Vec<u32> = local
                .iter()
                .map(|&g| {
                    *merged_ids[g as usize].get_or_insert_with(|| {
                        serial_of_merged.push(g);
                        merged_groups += 1;
                        merged_groups - 1
                    })
                })
                .collect();
            merged.resize(merged_groups as usize);
            let all: Vec<u32> = (0..local.len() as u32).collect();
            merged.merge(&partial, &all, &map).expect("merge succeeds");
        }
        merged.resize(merged_groups as usize);
        let (serial, merged) = (
            serial.finish().expect("finishes"),
            merged.finish().expect("finishes"),
        );
        for (m, &g) in serial_of_merged.iter().enumerate() {
            assert_eq!(
                merged.get_scalar(m),
                serial.get_scalar(g as usize),
                "{} over {:?}, group {g}, {parts} parts",
                case.func.name(),
                case.ty
            );
        }
    }

    fn ints(values: &[Option<i64>], scalar: fn(i64) -> ScalarValue) -> Vec<ScalarValue> {
        values
            .iter()
            .map(|v| v.map_or(ScalarValue::Null, scalar))
            .collect()
    }

    #[test]
    fn exact_merges_equal_the_serial_result() {
        use AggregateFunction as F;
        let raw: Vec<Option<i64>> = vec![
            Some(5),
            None,
            Some(-3),
            Some(12),
            Some(7),
            None,
            Some(0),
            Some(12),
            Some(-40),
            Some(9),
            Some(1),
            None,
            Some(2),
        ];
        let int4 = ints(&raw, |v| ScalarValue::Int32(v as i32));
        let int8 = ints(&raw, |v| ScalarValue::Int64(v * 1_000_000_007));
        let numeric: Vec<ScalarValue> = raw
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.map_or(ScalarValue::Null, |v| {
                    let text = format!("{v}.{}", "5".repeat(i % 4));
                    let text = text.trim_end_matches('.').to_string();
                    ScalarValue::Numeric(Decimal::parse(&text).expect("literal parses"))
                })
            })
            .collect();
        let interval: Vec<ScalarValue> = raw
            .iter()
            .map(|v| {
                v.map_or(ScalarValue::Null, |v| {
                    ScalarValue::Interval(Interval {
                        months: v as i32,
                        days: 2 * v as i32,
                        micros: v * 3_600_000_000,
                    })
                })
            })
            .collect();
        let text: Vec<ScalarValue> = raw
            .iter()
            .map(|v| v.map_or(ScalarValue::Null, |v| ScalarValue::Text(format!("t{v}"))))
            .collect();
        let bools: Vec<ScalarValue> = raw
            .iter()
            .map(|v| v.map_or(ScalarValue::Null, |v| ScalarValue::Bool(v > 0)))
            .collect();
        let bits: Vec<ScalarValue> = raw
            .iter()
            .map(|v| {
                v.map_or(ScalarValue::Null, |v| {
                    ScalarValue::Text(format!("{:04b}", v.rem_euclid(16)))
                })
            })
            .collect();
        let cases = [
            (F::CountStar, DataType::Int32, &int4),
            (F::Count, DataType::Int32, &int4),
            (F::Sum, DataType::Int32, &int4),
            (F::Sum, DataType::Int64, &int8),
            (F::Avg, DataType::Int32, &int4),
            (F::Avg, DataType::Int64, &int8),
            (F::Sum, DataType::Numeric(None), &numeric),
            (F::Avg, DataType::Numeric(None), &numeric),
            (F::Sum, DataType::Interval(IntervalTypmod::NONE), &interval),
            (F::Avg, DataType::Interval(IntervalTypmod::NONE), &interval),
            (F::Min, DataType::Int32, &int4),
            (F::Max, DataType::Int64, &int8),
            (F::Min, DataType::Text, &text),
            (F::Max, DataType::Text, &text),
            (F::BoolAnd, DataType::Bool, &bools),
            (F::BoolOr, DataType::Bool, &bools),
            (F::BitAnd, DataType::Int32, &int4),
            (F::BitOr, DataType::Int64, &int8),
            (F::BitXor, DataType::Int32, &int4),
            (F::BitXor, DataType::VarBit(None), &bits),
            (F::BitAnd, DataType::Bit(None), &bits),
            (F::VarSamp, DataType::Int32, &int4),
            (F::StddevPop, DataType::Int64, &int8),
            (F::VarPop, DataType::Numeric(None), &numeric),
            (F::StddevSamp, DataType::Numeric(None), &numeric),
        ];
        for (func, ty, values) in cases {
            assert!(func.merges_exactly(ty), "{} over {ty:?}", func.name());
            let case = Case {
                func,
                ty,
                values: values.clone(),
            };
            for parts in 1..=4 {
                check_merge(&case, parts);
            }
            // No rows at all, and every row NULL.
            let empty = Case {
                values: Vec::new(),
                ..case
            };
            check_merge(&empty, 2);
            let nulls = Case {
                values: vec![ScalarValue::Null; 5],
                ..empty
            };
            check_merge(&nulls, 2);
        }
    }

    #[test]
    fn inexact_merges_are_refused() {
        use AggregateFunction as F;
        for (func, ty) in [
            (F::Sum, DataType::Float64),
            (F::Avg, DataType::Float32),
            (F::VarSamp, DataType::Float64),
            (F::Min, DataType::Numeric(None)),
            (F::Max, DataType::Float64),
            (F::Min, DataType::Interval(IntervalTypmod::NONE)),
            (F::StringAgg, DataType::Text),
            (F::ArrayAgg, DataType::Int32),
        ] {
            assert!(!func.merges_exactly(ty), "{} over {ty:?}", func.name());
        }
        let mut ours = Accumulator::new(F::Sum, DataType::Float64).expect("exists");
        let theirs = Accumulator::new(F::Sum, DataType::Float64).expect("exists");
        assert!(ours.merge(&theirs, &[], &[]).is_err());
    }
}
