//! Table functions: set-returning functions used in FROM.

use crate::types::DataType;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFunction {
    /// generate_series(start, stop [, step]) over integers or numerics.
    GenerateSeries,
}

impl TableFunction {
    pub fn by_name(name: &str) -> Option<TableFunction> {
        match name {
            "generate_series" => Some(TableFunction::GenerateSeries),
            _ => None,
        }
    }

    /// The common argument type and the output column type for arguments of `types`.
    pub fn signature(self, types: &[DataType]) -> Option<DataType> {
        match self {
            TableFunction::GenerateSeries => {
                if !(2..=3).contains(&types.len()) {
                    return None;
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
}
