//! SQL types and values with PostgreSQL's rules: names and OIDs, text input and output
//! formats, NUMERIC arithmetic, dates, timestamps and intervals, and casts.

pub mod array_shape;
pub mod array_text;
pub mod binary_io;
pub mod bit_string;
pub mod bytea;
mod data_type;
pub mod datetime;
pub mod datetime_style;
pub mod float;
pub mod float_vector;
pub mod inet;
pub mod int_vector;
pub mod internal_char;
pub mod interval;
mod interval_style;
pub mod interval_typmod;
pub mod json;
pub mod jsonpath;
pub mod numeric;
pub mod precision;
pub mod record;
mod scalar;
pub mod substring;
pub mod text_io;
pub mod timetz;
pub mod timezone;
pub mod uuid;
pub(crate) mod wide;
pub(crate) mod wide_decimal;

pub use data_type::{
    enum_array_oid, DataType, NumericTypmod, OidKind, PhysicalType, TypeCategory,
    FLOAT_VECTOR_ARRAY_OID, FLOAT_VECTOR_OID,
};
pub use interval::Interval;
pub use interval_typmod::{IntervalRange, IntervalTypmod};
pub use numeric::Decimal;
pub use scalar::ScalarValue;
