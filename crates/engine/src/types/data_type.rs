//! SQL data types as the binder and executor see them, with PostgreSQL's names, OIDs and
//! type modifiers. The physical representation of each type is [`PhysicalType`].

use std::collections::HashMap;
use std::fmt;
use std::sync::{LazyLock, Mutex};

use super::interval_typmod::IntervalTypmod;
use super::record::RecordType;

/// pg_type OIDs of pgvector's `vector` and `vector[]`. An extension's types get OIDs when it
/// is created; ours is built in, so it takes fixed ones below the first user OID (16384)
/// that PostgreSQL 15 leaves unassigned. Clients look the type up by name.
pub const FLOAT_VECTOR_OID: u32 = 8192;
pub const FLOAT_VECTOR_ARRAY_OID: u32 = 8193;

/// The pg_type OID of the array type of enum type `enum_oid`: the one after it, which
/// CREATE TYPE reserves with it (`exec/enum_type.rs`), so that an array of an enum names its
/// type without the catalog, and a restart keeps it with nothing more stored.
pub const fn enum_array_oid(enum_oid: u32) -> u32 {
    enum_oid.wrapping_add(1)
}

/// The element of arrays whose element type is not one of the fixed ones [`DataType::array_of`]
/// names (an enum type, or a type with a modifier such as `varchar(3)`), leaked once per
/// such type ever put in an array so that [`DataType::Array`] keeps a `'static` element.
fn interned_element(elem: DataType) -> &'static DataType {
    static ELEMENTS: LazyLock<Mutex<HashMap<DataType, &'static DataType>>> =
        LazyLock::new(|| Mutex::new(HashMap::new()));
    let mut elements = crate::sync::lock(&ELEMENTS);
    elements
        .entry(elem)
        .or_insert_with(|| Box::leak(Box::new(elem)))
}

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
    /// `time without time zone`: microseconds since midnight. This and the other datetime
    /// types carry their fractional-second precision (`time(3)`), if declared.
    Time(Option<u8>),
    Timestamp(Option<u8>),
    /// `timestamp with time zone`: a UTC instant, shown in the session time zone.
    TimestampTz(Option<u8>),
    /// `interval`, with its fields and precision if declared (`interval day to second(3)`).
    Interval(IntervalTypmod),
    /// Binary strings.
    Bytea,
    Uuid,
    /// JSON text kept verbatim after validation (PostgreSQL's `json`).
    Json,
    /// JSON normalised as PostgreSQL's `jsonb` (see [`crate::types::json`]).
    Jsonb,
    /// An array (PostgreSQL's `_int4`, `int[]`, of any number of dimensions). Built only by
    /// [`DataType::array_of`], so the element is never itself an array; it may have a
    /// modifier (`varchar(3)[]`), which every element is held to.
    Array(&'static DataType),
    /// `oid` and its aliases `regclass`, `regtype`, ...: an unsigned 32-bit object id, held
    /// in an int64 vector. The aliases print as the name of the object (see
    /// `catalog::system`), so they are turned into text before they leave the engine.
    Oid(OidKind),
    /// pgvector's `vector(n)`: float4 elements, `n` of them when the modifier is set (see
    /// [`crate::types::float_vector`]).
    FloatVector(Option<u32>),
    /// An SQL/JSON path, kept as the text jsonpath_out prints (see
    /// [`crate::types::jsonpath`]).
    JsonPath,
    /// A user's enum type (CREATE TYPE ... AS ENUM), by its pg_type OID. A value is its
    /// label's sort order (pg_enum.enumsortorder) in a float32 vector, so comparing, hashing
    /// and sorting need no catalog; only the conversions to and from the labels read it.
    Enum(u32),
    /// `bit(n)`: exactly n bits (`None` is the unconstrained `bit` of expressions), kept as
    /// its text of `0`s and `1`s (see [`crate::types::bit_string`]).
    Bit(Option<u32>),
    /// `bit varying(n)`: at most n bits.
    VarBit(Option<u32>),
    /// `time with time zone`: a time of day and a UTC offset, packed into one integer
    /// whose order is PostgreSQL's (see [`crate::types::timetz`]).
    TimeTz(Option<u8>),
    /// `int2vector` (pg_index.indkey): an int2 array subscripted from 0, written as its
    /// elements separated by spaces (see [`crate::types::int_vector`]).
    Int2Vector,
    /// `oidvector` (pg_proc.proargtypes): the same for OIDs.
    OidVector,
    /// An IPv4 or IPv6 host address with an optional mask length (see [`crate::types::inet`]).
    Inet,
    /// An IPv4 or IPv6 network: no bits set right of its mask.
    Cidr,
    /// A composite value: PostgreSQL's `record` with the names and types of its fields
    /// (see [`crate::types::record`]).
    Record(&'static RecordType),
    /// `"char"`: one byte, kept as its output text (see [`crate::types::internal_char`]).
    InternalChar,
}

/// Which of the OID types: plain `oid`, or an alias whose text form names the object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OidKind {
    Oid,
    RegClass,
    RegType,
    RegProc,
    RegProcedure,
    RegNamespace,
    RegRole,
}

