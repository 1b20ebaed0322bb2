//! The catalog as the data directory stores it: schemas, qualified names, types, table
//! schemas, views and sequence options. What CREATE would have refused (a column position past the table, a modifier
//! out of range, an array of arrays) is refused here too, as corrupt.

use std::sync::Arc;

use super::bytes::{corrupt, Decoder, Encoder, Persist};
use crate::binder::{MAX_CHAR_LENGTH, NUMERIC_MAX_SUPPORTED_PRECISION};
use crate::catalog::partition::{
    PartitionBound, PartitionKey, PartitionOf, PartitionStrategy, RangeDatum,
};
use crate::catalog::{
    AclItem, AclMode, CheckConstraint, ColumnDef, ColumnPrivileges, CompositeType, Constraint,
    ConstraintKind, Domain, DomainCheck, EnumLabel, EnumType, Extension, ForeignKey, ForeignServer,
    ForeignTable, FunctionArg, FunctionBody, FunctionDef, FunctionReturn, HnswOptions, Identity,
    IndexDef, IndexExpr, IndexMethod, MaterializedView, Membership, ObjectKind, ObjectPrivileges,
    ParamMode, PrivilegeCatalog, QualifiedName, ReferentialAction, Role, RoleCatalog, RoleSettings,
    SchemaDef, StoredExpr, TableSchema, UniqueKey, UserMapping, VectorOpClass, ViewCheckOption,
    ViewDef, Volatility,
};
use crate::error::Result;
use crate::storage::{Map, SequenceOptions};
use crate::types::record::{RecordField, RecordType, RECORD_OID};
use crate::types::{float_vector, DataType, IntervalRange, IntervalTypmod, NumericTypmod, OidKind};

/// The tags of the sections appended to a commit record and a checkpoint manifest, each
/// written only when it has something, so files of older versions read unchanged. Part of
/// the on-disk format; SQL functions own 50-59, roles 60-69.
pub(super) mod section {
    pub const FUNCTIONS: u8 = 50;
    /// The whole role catalog, when it changed.
    pub const ROLES: u8 = 60;
    /// The owners and ACLs kept with the role catalog, after its ROLES section, when
    /// there are any.
    pub const PRIVILEGES: u8 = 90;
    /// The column ACLs kept with the role catalog, after its PRIVILEGES section, when
    /// there are any.
    pub const COLUMN_PRIVILEGES: u8 = 190;
    /// ALTER ROLE / DATABASE ... SET's settings kept with the role catalog, after its
    /// ROLES section, when there are any.
    pub const ROLE_SETTINGS: u8 = 191;
    /// Extensions: every installed one in a checkpoint, those installed or dropped in a
    /// commit record.
    pub const EXTENSIONS: u8 = 160;
    /// Domains (140-149 are the domains'): whole, in a checkpoint; created, altered or
    /// dropped by OID in a commit record.
    pub const DOMAINS: u8 = 140;
    /// Foreign servers (170-179 are the foreign tables'): every one in a checkpoint,
    /// those created or dropped in a commit record.
    pub const FOREIGN_SERVERS: u8 = 171;
    /// The user mappings of the servers of the FOREIGN_SERVERS section before it that
    /// have any (172 is a foreign table's column options).
    pub const USER_MAPPINGS: u8 = 173;
    /// Composite types (295-299 are the composite types'): every one in a checkpoint,
    /// those created, renamed or dropped by OID in a commit record. Tag 295 is past a
    /// byte, so it is written as two, little-endian; its first byte is no other section's.
    pub const COMPOSITE_TYPES: [u8; 2] = 295u16.to_le_bytes();
    pub const COMPOSITE_TYPES_FIRST: u8 = COMPOSITE_TYPES[0];
}

/// Writes a two-byte section tag.
pub(super) fn write_wide_section(out: &mut Encoder, tag: [u8; 2]) {
    out.u8(tag[0]);
    out.u8(tag[1]);
}

/// Reads the second byte of a two-byte section tag whose first byte was read.
pub(super) fn read_wide_section(input: &mut Decoder<'_>, tag: [u8; 2]) -> Result<()> {
    match input.u8()? {
        second if second == tag[1] => Ok(()),
        second => Err(corrupt(format!("section tag {} {second}", tag[0]))),
    }
}

/// The tag of each data type. The numbers are part of the on-disk format: never change one,
/// never reuse a retired one.
mod tag {
    pub const UNKNOWN: u8 = 1;
    pub const BOOL: u8 = 2;
    pub const INT16: u8 = 3;
    pub const INT32: u8 = 4;
    pub const INT64: u8 = 5;
    pub const FLOAT32: u8 = 6;
    pub const FLOAT64: u8 = 7;
    pub const NUMERIC: u8 = 8;
    pub const TEXT: u8 = 9;
    pub const VARCHAR: u8 = 10;
    pub const CHAR: u8 = 11;
    pub const DATE: u8 = 12;
    pub const TIMESTAMP: u8 = 13;
    pub const TIMESTAMPTZ: u8 = 14;
    pub const INTERVAL: u8 = 15;
    pub const ARRAY: u8 = 16;
    pub const BYTEA: u8 = 17;
    pub const UUID: u8 = 18;
    pub const JSON: u8 = 19;
    pub const JSONB: u8 = 20;
    /// Followed by the kind's position in `OidKind::ALL`.
    pub const OID: u8 = 21;
    pub const TIME: u8 = 22;
    /// pgvector's `vector`, followed by its optional dimension count.
    pub const FLOAT_VECTOR: u8 = 23;
    pub const JSONPATH: u8 = 24;
    /// bit and bit varying: followed by an optional length, like varchar.
    pub const BIT: u8 = 25;
    pub const VARBIT: u8 = 26;
    pub const TIMETZ: u8 = 27;
    /// inet and cidr, from the types range.
    pub const INET: u8 = 120;
    pub const CIDR: u8 = 121;
    /// Followed by the enum type's OID. Far from the others, which other types take next.
    pub const ENUM: u8 = 40;
    pub const INT2VECTOR: u8 = 130;
    pub const OIDVECTOR: u8 = 131;
    /// A record: its field count, then each field's name and type (no nested record).
    pub const RECORD: u8 = 150;
    /// A table's or view's row type: its pg_type OID, then as RECORD.
    pub const ROW_TYPE: u8 = 151;
    /// `"char"`, away from the ranges other work takes next.
    pub const INTERNAL_CHAR: u8 = 199;
    /// A datetime type with a fractional-second precision (`timestamp(3)`): the two-byte
    /// tag 290, little-endian (its first byte, 34, is no other type's), then the type's
    /// own tag and the precision. Types without one keep their one-byte tag.
    pub const PRECISION: [u8; 2] = 290u16.to_le_bytes();
    /// An interval with fields (`interval day to second(3)`): the two-byte tag 307 (its
    /// first byte, 51, is no other type's), then the fields' position in
    /// `IntervalRange::ALL` and the precision, [`NO_PRECISION`] for none. An interval
    /// without fields keeps INTERVAL or PRECISION.
    pub const INTERVAL_FIELDS: [u8; 2] = 307u16.to_le_bytes();
    pub const NO_PRECISION: u8 = 0xFF;
}

/// The tags of index methods, on-disk like those of types.
const BTREE: u8 = 1;
const HASH: u8 = 2;
/// Followed by the operator class (`HNSW_OPCLASSES`' position) and m and ef_construction as
/// given (0: left out).
const HNSW: u8 = 80;

/// The hnsw operator classes by on-disk number.
const HNSW_OPCLASSES: [VectorOpClass; 4] = [
    VectorOpClass::L2,
    VectorOpClass::InnerProduct,
    VectorOpClass::Cosine,
    VectorOpClass::L1,
];

/// The tags of constraint kinds, on-disk like those of types: a new kind takes the next
/// number.
mod constraint_tag {
    pub const CHECK: u8 = 1;
}

/// The fewest bytes a string takes (its length): bounds a count of names.
const MIN_STR_BYTES: usize = 8;

/// A character length as CREATE accepts it.
fn read_char_length(input: &mut Decoder<'_>) -> Result<Option<u32>> {
    let length = input.option(|input| input.u32())?;
    match length {
        Some(n) if n == 0 || u64::from(n) > MAX_CHAR_LENGTH => {
            Err(corrupt(format!("character length {n}")))
        }
        _ => Ok(length),
    }
}

/// A bit string length as CREATE accepts it.
fn read_bit_length(input: &mut Decoder<'_>) -> Result<Option<u32>> {
    let length = input.option(|input| input.u32())?;
    match length {
        Some(n) if n == 0 || u64::from(n) > MAX_CHAR_LENGTH * 8 => {
            Err(corrupt(format!("bit length {n}")))
        }
        _ => Ok(length),
    }
}

/// A numeric precision and scale as CREATE accepts them.
fn read_typmod(input: &mut Decoder<'_>) -> Result<NumericTypmod> {
    let precision = input.u32()?;
    let scale = input.u32()?;
    if precision == 0 || u64::from(precision) > NUMERIC_MAX_SUPPORTED_PRECISION || scale > precision
    {
        return Err(corrupt(format!("numeric({precision},{scale})")));
    }
    Ok(NumericTypmod { precision, scale })
}

