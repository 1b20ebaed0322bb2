//! sqlparser's data types → ours, with PostgreSQL's names and limits.

use sqlparser::ast::{self, CharacterLength, ExactNumberInfo, TimezoneInfo};

use crate::error::{Error, Result, SqlState};
use crate::types::{
    float_vector, precision, DataType, IntervalRange, IntervalTypmod, NumericTypmod, OidKind,
};

/// PostgreSQL's limit on numeric precision.
const NUMERIC_MAX_PRECISION: u64 = 1000;
/// Our fixed-point numerics hold 38 significant digits.
pub const NUMERIC_MAX_SUPPORTED_PRECISION: u64 = 38;
/// PostgreSQL's limit on character lengths.
pub const MAX_CHAR_LENGTH: u64 = 10_485_760;

pub fn bind_data_type(ty: &ast::DataType) -> Result<DataType> {
    use ast::DataType as A;
    Ok(match ty {
        A::Bool | A::Boolean => DataType::Bool,
        A::SmallInt(None) | A::Int2(None) => DataType::Int16,
        A::Int(None) | A::Integer(None) | A::Int4(None) => DataType::Int32,
        A::BigInt(None) | A::Int8(None) => DataType::Int64,
        A::Real | A::Float4 => DataType::Float32,
        A::DoublePrecision | A::Float8 | A::Double(ExactNumberInfo::None) => DataType::Float64,
        A::Float(info) => match info {
            ExactNumberInfo::None => DataType::Float64,
            ExactNumberInfo::Precision(p) if (1..=24).contains(p) => DataType::Float32,
            ExactNumberInfo::Precision(p) if (25..=53).contains(p) => DataType::Float64,
            ExactNumberInfo::Precision(p) if *p < 1 => {
                return Err(invalid("precision for type float must be at least 1 bit"))
            }
            _ => {
                return Err(invalid(
                    "precision for type float must be less than 54 bits",
                ))
            }
        },
        A::Numeric(info) | A::Decimal(info) | A::Dec(info) => numeric(info)?,
        A::Text => DataType::Text,
        A::Varchar(len) | A::CharacterVarying(len) | A::CharVarying(len) => {
            DataType::Varchar(char_length(len, "varchar")?)
        }
        A::Char(len) | A::Character(len) => {
            DataType::Char(Some(char_length(len, "char")?.unwrap_or(1)))
        }
        A::Date => DataType::Date,
        A::Bytea => DataType::Bytea,
        A::Uuid => DataType::Uuid,
        A::JSON => DataType::Json,
        A::JSONB => DataType::Jsonb,
        A::Timestamp(p, TimezoneInfo::None | TimezoneInfo::WithoutTimeZone) => {
            DataType::Timestamp(seconds_precision("TIMESTAMP", *p)?)
        }
        A::Timestamp(p, TimezoneInfo::WithTimeZone | TimezoneInfo::Tz) => {
            DataType::TimestampTz(seconds_precision("TIMESTAMP WITH TIME ZONE", *p)?)
        }
        A::Time(p, TimezoneInfo::None | TimezoneInfo::WithoutTimeZone) => {
            DataType::Time(seconds_precision("TIME", *p)?)
        }
        A::Time(p, TimezoneInfo::WithTimeZone | TimezoneInfo::Tz) => {
            DataType::TimeTz(seconds_precision("TIME WITH TIME ZONE", *p)?)
        }
        A::Interval { fields, precision } => DataType::Interval(interval_typmod(
            fields.as_ref().map(interval_range),
            *precision,
        )?),
        A::Custom(name, modifiers) if modifiers.is_empty() => custom(&name.to_string())?,
        A::Custom(name, modifiers)
            if custom(&name.to_string()) == Ok(DataType::FloatVector(None)) =>
        {
            float_vector_with(modifiers)?
        }
        // `timestamptz(3)`, `timetz(3)`: the names sqlparser leaves to us.
        A::Custom(name, modifiers) => match custom(&name.to_string())? {
            DataType::TimestampTz(None) => DataType::TimestampTz(seconds_precision(
                "TIMESTAMP WITH TIME ZONE",
                Some(one_modifier(modifiers)?),
            )?),
            DataType::TimeTz(None) => DataType::TimeTz(seconds_precision(
                "TIME WITH TIME ZONE",
                Some(one_modifier(modifiers)?),
            )?),
            _ => return Err(Error::unsupported(format!("type {ty}"))),
        },
        A::Regclass => DataType::Oid(OidKind::RegClass),
        // `bit` alone is bit(1); `bit varying` alone has no limit.
        A::Bit(len) => DataType::Bit(Some(bit_length(*len, "bit")?.unwrap_or(1))),
        A::BitVarying(len) | A::VarBit(len) => DataType::VarBit(bit_length(*len, "varbit")?),
        // `int[]`, and `int[3]`, whose size PostgreSQL ignores.
        A::Array(ast::ArrayElemTypeDef::SquareBracket(elem, _)) => array_of(bind_data_type(elem)?)?,
        other => return Err(Error::unsupported(format!("type {other}"))),
    })
}

