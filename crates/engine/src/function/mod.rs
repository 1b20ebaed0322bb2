//! Scalar functions and operators, aggregates and casts, registered in one place.

pub mod aggregate;
pub mod arithmetic;
pub mod cast;
mod cast_bits;
pub mod compare;
pub mod datetime_arithmetic;
pub mod datetime_fields;
pub mod datetime_format;
pub mod datetime_functions;
pub mod like;
pub mod scalar;
pub mod table;
pub mod vector_kernels;
pub mod window;

pub use aggregate::AggregateFunction;
pub use datetime_functions::DateTimeFunction;
pub use scalar::{
    ArrayFunction, JsonFunction, JsonItems, PatternSyntax, RecordFunction, ScalarFunction,
    VectorFunction,
};
pub use table::TableFunction;
pub use window::WindowFunction;