/// A type; an array's element (`in_array`) is refused as an array before it is read, so
/// corrupt input cannot nest deeply enough to exhaust the stack.
fn read_type(input: &mut Decoder<'_>, in_array: bool) -> Result<DataType> {
    Ok(match input.u8()? {
        tag::UNKNOWN => DataType::Unknown,
        tag::BOOL => DataType::Bool,
        tag::INT16 => DataType::Int16,
        tag::INT32 => DataType::Int32,
        tag::INT64 => DataType::Int64,
        tag::FLOAT32 => DataType::Float32,
        tag::FLOAT64 => DataType::Float64,
        tag::NUMERIC => DataType::Numeric(input.option(read_typmod)?),
        tag::TEXT => DataType::Text,
        tag::VARCHAR => DataType::Varchar(read_char_length(input)?),
        tag::CHAR => DataType::Char(read_char_length(input)?),
        tag::DATE => DataType::Date,
        tag::TIMESTAMP => DataType::Timestamp(None),
        tag::TIMESTAMPTZ => DataType::TimestampTz(None),
        tag::TIME => DataType::Time(None),
        tag::INTERVAL => DataType::Interval(IntervalTypmod::NONE),
        tag::BYTEA => DataType::Bytea,
        tag::UUID => DataType::Uuid,
        tag::JSON => DataType::Json,
        tag::JSONB => DataType::Jsonb,
        tag::JSONPATH => DataType::JsonPath,
        tag::BIT => DataType::Bit(read_bit_length(input)?),
        tag::VARBIT => DataType::VarBit(read_bit_length(input)?),
        tag::TIMETZ => DataType::TimeTz(None),
        tag::INT2VECTOR => DataType::Int2Vector,
        tag::OIDVECTOR => DataType::OidVector,
        tag::INET => DataType::Inet,
        tag::CIDR => DataType::Cidr,
        tag::INTERNAL_CHAR => DataType::InternalChar,
        first if first == tag::PRECISION[0] => read_precise_type(input)?,
        first if first == tag::INTERVAL_FIELDS[0] => read_interval_fields(input)?,
        tag @ (tag::RECORD | tag::ROW_TYPE) if !in_array => {
            let type_oid = match tag {
                tag::ROW_TYPE => input.u32()?,
                _ => RECORD_OID,
            };
            // Its fields are read as an array's element is, so they cannot nest.
            let count = input.len(2)?;
            let fields = (0..count)
                .map(|_| {
                    let name = input.string()?;
                    let ty = read_type(input, true)?;
                    Ok(RecordField { name, ty })
                })
                .collect::<Result<Vec<_>>>()?;
            DataType::Record(RecordType::intern_row_type(fields, type_oid)?)
        }
        tag::OID => {
            let position = input.u8()?;
            let kind = OidKind::ALL.get(usize::from(position));
            DataType::Oid(*kind.ok_or_else(|| corrupt(format!("oid kind {position}")))?)
        }
        tag::FLOAT_VECTOR => {
            let dims = input.option(|input| input.u32())?;
            if let Some(dims) = dims {
                float_vector::parse_typmod(&[i64::from(dims)])
                    .map_err(|_| corrupt(format!("vector({dims})")))?;
            }
            DataType::FloatVector(dims)
        }
        tag::ENUM => DataType::Enum(input.u32()?),
        tag::ARRAY if !in_array => {
            let elem = read_type(input, true)?;
            DataType::array_of(elem).ok_or_else(|| corrupt(format!("an array of {elem}")))?
        }
        other => return Err(corrupt(format!("type tag {other}"))),
    })
}

/// The rest of a [`tag::PRECISION`] type: the second tag byte, the type, its precision.
fn read_precise_type(input: &mut Decoder<'_>) -> Result<DataType> {
    let second = input.u8()?;
    let base = input.u8()?;
    let precision = input.u8()?;
    if second != tag::PRECISION[1] || precision > crate::types::precision::MAX_PRECISION {
        return Err(corrupt(format!(
            "datetime precision {second} {base} {precision}"
        )));
    }
    let p = Some(precision);
    Ok(match base {
        tag::TIMESTAMP => DataType::Timestamp(p),
        tag::TIMESTAMPTZ => DataType::TimestampTz(p),
        tag::TIME => DataType::Time(p),
        tag::TIMETZ => DataType::TimeTz(p),
        tag::INTERVAL => DataType::Interval(IntervalTypmod::with_precision(p)),
        other => return Err(corrupt(format!("a precision for type tag {other}"))),
    })
}

/// The rest of a [`tag::INTERVAL_FIELDS`] type: the second tag byte, the fields, the
/// precision.
fn read_interval_fields(input: &mut Decoder<'_>) -> Result<DataType> {
    let second = input.u8()?;
    let code = input.u8()?;
    let precision = input.u8()?;
    let range = IntervalRange::from_code(code).filter(|r| *r != IntervalRange::Full);
    let precision = match precision {
        tag::NO_PRECISION => Some(None),
        p if p <= crate::types::precision::MAX_PRECISION => Some(Some(p)),
        _ => None,
    };
    match (second == tag::INTERVAL_FIELDS[1], range, precision) {
        (true, Some(range), Some(precision)) if precision.is_none() || range.takes_precision() => {
            Ok(DataType::Interval(IntervalTypmod { range, precision }))
        }
        _ => Err(corrupt(format!(
            "interval fields {second} {code} {precision:?}"
        ))),
    }
}

impl Persist for DataType {
    fn encode(&self, out: &mut Encoder) {
        if let DataType::Interval(m) = self {
            if m.range != IntervalRange::Full {
                out.u8(tag::INTERVAL_FIELDS[0]);
                out.u8(tag::INTERVAL_FIELDS[1]);
                out.u8(m.range.code());
                out.u8(m.precision.unwrap_or(tag::NO_PRECISION));
                return;
            }
        }
        if let Some(precision) = crate::types::precision::of(*self) {
            out.u8(tag::PRECISION[0]);
            out.u8(tag::PRECISION[1]);
            self.unmodified().encode(out);
            out.u8(precision);
            return;
        }
        match self {
            DataType::Unknown => out.u8(tag::UNKNOWN),
            DataType::Bool => out.u8(tag::BOOL),
            DataType::Int16 => out.u8(tag::INT16),
            DataType::Int32 => out.u8(tag::INT32),
            DataType::Int64 => out.u8(tag::INT64),
            DataType::Float32 => out.u8(tag::FLOAT32),
            DataType::Float64 => out.u8(tag::FLOAT64),
            DataType::Numeric(typmod) => {
                out.u8(tag::NUMERIC);
                out.option(typmod.as_ref(), |out, m| {
                    out.u32(m.precision);
                    out.u32(m.scale);
                });
            }
            DataType::Text => out.u8(tag::TEXT),
            DataType::Varchar(length) => {
                out.u8(tag::VARCHAR);
                out.option(length.as_ref(), |out, n| out.u32(*n));
            }
            DataType::Char(length) => {
                out.u8(tag::CHAR);
                out.option(length.as_ref(), |out, n| out.u32(*n));
            }
            DataType::Date => out.u8(tag::DATE),
            DataType::Timestamp(_) => out.u8(tag::TIMESTAMP),
            DataType::TimestampTz(_) => out.u8(tag::TIMESTAMPTZ),
            DataType::Time(_) => out.u8(tag::TIME),
            DataType::Interval(_) => out.u8(tag::INTERVAL),
            DataType::Bytea => out.u8(tag::BYTEA),
            DataType::Uuid => out.u8(tag::UUID),
            DataType::Inet => out.u8(tag::INET),
            DataType::Cidr => out.u8(tag::CIDR),
            DataType::InternalChar => out.u8(tag::INTERNAL_CHAR),
            DataType::Json => out.u8(tag::JSON),
            DataType::Jsonb => out.u8(tag::JSONB),
            DataType::JsonPath => out.u8(tag::JSONPATH),
            DataType::Array(elem) => {
                out.u8(tag::ARRAY);
                elem.encode(out);
            }
            DataType::Bit(length) => {
                out.u8(tag::BIT);
                out.option(length.as_ref(), |out, n| out.u32(*n));
            }
            DataType::VarBit(length) => {
                out.u8(tag::VARBIT);
                out.option(length.as_ref(), |out, n| out.u32(*n));
            }
            DataType::TimeTz(_) => out.u8(tag::TIMETZ),
            DataType::Oid(kind) => {
                out.u8(tag::OID);
                let position = OidKind::ALL.iter().position(|k| k == kind);
                out.u8(position.and_then(|p| u8::try_from(p).ok()).unwrap_or(0));
            }
            DataType::FloatVector(dims) => {
                out.u8(tag::FLOAT_VECTOR);
                out.option(dims.as_ref(), |out, n| out.u32(*n));
            }
            DataType::Enum(oid) => {
                out.u8(tag::ENUM);
                out.u32(*oid);
            }
            DataType::Int2Vector => out.u8(tag::INT2VECTOR),
            DataType::OidVector => out.u8(tag::OIDVECTOR),
            DataType::Record(record) => {
                if record.type_oid == RECORD_OID {
                    out.u8(tag::RECORD);
                } else {
                    out.u8(tag::ROW_TYPE);
                    out.u32(record.type_oid);
                }
                out.len(record.fields.len());
                for field in &record.fields {
                    out.str(&field.name);
                    field.ty.encode(out);
                }
            }
        }
    }

    fn decode(input: &mut Decoder<'_>) -> Result<DataType> {
        read_type(input, false)
    }
}

impl Persist for ColumnDef {
    fn encode(&self, out: &mut Encoder) {
        out.str(&self.name);
        self.data_type.encode(out);
        out.bool(self.not_null);
        out.option(self.default_sql.as_ref(), |out, sql| out.str(sql));
        out.u8(match self.identity {
            None => 0,
            Some(Identity::Always) => 1,
            Some(Identity::ByDefault) => 2,
        });
        out.option(self.generated.as_ref(), |out, expr| expr.encode(out));
        write_comment(out, &self.comment);
    }

    fn decode(input: &mut Decoder<'_>) -> Result<ColumnDef> {
        Ok(ColumnDef {
            name: input.string()?,
            data_type: DataType::decode(input)?,
            not_null: input.bool()?,
            default_sql: input.option(Decoder::string)?,
            identity: match input.u8()? {
                0 => None,
                1 => Some(Identity::Always),
                2 => Some(Identity::ByDefault),
                other => return Err(corrupt(format!("identity kind {other}"))),
            },
            generated: input.option(StoredExpr::decode)?,
            comment: read_comment(input)?,
            domain: None,
            fdw_options: Vec::new(),
        })
    }
}