fn invalid(message: &str) -> Error {
    Error::new(SqlState::InvalidParameterValue, message)
}

/// The built-in type a function-style cast names: not one whose name PostgreSQL's
/// grammar keeps for type syntax (`numeric(1)` is a syntax error there).
pub(super) fn type_named(name: &str) -> Option<DataType> {
    const KEYWORDS: [&str; 8] = [
        "decimal",
        "numeric",
        "varchar",
        "bit",
        "time",
        "timestamp",
        "interval",
        "char",
    ];
    (!KEYWORDS.contains(&name))
        .then(|| custom(name).ok())
        .flatten()
}

fn custom(name: &str) -> Result<DataType> {
    let name = name.to_ascii_lowercase();
    // Built-in types are in pg_catalog, which psql's queries name.
    let name = name.strip_prefix("pg_catalog.").unwrap_or(&name);
    Ok(match name.trim_matches('"') {
        "bool" => DataType::Bool,
        "int2" => DataType::Int16,
        "int4" => DataType::Int32,
        "int8" => DataType::Int64,
        "float4" => DataType::Float32,
        "float8" => DataType::Float64,
        "bpchar" => DataType::Char(None),
        "varchar" => DataType::Varchar(None),
        "text" => DataType::Text,
        "numeric" | "decimal" => DataType::Numeric(None),
        "date" => DataType::Date,
        "timestamp" => DataType::Timestamp(None),
        "timestamptz" => DataType::TimestampTz(None),
        "time" => DataType::Time(None),
        "timetz" => DataType::TimeTz(None),
        "interval" => DataType::Interval(IntervalTypmod::NONE),
        "bytea" => DataType::Bytea,
        "uuid" => DataType::Uuid,
        "json" => DataType::Json,
        "jsonb" => DataType::Jsonb,
        "vector" => DataType::FloatVector(None),
        "jsonpath" => DataType::JsonPath,
        "bit" => DataType::Bit(None),
        "varbit" => DataType::VarBit(None),
        "int2vector" => DataType::Int2Vector,
        "oidvector" => DataType::OidVector,
        "inet" => DataType::Inet,
        "cidr" => DataType::Cidr,
        // The catalog's own type, represented by the nearest type we have (see
        // catalog::system): its values and text forms are the same.
        "name" => crate::catalog::system::NAME,
        "char" => DataType::InternalChar,
        other if OidKind::ALL.iter().any(|k| k.name() == other) => {
            let kind = OidKind::ALL.into_iter().find(|k| k.name() == other);
            DataType::Oid(kind.unwrap_or(OidKind::Oid))
        }
        other if other.starts_with('_') => array_of(custom(&other[1..])?)?,
        other => {
            return Err(Error::new(
                SqlState::UndefinedObject,
                format!("type \"{other}\" does not exist"),
            ))
        }
    })
}

/// `vector(n)`: the modifier is one integer (vector_typmod_in).
fn float_vector_with(modifiers: &[String]) -> Result<DataType> {
    let dims = modifiers
        .iter()
        .map(|m| {
            m.trim()
                .parse::<i64>()
                .map_err(|_| Error::invalid_input("integer", m))
        })
        .collect::<Result<Vec<i64>>>()?;
    Ok(DataType::FloatVector(Some(float_vector::parse_typmod(
        &dims,
    )?)))
}

