//! PostgreSQL's binary output format (the `*send` functions) for every type we have. Dates
//! and timestamps are already stored as PostgreSQL's binary values (days and microseconds
//! since 2000-01-01), so they are written as they are; an interval is its microseconds,
//! days and months; an array is array_send's header and length-prefixed elements. bytea is
//! its bytes, uuid its 16 bytes, json its text and jsonb a version byte then its text.

use crate::types::array_shape::ArrayDim;
use crate::types::{
    bit_string, float_vector, inet, internal_char, timetz, DataType, PhysicalType, FLOAT_VECTOR_OID,
};
use crate::vector::{ListVec, StructVec, Vector, VectorData};

use super::numeric::write_numeric_binary;

/// The only version of jsonb's binary format: a version byte, then the document's text.
pub(super) const JSONB_BINARY_VERSION: u8 = 1;

/// Writes row `row` of `vector`, a column of type `ty` when known, in binary format; false
/// (nothing written) for NULL.
#[inline]
pub fn write_binary(vector: &Vector, row: usize, ty: Option<DataType>, out: &mut Vec<u8>) -> bool {
    if !vector.is_valid(row) {
        return false;
    }
    match &vector.data {
        VectorData::Bool(v) => out.push(u8::from(v[row])),
        VectorData::Int16(v) => out.extend_from_slice(&v[row].to_be_bytes()),
        VectorData::Int32(v) => out.extend_from_slice(&v[row].to_be_bytes()),
        // oidsend: an oid (and its reg* aliases) is four unsigned bytes.
        VectorData::Int64(v) if matches!(ty, Some(DataType::Oid(_))) => {
            out.extend_from_slice(&(v[row] as u32).to_be_bytes())
        }
        VectorData::Int64(v) => out.extend_from_slice(&v[row].to_be_bytes()),
        VectorData::Float32(v) => out.extend_from_slice(&v[row].to_bits().to_be_bytes()),
        VectorData::Float64(v) => out.extend_from_slice(&v[row].to_bits().to_be_bytes()),
        VectorData::Numeric(v) => write_numeric_binary(&v[row], out),
        // jsonpath_send: format version 1 (as jsonb's), then the text.
        VectorData::Text(s) if ty == Some(DataType::JsonPath) => {
            out.push(JSONB_BINARY_VERSION);
            out.extend_from_slice(s.get_bytes(row));
        }
        VectorData::Text(s) if matches!(ty, Some(DataType::Bit(_) | DataType::VarBit(_))) => {
            bit_string::write_binary(s.get(row), out)
        }
        VectorData::Text(s) if ty == Some(DataType::InternalChar) => {
            out.push(internal_char::to_byte(s.get(row)))
        }
        VectorData::Text(s) => out.extend_from_slice(s.get_bytes(row)),
        VectorData::Date(v) => out.extend_from_slice(&v[row].to_be_bytes()),
        VectorData::Timestamp(v) => out.extend_from_slice(&v[row].to_be_bytes()),
        VectorData::TimestampTz(v) => out.extend_from_slice(&v[row].to_be_bytes()),
        VectorData::Time(v) => out.extend_from_slice(&v[row].to_be_bytes()),
        VectorData::TimeTz(v) => timetz::write_binary(v[row], out),
        VectorData::Interval(v) => {
            out.extend_from_slice(&v[row].micros.to_be_bytes());
            out.extend_from_slice(&v[row].days.to_be_bytes());
            out.extend_from_slice(&v[row].months.to_be_bytes());
        }
        VectorData::Bytes(b) => out.extend_from_slice(b.get(row)),
        VectorData::Uuid(v) => out.extend_from_slice(&v[row].to_be_bytes()),
        VectorData::Inet(v) => inet::write_binary(v[row], out),
        // jsonb_send: format version 1, then the text.
        VectorData::Jsonb(s) => {
            out.push(JSONB_BINARY_VERSION);
            out.extend_from_slice(s.get_bytes(row));
        }
        VectorData::List(list) => {
            let array = ty.map(|t| t.vector_array().unwrap_or(t));
            let lower_bound = ty.map_or(1, DataType::lower_bound);
            let elem = array.and_then(DataType::element);
            write_array_binary(list, row, elem, lower_bound, out)
        }
        VectorData::FloatVector(v) => float_vector::write_binary(v.get(row), out),
        VectorData::Struct(record) => write_record_binary(record, row, out),
    }
    true
}

