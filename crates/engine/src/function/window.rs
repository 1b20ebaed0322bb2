//! Window functions: ranking and offset functions with PostgreSQL's result types. Aggregates
//! used as window functions are [`super::AggregateFunction`]s.

use super::AggregateFunction;
use crate::types::DataType;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowFunction {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    Ntile,
    Lag,
    Lead,
    FirstValue,
    LastValue,
    NthValue,
    Aggregate(AggregateFunction),
}

impl WindowFunction {
    pub fn by_name(name: &str) -> Option<WindowFunction> {
        Some(match name {
            "row_number" => WindowFunction::RowNumber,
            "rank" => WindowFunction::Rank,
            "dense_rank" => WindowFunction::DenseRank,
            "percent_rank" => WindowFunction::PercentRank,
            "cume_dist" => WindowFunction::CumeDist,
            "ntile" => WindowFunction::Ntile,
            "lag" => WindowFunction::Lag,
            "lead" => WindowFunction::Lead,
            "first_value" => WindowFunction::FirstValue,
            "last_value" => WindowFunction::LastValue,
            "nth_value" => WindowFunction::NthValue,
            other => WindowFunction::Aggregate(AggregateFunction::by_name(other)?),
        })
    }

    /// Argument types to coerce to (after the first, value-typed argument where there is
    /// one) and the result type, given the first argument's type.
    pub fn signature(
        self,
        first_arg: Option<DataType>,
        arg_count: usize,
    ) -> Option<(Vec<DataType>, DataType)> {
        use DataType as T;
        Some(match (self, first_arg, arg_count) {
            (
                WindowFunction::RowNumber | WindowFunction::Rank | WindowFunction::DenseRank,
                None,
                0,
            ) => (vec![], T::Int64),
            (WindowFunction::PercentRank | WindowFunction::CumeDist, None, 0) => {
                (vec![], T::Float64)
            }
            (WindowFunction::Ntile, Some(_), 1) => (vec![T::Int32], T::Int32),
            (WindowFunction::Lag | WindowFunction::Lead, Some(t), 1) => (vec![t], t),
            (WindowFunction::Lag | WindowFunction::Lead, Some(t), 2) => (vec![t, T::Int32], t),
            (WindowFunction::Lag | WindowFunction::Lead, Some(t), 3) => (vec![t, T::Int32, t], t),
            (WindowFunction::FirstValue | WindowFunction::LastValue, Some(t), 1) => (vec![t], t),
            (WindowFunction::NthValue, Some(t), 2) => (vec![t, T::Int32], t),
            (WindowFunction::Aggregate(AggregateFunction::Count), None, 0) => (vec![], T::Int64),
            (WindowFunction::Aggregate(f), Some(t), 1) => f.signature(&[t])?,
            // string_agg(value, delimiter): the delimiter is of the value's type.
            (WindowFunction::Aggregate(f @ AggregateFunction::StringAgg), Some(t), 2) => {
                f.signature(&[t, t])?
            }
            // The statistics of (Y, X) take double precision; the caller checks that both
            // arguments convert to it.
            (WindowFunction::Aggregate(f @ AggregateFunction::Regression(_)), Some(_), 2) => {
                f.signature(&[T::Float64, T::Float64])?
            }
            _ => return None,
        })
    }
}