/// The fractional-second precision of a datetime type. A precision above 6 is 6 (the
/// parser has warned of it, see `parser/datetime_precision.rs`).
fn seconds_precision(name: &str, precision: Option<u64>) -> Result<Option<u8>> {
    precision
        .map(|p| {
            let p = i64::try_from(p).unwrap_or(i64::MAX);
            precision::declared(name, p).map(|(p, _)| p)
        })
        .transpose()
}

/// `interval day to second(3)`: PostgreSQL's grammar takes a precision only after SECOND
/// (or after `interval` alone), and a syntax error elsewhere.
pub(super) fn interval_typmod(
    range: Option<IntervalRange>,
    precision: Option<u64>,
) -> Result<IntervalTypmod> {
    let range = range.unwrap_or(IntervalRange::Full);
    if precision.is_some() && !range.takes_precision() {
        return Err(Error::syntax("syntax error at or near \"(\""));
    }
    Ok(IntervalTypmod {
        range,
        precision: seconds_precision("INTERVAL", precision)?,
    })
}

/// sqlparser's interval fields as ours.
pub(super) fn interval_range(fields: &ast::IntervalFields) -> IntervalRange {
    use ast::IntervalFields as F;
    match fields {
        F::Year => IntervalRange::Year,
        F::Month => IntervalRange::Month,
        F::Day => IntervalRange::Day,
        F::Hour => IntervalRange::Hour,
        F::Minute => IntervalRange::Minute,
        F::Second => IntervalRange::Second,
        F::YearToMonth => IntervalRange::YearToMonth,
        F::DayToHour => IntervalRange::DayToHour,
        F::DayToMinute => IntervalRange::DayToMinute,
        F::DayToSecond => IntervalRange::DayToSecond,
        F::HourToMinute => IntervalRange::HourToMinute,
        F::HourToSecond => IntervalRange::HourToSecond,
        F::MinuteToSecond => IntervalRange::MinuteToSecond,
    }
}

/// The single integer modifier of a type named by its catalog name (`timestamptz(3)`).
fn one_modifier(modifiers: &[String]) -> Result<u64> {
    match modifiers {
        [m] => m
            .trim()
            .parse::<u64>()
            .map_err(|_| Error::invalid_input("integer", m)),
        _ => Err(invalid("invalid type modifier")),
    }
}

/// The array type of `elem`; `int[][]` is `int[]`, as in PostgreSQL, whose array types do
/// not fix the number of dimensions. Arrays of types with modifiers are not here.
fn array_of(elem: DataType) -> Result<DataType> {
    if let DataType::Array(_) = elem {
        return Ok(elem);
    }
    DataType::array_of(elem).ok_or_else(|| Error::unsupported(format!("arrays of type {elem}")))
}

fn numeric(info: &ExactNumberInfo) -> Result<DataType> {
    let (precision, scale) = match info {
        ExactNumberInfo::None => return Ok(DataType::Numeric(None)),
        ExactNumberInfo::Precision(p) => (*p, 0),
        ExactNumberInfo::PrecisionAndScale(p, s) => (*p, *s),
    };
    if !(1..=NUMERIC_MAX_PRECISION).contains(&precision) {
        return Err(invalid(&format!(
            "NUMERIC precision {precision} must be between 1 and 1000"
        )));
    }
    if scale < 0 {
        return Err(Error::unsupported("a negative NUMERIC scale"));
    }
    if scale as u64 > precision {
        return Err(invalid(&format!(
            "NUMERIC scale {scale} must be between 0 and precision {precision}"
        )));
    }
    if precision > NUMERIC_MAX_SUPPORTED_PRECISION {
        return Err(Error::unsupported(format!(
            "NUMERIC precision above {NUMERIC_MAX_SUPPORTED_PRECISION}"
        )));
    }
    Ok(DataType::Numeric(Some(NumericTypmod {
        precision: precision as u32,
        scale: scale as u32,
    })))
}

/// varbit.c's limit on bit string lengths: the largest value's bytes, in bits.
const MAX_BIT_LENGTH: u64 = MAX_CHAR_LENGTH * 8;

