//! SQL data types as the binder and executor see them, with PostgreSQL's names, OIDs and
//! type modifiers. The physical representation of each type is [`PhysicalType`].

use std::fmt;

/// Precision and scale of `numeric(p, s)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NumericTypmod {
    pub precision: u32,
    pub scale: u32,
}

/// A SQL type. `Unknown` is the type of an untyped string literal or NULL before the binder
/// resolves it from context, as in PostgreSQL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataType {
    Unknown,
    Bool,
    Int16,
    Int32,
    Int64,
    Float32,
    Float64,
    Numeric(Option<NumericTypmod>),
    Text,
    Varchar(Option<u32>),
    /// `character(n)` (PostgreSQL's bpchar); values are stored blank-padded to n.
    Char(Option<u32>),
    Date,
    Timestamp,
    /// `timestamp with time zone`: a UTC instant; the session time zone is always UTC.
    TimestampTz,
    Interval,
}

/// How values of a type are laid out in a column vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PhysicalType {
    Bool,
    Int16,
    Int32,
    Int64,
    Float32,
    Float64,
    Numeric,
    Text,
    Date,
    Timestamp,
    TimestampTz,
    Interval,
}

/// PostgreSQL's type categories, used by the coercion rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeCategory {
    Unknown,
    Boolean,
    Numeric,
    String,
    DateTime,
    Timespan,
}

impl DataType {
    pub fn physical(self) -> PhysicalType {
        match self {
            DataType::Bool => PhysicalType::Bool,
            DataType::Int16 => PhysicalType::Int16,
            DataType::Int32 => PhysicalType::Int32,
            DataType::Int64 => PhysicalType::Int64,
            DataType::Float32 => PhysicalType::Float32,
            DataType::Float64 => PhysicalType::Float64,
            DataType::Numeric(_) => PhysicalType::Numeric,
            DataType::Unknown | DataType::Text | DataType::Varchar(_) | DataType::Char(_) => {
                PhysicalType::Text
            }
            DataType::Date => PhysicalType::Date,
            DataType::Timestamp => PhysicalType::Timestamp,
            DataType::TimestampTz => PhysicalType::TimestampTz,
            DataType::Interval => PhysicalType::Interval,
        }
    }

    pub fn category(self) -> TypeCategory {
        match self {
            DataType::Unknown => TypeCategory::Unknown,
            DataType::Bool => TypeCategory::Boolean,
            DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::Float32
            | DataType::Float64
            | DataType::Numeric(_) => TypeCategory::Numeric,
            DataType::Text | DataType::Varchar(_) | DataType::Char(_) => TypeCategory::String,
            DataType::Date | DataType::Timestamp | DataType::TimestampTz => TypeCategory::DateTime,
            DataType::Interval => TypeCategory::Timespan,
        }
    }

    /// The type's OID in PostgreSQL's pg_type.
    pub fn oid(self) -> u32 {
        match self {
            DataType::Unknown => 705,
            DataType::Bool => 16,
            DataType::Int16 => 21,
            DataType::Int32 => 23,
            DataType::Int64 => 20,
            DataType::Float32 => 700,
            DataType::Float64 => 701,
            DataType::Numeric(_) => 1700,
            DataType::Text => 25,
            DataType::Varchar(_) => 1043,
            DataType::Char(_) => 1042,
            DataType::Date => 1082,
            DataType::Timestamp => 1114,
            DataType::TimestampTz => 1184,
            DataType::Interval => 1186,
        }
    }

    /// The type for an OID a client names (Parse message parameter types); `None` if we do not
    /// know it. OID 0 means "unspecified" and maps to `Unknown`.
    pub fn from_oid(oid: u32) -> Option<DataType> {
        Some(match oid {
            0 | 705 => DataType::Unknown,
            16 => DataType::Bool,
            21 => DataType::Int16,
            23 => DataType::Int32,
            20 => DataType::Int64,
            700 => DataType::Float32,
            701 => DataType::Float64,
            1700 => DataType::Numeric(None),
            25 => DataType::Text,
            1043 => DataType::Varchar(None),
            1042 => DataType::Char(None),
            1082 => DataType::Date,
            1114 => DataType::Timestamp,
            1184 => DataType::TimestampTz,
            1186 => DataType::Interval,
            _ => return None,
        })
    }

    /// `pg_type.typlen`: the fixed size in bytes, or -1 for variable length.
    pub fn type_len(self) -> i16 {
        match self {
            DataType::Bool => 1,
            DataType::Int16 => 2,
            DataType::Int32 | DataType::Float32 | DataType::Date => 4,
            DataType::Int64 | DataType::Float64 | DataType::Timestamp | DataType::TimestampTz => 8,
            DataType::Interval => 16,
            DataType::Unknown => -2,
            DataType::Numeric(_) | DataType::Text | DataType::Varchar(_) | DataType::Char(_) => -1,
        }
    }

    /// The type modifier as PostgreSQL reports it in RowDescription (`atttypmod`), -1 if none.
    pub fn typmod(self) -> i32 {
        match self {
            DataType::Numeric(Some(m)) => (((m.precision << 16) | m.scale) + 4) as i32,
            DataType::Varchar(Some(n)) | DataType::Char(Some(n)) => n as i32 + 4,
            _ => -1,
        }
    }

    /// PostgreSQL's name of the type without modifiers, as used in error messages
    /// ("invalid input syntax for type integer").
    pub fn name(self) -> &'static str {
        match self {
            DataType::Unknown => "unknown",
            DataType::Bool => "boolean",
            DataType::Int16 => "smallint",
            DataType::Int32 => "integer",
            DataType::Int64 => "bigint",
            DataType::Float32 => "real",
            DataType::Float64 => "double precision",
            DataType::Numeric(_) => "numeric",
            DataType::Text => "text",
            DataType::Varchar(_) => "character varying",
            DataType::Char(_) => "character",
            DataType::Date => "date",
            DataType::Timestamp => "timestamp without time zone",
            DataType::TimestampTz => "timestamp with time zone",
            DataType::Interval => "interval",
        }
    }

    pub fn is_integer(self) -> bool {
        matches!(self, DataType::Int16 | DataType::Int32 | DataType::Int64)
    }

    pub fn is_string(self) -> bool {
        self.category() == TypeCategory::String
    }
}

/// Formats like PostgreSQL's `format_type`: `numeric(10,2)`, `character varying(20)`.
impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataType::Numeric(Some(m)) => write!(f, "numeric({},{})", m.precision, m.scale),
            DataType::Varchar(Some(n)) => write!(f, "character varying({n})"),
            DataType::Char(Some(n)) => write!(f, "character({n})"),
            other => f.write_str(other.name()),
        }
    }
}
