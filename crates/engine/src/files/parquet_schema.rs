//! Parquet's types as PostgreSQL's, both ways: a file's top-level fields become columns
//! (ints, floats, decimals, strings, dates, times, timestamps with and without zone,
//! booleans, uuids, bytes, and lists of those as arrays), and a column type becomes the
//! Parquet type COPY TO writes. Anything else is 0A000, named.

use std::sync::Arc;

use parquet::basic::{ConvertedType, LogicalType, Repetition, TimeUnit, Type as Physical};
use parquet::schema::types::{ColumnDescriptor, SchemaDescriptor, Type, TypePtr};

use crate::error::{Error, Result};
use crate::types::{DataType, NumericTypmod};

/// How a leaf column's stored values become a vector's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decode {
    Bool,
    Int16,
    Int32,
    Int64,
    /// UINT_32: stored as INT32, widened.
    UInt32,
    Float32,
    Float64,
    /// DECIMAL on INT32 / INT64 / a big-endian byte array, with its scale.
    Decimal(u32),
    /// Days since 1970-01-01.
    Date,
    /// Since midnight / 1970-01-01 UTC in `unit`s.
    Time(Unit),
    /// With whether it is an instant (timestamptz) rather than a wall-clock time.
    Timestamp(Unit, bool),
    /// The legacy INT96 timestamp (nanoseconds of the day + Julian day).
    Int96,
    Text,
    Bytes,
    Uuid,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Millis,
    Micros,
    Nanos,
}

/// One top-level field of a file: its column, the leaf that holds its values, and whether
/// the leaf is the element of a LIST (the column is an array).
#[derive(Debug, Clone, PartialEq)]
pub struct FieldLayout {
    pub leaf: usize,
    pub decode: Decode,
    pub list: bool,
}

/// The columns of a file and the layout of each.
pub fn columns(
    schema: &SchemaDescriptor,
    path: &str,
) -> Result<(Vec<super::NamedColumn>, Vec<FieldLayout>)> {
    let mut columns = Vec::new();
    let mut layouts = Vec::new();
    let mut leaf = 0;
    for field in schema.root_schema().get_fields() {
        let leaves = count_leaves(field);
        let name = field.name().to_string();
        let unsupported = || {
            Error::unsupported(format!(
                "the type of column \"{name}\" of Parquet file \"{path}\""
            ))
        };
        let (decode, ty, list) = if field.is_primitive() {
            let descr = schema.column(leaf);
            if descr.max_rep_level() > 0 {
                return Err(unsupported());
            }
            let (decode, ty) = leaf_type(&descr).ok_or_else(unsupported)?;
            (decode, ty, false)
        } else if is_list(field) && leaves == 1 {
            let descr = schema.column(leaf);
            if descr.max_rep_level() != 1 {
                return Err(unsupported());
            }
            let (decode, elem) = leaf_type(&descr).ok_or_else(unsupported)?;
            (
                decode,
                DataType::array_of(elem).ok_or_else(unsupported)?,
                true,
            )
        } else {
            return Err(unsupported());
        };
        columns.push((name, ty));
        layouts.push(FieldLayout { leaf, decode, list });
        leaf += leaves;
    }
    Ok((columns, layouts))
}

fn count_leaves(field: &Type) -> usize {
    if field.is_primitive() {
        1
    } else {
        field.get_fields().iter().map(|f| count_leaves(f)).sum()
    }
}

fn is_list(field: &Type) -> bool {
    let info = field.get_basic_info();
    matches!(info.logical_type_ref(), Some(LogicalType::List))
        || info.converted_type() == ConvertedType::LIST
}