/// A COMMENT ON, the last field of each object that can have one (data format 3).
fn write_comment(out: &mut Encoder, comment: &Option<String>) {
    out.option(comment.as_ref(), |out, text| out.str(text));
}

fn read_comment(input: &mut Decoder<'_>) -> Result<Option<String>> {
    input.option(Decoder::string)
}

fn write_positions(out: &mut Encoder, columns: &[usize]) {
    out.items(columns, |out, &column| out.len(column));
}

/// Column positions, each checked against the table's column count by the caller.
fn read_positions(input: &mut Decoder<'_>) -> Result<Vec<usize>> {
    input.items(8, |input| {
        let position = input.u64()?;
        usize::try_from(position).map_err(|_| corrupt(format!("column position {position}")))
    })
}

impl Persist for UniqueKey {
    fn encode(&self, out: &mut Encoder) {
        out.str(&self.name);
        write_positions(out, &self.columns);
        out.bool(self.primary);
        out.bool(self.constraint);
        write_comment(out, &self.constraint_comment);
        write_comment(out, &self.index_comment);
    }

    fn decode(input: &mut Decoder<'_>) -> Result<UniqueKey> {
        Ok(UniqueKey {
            name: input.string()?,
            columns: read_positions(input)?,
            primary: input.bool()?,
            constraint: input.bool()?,
            constraint_comment: read_comment(input)?,
            index_comment: read_comment(input)?,
        })
    }
}

impl Persist for ReferentialAction {
    fn encode(&self, out: &mut Encoder) {
        out.u8(self.code());
    }

    fn decode(input: &mut Decoder<'_>) -> Result<ReferentialAction> {
        let code = input.u8()?;
        ReferentialAction::from_code(code)
            .ok_or_else(|| corrupt(format!("referential action {code}")))
    }
}

/// The referenced columns are checked against the referenced table when a statement uses
/// the key; the referencing ones with the owning table's other positions.
impl Persist for ForeignKey {
    fn encode(&self, out: &mut Encoder) {
        out.str(&self.name);
        write_positions(out, &self.columns);
        out.u32(self.referenced_table);
        write_positions(out, &self.referenced_columns);
        self.on_delete.encode(out);
        self.on_update.encode(out);
        out.bool(self.match_full);
        out.bool(self.deferrable);
        out.bool(self.initially_deferred);
        out.bool(self.validated);
        write_comment(out, &self.comment);
    }

    fn decode(input: &mut Decoder<'_>) -> Result<ForeignKey> {
        let key = ForeignKey {
            name: input.string()?,
            columns: read_positions(input)?,
            referenced_table: input.u32()?,
            referenced_columns: read_positions(input)?,
            on_delete: ReferentialAction::decode(input)?,
            on_update: ReferentialAction::decode(input)?,
            match_full: input.bool()?,
            deferrable: input.bool()?,
            initially_deferred: input.bool()?,
            validated: input.bool()?,
            comment: read_comment(input)?,
        };
        if key.columns.is_empty() || key.columns.len() != key.referenced_columns.len() {
            return Err(corrupt(format!("foreign key \"{}\" columns", key.name)));
        }
        Ok(key)
    }
}

impl Persist for IndexMethod {
    fn encode(&self, out: &mut Encoder) {
        match self {
            IndexMethod::Btree => out.u8(BTREE),
            IndexMethod::Hash => out.u8(HASH),
            IndexMethod::Hnsw(options) => {
                out.u8(HNSW);
                let opclass = HNSW_OPCLASSES.iter().position(|c| *c == options.opclass);
                out.u8(opclass.unwrap_or_default() as u8);
                out.u32(options.m.map_or(0, u32::from));
                out.u32(options.ef_construction.map_or(0, u32::from));
            }
        }
    }

    fn decode(input: &mut Decoder<'_>) -> Result<IndexMethod> {
        let tag = input.u8()?;
        IndexMethod::decode_tagged(tag, input)
    }
}

impl IndexMethod {
    /// The method whose tag `tag` was read, and what follows it.
    fn decode_tagged(tag: u8, input: &mut Decoder<'_>) -> Result<IndexMethod> {
        match tag {
            BTREE => Ok(IndexMethod::Btree),
            HASH => Ok(IndexMethod::Hash),
            HNSW => {
                let tag = input.u8()?;
                let opclass = *HNSW_OPCLASSES
                    .get(usize::from(tag))
                    .ok_or_else(|| corrupt(format!("hnsw operator class {tag}")))?;
                let mut option = |name: &str, (low, high): (u16, u16)| -> Result<Option<u16>> {
                    match input.u32()? {
                        0 => Ok(None),
                        n => u16::try_from(n)
                            .ok()
                            .filter(|n| (low..=high).contains(n))
                            .map(Some)
                            .ok_or_else(|| corrupt(format!("hnsw {name} {n}"))),
                    }
                };
                Ok(IndexMethod::Hnsw(HnswOptions {
                    opclass,
                    m: option("m", HnswOptions::M_RANGE)?,
                    ef_construction: option("ef_construction", HnswOptions::EF_CONSTRUCTION_RANGE)?,
                }))
            }
            other => Err(corrupt(format!("index method tag {other}"))),
        }
    }
}

/// Before an index's method: its expression keys and WHERE follow, then the method (from
/// the domains range, 140-149; written only by such indexes, so others read unchanged).
const INDEX_EXPRESSIONS: u8 = 144;

impl Persist for IndexDef {
    fn encode(&self, out: &mut Encoder) {
        out.str(&self.name);
        write_positions(out, &self.columns);
        if !self.serves_lookups() {
            out.u8(INDEX_EXPRESSIONS);
            out.items(&self.expressions, |out, expression| {
                out.u32(expression.key as u32);
                expression.expr.encode(out);
            });
            out.option(self.predicate.as_ref(), |out, predicate| {
                predicate.encode(out)
            });
        }
        self.method.encode(out);
        write_comment(out, &self.comment);
    }

    fn decode(input: &mut Decoder<'_>) -> Result<IndexDef> {
        let name = input.string()?;
        let columns = read_positions(input)?;
        let (expressions, predicate, method) = match input.u8()? {
            INDEX_EXPRESSIONS => {
                let expressions = input.items(4 + 3 * MIN_STR_BYTES, |input| {
                    Ok(IndexExpr {
                        key: input.u32()? as usize,
                        expr: StoredExpr::decode(input)?,
                    })
                })?;
                let predicate = input.option(StoredExpr::decode)?;
                (expressions, predicate, IndexMethod::decode(input)?)
            }
            tag => (Vec::new(), None, IndexMethod::decode_tagged(tag, input)?),
        };
        Ok(IndexDef {
            name,
            columns,
            method,
            comment: read_comment(input)?,
            expressions,
            predicate,
        })
    }
}

impl Persist for StoredExpr {
    fn encode(&self, out: &mut Encoder) {
        out.str(&self.sql);
        out.str(&self.definition);
        out.str(&self.definition_pretty);
    }

    fn decode(input: &mut Decoder<'_>) -> Result<StoredExpr> {
        Ok(StoredExpr {
            sql: input.string()?,
            definition: input.string()?,
            definition_pretty: input.string()?,
        })
    }
}

impl Persist for Constraint {
    fn encode(&self, out: &mut Encoder) {
        out.str(&self.name);
        out.bool(self.validated);
        match &self.kind {
            ConstraintKind::Check(check) => {
                out.u8(constraint_tag::CHECK);
                check.expr.encode(out);
                out.bool(check.no_inherit);
            }
        }
        write_comment(out, &self.comment);
    }

    fn decode(input: &mut Decoder<'_>) -> Result<Constraint> {
        let name = input.string()?;
        let validated = input.bool()?;
        let kind = match input.u8()? {
            constraint_tag::CHECK => ConstraintKind::Check(CheckConstraint {
                expr: StoredExpr::decode(input)?,
                no_inherit: input.bool()?,
            }),
            other => return Err(corrupt(format!("constraint kind tag {other}"))),
        };
        Ok(Constraint {
            name,
            kind,
            validated,
            comment: read_comment(input)?,
        })
    }
}

/// The fewest bytes a qualified name takes (schema OID and the name's length).
pub const MIN_QUALIFIED_NAME_BYTES: usize = 4 + MIN_STR_BYTES;

impl Persist for QualifiedName {
    fn encode(&self, out: &mut Encoder) {
        out.u32(self.schema);
        out.str(&self.name);
    }

    fn decode(input: &mut Decoder<'_>) -> Result<QualifiedName> {
        Ok(QualifiedName {
            schema: input.u32()?,
            name: input.string()?,
        })
    }
}

impl Persist for SchemaDef {
    fn encode(&self, out: &mut Encoder) {
        out.u32(self.oid);
        out.str(&self.name);
        out.str(&self.owner);
        write_comment(out, &self.comment);
    }

    fn decode(input: &mut Decoder<'_>) -> Result<SchemaDef> {
        Ok(SchemaDef {
            oid: input.u32()?,
            name: input.string()?,
            owner: input.string()?,
            comment: read_comment(input)?,
        })
    }
}

