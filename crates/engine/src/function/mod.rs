//! Scalar functions and operators, aggregates and casts, registered in one place.

pub mod aggregate;
pub mod arithmetic;
pub mod cast;
pub mod compare;
pub mod like;
pub mod scalar;
pub mod window;

pub use aggregate::AggregateFunction;
pub use scalar::ScalarFunction;
pub use window::WindowFunction;