/// The decoding and column type of a leaf, from its logical type, else its legacy
/// converted type, else its physical type.
fn leaf_type(descr: &ColumnDescriptor) -> Option<(Decode, DataType)> {
    use DataType as T;
    let physical = descr.physical_type();
    let decimal = |precision: i32, scale: i32| {
        let (precision, scale) = (u32::try_from(precision).ok()?, u32::try_from(scale).ok()?);
        (precision <= 38 && scale <= precision).then_some((
            Decode::Decimal(scale),
            T::Numeric(Some(NumericTypmod { precision, scale })),
        ))
    };
    let unit = |u: &TimeUnit| match u {
        TimeUnit::MILLIS => Unit::Millis,
        TimeUnit::MICROS => Unit::Micros,
        TimeUnit::NANOS => Unit::Nanos,
    };
    if let Some(logical) = descr.logical_type_ref() {
        return match (logical, physical) {
            (LogicalType::String | LogicalType::Enum | LogicalType::Json, Physical::BYTE_ARRAY) => {
                Some((Decode::Text, T::Text))
            }
            (LogicalType::Decimal(d), _) => decimal(d.precision, d.scale),
            (LogicalType::Date, Physical::INT32) => Some((Decode::Date, T::Date)),
            (LogicalType::Time(t), Physical::INT32 | Physical::INT64)
                if !t.is_adjusted_to_u_t_c =>
            {
                Some((Decode::Time(unit(&t.unit)), T::Time(None)))
            }
            (LogicalType::Timestamp(t), Physical::INT64) => Some((
                Decode::Timestamp(unit(&t.unit), t.is_adjusted_to_u_t_c),
                if t.is_adjusted_to_u_t_c {
                    T::TimestampTz(None)
                } else {
                    T::Timestamp(None)
                },
            )),
            (LogicalType::Integer(i), Physical::INT32) => match (i.bit_width, i.is_signed) {
                (8 | 16, true) | (8, false) => Some((Decode::Int16, T::Int16)),
                (32, true) | (16, false) => Some((Decode::Int32, T::Int32)),
                (32, false) => Some((Decode::UInt32, T::Int64)),
                _ => None,
            },
            (LogicalType::Integer(i), Physical::INT64) if i.is_signed => {
                Some((Decode::Int64, T::Int64))
            }
            (LogicalType::Uuid, Physical::FIXED_LEN_BYTE_ARRAY) if descr.type_length() == 16 => {
                Some((Decode::Uuid, T::Uuid))
            }
            _ => None,
        };
    }
    match (descr.converted_type(), physical) {
        (ConvertedType::UTF8 | ConvertedType::ENUM | ConvertedType::JSON, Physical::BYTE_ARRAY) => {
            Some((Decode::Text, T::Text))
        }
        (ConvertedType::DECIMAL, _) => decimal(descr.type_precision(), descr.type_scale()),
        (ConvertedType::DATE, Physical::INT32) => Some((Decode::Date, T::Date)),
        (ConvertedType::TIMESTAMP_MILLIS, Physical::INT64) => {
            Some((Decode::Timestamp(Unit::Millis, true), T::TimestampTz(None)))
        }
        (ConvertedType::TIMESTAMP_MICROS, Physical::INT64) => {
            Some((Decode::Timestamp(Unit::Micros, true), T::TimestampTz(None)))
        }
        (ConvertedType::INT_8 | ConvertedType::INT_16 | ConvertedType::UINT_8, Physical::INT32) => {
            Some((Decode::Int16, T::Int16))
        }
        (ConvertedType::UINT_16, Physical::INT32) => Some((Decode::Int32, T::Int32)),
        (ConvertedType::UINT_32, Physical::INT32) => Some((Decode::UInt32, T::Int64)),
        (ConvertedType::NONE | ConvertedType::INT_32, Physical::INT32) => {
            Some((Decode::Int32, T::Int32))
        }
        (ConvertedType::NONE | ConvertedType::INT_64, Physical::INT64) => {
            Some((Decode::Int64, T::Int64))
        }
        (ConvertedType::NONE, Physical::BOOLEAN) => Some((Decode::Bool, T::Bool)),
        (ConvertedType::NONE, Physical::FLOAT) => Some((Decode::Float32, T::Float32)),
        (ConvertedType::NONE, Physical::DOUBLE) => Some((Decode::Float64, T::Float64)),
        (ConvertedType::NONE, Physical::INT96) => Some((Decode::Int96, T::Timestamp(None))),
        (ConvertedType::NONE, Physical::BYTE_ARRAY) => Some((Decode::Bytes, T::Bytea)),
        _ => None,
    }
}

/// The Parquet field COPY TO writes for a column of type `ty`: an optional leaf, DuckDB's
/// choices (int2 as INT32 INT(16), timestamps in microseconds, text as STRING). NUMERIC
/// without a precision (`sum()` of numerics) has no Parquet decimal that holds every value
/// exactly, so it is written as its text.
pub fn field_for(name: &str, ty: DataType) -> Result<TypePtr> {
    use DataType as T;
    let build = |physical: Physical, logical: Option<LogicalType>| {
        Type::primitive_type_builder(name, physical)
            .with_repetition(Repetition::OPTIONAL)
            .with_logical_type(logical)
    };
    let builder = match ty {
        T::Bool => build(Physical::BOOLEAN, None),
        T::Int16 => build(Physical::INT32, Some(LogicalType::integer(16, true))),
        T::Int32 => build(Physical::INT32, None),
        T::Int64 => build(Physical::INT64, None),
        T::Float32 => build(Physical::FLOAT, None),
        T::Float64 => build(Physical::DOUBLE, None),
        T::Numeric(Some(NumericTypmod { precision, scale })) => {
            let (precision, scale) = (precision as i32, scale as i32);
            build(
                Physical::FIXED_LEN_BYTE_ARRAY,
                Some(LogicalType::decimal(scale, precision)),
            )
            .with_length(16)
            .with_precision(precision)
            .with_scale(scale)
        }
        T::Numeric(None)
        | T::Text
        | T::Varchar(_)
        | T::Char(_)
        | T::Json
        | T::Jsonb
        | T::JsonPath
        | T::Inet
        | T::Cidr
        | T::InternalChar => build(Physical::BYTE_ARRAY, Some(LogicalType::String)),
        T::Date => build(Physical::INT32, Some(LogicalType::Date)),
        T::Time(_) => build(
            Physical::INT64,
            Some(LogicalType::time(false, TimeUnit::MICROS)),
        ),
        T::Timestamp(_) => build(
            Physical::INT64,
            Some(LogicalType::timestamp(false, TimeUnit::MICROS)),
        ),
        T::TimestampTz(_) => build(
            Physical::INT64,
            Some(LogicalType::timestamp(true, TimeUnit::MICROS)),
        ),
        T::Bytea => build(Physical::BYTE_ARRAY, None),
        T::Uuid => build(Physical::FIXED_LEN_BYTE_ARRAY, Some(LogicalType::Uuid)).with_length(16),
        T::Interval(_)
        | T::Array(_)
        | T::Oid(_)
        | T::Unknown
        | T::FloatVector(_)
        | T::Enum(_)
        | T::Bit(_)
        | T::VarBit(_)
        | T::TimeTz(_)
        | T::Int2Vector
        | T::OidVector
        | T::Record(_) => {
            return Err(Error::unsupported(format!(
                "writing a column of type {ty} to Parquet"
            )))
        }
    };
    builder
        .build()
        .map(Arc::new)
        .map_err(|e| Error::internal(format!("Parquet schema for column \"{name}\": {e}")))
}