impl Persist for TableSchema {
    fn encode(&self, out: &mut Encoder) {
        out.u32(self.oid);
        out.u32(self.namespace);
        out.str(&self.name);
        out.items(&self.columns, |out, column| column.encode(out));
        out.items(&self.unique_keys, |out, key| key.encode(out));
        out.items(&self.indexes, |out, index| index.encode(out));
        out.bool(self.unlogged);
        out.items(&self.constraints, |out, constraint| constraint.encode(out));
        out.items(&self.foreign_keys, |out, key| key.encode(out));
        // The domains of columns, then a materialized view's query, are tags where the
        // comment's option byte (0 or 1) would be, so older tables read unchanged.
        let domains: Vec<(u32, u32)> = (self.columns.iter().enumerate())
            .filter_map(|(position, c)| Some((position as u32, c.domain?)))
            .collect();
        if !domains.is_empty() {
            out.u8(DOMAIN_COLUMNS);
            out.items(&domains, |out, (position, oid)| {
                out.u32(*position);
                out.u32(*oid);
            });
        }
        if let Some(materialized) = &self.materialized {
            out.u8(MATERIALIZED_VIEW);
            out.str(&materialized.query_sql);
            out.items(&materialized.search_path, |out, oid| out.u32(*oid));
            out.bool(materialized.populated);
            out.items(&materialized.depends_on, |out, name| name.encode(out));
        }
        if let Some(foreign) = &self.foreign {
            out.u8(FOREIGN_TABLE);
            out.str(&foreign.server);
            encode_options(out, &foreign.options);
        }
        let column_options: Vec<(u32, &[(String, String)])> = (self.columns.iter())
            .zip(0u32..)
            .filter(|(column, _)| !column.fdw_options.is_empty())
            .map(|(column, position)| (position, column.fdw_options.as_slice()))
            .collect();
        if !column_options.is_empty() {
            out.u8(FOREIGN_COLUMN_OPTIONS);
            out.items(&column_options, |out, (position, options)| {
                out.u32(*position);
                encode_options(out, options);
            });
        }
        if let Some(key) = &self.partition_key {
            write_wide_section(out, PARTITION_KEY);
            encode_partition_key(out, key);
        }
        if let Some(of) = &self.partition_of {
            write_wide_section(out, PARTITION_OF);
            encode_partition_of(out, of);
        }
        write_comment(out, &self.comment);
    }

    fn decode(input: &mut Decoder<'_>) -> Result<TableSchema> {
        let mut schema = TableSchema {
            oid: input.u32()?,
            namespace: input.u32()?,
            name: input.string()?,
            columns: input.items(MIN_STR_BYTES, ColumnDef::decode)?,
            unique_keys: input.items(MIN_STR_BYTES, UniqueKey::decode)?,
            indexes: input.items(MIN_STR_BYTES, IndexDef::decode)?,
            unlogged: input.bool()?,
            constraints: input.items(MIN_STR_BYTES, Constraint::decode)?,
            foreign_keys: input.items(MIN_STR_BYTES, ForeignKey::decode)?,
            comment: None,
            materialized: None,
            foreign: None,
            partition_key: None,
            partition_of: None,
        };
        let mut tag = input.u8()?;
        if tag == DOMAIN_COLUMNS {
            for (position, oid) in input.items(8, |input| Ok((input.u32()?, input.u32()?)))? {
                let column = schema.columns.get_mut(position as usize).ok_or_else(|| {
                    corrupt(format!(
                        "a domain of column {position} of \"{}\"",
                        schema.name
                    ))
                })?;
                column.domain = Some(oid);
            }
            tag = input.u8()?;
        }
        if tag == MATERIALIZED_VIEW {
            schema.materialized = Some(MaterializedView {
                query_sql: input.string()?,
                search_path: input.items(4, Decoder::u32)?,
                populated: input.bool()?,
                depends_on: input.items(MIN_QUALIFIED_NAME_BYTES, QualifiedName::decode)?,
            });
            tag = input.u8()?;
        }
        if tag == FOREIGN_TABLE {
            schema.foreign = Some(ForeignTable {
                server: input.string()?,
                options: decode_options(input)?,
            });
            tag = input.u8()?;
        }
        if tag == FOREIGN_COLUMN_OPTIONS {
            let listed = input.items(4 + 8, |input| Ok((input.u32()?, decode_options(input)?)))?;
            for (position, options) in listed {
                let column = schema.columns.get_mut(position as usize).ok_or_else(|| {
                    corrupt(format!(
                        "the options of column {position} of \"{}\"",
                        schema.name
                    ))
                })?;
                column.fdw_options = options;
            }
            tag = input.u8()?;
        }
        if tag == PARTITION_KEY[0] {
            read_wide_section(input, PARTITION_KEY)?;
            schema.partition_key = Some(decode_partition_key(input)?);
            tag = input.u8()?;
        }
        if tag == PARTITION_OF[0] {
            read_wide_section(input, PARTITION_OF)?;
            schema.partition_of = Some(decode_partition_of(input)?);
            tag = input.u8()?;
        }
        schema.comment = match tag {
            0 => None,
            1 => Some(input.string()?),
            other => return Err(corrupt(format!("option tag {other}"))),
        };
        let width = schema.columns.len();
        let positions = schema
            .unique_keys
            .iter()
            .flat_map(|k| &k.columns)
            .chain(schema.indexes.iter().flat_map(|i| &i.columns))
            .chain(schema.foreign_keys.iter().flat_map(|k| &k.columns));
        if let Some(bad) = positions.copied().find(|&p| p >= width) {
            return Err(corrupt(format!(
                "an index of table \"{}\" on column {bad} of {width}",
                schema.name
            )));
        }
        Ok(schema)
    }
}

impl Persist for ViewDef {
    fn encode(&self, out: &mut Encoder) {
        out.str(&self.name);
        out.u32(self.oid);
        out.u32(self.namespace);
        out.str(&self.query_sql);
        out.items(&self.columns, |out, (name, ty)| {
            out.str(name);
            ty.encode(out);
        });
        out.items(&self.search_path, |out, oid| out.u32(*oid));
        out.items(&self.depends_on, |out, name| name.encode(out));
        // A check option is a tag where the comment's option byte (0 or 1) would be, so
        // views written before check options existed read unchanged.
        match self.check_option {
            None => {}
            Some(ViewCheckOption::Local) => out.u8(VIEW_CHECK_LOCAL),
            Some(ViewCheckOption::Cascaded) => out.u8(VIEW_CHECK_CASCADED),
        }
        write_comment(out, &self.comment);
    }

    fn decode(input: &mut Decoder<'_>) -> Result<ViewDef> {
        ViewDef {
            name: input.string()?,
            oid: input.u32()?,
            namespace: input.u32()?,
            query_sql: input.string()?,
            columns: input.items(MIN_STR_BYTES + 1, |input| {
                Ok((input.string()?, DataType::decode(input)?))
            })?,
            search_path: input.items(4, Decoder::u32)?,
            depends_on: input.items(MIN_QUALIFIED_NAME_BYTES, QualifiedName::decode)?,
            check_option: None,
            comment: None,
        }
        .with_check_option_and_comment(input)
    }
}

/// Marks a table schema as a materialized view's (from the objects2 range, 100-109).
const MATERIALIZED_VIEW: u8 = 100;

/// Marks the list of a table's columns of domain types (from the domains range, 140-149).
const DOMAIN_COLUMNS: u8 = 141;

/// Marks a table schema as a foreign table's: its server and options (from the foreign
/// tables range, 170-179).
const FOREIGN_TABLE: u8 = 170;

/// Marks the list of a foreign table's columns that have `OPTIONS (...)`, by position
/// (from the foreign tables range, 170-179).
const FOREIGN_COLUMN_OPTIONS: u8 = 172;

/// Marks a partitioned table's key (tag 297, from the partitions' range 297-305, written
/// as two bytes; its first byte, 41, is no other tag's in this place).
const PARTITION_KEY: [u8; 2] = 297u16.to_le_bytes();

/// Marks a partition's parent and bound (tag 298, two bytes; first byte 42).
const PARTITION_OF: [u8; 2] = 298u16.to_le_bytes();

fn encode_partition_key(out: &mut Encoder, key: &PartitionKey) {
    out.u8(match key.strategy {
        PartitionStrategy::Range => 0,
        PartitionStrategy::List => 1,
    });
    out.u32(key.column as u32);
}

fn decode_partition_key(input: &mut Decoder<'_>) -> Result<PartitionKey> {
    let strategy = match input.u8()? {
        0 => PartitionStrategy::Range,
        1 => PartitionStrategy::List,
        other => return Err(corrupt(format!("partition strategy {other}"))),
    };
    Ok(PartitionKey {
        strategy,
        column: input.u32()? as usize,
    })
}

fn encode_range_datum(out: &mut Encoder, datum: &RangeDatum) {
    match datum {
        RangeDatum::MinValue => out.u8(0),
        RangeDatum::MaxValue => out.u8(1),
        RangeDatum::Value(text) => {
            out.u8(2);
            out.str(text);
        }
    }
}

fn decode_range_datum(input: &mut Decoder<'_>) -> Result<RangeDatum> {
    Ok(match input.u8()? {
        0 => RangeDatum::MinValue,
        1 => RangeDatum::MaxValue,
        2 => RangeDatum::Value(input.string()?),
        other => return Err(corrupt(format!("range bound datum {other}"))),
    })
}

fn encode_partition_of(out: &mut Encoder, of: &PartitionOf) {
    out.u32(of.parent);
    match &of.bound {
        PartitionBound::Range { from, to } => {
            out.u8(0);
            encode_range_datum(out, from);
            encode_range_datum(out, to);
        }
        PartitionBound::List(values) => {
            out.u8(1);
            out.items(values, |out, value| match value {
                None => out.u8(0),
                Some(text) => {
                    out.u8(1);
                    out.str(text);
                }
            });
        }
        PartitionBound::Default => out.u8(2),
    }
}

fn decode_partition_of(input: &mut Decoder<'_>) -> Result<PartitionOf> {
    let parent = input.u32()?;
    let bound = match input.u8()? {
        0 => PartitionBound::Range {
            from: decode_range_datum(input)?,
            to: decode_range_datum(input)?,
        },
        1 => PartitionBound::List(input.items(1, |input| {
            Ok(match input.u8()? {
                0 => None,
                1 => Some(input.string()?),
                other => return Err(corrupt(format!("list bound value {other}"))),
            })
        })?),
        2 => PartitionBound::Default,
        other => return Err(corrupt(format!("partition bound kind {other}"))),
    };
    Ok(PartitionOf { parent, bound })
}

/// The view check option tags (from the objects range, 70-79).
const VIEW_CHECK_LOCAL: u8 = 70;
const VIEW_CHECK_CASCADED: u8 = 71;

