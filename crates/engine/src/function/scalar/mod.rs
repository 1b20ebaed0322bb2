//! Named scalar functions: lookup by name and argument types, result types, and kernels.

use crate::error::{Error, Result};
use crate::types::DataType;
use crate::vector::{StringVec, Vector, VectorData};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarFunction {
    Lower,
    Upper,
    Length,
    Abs,
}

impl ScalarFunction {
    /// The function `name` for arguments of `args` types: the function, the types its
    /// arguments must be coerced to, and its result type. `None` if there is no such function.
    pub fn resolve(
        name: &str,
        args: &[DataType],
    ) -> Option<(ScalarFunction, Vec<DataType>, DataType)> {
        use DataType as T;
        let string_arg = |t: DataType| t.is_string() || t == T::Unknown;
        Some(match (name, args) {
            ("lower", [t]) if string_arg(*t) => (ScalarFunction::Lower, vec![T::Text], T::Text),
            ("upper", [t]) if string_arg(*t) => (ScalarFunction::Upper, vec![T::Text], T::Text),
            ("length" | "char_length" | "character_length", [t]) if string_arg(*t) => {
                (ScalarFunction::Length, vec![T::Text], T::Int32)
            }
            ("abs", [t]) => {
                let ty = match t {
                    T::Int16 | T::Int32 | T::Int64 | T::Float32 | T::Float64 | T::Numeric(_) => *t,
                    T::Unknown => T::Float64,
                    _ => return None,
                };
                let ty = match ty {
                    T::Numeric(_) => T::Numeric(None),
                    other => other,
                };
                (ScalarFunction::Abs, vec![ty], ty)
            }
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            ScalarFunction::Lower => "lower",
            ScalarFunction::Upper => "upper",
            ScalarFunction::Length => "length",
            ScalarFunction::Abs => "abs",
        }
    }

    /// Applies the function to argument vectors already of the resolved types.
    pub fn eval(self, args: &[Vector]) -> Result<Vector> {
        let [input] = args else {
            return Err(Error::internal(format!(
                "{} takes one argument",
                self.name()
            )));
        };
        let validity = input.validity.clone();
        let data = match (self, &input.data) {
            (ScalarFunction::Lower, VectorData::Text(s)) => map_text(s, |v, out| {
                out.extend_from_slice(v.to_lowercase().as_bytes())
            }),
            (ScalarFunction::Upper, VectorData::Text(s)) => map_text(s, |v, out| {
                out.extend_from_slice(v.to_uppercase().as_bytes())
            }),
            (ScalarFunction::Length, VectorData::Text(s)) => {
                VectorData::Int32(s.iter().map(|v| v.chars().count() as i32).collect())
            }
            (ScalarFunction::Abs, VectorData::Int16(v)) => {
                VectorData::Int16(checked_abs(v, "smallint", |x: i16| x.checked_abs())?)
            }
            (ScalarFunction::Abs, VectorData::Int32(v)) => {
                VectorData::Int32(checked_abs(v, "integer", |x: i32| x.checked_abs())?)
            }
            (ScalarFunction::Abs, VectorData::Int64(v)) => {
                VectorData::Int64(checked_abs(v, "bigint", |x: i64| x.checked_abs())?)
            }
            (ScalarFunction::Abs, VectorData::Float32(v)) => {
                VectorData::Float32(v.iter().map(|x| x.abs()).collect())
            }
            (ScalarFunction::Abs, VectorData::Float64(v)) => {
                VectorData::Float64(v.iter().map(|x| x.abs()).collect())
            }
            (ScalarFunction::Abs, VectorData::Numeric(v)) => {
                VectorData::Numeric(v.iter().map(|x| x.abs()).collect())
            }
            (func, data) => {
                return Err(Error::internal(format!(
                    "{} of {:?}",
                    func.name(),
                    data.physical()
                )))
            }
        };
        Ok(Vector::new(data, validity))
    }
}

fn map_text(input: &StringVec, f: impl Fn(&str, &mut Vec<u8>)) -> VectorData {
    let mut out = StringVec::with_capacity(input.len(), input.len() * 8);
    for value in input.iter() {
        out.push_with(|buf| f(value, buf));
    }
    VectorData::Text(out)
}

fn checked_abs<T: Copy>(values: &[T], name: &str, abs: impl Fn(T) -> Option<T>) -> Result<Vec<T>> {
    values
        .iter()
        .map(|&x| abs(x).ok_or_else(|| Error::out_of_range(format!("{name} out of range"))))
        .collect()
}
