//! Scalar functions and operators, aggregates and casts, registered in one place.

pub mod cast;