impl ViewDef {
    /// Reads what follows a view's dependencies: its check option tag, if any, then its
    /// comment.
    fn with_check_option_and_comment(mut self, input: &mut Decoder<'_>) -> Result<ViewDef> {
        let mut tag = input.u8()?;
        if matches!(tag, VIEW_CHECK_LOCAL | VIEW_CHECK_CASCADED) {
            self.check_option = Some(match tag {
                VIEW_CHECK_LOCAL => ViewCheckOption::Local,
                _ => ViewCheckOption::Cascaded,
            });
            tag = input.u8()?;
        }
        self.comment = match tag {
            0 => None,
            1 => Some(input.string()?),
            other => return Err(corrupt(format!("option tag {other}"))),
        };
        Ok(self)
    }
}

impl Persist for FunctionDef {
    fn encode(&self, out: &mut Encoder) {
        out.u32(self.oid);
        self.name.encode(out);
        out.items(&self.args, |out, arg| {
            if let Some(domain) = arg.domain {
                out.u8(PARAM_DOMAIN);
                out.u32(domain);
            }
            match arg.mode {
                ParamMode::In => {}
                ParamMode::Out => out.u8(PARAM_OUT),
                ParamMode::InOut => out.u8(PARAM_INOUT),
                ParamMode::Variadic => out.u8(PARAM_VARIADIC),
            }
            out.option(arg.name.as_ref(), |out, name| out.str(name));
            arg.ty.encode(out);
            out.option(arg.default.as_ref(), |out, default| out.str(default));
        });
        if let Some(domain) = self.returns_domain {
            out.u8(RETURNS_DOMAIN);
            out.u32(domain);
        }
        match &self.returns {
            FunctionReturn::Scalar(ty) => {
                out.u8(0);
                ty.encode(out);
            }
            FunctionReturn::SetOf(ty) => {
                out.u8(1);
                ty.encode(out);
            }
            FunctionReturn::Table(columns) => {
                out.u8(2);
                encode_columns(out, columns);
            }
            FunctionReturn::Row(columns) => {
                out.u8(RETURNS_ROW);
                encode_columns(out, columns);
            }
            FunctionReturn::Void => out.u8(RETURNS_VOID),
        }
        out.u8(self.volatility.code());
        out.bool(self.strict);
        out.u8(self.parallel);
        match &self.body {
            FunctionBody::Text(text) => {
                out.u8(0);
                out.str(text);
            }
            FunctionBody::Return(expr) => {
                out.u8(1);
                out.str(expr);
            }
        }
    }

    fn decode(input: &mut Decoder<'_>) -> Result<FunctionDef> {
        let oid = input.u32()?;
        let name = QualifiedName::decode(input)?;
        let args = input.items(3, |input| {
            // An output parameter's mode tag comes where an input one's name option starts.
            let (domain, tag) = domain_then_tag(input, PARAM_DOMAIN)?;
            let (mode, name_tag) = match tag {
                PARAM_OUT => (ParamMode::Out, input.u8()?),
                PARAM_INOUT => (ParamMode::InOut, input.u8()?),
                PARAM_VARIADIC => (ParamMode::Variadic, input.u8()?),
                tag => (ParamMode::In, tag),
            };
            let name = match name_tag {
                0 => None,
                1 => Some(input.string()?),
                other => return Err(corrupt(format!("option tag {other}"))),
            };
            Ok(FunctionArg {
                name,
                ty: DataType::decode(input)?,
                default: input.option(Decoder::string)?,
                mode,
                domain,
            })
        })?;
        let (returns_domain, tag) = domain_then_tag(input, RETURNS_DOMAIN)?;
        let returns = match tag {
            0 => FunctionReturn::Scalar(DataType::decode(input)?),
            1 => FunctionReturn::SetOf(DataType::decode(input)?),
            2 => FunctionReturn::Table(decode_columns(input)?),
            RETURNS_ROW => FunctionReturn::Row(decode_columns(input)?),
            RETURNS_VOID => FunctionReturn::Void,
            other => return Err(corrupt(format!("function return kind {other}"))),
        };
        let volatility = match input.u8()? {
            b'i' => Volatility::Immutable,
            b's' => Volatility::Stable,
            b'v' => Volatility::Volatile,
            other => return Err(corrupt(format!("function volatility {other}"))),
        };
        let strict = input.bool()?;
        let parallel = match input.u8()? {
            code @ (b's' | b'r' | b'u') => code,
            other => return Err(corrupt(format!("function parallel mode {other}"))),
        };
        let body = match input.u8()? {
            0 => FunctionBody::Text(input.string()?),
            1 => FunctionBody::Return(input.string()?),
            other => return Err(corrupt(format!("function body kind {other}"))),
        };
        Ok(FunctionDef {
            oid,
            name,
            args,
            returns,
            volatility,
            strict,
            parallel,
            body,
            returns_domain,
        })
    }
}

/// Tags of SQL functions' OUT parameters and results (from the sqlfunc2 range, 110-119),
/// written only by functions that have them, so older functions read unchanged.
const PARAM_OUT: u8 = 110;
const PARAM_INOUT: u8 = 111;
const RETURNS_ROW: u8 = 112;
const PARAM_VARIADIC: u8 = 113;
/// A `void` result (from the sqlfunc3 range, 114-119).
const RETURNS_VOID: u8 = 114;
/// A domain-typed parameter or result: the domain's OID follows, then the parameter or
/// the result as without it (from the domains range, 140-149).
const PARAM_DOMAIN: u8 = 142;
const RETURNS_DOMAIN: u8 = 143;

/// The domain OID that `domain_tag` announces, if it comes first, and the tag after it.
fn domain_then_tag(input: &mut Decoder<'_>, domain_tag: u8) -> Result<(Option<u32>, u8)> {
    match input.u8()? {
        tag if tag == domain_tag => Ok((Some(input.u32()?), input.u8()?)),
        tag => Ok((None, tag)),
    }
}

fn encode_columns(out: &mut Encoder, columns: &[(String, DataType)]) {
    out.items(columns, |out, (name, ty)| {
        out.str(name);
        ty.encode(out);
    });
}

fn decode_columns(input: &mut Decoder<'_>) -> Result<Vec<(String, DataType)>> {
    input.items(MIN_STR_BYTES + 1, |input| {
        Ok((input.string()?, DataType::decode(input)?))
    })
}

/// A foreign server's OID and owner, and two strings and a list.
pub const MIN_FOREIGN_SERVER_BYTES: usize = 8 + 2 * MIN_STR_BYTES + 8;

impl Persist for ForeignServer {
    fn encode(&self, out: &mut Encoder) {
        out.u32(self.oid);
        out.str(&self.name);
        out.u32(self.owner);
        out.str(&self.wrapper);
        encode_options(out, &self.options);
    }

    fn decode(input: &mut Decoder<'_>) -> Result<ForeignServer> {
        Ok(ForeignServer {
            oid: input.u32()?,
            name: input.string()?,
            owner: input.u32()?,
            wrapper: input.string()?,
            options: decode_options(input)?,
            user_mappings: Vec::new(),
        })
    }
}

/// The USER_MAPPINGS section's body: each server of `servers` that has user mappings,
/// by name, with them. Kept apart from the servers so that directories written before
/// user mappings existed still read.
pub fn encode_user_mappings<'a>(
    out: &mut Encoder,
    servers: impl Iterator<Item = &'a ForeignServer>,
) {
    let mapped: Vec<&ForeignServer> = servers.filter(|s| !s.user_mappings.is_empty()).collect();
    out.items(&mapped, |out, server| {
        out.str(&server.name);
        out.items(&server.user_mappings, |out, mapping| {
            out.u32(mapping.oid);
            out.u32(mapping.role);
            encode_options(out, &mapping.options);
        });
    });
}

/// Reads a USER_MAPPINGS section into the servers it names, read before it.
pub fn decode_user_mappings(
    input: &mut Decoder<'_>,
    servers: &mut Map<String, Arc<ForeignServer>>,
) -> Result<()> {
    let listed = input.items(2 * MIN_STR_BYTES, |input| {
        let name = input.string()?;
        let mappings = input.items(8 + MIN_STR_BYTES, |input| {
            Ok(UserMapping {
                oid: input.u32()?,
                role: input.u32()?,
                options: decode_options(input)?,
            })
        })?;
        Ok((name, mappings))
    })?;
    for (name, mappings) in listed {
        let server = servers
            .get_mut(&name)
            .ok_or_else(|| corrupt(format!("user mappings of a missing server \"{name}\"")))?;
        Arc::make_mut(server).user_mappings = mappings;
    }
    Ok(())
}

/// A foreign server's or table's `OPTIONS`, name and value pairs.
fn encode_options(out: &mut Encoder, options: &[(String, String)]) {
    out.items(options, |out, (name, value)| {
        out.str(name);
        out.str(value);
    });
}

fn decode_options(input: &mut Decoder<'_>) -> Result<Vec<(String, String)>> {
    input.items(2 * MIN_STR_BYTES, |input| {
        Ok((input.string()?, input.string()?))
    })
}

/// An extension's OID, owner and schema, and two strings.
pub const MIN_EXTENSION_BYTES: usize = 12 + 2 * MIN_STR_BYTES;

impl Persist for Extension {
    fn encode(&self, out: &mut Encoder) {
        out.u32(self.oid);
        out.str(&self.name);
        out.u32(self.owner);
        out.u32(self.schema);
        out.str(&self.version);
    }

    fn decode(input: &mut Decoder<'_>) -> Result<Extension> {
        Ok(Extension {
            oid: input.u32()?,
            name: input.string()?,
            owner: input.u32()?,
            schema: input.u32()?,
            version: input.string()?,
        })
    }
}