fn bit_length(len: Option<u64>, name: &str) -> Result<Option<u32>> {
    match len {
        None => Ok(None),
        Some(0) => Err(invalid(&format!(
            "length for type {name} must be at least 1"
        ))),
        Some(n) if n > MAX_BIT_LENGTH => Err(invalid(&format!(
            "length for type {name} cannot exceed {MAX_BIT_LENGTH}"
        ))),
        Some(n) => Ok(Some(n as u32)),
    }
}

fn char_length(len: &Option<CharacterLength>, name: &str) -> Result<Option<u32>> {
    match len {
        None => Ok(None),
        Some(CharacterLength::Max) => Err(Error::syntax("syntax error at or near \"MAX\"")),
        Some(CharacterLength::IntegerLength { length, .. }) => {
            if *length == 0 {
                return Err(invalid(&format!(
                    "length for type {name} must be at least 1"
                )));
            }
            if *length > MAX_CHAR_LENGTH {
                return Err(invalid(&format!(
                    "length for type {name} cannot exceed {MAX_CHAR_LENGTH}"
                )));
            }
            Ok(Some(*length as u32))
        }
    }
}

/// `pg_type.typname`, which PostgreSQL uses to name a cast's output column (`1::int` is
/// column `int4`).
pub fn type_column_name(ty: DataType) -> &'static str {
    match ty {
        DataType::Unknown => "unknown",
        DataType::Bool => "bool",
        DataType::Int16 => "int2",
        DataType::Int32 => "int4",
        DataType::Int64 => "int8",
        DataType::Float32 => "float4",
        DataType::Float64 => "float8",
        DataType::Numeric(_) => "numeric",
        DataType::Text => "text",
        DataType::Varchar(_) => "varchar",
        DataType::Char(_) => "bpchar",
        DataType::Date => "date",
        DataType::Timestamp(_) => "timestamp",
        DataType::TimestampTz(_) => "timestamptz",
        DataType::Time(_) => "time",
        DataType::Interval(_) => "interval",
        DataType::Bytea => "bytea",
        DataType::Uuid => "uuid",
        DataType::Json => "json",
        DataType::Jsonb => "jsonb",
        DataType::JsonPath => "jsonpath",
        DataType::Oid(kind) => kind.name(),
        DataType::FloatVector(_) => "vector",
        DataType::Enum(_) => "anyenum",
        DataType::Bit(_) => "bit",
        DataType::VarBit(_) => "varbit",
        DataType::TimeTz(_) => "timetz",
        DataType::Int2Vector => "int2vector",
        DataType::OidVector => "oidvector",
        DataType::Inet => "inet",
        DataType::Cidr => "cidr",
        DataType::InternalChar => "char",
        DataType::Array(elem) => match elem {
            DataType::Bool => "_bool",
            DataType::Int16 => "_int2",
            DataType::Int32 => "_int4",
            DataType::Int64 => "_int8",
            DataType::Float32 => "_float4",
            DataType::Float64 => "_float8",
            DataType::Numeric(_) => "_numeric",
            DataType::Text => "_text",
            DataType::Varchar(_) => "_varchar",
            DataType::Char(_) => "_bpchar",
            DataType::Date => "_date",
            DataType::Timestamp(_) => "_timestamp",
            DataType::TimestampTz(_) => "_timestamptz",
            DataType::Time(_) => "_time",
            DataType::Interval(_) => "_interval",
            DataType::Bytea => "_bytea",
            DataType::Uuid => "_uuid",
            DataType::Json => "_json",
            DataType::Jsonb => "_jsonb",
            DataType::Oid(_) => "_oid",
            DataType::FloatVector(_) => "_vector",
            DataType::Bit(_) => "_bit",
            DataType::VarBit(_) => "_varbit",
            DataType::TimeTz(_) => "_timetz",
            DataType::Int2Vector => "_int2vector",
            DataType::OidVector => "_oidvector",
            DataType::Inet => "_inet",
            DataType::Cidr => "_cidr",
            DataType::InternalChar => "_char",
            DataType::Record(_) => "_record",
            DataType::Unknown | DataType::Array(_) | DataType::JsonPath | DataType::Enum(_) => {
                "anyarray"
            }
        },
        DataType::Record(_) => "record",
    }
}