impl OidKind {
    /// Every kind, for lookups by name or OID.
    pub const ALL: [OidKind; 7] = [
        OidKind::Oid,
        OidKind::RegClass,
        OidKind::RegType,
        OidKind::RegProc,
        OidKind::RegProcedure,
        OidKind::RegNamespace,
        OidKind::RegRole,
    ];

    pub fn name(self) -> &'static str {
        match self {
            OidKind::Oid => "oid",
            OidKind::RegClass => "regclass",
            OidKind::RegType => "regtype",
            OidKind::RegProc => "regproc",
            OidKind::RegProcedure => "regprocedure",
            OidKind::RegNamespace => "regnamespace",
            OidKind::RegRole => "regrole",
        }
    }

    /// The OID of the type's array type in pg_type (`regclass[]` is 2210).
    pub fn array_type_oid(self) -> u32 {
        match self {
            OidKind::Oid => 1028,
            OidKind::RegClass => 2210,
            OidKind::RegType => 2211,
            OidKind::RegProc => 1008,
            OidKind::RegProcedure => 2207,
            OidKind::RegNamespace => 4090,
            OidKind::RegRole => 4097,
        }
    }

    /// The type's OID in pg_type.
    pub fn type_oid(self) -> u32 {
        match self {
            OidKind::Oid => 26,
            OidKind::RegClass => 2205,
            OidKind::RegType => 2206,
            OidKind::RegProc => 24,
            OidKind::RegProcedure => 2202,
            OidKind::RegNamespace => 4089,
            OidKind::RegRole => 4096,
        }
    }
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
    Time,
    Timestamp,
    TimestampTz,
    Interval,
    /// Byte strings (bytea) as offsets + bytes, with no UTF-8 requirement.
    Bytes,
    /// 16 bytes as one big-endian `u128`, so integer order is PostgreSQL's byte order.
    Uuid,
    /// A jsonb document as its canonical text (see [`crate::types::json`]).
    Jsonb,
    /// Offsets into a child vector of the element's physical type.
    List(&'static PhysicalType),
    /// Offsets into one flat float4 vector (pgvector's `vector`).
    FloatVector,
    /// A packed time with time zone.
    TimeTz,
    /// Fixed 19-byte network addresses (inet and cidr).
    Inet,
    /// One child vector per field of the record type.
    Struct(&'static RecordType),
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
    Array,
    /// 'U': bytea, uuid, json and jsonb are each their own island for coercion.
    UserDefined,
    /// 'V': bit and bit varying.
    BitString,
    /// 'I': inet and cidr.
    Network,
    /// 'P': pseudo-types, here `record`.
    Pseudo,
}

impl DataType {
    pub fn physical(self) -> PhysicalType {
        match self {
            DataType::Bool => PhysicalType::Bool,
            DataType::Int16 => PhysicalType::Int16,
            DataType::Int32 => PhysicalType::Int32,
            DataType::Int64 => PhysicalType::Int64,
            DataType::Float32 | DataType::Enum(_) => PhysicalType::Float32,
            DataType::Float64 => PhysicalType::Float64,
            DataType::Numeric(_) => PhysicalType::Numeric,
            DataType::Unknown
            | DataType::Text
            | DataType::Varchar(_)
            | DataType::Char(_)
            | DataType::InternalChar => PhysicalType::Text,
            DataType::Date => PhysicalType::Date,
            DataType::Time(_) => PhysicalType::Time,
            DataType::Timestamp(_) => PhysicalType::Timestamp,
            DataType::TimestampTz(_) => PhysicalType::TimestampTz,
            DataType::Interval(_) => PhysicalType::Interval,
            DataType::Bytea => PhysicalType::Bytes,
            DataType::Uuid => PhysicalType::Uuid,
            DataType::Json => PhysicalType::Text,
            DataType::Jsonb => PhysicalType::Jsonb,
            DataType::JsonPath => PhysicalType::Text,
            DataType::Array(elem) => PhysicalType::List(elem.physical().as_static()),
            DataType::Oid(_) => PhysicalType::Int64,
            DataType::FloatVector(_) => PhysicalType::FloatVector,
            DataType::Bit(_) | DataType::VarBit(_) => PhysicalType::Text,
            DataType::TimeTz(_) => PhysicalType::TimeTz,
            DataType::Int2Vector => PhysicalType::List(&PhysicalType::Int16),
            DataType::OidVector => PhysicalType::List(&PhysicalType::Int64),
            DataType::Inet | DataType::Cidr => PhysicalType::Inet,
            DataType::Record(record) => PhysicalType::Struct(record),
        }
    }

    /// The array type whose elements are `elem` (`int4` → `int4[]`); `None` for element
    /// types without an array type here: modifiers (`varchar(10)[]`), `character`, arrays
    /// (multi-dimensional arrays) and `unknown`. The element lives in a promoted constant, so
    /// `DataType` stays `Copy`.
    pub fn array_of(elem: DataType) -> Option<DataType> {
        let elem: &'static DataType = match elem {
            DataType::Bool => &DataType::Bool,
            DataType::Int16 => &DataType::Int16,
            DataType::Int32 => &DataType::Int32,
            DataType::Int64 => &DataType::Int64,
            DataType::Float32 => &DataType::Float32,
            DataType::Float64 => &DataType::Float64,
            DataType::Numeric(None) => &DataType::Numeric(None),
            DataType::Text => &DataType::Text,
            DataType::Varchar(None) => &DataType::Varchar(None),
            DataType::Date => &DataType::Date,
            DataType::Time(None) => &DataType::Time(None),
            DataType::Timestamp(None) => &DataType::Timestamp(None),
            DataType::TimestampTz(None) => &DataType::TimestampTz(None),
            DataType::Interval(IntervalTypmod::NONE) => &DataType::Interval(IntervalTypmod::NONE),
            DataType::Bytea => &DataType::Bytea,
            DataType::Uuid => &DataType::Uuid,
            DataType::Json => &DataType::Json,
            DataType::Jsonb => &DataType::Jsonb,
            DataType::Oid(OidKind::Oid) => &DataType::Oid(OidKind::Oid),
            DataType::FloatVector(None) => &DataType::FloatVector(None),
            DataType::Bit(None) => &DataType::Bit(None),
            DataType::VarBit(None) => &DataType::VarBit(None),
            DataType::TimeTz(None) => &DataType::TimeTz(None),
            DataType::Inet => &DataType::Inet,
            DataType::Cidr => &DataType::Cidr,
            DataType::InternalChar => &DataType::InternalChar,
            DataType::Enum(_)
            | DataType::Time(Some(_))
            | DataType::Timestamp(Some(_))
            | DataType::TimestampTz(Some(_))
            | DataType::Interval(_)
            | DataType::TimeTz(Some(_))
            | DataType::Numeric(Some(_))
            | DataType::Varchar(Some(_))
            | DataType::Char(_)
            | DataType::Bit(Some(_))
            | DataType::VarBit(Some(_)) => interned_element(elem),
            DataType::Unknown
            | DataType::FloatVector(Some(_))
            | DataType::Oid(_)
            | DataType::Array(_)
            | DataType::Record(_)
            | DataType::JsonPath
            | DataType::Int2Vector
            | DataType::OidVector => return None,
        };
        Some(DataType::Array(elem))
    }

    /// The array type of values of `elem` in an expression, whose modifiers it drops
    /// (`ARRAY['a'::varchar(3)]` is `varchar[]`); untyped literals make text[].
    pub fn array_of_values(elem: DataType) -> Option<DataType> {
        DataType::array_of(match elem {
            DataType::Unknown => DataType::Text,
            other => other.unmodified(),
        })
    }

    /// The enum type whose labels values of this type hold: an enum's, or its elements'
    /// for an array of one.
    pub fn enum_oid(self) -> Option<u32> {
        match self.element().unwrap_or(self) {
            DataType::Enum(oid) => Some(oid),
            _ => None,
        }
    }

    /// The type without its modifier (`timestamp(3)` → `timestamp`, `varchar(5)` →
    /// `varchar`): what values of the type are, whatever slot they fit.
    pub fn unmodified(self) -> DataType {
        match self {
            DataType::Numeric(_) => DataType::Numeric(None),
            DataType::Varchar(_) => DataType::Varchar(None),
            DataType::Char(_) => DataType::Char(None),
            DataType::Bit(_) => DataType::Bit(None),
            DataType::VarBit(_) => DataType::VarBit(None),
            DataType::FloatVector(_) => DataType::FloatVector(None),
            DataType::Time(_) => DataType::Time(None),
            DataType::TimeTz(_) => DataType::TimeTz(None),
            DataType::Timestamp(_) => DataType::Timestamp(None),
            DataType::TimestampTz(_) => DataType::TimestampTz(None),
            DataType::Interval(_) => DataType::Interval(IntervalTypmod::NONE),
            DataType::Array(elem) => DataType::array_of(elem.unmodified()).unwrap_or(self),
            other => other,
        }
    }

    /// The element type of an array type.
    pub fn element(self) -> Option<DataType> {
        match self {
            DataType::Array(elem) => Some(*elem),
            _ => None,
        }
    }

    /// For int2vector and oidvector, the array type whose values they are (held the same
    /// way, but subscripted from 1): what they are read as where their lower bound of 0
    /// does not show (unnest, `= ANY`, array_length).
    pub fn vector_array(self) -> Option<DataType> {
        match self {
            DataType::Int2Vector => Some(DataType::Array(&DataType::Int16)),
            DataType::OidVector => Some(DataType::Array(&DataType::Oid(OidKind::Oid))),
            _ => None,
        }
    }

    /// The subscript of an array value's first element: 0 for int2vector and oidvector.
    pub fn lower_bound(self) -> i32 {
        match self.vector_array() {
            Some(_) => 0,
            None => 1,
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
            | DataType::Numeric(_)
            | DataType::Oid(_) => TypeCategory::Numeric,
            DataType::Text | DataType::Varchar(_) | DataType::Char(_) | DataType::InternalChar => {
                TypeCategory::String
            }
            DataType::Date
            | DataType::Time(_)
            | DataType::TimeTz(_)
            | DataType::Timestamp(_)
            | DataType::TimestampTz(_) => TypeCategory::DateTime,
            DataType::Interval(_) => TypeCategory::Timespan,
            DataType::Array(_) | DataType::Int2Vector | DataType::OidVector => TypeCategory::Array,
            DataType::Bytea
            | DataType::Uuid
            | DataType::Json
            | DataType::Jsonb
            | DataType::FloatVector(_)
            | DataType::JsonPath
            | DataType::Enum(_) => TypeCategory::UserDefined,
            DataType::Bit(_) | DataType::VarBit(_) => TypeCategory::BitString,
            DataType::Inet | DataType::Cidr => TypeCategory::Network,
            DataType::Record(_) => TypeCategory::Pseudo,
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
            DataType::Timestamp(_) => 1114,
            DataType::TimestampTz(_) => 1184,
            DataType::Time(_) => 1083,
            DataType::Interval(_) => 1186,
            DataType::Bytea => 17,
            DataType::Uuid => 2950,
            DataType::Json => 114,
            DataType::Jsonb => 3802,
            DataType::JsonPath => 4072,
            DataType::Array(elem) => match elem {
                DataType::Bool => 1000,
                DataType::Int16 => 1005,
                DataType::Int32 => 1007,
                DataType::Int64 => 1016,
                DataType::Float32 => 1021,
                DataType::Float64 => 1022,
                DataType::Numeric(_) => 1231,
                DataType::Text => 1009,
                DataType::Varchar(_) => 1015,
                DataType::Char(_) => 1014,
                DataType::Date => 1182,
                DataType::Timestamp(_) => 1115,
                DataType::TimestampTz(_) => 1185,
                DataType::Time(_) => 1183,
                DataType::Interval(_) => 1187,
                DataType::Bytea => 1001,
                DataType::Uuid => 2951,
                DataType::Json => 199,
                DataType::Jsonb => 3807,
                DataType::Oid(kind) => kind.array_type_oid(),
                DataType::Enum(oid) => enum_array_oid(*oid),
                DataType::FloatVector(_) => FLOAT_VECTOR_ARRAY_OID,
                DataType::Bit(_) => 1561,
                DataType::VarBit(_) => 1563,
                DataType::TimeTz(_) => 1270,
                DataType::Inet => 1041,
                DataType::Cidr => 651,
                DataType::InternalChar => 1002,
                // Never built (see `array_of`); anyarray is the honest answer.
                DataType::Unknown
                | DataType::Array(_)
                | DataType::JsonPath
                | DataType::Int2Vector
                | DataType::OidVector
                | DataType::Record(_) => 2277,
            },
            DataType::Oid(kind) => kind.type_oid(),
            DataType::FloatVector(_) => FLOAT_VECTOR_OID,
            DataType::Enum(oid) => oid,
            DataType::Bit(_) => 1560,
            DataType::VarBit(_) => 1562,
            DataType::TimeTz(_) => 1266,
            DataType::Int2Vector => 22,
            DataType::OidVector => 30,
            DataType::Inet => 869,
            DataType::Cidr => 650,
            DataType::Record(record) => record.type_oid,
            DataType::InternalChar => 18,
        }
    }

    /// The type of the value a parameter declared as `self` carries: an enum's is its
    /// label as text (what enum_in and enum_recv read), converted where the statement reads
    /// it, since only the catalog knows the labels.
    pub fn param_value_type(self) -> DataType {
        match self {
            DataType::Enum(_) => DataType::Text,
            DataType::Array(DataType::Enum(_)) => DataType::Array(&DataType::Text),
            ty => ty,
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
            1114 => DataType::Timestamp(None),
            1184 => DataType::TimestampTz(None),
            1083 => DataType::Time(None),
            1186 => DataType::Interval(IntervalTypmod::NONE),
            17 => DataType::Bytea,
            2950 => DataType::Uuid,
            114 => DataType::Json,
            3802 => DataType::Jsonb,
            FLOAT_VECTOR_OID => DataType::FloatVector(None),
            4072 => DataType::JsonPath,
            1560 => DataType::Bit(None),
            1562 => DataType::VarBit(None),
            1266 => DataType::TimeTz(None),
            22 => DataType::Int2Vector,
            30 => DataType::OidVector,
            869 => DataType::Inet,
            18 => DataType::InternalChar,
            650 => DataType::Cidr,
            _ if OidKind::ALL.iter().any(|k| k.type_oid() == oid) => {
                let kind = OidKind::ALL.into_iter().find(|k| k.type_oid() == oid)?;
                DataType::Oid(kind)
            }
            _ => {
                let elem = match oid {
                    1000 => 16,
                    1005 => 21,
                    1007 => 23,
                    1016 => 20,
                    1021 => 700,
                    1022 => 701,
                    1231 => 1700,
                    1009 => 25,
                    1015 => 1043,
                    1014 => 1042,
                    1182 => 1082,
                    1115 => 1114,
                    1185 => 1184,
                    1183 => 1083,
                    1187 => 1186,
                    1001 => 17,
                    2951 => 2950,
                    199 => 114,
                    3807 => 3802,
                    1028 => 26,
                    FLOAT_VECTOR_ARRAY_OID => FLOAT_VECTOR_OID,
                    1561 => 1560,
                    1563 => 1562,
                    1270 => 1266,
                    1041 => 869,
                    651 => 650,
                    1002 => 18,
                    _ => return None,
                };
                return DataType::from_oid(elem).and_then(DataType::array_of);
            }
        })
    }

    /// `pg_type.typlen`: the fixed size in bytes, or -1 for variable length.
    pub fn type_len(self) -> i16 {
        match self {
            DataType::Bool | DataType::InternalChar => 1,
            DataType::Int16 => 2,
            DataType::Int32
            | DataType::Float32
            | DataType::Date
            | DataType::Oid(_)
            | DataType::Enum(_) => 4,
            DataType::Int64
            | DataType::Float64
            | DataType::Time(_)
            | DataType::Timestamp(_)
            | DataType::TimestampTz(_) => 8,
            DataType::Interval(_) | DataType::Uuid => 16,
            DataType::TimeTz(_) => 12,
            DataType::Unknown => -2,
            DataType::Bytea
            | DataType::Json
            | DataType::Jsonb
            | DataType::JsonPath
            | DataType::Numeric(_)
            | DataType::Text
            | DataType::Varchar(_)
            | DataType::Char(_)
            | DataType::Bit(_)
            | DataType::VarBit(_)
            | DataType::Array(_)
            | DataType::FloatVector(_)
            | DataType::Int2Vector
            | DataType::OidVector
            | DataType::Inet
            | DataType::Cidr
            | DataType::Record(_) => -1,
        }
    }

    /// The type modifier as PostgreSQL reports it in RowDescription (`atttypmod`), -1 if none.
    pub fn typmod(self) -> i32 {
        match self {
            DataType::Numeric(Some(m)) => (((m.precision << 16) | m.scale) + 4) as i32,
            DataType::Varchar(Some(n)) | DataType::Char(Some(n)) => n as i32 + 4,
            // pgvector's typmod is the dimension count itself.
            DataType::FloatVector(Some(n)) => n as i32,
            // varbit.c keeps the length itself as the modifier.
            DataType::Bit(Some(n)) | DataType::VarBit(Some(n)) => n as i32,
            // The datetime types keep the precision itself.
            DataType::Timestamp(Some(p))
            | DataType::TimestampTz(Some(p))
            | DataType::Time(Some(p))
            | DataType::TimeTz(Some(p)) => i32::from(p),
            DataType::Interval(m) => m.typmod(),
            // An array's modifier is its element's (pg_attribute of a varchar(3)[] column).
            DataType::Array(elem) => elem.typmod(),
            _ => -1,
        }
    }

    /// The type with the modifier `typmod` ([`DataType::typmod`]'s inverse) where the type
    /// takes one; -1, or one the type cannot have, leaves it unmodified.
    pub fn with_typmod(self, typmod: i32) -> DataType {
        let varlena = typmod.checked_sub(4).and_then(|n| u32::try_from(n).ok());
        // varbit.c, pgvector and the datetime types keep the number itself.
        let plain = u32::try_from(typmod).ok();
        let precision = plain.and_then(|p| u8::try_from(p).ok()).filter(|p| *p <= 6);
        match (self.unmodified(), varlena) {
            (DataType::Bit(None), _) => DataType::Bit(plain.filter(|&n| n > 0)),
            (DataType::VarBit(None), _) => DataType::VarBit(plain.filter(|&n| n > 0)),
            (DataType::FloatVector(None), _) => DataType::FloatVector(plain.filter(|&n| n > 0)),
            (DataType::Varchar(None), Some(n)) => DataType::Varchar(Some(n)),
            (DataType::Char(None), Some(n)) => DataType::Char(Some(n)),
            (DataType::Numeric(None), Some(m)) => DataType::Numeric(Some(NumericTypmod {
                precision: m >> 16,
                scale: m & 0xffff,
            })),
            (DataType::Timestamp(None), _) => DataType::Timestamp(precision),
            (DataType::TimestampTz(None), _) => DataType::TimestampTz(precision),
            (DataType::Time(None), _) => DataType::Time(precision),
            (DataType::TimeTz(None), _) => DataType::TimeTz(precision),
            (DataType::Interval(_), _) => DataType::Interval(IntervalTypmod::from_typmod(typmod)),
            (DataType::Array(elem), _) => {
                DataType::array_of(elem.with_typmod(typmod)).unwrap_or(self)
            }
            (ty, _) => ty,
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
            DataType::Timestamp(_) => "timestamp without time zone",
            DataType::TimestampTz(_) => "timestamp with time zone",
            DataType::Time(_) => "time without time zone",
            DataType::Interval(_) => "interval",
            DataType::Bytea => "bytea",
            DataType::Uuid => "uuid",
            DataType::Json => "json",
            DataType::Jsonb => "jsonb",
            DataType::JsonPath => "jsonpath",
            DataType::Oid(kind) => kind.name(),
            DataType::FloatVector(_) => "vector",
            DataType::Bit(_) => "bit",
            DataType::VarBit(_) => "bit varying",
            DataType::TimeTz(_) => "time with time zone",
            DataType::Int2Vector => "int2vector",
            DataType::OidVector => "oidvector",
            DataType::Inet => "inet",
            DataType::Cidr => "cidr",
            DataType::Record(_) => "record",
            DataType::InternalChar => "\"char\"",
            DataType::Array(elem) => match elem {
                DataType::Bool => "boolean[]",
                DataType::Int16 => "smallint[]",
                DataType::Int32 => "integer[]",
                DataType::Int64 => "bigint[]",
                DataType::Float32 => "real[]",
                DataType::Float64 => "double precision[]",
                DataType::Numeric(_) => "numeric[]",
                DataType::Text => "text[]",
                DataType::Varchar(_) => "character varying[]",
                DataType::Char(_) => "character[]",
                DataType::Date => "date[]",
                DataType::Timestamp(_) => "timestamp without time zone[]",
                DataType::TimestampTz(_) => "timestamp with time zone[]",
                DataType::Time(_) => "time without time zone[]",
                DataType::Interval(_) => "interval[]",
                DataType::Bytea => "bytea[]",
                DataType::Uuid => "uuid[]",
                DataType::Json => "json[]",
                DataType::Jsonb => "jsonb[]",
                DataType::Oid(OidKind::Oid) => "oid[]",
                DataType::Oid(OidKind::RegClass) => "regclass[]",
                DataType::Oid(OidKind::RegType) => "regtype[]",
                DataType::Oid(OidKind::RegProc) => "regproc[]",
                DataType::Oid(OidKind::RegProcedure) => "regprocedure[]",
                DataType::Oid(OidKind::RegNamespace) => "regnamespace[]",
                DataType::Oid(OidKind::RegRole) => "regrole[]",
                DataType::FloatVector(_) => "vector[]",
                DataType::Bit(_) => "bit[]",
                DataType::VarBit(_) => "bit varying[]",
                DataType::TimeTz(_) => "time with time zone[]",
                DataType::Inet => "inet[]",
                DataType::Cidr => "cidr[]",
                DataType::InternalChar => "\"char\"[]",
                DataType::Unknown
                | DataType::Array(_)
                | DataType::JsonPath
                | DataType::Enum(_)
                | DataType::Int2Vector
                | DataType::OidVector
                | DataType::Record(_) => "anyarray",
            },
            // The type's own name is in the catalog: messages that can reach it name it
            // there (see `catalog::EnumType`).
            DataType::Enum(_) => "anyenum",
        }
    }

    pub fn is_integer(self) -> bool {
        matches!(self, DataType::Int16 | DataType::Int32 | DataType::Int64)
    }

    pub fn is_string(self) -> bool {
        self.category() == TypeCategory::String
    }
}