impl Persist for EnumType {
    fn encode(&self, out: &mut Encoder) {
        out.u32(self.oid);
        self.name.encode(out);
        out.items(&self.labels, |out, label| {
            out.u32(label.oid);
            out.str(&label.label);
            out.u32(label.sort_order.to_bits());
        });
        write_comment(out, &self.comment);
    }

    fn decode(input: &mut Decoder<'_>) -> Result<EnumType> {
        let oid = input.u32()?;
        let name = QualifiedName::decode(input)?;
        let labels = input.items(4 + MIN_STR_BYTES + 4, |input| {
            Ok(EnumLabel {
                oid: input.u32()?,
                label: input.string()?,
                sort_order: f32::from_bits(input.u32()?),
                added_by_alter: false,
            })
        })?;
        // Lookups of a value's label search them in sort order.
        if !labels.is_sorted_by(|a, b| a.sort_order < b.sort_order) {
            return Err(corrupt(format!("enum type {oid} with unsorted labels")));
        }
        Ok(EnumType {
            oid,
            name,
            labels,
            comment: read_comment(input)?,
        })
    }
}

/// A composite type's OID, its name and its count of fields.
pub const MIN_COMPOSITE_TYPE_BYTES: usize = 4 + MIN_QUALIFIED_NAME_BYTES + 8;

impl Persist for CompositeType {
    fn encode(&self, out: &mut Encoder) {
        out.u32(self.oid);
        self.name.encode(out);
        out.items(&self.fields, |out, (name, ty)| {
            out.str(name);
            ty.encode(out);
        });
    }

    fn decode(input: &mut Decoder<'_>) -> Result<CompositeType> {
        let oid = input.u32()?;
        let name = QualifiedName::decode(input)?;
        let fields = input.items(MIN_STR_BYTES + 1, |input| {
            Ok((input.string()?, DataType::decode(input)?))
        })?;
        Ok(CompositeType { oid, name, fields })
    }
}

impl Persist for Domain {
    fn encode(&self, out: &mut Encoder) {
        out.u32(self.oid);
        self.name.encode(out);
        self.base.encode(out);
        out.option(self.parent.as_ref(), |out, oid| out.u32(*oid));
        out.option(self.default_sql.as_ref(), |out, sql| out.str(sql));
        out.bool(self.not_null);
        out.items(&self.checks, |out, check| {
            out.u32(check.oid);
            out.str(&check.name);
            out.str(&check.sql);
            out.str(&check.definition);
            out.str(&check.definition_pretty);
            out.bool(check.validated);
        });
        out.u32(self.owner);
        write_comment(out, &self.comment);
    }

    fn decode(input: &mut Decoder<'_>) -> Result<Domain> {
        Ok(Domain {
            oid: input.u32()?,
            name: QualifiedName::decode(input)?,
            base: DataType::decode(input)?,
            parent: input.option(Decoder::u32)?,
            default_sql: input.option(Decoder::string)?,
            not_null: input.bool()?,
            checks: input.items(4 + 4 * MIN_STR_BYTES + 1, |input| {
                Ok(DomainCheck {
                    oid: input.u32()?,
                    name: input.string()?,
                    sql: input.string()?,
                    definition: input.string()?,
                    definition_pretty: input.string()?,
                    validated: input.bool()?,
                })
            })?,
            owner: input.u32()?,
            comment: read_comment(input)?,
        })
    }
}

impl Persist for SequenceOptions {
    fn encode(&self, out: &mut Encoder) {
        out.i64(self.increment);
        out.i64(self.min);
        out.i64(self.max);
        out.i64(self.start);
        out.bool(self.cycle);
    }

    /// Options CREATE SEQUENCE would accept: a non-zero increment, MINVALUE below MAXVALUE
    /// and START between them. The type is the one the bounds imply until the sequence's
    /// definition says otherwise (see `decode_sequence`).
    fn decode(input: &mut Decoder<'_>) -> Result<SequenceOptions> {
        let mut options = SequenceOptions {
            data_type: DataType::Int64,
            increment: input.i64()?,
            min: input.i64()?,
            max: input.i64()?,
            start: input.i64()?,
            cycle: input.bool()?,
        };
        let valid = options.increment != 0
            && options.min < options.max
            && (options.min..=options.max).contains(&options.start);
        if !valid {
            return Err(corrupt(format!("sequence options {options:?}")));
        }
        options.data_type = options.implied_type();
        Ok(options)
    }
}

impl Persist for RoleCatalog {
    fn encode(&self, out: &mut Encoder) {
        out.items(&self.roles, |out, role| {
            out.u32(role.oid);
            out.str(&role.name);
            for flag in [
                role.superuser,
                role.inherit,
                role.create_role,
                role.create_db,
                role.login,
                role.replication,
                role.bypass_rls,
            ] {
                out.bool(flag);
            }
            out.u32(role.connection_limit as u32);
            out.option(role.password.as_ref(), |out, password| out.str(password));
            out.option(role.valid_until.as_ref(), |out, until| out.i64(*until));
        });
        out.items(&self.memberships, |out, membership| {
            out.u32(membership.role);
            out.u32(membership.member);
            out.u32(membership.grantor);
            out.bool(membership.admin_option);
        });
    }

    fn decode(input: &mut Decoder<'_>) -> Result<RoleCatalog> {
        let roles = input.items(4 + MIN_STR_BYTES + 7 + 4 + 2, |input| {
            let mut role = Role::new(input.u32()?, input.string()?);
            role.superuser = input.bool()?;
            role.inherit = input.bool()?;
            role.create_role = input.bool()?;
            role.create_db = input.bool()?;
            role.login = input.bool()?;
            role.replication = input.bool()?;
            role.bypass_rls = input.bool()?;
            role.connection_limit = input.u32()? as i32;
            role.password = input.option(Decoder::string)?;
            role.valid_until = input.option(Decoder::i64)?;
            Ok(std::sync::Arc::new(role))
        })?;
        if !roles.is_sorted_by(|a, b| a.oid < b.oid) {
            return Err(corrupt("roles out of OID order"));
        }
        let memberships = input.items(13, |input| {
            Ok(Membership {
                role: input.u32()?,
                member: input.u32()?,
                grantor: input.u32()?,
                admin_option: input.bool()?,
            })
        })?;
        Ok(RoleCatalog {
            roles,
            memberships,
            privileges: PrivilegeCatalog::default(),
            settings: RoleSettings::default(),
        })
    }
}

impl Persist for PrivilegeCatalog {
    fn encode(&self, out: &mut Encoder) {
        out.len(self.objects.len());
        for ((kind, oid), object) in &self.objects {
            out.u8(kind.tag());
            out.u32(*oid);
            out.u32(object.owner);
            out.option(object.acl.as_ref(), |out, acl| {
                out.items(acl, encode_acl_item);
            });
        }
    }

    fn decode(input: &mut Decoder<'_>) -> Result<PrivilegeCatalog> {
        let mut catalog = PrivilegeCatalog::default();
        for _ in 0..input.len(10)? {
            let tag = input.u8()?;
            let kind = ObjectKind::from_tag(tag)
                .ok_or_else(|| corrupt(format!("privilege object kind {tag}")))?;
            let oid = input.u32()?;
            let owner = input.u32()?;
            let acl = input.option(|input| input.items(16, decode_acl_item))?;
            catalog
                .objects
                .insert((kind, oid), ObjectPrivileges { owner, acl });
        }
        Ok(catalog)
    }
}

impl Persist for RoleSettings {
    fn encode(&self, out: &mut Encoder) {
        out.len(self.0.len());
        for ((database, role), items) in &self.0 {
            out.u32(*database);
            out.u32(*role);
            out.items(items, |out, item| out.str(item));
        }
    }

    fn decode(input: &mut Decoder<'_>) -> Result<RoleSettings> {
        let mut settings = RoleSettings::default();
        for _ in 0..input.len(12)? {
            let key = (input.u32()?, input.u32()?);
            let items = input.items(MIN_STR_BYTES, Decoder::string)?;
            if items.is_empty() || items.iter().any(|i| !i.contains('=')) {
                return Err(corrupt("a role setting that is no name=value"));
            }
            settings.0.insert(key, items);
        }
        Ok(settings)
    }
}

fn encode_acl_item(out: &mut Encoder, item: &AclItem) {
    out.u32(item.grantee);
    out.u32(item.grantor);
    out.u32(u32::from(item.privileges.0));
    out.u32(u32::from(item.grant_options.0));
}

fn decode_acl_item(input: &mut Decoder<'_>) -> Result<AclItem> {
    let mode = |input: &mut Decoder<'_>| -> Result<AclMode> {
        let bits = input.u32()?;
        u16::try_from(bits)
            .map(AclMode)
            .map_err(|_| corrupt(format!("privilege bits {bits}")))
    };
    Ok(AclItem {
        grantee: input.u32()?,
        grantor: input.u32()?,
        privileges: mode(input)?,
        grant_options: mode(input)?,
    })
}

impl Persist for ColumnPrivileges {
    fn encode(&self, out: &mut Encoder) {
        out.len(self.0.len());
        for ((oid, attnum), acl) in &self.0 {
            out.u32(*oid);
            out.u32(u32::from(attnum.unsigned_abs()));
            out.items(acl, encode_acl_item);
        }
    }

    fn decode(input: &mut Decoder<'_>) -> Result<ColumnPrivileges> {
        let mut columns = ColumnPrivileges::default();
        for _ in 0..input.len(12)? {
            let oid = input.u32()?;
            let attnum = input.u32()?;
            let attnum = i16::try_from(attnum)
                .ok()
                .filter(|n| *n >= 1)
                .ok_or_else(|| corrupt(format!("column privileges of attribute {attnum}")))?;
            let acl = input.items(16, decode_acl_item)?;
            if acl.is_empty() {
                return Err(corrupt("an empty column ACL"));
            }
            columns.0.insert((oid, attnum), acl);
        }
        Ok(columns)
    }
}