/// record_send: the field count, then per field its type OID, its length (-1 for NULL)
/// and its binary value.
fn write_record_binary(record: &StructVec, row: usize, out: &mut Vec<u8>) {
    let count = i32::try_from(record.children().len()).unwrap_or(i32::MAX);
    out.extend_from_slice(&count.to_be_bytes());
    for (child, field) in record.children().iter().zip(&record.record().fields) {
        out.extend_from_slice(&field.ty.oid().to_be_bytes());
        write_length_prefixed(child, row, Some(field.ty), out);
    }
}

/// A value as its length (-1 for NULL) then its binary form, as arrays and records hold
/// their elements.
fn write_length_prefixed(vector: &Vector, row: usize, ty: Option<DataType>, out: &mut Vec<u8>) {
    let len_at = out.len();
    out.extend_from_slice(&[0; 4]);
    let len = if write_binary(vector, row, ty, out) {
        i32::try_from(out.len() - len_at - 4).unwrap_or(i32::MAX)
    } else {
        -1
    };
    out[len_at..len_at + 4].copy_from_slice(&len.to_be_bytes());
}

/// array_send: the number of dimensions (0 when empty), whether any element is NULL, the
/// element type, each dimension's length and lower bound (a plain array's one from 1, or
/// from 0 for int2vector and oidvector), then each element as a length (-1 for NULL) and
/// its binary value. The element type labels the header as PostgreSQL does (varchar, not
/// text); without it the physical type decides.
fn write_array_binary(
    list: &ListVec,
    row: usize,
    elem: Option<DataType>,
    lower_bound: i32,
    out: &mut Vec<u8>,
) {
    let (child, range) = (list.child(), list.range(row));
    let has_null = range.clone().any(|idx| !child.is_valid(idx));
    // int2vectorsend and oidvectorsend write their one dimension even when it is empty.
    let plain = [ArrayDim {
        lower: lower_bound,
        len: i32::try_from(range.len()).unwrap_or(i32::MAX),
    }];
    let dims = match list.shape(row) {
        Some(dims) => dims,
        None if !range.is_empty() || lower_bound == 0 => &plain[..],
        None => &[],
    };
    out.extend_from_slice(&(dims.len() as i32).to_be_bytes());
    out.extend_from_slice(&i32::from(has_null).to_be_bytes());
    let oid = elem.map_or_else(|| element_oid(list.elem_physical()), DataType::oid);
    out.extend_from_slice(&oid.to_be_bytes());
    for dim in dims {
        out.extend_from_slice(&dim.len.to_be_bytes());
        out.extend_from_slice(&dim.lower.to_be_bytes());
    }
    for idx in range {
        write_length_prefixed(child, idx, elem, out);
    }
}

/// The element type OID written in an array's header when the column's type is unknown.
/// Physical types do not tell text from varchar; both are labelled text.
fn element_oid(elem: PhysicalType) -> u32 {
    match elem {
        PhysicalType::Bool => 16,
        PhysicalType::Int16 => 21,
        PhysicalType::Int32 => 23,
        PhysicalType::Int64 => 20,
        PhysicalType::Float32 => 700,
        PhysicalType::Float64 => 701,
        PhysicalType::Numeric => 1700,
        PhysicalType::Text => 25,
        PhysicalType::Date => 1082,
        PhysicalType::Timestamp => 1114,
        PhysicalType::TimestampTz => 1184,
        PhysicalType::Time => 1083,
        PhysicalType::TimeTz => 1266,
        PhysicalType::Interval => 1186,
        PhysicalType::Bytes => 17,
        PhysicalType::Uuid => 2950,
        PhysicalType::Inet => 869,
        PhysicalType::Jsonb => 3802,
        // Arrays are one-dimensional; anyarray for the impossible nested case.
        PhysicalType::List(_) => 2277,
        PhysicalType::FloatVector => FLOAT_VECTOR_OID,
        PhysicalType::Struct(record) => record.type_oid,
    }
}
