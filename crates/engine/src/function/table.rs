//! Table functions: set-returning functions used in FROM.

use crate::types::{DataType, IntervalTypmod};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFunction {
    /// generate_series(start, stop [, step]) over integers or numerics, or
    /// generate_series(start, stop, step interval) over timestamps.
    GenerateSeries,
    /// unnest(anyarray): every element of the array in storage order, NULLs included.
    Unnest,
    /// regexp_matches(s, pattern [, flags]): the capture groups of the first match, or of
    /// every match with `g`, one text[] a row.
    RegexpMatches,
    /// regexp_split_to_table(s, pattern [, flags]): the text between matches, a row each.
    RegexpSplitToTable,
}

impl TableFunction {
    pub fn by_name(name: &str) -> Option<TableFunction> {
        match name {
            // generate_subscripts(a, dim) is the series from array_lower(a, dim) to
            // array_upper(a, dim), which the binder passes it.
            "generate_series" | "generate_subscripts" => Some(TableFunction::GenerateSeries),
            // No relation is a partition: its ancestors are the unnest of an empty array,
            // which the binder passes it.
            // string_to_table(s, delimiter [, null]) is the unnest of string_to_array's
            // array, which the binder passes it.
            "unnest" | "pg_partition_ancestors" | "string_to_table" => Some(TableFunction::Unnest),
            "regexp_matches" => Some(TableFunction::RegexpMatches),
            "regexp_split_to_table" => Some(TableFunction::RegexpSplitToTable),
            _ => None,
        }
    }

    /// The common argument type and the output column type for arguments of `types`.
    pub fn signature(self, types: &[DataType]) -> Option<DataType> {
        match self {
            TableFunction::Unnest => match types {
                [DataType::Array(elem)] => Some(**elem),
                _ => None,
            },
            TableFunction::RegexpMatches => regexp_arguments(types)
                .then(|| DataType::array_of(DataType::Text))
                .flatten(),
            TableFunction::RegexpSplitToTable => regexp_arguments(types).then_some(DataType::Text),
            TableFunction::GenerateSeries => {
                if !(2..=3).contains(&types.len()) {
                    return None;
                }
                if let [start, stop, DataType::Interval(_) | DataType::Unknown] = types {
                    if let Some(ty) = series_timestamp_type(*start, *stop) {
                        return Some(ty);
                    }
                }
                let mut ty = DataType::Unknown;
                for &t in types {
                    ty = match (ty, t) {
                        (DataType::Unknown, t) | (t, DataType::Unknown) => t,
                        (a, b) if a == b => a,
                        (DataType::Numeric(_), _) | (_, DataType::Numeric(_)) => {
                            DataType::Numeric(None)
                        }
                        (DataType::Int64, _) | (_, DataType::Int64) => DataType::Int64,
                        _ => DataType::Int32,
                    };
                }
                match ty {
                    DataType::Int16 | DataType::Int32 | DataType::Unknown => Some(DataType::Int32),
                    DataType::Int64 => Some(DataType::Int64),
                    DataType::Numeric(_) => Some(DataType::Numeric(None)),
                    _ => None,
                }
            }
        }
    }

    /// The type argument `position` is coerced to when the output column is `output`: the
    /// step of a timestamp series is an interval, every other argument the output's type.
    pub fn argument_type(self, output: DataType, position: usize) -> DataType {
        match self {
            TableFunction::Unnest => DataType::array_of(output).unwrap_or(output),
            TableFunction::RegexpMatches | TableFunction::RegexpSplitToTable => DataType::Text,
            TableFunction::GenerateSeries => match (output, position) {
                (DataType::Timestamp(_) | DataType::TimestampTz(_), 2) => {
                    DataType::Interval(IntervalTypmod::NONE)
                }
                _ => output,
            },
        }
    }
}

/// Whether a regexp function takes `types`: (s, pattern [, flags]), all strings.
fn regexp_arguments(types: &[DataType]) -> bool {
    (2..=3).contains(&types.len())
        && types
            .iter()
            .all(|&t| t == DataType::Unknown || t.is_string())
}

/// The output type of a timestamp series from its bounds' types: timestamp stays, anything
/// with a date or timestamptz becomes timestamptz (the datetime category's preferred type).
fn series_timestamp_type(start: DataType, stop: DataType) -> Option<DataType> {
    use DataType as T;
    match (start, stop) {
        (T::Timestamp(_), T::Timestamp(_) | T::Unknown) | (T::Unknown, T::Timestamp(_)) => {
            Some(T::Timestamp(None))
        }
        (
            T::Date | T::TimestampTz(_) | T::Timestamp(_) | T::Unknown,
            T::Date | T::TimestampTz(_) | T::Timestamp(_),
        )
        | (T::Date | T::TimestampTz(_), T::Unknown) => Some(T::TimestampTz(None)),
        _ => None,
    }
}