#[cfg(test)]
mod tests {
    use super::{tag, MIN_FOREIGN_SERVER_BYTES};
    use crate::catalog::{
        CheckConstraint, ColumnDef, Constraint, ConstraintKind, ForeignKey, ForeignServer,
        ForeignTable, HnswOptions, IndexDef, IndexExpr, IndexMethod, QualifiedName,
        ReferentialAction, SchemaDef, StoredExpr, TableSchema, UniqueKey, UserMapping,
        VectorOpClass, ViewCheckOption, ViewDef, PUBLIC_OID,
    };
    use crate::durability::bytes::encoded;
    use crate::durability::{Decoder, Encoder, Persist};
    use crate::storage::SequenceOptions;
    use crate::types::{DataType, IntervalRange, IntervalTypmod, NumericTypmod, OidKind};

    /// Round trips, and every strict prefix of the encoding is XX001.
    fn assert_round_trip<T: Persist + PartialEq + std::fmt::Debug>(value: &T) {
        let bytes = encoded(value);
        let mut input = Decoder::new(&bytes);
        assert_eq!(T::decode(&mut input).ok().as_ref(), Some(value));
        assert!(input.is_empty());
        for cut in 0..bytes.len() {
            let got = T::decode(&mut Decoder::new(&bytes[..cut]));
            assert_eq!(got.map_err(|e| e.sqlstate()), Err("XX001"), "prefix {cut}");
        }
    }

    fn is_corrupt<T: Persist>(bytes: &[u8]) -> bool {
        let decoded = T::decode(&mut Decoder::new(bytes));
        decoded.map(|_| ()).map_err(|e| e.sqlstate()) == Err("XX001")
    }

    fn all_types() -> Vec<DataType> {
        let scalars = [
            DataType::Unknown,
            DataType::Bool,
            DataType::Int16,
            DataType::Int32,
            DataType::Int64,
            DataType::Float32,
            DataType::Float64,
            DataType::Numeric(None),
            DataType::Numeric(Some(NumericTypmod {
                precision: 10,
                scale: 2,
            })),
            DataType::Text,
            DataType::Varchar(None),
            DataType::Varchar(Some(20)),
            DataType::Char(None),
            DataType::Char(Some(1)),
            DataType::Date,
            DataType::Timestamp(None),
            DataType::TimestampTz(None),
            DataType::Interval(IntervalTypmod::NONE),
            DataType::Timestamp(Some(3)),
            DataType::TimestampTz(Some(0)),
            DataType::Time(Some(6)),
            DataType::TimeTz(Some(2)),
            DataType::Interval(IntervalTypmod::with_precision(Some(1))),
            DataType::Interval(IntervalTypmod {
                range: IntervalRange::DayToSecond,
                precision: Some(3),
            }),
            DataType::Interval(IntervalTypmod {
                range: IntervalRange::YearToMonth,
                precision: None,
            }),
            DataType::Bytea,
            DataType::Uuid,
            DataType::Json,
            DataType::Jsonb,
            DataType::Oid(OidKind::Oid),
            DataType::Oid(OidKind::RegClass),
            DataType::FloatVector(None),
            DataType::FloatVector(Some(3)),
            DataType::Inet,
            DataType::Cidr,
        ];
        let arrays: Vec<DataType> = scalars
            .iter()
            .filter_map(|&t| DataType::array_of(t))
            .collect();
        assert_eq!(arrays.len(), 32, "every type with an array type");
        scalars.into_iter().chain(arrays).collect()
    }

    #[test]
    fn every_data_type_round_trips() {
        for ty in all_types() {
            assert_round_trip(&ty);
        }
    }

    #[test]
    fn types_create_would_refuse_are_corrupt() {
        let mut array_of_array = Encoder::default();
        array_of_array.u8(tag::ARRAY);
        array_of_array.u8(tag::ARRAY);
        array_of_array.u8(tag::INT32);
        assert!(is_corrupt::<DataType>(&array_of_array.buf));
        let deep = vec![tag::ARRAY; 100_000];
        assert!(is_corrupt::<DataType>(&deep));
        let mut array_of_vector = Encoder::default();
        array_of_vector.u8(tag::ARRAY);
        DataType::FloatVector(Some(3)).encode(&mut array_of_vector);
        assert!(is_corrupt::<DataType>(&array_of_vector.buf));
        for bad in [0, 21, 255] {
            assert!(is_corrupt::<DataType>(&[bad]), "tag {bad}");
        }
        for (precision, scale) in [(0, 0), (39, 0), (5, 6)] {
            let ty = DataType::Numeric(Some(NumericTypmod { precision, scale }));
            assert!(is_corrupt::<DataType>(&encoded(&ty)));
        }
        for n in [0, u32::MAX] {
            assert!(is_corrupt::<DataType>(&encoded(&DataType::Varchar(Some(
                n
            )))));
            assert!(is_corrupt::<DataType>(&encoded(&DataType::Char(Some(n)))));
        }
        // Full range (kept by INTERVAL or PRECISION), a range past the last, a precision
        // after a field that takes none, a precision above 6.
        let [first, second] = tag::INTERVAL_FIELDS;
        for (code, precision) in [(0, tag::NO_PRECISION), (14, 0), (1, 3), (6, 7)] {
            assert!(is_corrupt::<DataType>(&[first, second, code, precision]));
        }
    }

    fn schema() -> TableSchema {
        let column = |name: &str, data_type| ColumnDef {
            name: name.into(),
            data_type,
            not_null: name == "id",
            default_sql: (name == "id").then(|| "nextval('t_id_seq')".into()),
            identity: None,
            generated: (name == "price").then(|| StoredExpr {
                sql: "id * 2".into(),
                definition: "(id * 2)".into(),
                definition_pretty: "id * 2".into(),
            }),
            comment: (name == "price").then(|| "in euros".into()),
            domain: None,
            fdw_options: Vec::new(),
        };
        TableSchema {
            oid: 16384,
            namespace: PUBLIC_OID,
            name: "t".into(),
            columns: vec![
                column("id", DataType::Int64),
                column(
                    "tags",
                    DataType::array_of(DataType::Text).unwrap_or(DataType::Unknown),
                ),
                column(
                    "price",
                    DataType::Numeric(Some(NumericTypmod {
                        precision: 12,
                        scale: 2,
                    })),
                ),
            ],
            unique_keys: vec![
                UniqueKey {
                    name: "t_pkey".into(),
                    columns: vec![0],
                    primary: true,
                    constraint: true,
                    constraint_comment: Some("the key".into()),
                    index_comment: Some("its index".into()),
                },
                UniqueKey {
                    name: "t_price_id".into(),
                    columns: vec![2, 0],
                    primary: false,
                    constraint: false,
                    constraint_comment: None,
                    index_comment: None,
                },
            ],
            indexes: vec![
                IndexDef {
                    name: "t_price".into(),
                    columns: vec![2],
                    method: IndexMethod::Btree,
                    comment: Some("by price".into()),
                    expressions: Vec::new(),
                    predicate: None,
                },
                IndexDef {
                    name: "t_id_hash".into(),
                    columns: vec![0],
                    method: IndexMethod::Hash,
                    comment: None,
                    expressions: vec![IndexExpr {
                        key: 0,
                        expr: StoredExpr {
                            sql: "lower(name)".into(),
                            definition: "lower(name)".into(),
                            definition_pretty: "lower(name)".into(),
                        },
                    }],
                    predicate: Some(StoredExpr {
                        sql: "id > 0".into(),
                        definition: "(id > 0)".into(),
                        definition_pretty: "id > 0".into(),
                    }),
                },
                IndexDef {
                    name: "t_tags_hnsw".into(),
                    columns: vec![1],
                    method: IndexMethod::Hnsw(HnswOptions {
                        opclass: VectorOpClass::Cosine,
                        m: Some(4),
                        ef_construction: None,
                    }),
                    comment: None,
                    expressions: Vec::new(),
                    predicate: None,
                },
            ],
            constraints: vec![Constraint {
                name: "t_price_check".into(),
                kind: ConstraintKind::Check(CheckConstraint {
                    expr: StoredExpr {
                        sql: "price > 0".into(),
                        definition: "(price > (0)::numeric)".into(),
                        definition_pretty: "price > 0::numeric".into(),
                    },
                    no_inherit: false,
                }),
                validated: false,
                comment: Some("positive".into()),
            }],
            foreign_keys: vec![ForeignKey {
                name: "t_price_id_fkey".into(),
                columns: vec![2, 0],
                referenced_table: 16390,
                referenced_columns: vec![1, 0],
                on_delete: ReferentialAction::SetDefault,
                on_update: ReferentialAction::Cascade,
                match_full: true,
                deferrable: true,
                initially_deferred: false,
                validated: false,
                comment: None,
            }],
            unlogged: true,
            comment: Some("a table".into()),
            materialized: None,
            foreign: None,
            partition_key: None,
            partition_of: None,
        }
    }

    #[test]
    fn a_materialized_view_round_trips() {
        let mut schema = schema();
        schema.materialized = Some(crate::catalog::MaterializedView {
            query_sql: "SELECT 1".into(),
            search_path: vec![PUBLIC_OID],
            populated: false,
            depends_on: vec![QualifiedName::new(PUBLIC_OID, "t")],
        });
        assert_round_trip(&schema);
        schema.comment = None;
        assert_round_trip(&schema);
    }

