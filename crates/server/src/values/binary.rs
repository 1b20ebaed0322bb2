//! PostgreSQL's binary output format (the `*send` functions) for every type we have. Dates
//! and timestamps are already stored as PostgreSQL's binary values (days and microseconds
//! since 2000-01-01), so they are written as they are; an interval is its microseconds,
//! days and months.

use kestrel::vector::{Vector, VectorData};

use super::numeric::write_numeric_binary;

/// Writes row `row` of `vector` in binary format; false (nothing written) for NULL.
#[inline]
pub(super) fn write_binary(vector: &Vector, row: usize, out: &mut Vec<u8>) -> bool {
    if !vector.is_valid(row) {
        return false;
    }
    match &vector.data {
        VectorData::Bool(v) => out.push(u8::from(v[row])),
        VectorData::Int16(v) => out.extend_from_slice(&v[row].to_be_bytes()),
        VectorData::Int32(v) => out.extend_from_slice(&v[row].to_be_bytes()),
        VectorData::Int64(v) => out.extend_from_slice(&v[row].to_be_bytes()),
        VectorData::Float32(v) => out.extend_from_slice(&v[row].to_bits().to_be_bytes()),
        VectorData::Float64(v) => out.extend_from_slice(&v[row].to_bits().to_be_bytes()),
        VectorData::Numeric(v) => write_numeric_binary(&v[row], out),
        VectorData::Text(s) => out.extend_from_slice(s.get_bytes(row)),
        VectorData::Date(v) => out.extend_from_slice(&v[row].to_be_bytes()),
        VectorData::Timestamp(v) => out.extend_from_slice(&v[row].to_be_bytes()),
        VectorData::TimestampTz(v) => out.extend_from_slice(&v[row].to_be_bytes()),
        VectorData::Interval(v) => {
            out.extend_from_slice(&v[row].micros.to_be_bytes());
            out.extend_from_slice(&v[row].days.to_be_bytes());
            out.extend_from_slice(&v[row].months.to_be_bytes());
        }
    }
    true
}