impl PhysicalType {
    /// The same physical type as a promoted constant, for [`PhysicalType::List`]. A list of
    /// lists never exists (a multi-dimensional array is a flat list with its shape); it maps
    /// to a list of text.
    pub fn as_static(self) -> &'static PhysicalType {
        match self {
            PhysicalType::Bool => &PhysicalType::Bool,
            PhysicalType::Int16 => &PhysicalType::Int16,
            PhysicalType::Int32 => &PhysicalType::Int32,
            PhysicalType::Int64 => &PhysicalType::Int64,
            PhysicalType::Float32 => &PhysicalType::Float32,
            PhysicalType::Float64 => &PhysicalType::Float64,
            PhysicalType::Numeric => &PhysicalType::Numeric,
            PhysicalType::Text => &PhysicalType::Text,
            PhysicalType::Date => &PhysicalType::Date,
            PhysicalType::Timestamp => &PhysicalType::Timestamp,
            PhysicalType::TimestampTz => &PhysicalType::TimestampTz,
            PhysicalType::Time => &PhysicalType::Time,
            PhysicalType::Interval => &PhysicalType::Interval,
            PhysicalType::Bytes => &PhysicalType::Bytes,
            PhysicalType::Uuid => &PhysicalType::Uuid,
            PhysicalType::Jsonb => &PhysicalType::Jsonb,
            PhysicalType::List(_) => &PhysicalType::List(&PhysicalType::Text),
            PhysicalType::FloatVector => &PhysicalType::FloatVector,
            PhysicalType::TimeTz => &PhysicalType::TimeTz,
            PhysicalType::Inet => &PhysicalType::Inet,
            // Never an array element (`array_of` refuses records), like a list.
            PhysicalType::Struct(_) => &PhysicalType::List(&PhysicalType::Text),
        }
    }
}

/// Formats like PostgreSQL's `format_type`: `numeric(10,2)`, `character varying(20)`.
impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataType::Numeric(Some(m)) => write!(f, "numeric({},{})", m.precision, m.scale),
            DataType::Varchar(Some(n)) => write!(f, "character varying({n})"),
            DataType::Char(Some(n)) => write!(f, "character({n})"),
            DataType::FloatVector(Some(n)) => write!(f, "vector({n})"),
            DataType::Bit(Some(n)) => write!(f, "bit({n})"),
            DataType::VarBit(Some(n)) => write!(f, "bit varying({n})"),
            DataType::Timestamp(Some(p)) => write!(f, "timestamp({p}) without time zone"),
            DataType::TimestampTz(Some(p)) => write!(f, "timestamp({p}) with time zone"),
            DataType::Time(Some(p)) => write!(f, "time({p}) without time zone"),
            DataType::TimeTz(Some(p)) => write!(f, "time({p}) with time zone"),
            DataType::Interval(m) => write!(f, "interval{m}"),
            other => f.write_str(other.name()),
        }
    }
}