    #[test]
    fn a_foreign_table_and_a_server_round_trip() {
        let mut schema = schema();
        schema.foreign = Some(ForeignTable {
            server: "files".into(),
            options: vec![("filename".into(), "/tmp/x.csv".into())],
        });
        assert_round_trip(&schema);
        schema.columns[1].fdw_options = vec![("force_null".into(), "true".into())];
        assert_round_trip(&schema);
        let mut server = ForeignServer {
            oid: 16_400,
            name: "files".into(),
            owner: 10,
            wrapper: "file_fdw".into(),
            options: Vec::new(),
            user_mappings: Vec::new(),
        };
        assert!(encoded(&server).len() >= MIN_FOREIGN_SERVER_BYTES);
        assert_round_trip(&server);
        // The user mappings ride in a section of their own, after the servers.
        let decoded = std::sync::Arc::new(server.clone());
        server.user_mappings = vec![UserMapping {
            oid: 16_500,
            role: 0,
            options: vec![("user".into(), "bob".into())],
        }];
        let mut out = Encoder::default();
        super::encode_user_mappings(&mut out, std::iter::once(&server));
        let bytes = out.buf;
        let mut servers = crate::storage::Map::default();
        servers.insert(server.name.clone(), decoded);
        let mut input = Decoder::new(&bytes);
        assert!(super::decode_user_mappings(&mut input, &mut servers).is_ok());
        assert!(input.is_empty());
        assert_eq!(servers.get("files").map(|s| &**s), Some(&server));
        let mut none = crate::storage::Map::default();
        let refused = super::decode_user_mappings(&mut Decoder::new(&bytes), &mut none);
        assert_eq!(refused.map_err(|e| e.sqlstate()), Err("XX001"));
    }

    #[test]
    fn columns_of_domains_and_domains_round_trip() {
        let mut schema = schema();
        schema.columns[2].domain = Some(16400);
        assert_round_trip(&schema);
        schema.materialized = Some(crate::catalog::MaterializedView {
            query_sql: "SELECT 1".into(),
            search_path: vec![PUBLIC_OID],
            populated: true,
            depends_on: Vec::new(),
        });
        assert_round_trip(&schema);
        let domain = crate::catalog::Domain {
            oid: 16400,
            name: QualifiedName::new(PUBLIC_OID, "price"),
            base: DataType::Numeric(None),
            parent: Some(16399),
            default_sql: Some("0".into()),
            not_null: true,
            checks: vec![crate::catalog::DomainCheck {
                oid: 16401,
                name: "price_check".into(),
                sql: "VALUE >= 0".into(),
                definition: "CHECK ((VALUE >= (0)::numeric))".into(),
                definition_pretty: "CHECK (VALUE >= 0::numeric)".into(),
                validated: false,
            }],
            owner: 10,
            comment: Some("money".into()),
        };
        assert_round_trip(&domain);
    }

    #[test]
    fn a_domain_of_a_column_past_the_last_is_corrupt() {
        let mut schema = schema();
        schema.columns[2].domain = Some(16400);
        let mut bytes = encoded(&schema);
        // The position of the (only) domain column, after the tag and the list's length.
        let at = bytes
            .windows(8)
            .position(|w| w == [2, 0, 0, 0, 0x10, 0x40, 0, 0])
            .expect("the domain column pair is encoded");
        bytes[at] = 9;
        assert!(is_corrupt::<TableSchema>(&bytes));
    }

    #[test]
    fn a_schema_with_keys_and_indexes_round_trips() {
        assert_round_trip(&schema());
        let mut empty = schema();
        empty.columns.clear();
        empty.unique_keys.clear();
        empty.indexes.clear();
        empty.constraints.clear();
        empty.foreign_keys.clear();
        assert_round_trip(&empty);
    }

    #[test]
    fn an_index_past_the_last_column_or_an_unknown_method_is_corrupt() {
        let mut wide = schema();
        wide.indexes[0].columns = vec![3];
        assert!(is_corrupt::<TableSchema>(&encoded(&wide)));
        let mut key = schema();
        key.unique_keys[1].columns = vec![0, 9];
        assert!(is_corrupt::<TableSchema>(&encoded(&key)));
        let mut foreign = schema();
        foreign.foreign_keys[0].columns = vec![0, 3];
        assert!(is_corrupt::<TableSchema>(&encoded(&foreign)));
        foreign.foreign_keys[0].columns = vec![0];
        assert!(is_corrupt::<TableSchema>(&encoded(&foreign)));
        assert!(is_corrupt::<ReferentialAction>(b"x"));
        assert!(is_corrupt::<IndexMethod>(&[0]));
        assert!(is_corrupt::<IndexMethod>(&[3]));
        // An hnsw operator class or option out of range.
        assert!(is_corrupt::<IndexMethod>(&[80, 4, 0, 0, 0, 0, 0, 0, 0, 0]));
        assert!(is_corrupt::<IndexMethod>(&[80, 0, 1, 0, 0, 0, 0, 0, 0, 0]));
        let mut unknown_kind = encoded(&schema().constraints[0]);
        let tag_at = 8 + "t_price_check".len() + 1;
        unknown_kind[tag_at] = 0;
        assert!(is_corrupt::<Constraint>(&unknown_kind));
    }

    #[test]
    fn sql_functions_round_trip() {
        use crate::catalog::{
            FunctionArg, FunctionBody, FunctionDef, FunctionReturn, ParamMode, Volatility,
        };
        let scalar = FunctionDef {
            oid: 16400,
            name: QualifiedName::new(PUBLIC_OID, "greet"),
            args: vec![
                FunctionArg {
                    name: Some("who".into()),
                    ty: DataType::Text,
                    default: None,
                    mode: ParamMode::In,
                    domain: None,
                },
                FunctionArg {
                    name: None,
                    ty: DataType::Numeric(None),
                    default: Some("1.5".into()),
                    mode: ParamMode::In,
                    domain: None,
                },
            ],
            returns: FunctionReturn::Scalar(DataType::Varchar(None)),
            volatility: Volatility::Stable,
            strict: true,
            parallel: b's',
            body: FunctionBody::Text("SELECT who || $2".into()),
            returns_domain: None,
        };
        assert_round_trip(&scalar);
        // Domain-typed parameters and result.
        let mut domains = scalar.clone();
        domains.args[0].domain = Some(16390);
        domains.args[1].mode = ParamMode::Out;
        domains.args[1].domain = Some(16391);
        domains.returns_domain = Some(16392);
        assert_round_trip(&domains);
        assert_round_trip(&FunctionDef {
            returns: FunctionReturn::Table(vec![("a".into(), DataType::Int32)]),
            body: FunctionBody::Return("1".into()),
            volatility: Volatility::Immutable,
            ..scalar.clone()
        });
        assert_round_trip(&FunctionDef {
            returns: FunctionReturn::SetOf(DataType::Int64),
            ..scalar.clone()
        });
        assert_round_trip(&FunctionDef {
            returns: FunctionReturn::Void,
            body: FunctionBody::Text("DELETE FROM t; INSERT INTO t VALUES (1)".into()),
            ..scalar.clone()
        });
        // OUT and INOUT parameters, named or not, and the row they make.
        let mut out_params = scalar.clone();
        out_params.args[0].mode = ParamMode::InOut;
        out_params.args[1].mode = ParamMode::Out;
        out_params.args[1].default = None;
        out_params.returns = FunctionReturn::Row(vec![
            ("who".into(), DataType::Text),
            ("column2".into(), DataType::Numeric(None)),
        ]);
        assert_round_trip(&out_params);
        out_params.args[0].name = None;
        assert_round_trip(&out_params);
        let mut variadic = scalar;
        variadic.args[1].mode = ParamMode::Variadic;
        variadic.args[1].ty = DataType::array_of(DataType::Int32).expect("int4[] exists");
        assert_round_trip(&variadic);
    }

    #[test]
    fn views_and_sequence_options_round_trip_and_impossible_options_are_corrupt() {
        let view = ViewDef {
            name: "v".into(),
            oid: 16390,
            namespace: 16389,
            query_sql: "SELECT id FROM t".into(),
            columns: vec![
                ("id".into(), DataType::Int64),
                ("n".into(), DataType::Varchar(Some(3))),
            ],
            search_path: vec![11, 16389, PUBLIC_OID],
            depends_on: vec![QualifiedName::new(PUBLIC_OID, "t")],
            comment: Some("a view".into()),
            check_option: None,
        };
        assert_round_trip(&view);
        for check_option in [ViewCheckOption::Local, ViewCheckOption::Cascaded] {
            for comment in [None, Some("checked".to_string())] {
                assert_round_trip(&ViewDef {
                    check_option: Some(check_option),
                    comment,
                    ..view.clone()
                });
            }
        }
        assert_round_trip(&SchemaDef {
            oid: 16389,
            name: "s".into(),
            owner: "kestrel".into(),
            comment: None,
        });
        let options = SequenceOptions {
            data_type: DataType::Int64,
            increment: -2,
            min: -100,
            max: -1,
            start: -1,
            cycle: true,
        };
        assert_round_trip(&options);
        assert_round_trip(&SequenceOptions::ascending(DataType::Int64));
        let impossible = [
            SequenceOptions {
                increment: 0,
                ..options.clone()
            },
            SequenceOptions {
                min: 0,
                max: 0,
                start: 0,
                ..options.clone()
            },
            SequenceOptions {
                start: 5,
                ..options.clone()
            },
        ];
        for bad in impossible {
            assert!(is_corrupt::<SequenceOptions>(&encoded(&bad)), "{bad:?}");
        }
    }

    #[test]
    fn column_privileges_round_trip() {
        use crate::catalog::{AclItem, AclMode, ColumnPrivileges};
        let item = AclItem {
            grantee: 100,
            grantor: 10,
            privileges: AclMode::SELECT.union(AclMode::UPDATE),
            grant_options: AclMode::SELECT,
        };
        let mut columns = ColumnPrivileges::default();
        columns.put(16384, 1, vec![item]);
        columns.put(16384, 3, vec![item, item]);
        columns.put(16390, 2, vec![item]);
        assert_round_trip(&columns);
        // An attribute number of no column, and an entry with no ACL, are corrupt.
        let mut bad = ColumnPrivileges::default();
        bad.0.insert((16384, 0), vec![item]);
        assert!(is_corrupt::<ColumnPrivileges>(&encoded(&bad)));
        let mut empty = ColumnPrivileges::default();
        empty.0.insert((16384, 1), Vec::new());
        assert!(is_corrupt::<ColumnPrivileges>(&encoded(&empty)));
    }
}
