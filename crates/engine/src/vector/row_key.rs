//! Encodes the values of a row across several vectors into bytes that are equal exactly when
//! the values are equal under SQL grouping semantics (NULLs equal each other, 1.5 = 1.50,
//! -0 = 0, NaN = NaN). Used as hash keys by GROUP BY, DISTINCT and unique indexes.

use super::{Vector, VectorData};
use crate::types::json;

/// Appends the key of `row` to `out`. Returns true if any value is NULL.
pub fn encode_row_key(columns: &[&Vector], row: usize, out: &mut Vec<u8>) -> bool {
    let mut any_null = false;
    for column in columns {
        if !column.is_valid(row) {
            any_null = true;
            out.push(0);
            continue;
        }
        out.push(1);
        encode_value(column, row, out);
    }
    any_null
}

/// A variable-length value: its length, then its bytes.
fn encode_bytes(bytes: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// The key bytes of the non-NULL value at `row`.
fn encode_value(column: &Vector, row: usize, out: &mut Vec<u8>) {
    match &column.data {
        VectorData::Bool(v) => out.push(v[row] as u8),
        VectorData::Int16(v) => out.extend_from_slice(&v[row].to_le_bytes()),
        VectorData::Int32(v) => out.extend_from_slice(&v[row].to_le_bytes()),
        VectorData::Int64(v) => out.extend_from_slice(&v[row].to_le_bytes()),
        VectorData::Float32(v) => out.extend_from_slice(&canonical_f64(v[row] as f64)),
        VectorData::Float64(v) => out.extend_from_slice(&canonical_f64(v[row])),
        VectorData::Numeric(v) => {
            let (mut mantissa, mut scale) = (v[row].mantissa(), v[row].scale());
            // A special value keeps its marker scale: NaN is neither zero nor Infinity.
            while v[row].is_finite() && scale > 0 && mantissa % 10 == 0 {
                mantissa /= 10;
                scale -= 1;
            }
            out.extend_from_slice(&mantissa.to_le_bytes());
            out.extend_from_slice(&scale.to_le_bytes());
        }
        VectorData::Text(s) => encode_bytes(s.get_bytes(row), out),
        VectorData::Bytes(b) => encode_bytes(b.get(row), out),
        VectorData::Uuid(v) => out.extend_from_slice(&v[row].to_le_bytes()),
        VectorData::Inet(v) => out.extend_from_slice(&v[row].key_bytes()),
        // Equal documents may print differently (`1.0` and `1`): hash their common form.
        VectorData::Jsonb(s) => encode_bytes(json::equality_key(s.get(row)).as_bytes(), out),
        VectorData::Date(v) => out.extend_from_slice(&v[row].to_le_bytes()),
        VectorData::Timestamp(v) => out.extend_from_slice(&v[row].to_le_bytes()),
        VectorData::TimestampTz(v) => out.extend_from_slice(&v[row].to_le_bytes()),
        VectorData::Time(v) | VectorData::TimeTz(v) => out.extend_from_slice(&v[row].to_le_bytes()),
        // 1 mon = 30 days = 720:00:00 group together, as interval_hash does.
        VectorData::Interval(v) => out.extend_from_slice(&v[row].span().to_le_bytes()),
        // The element count, then each element as a one-column key; an array with a shape
        // adds its dimensions after a count no plain array can have.
        VectorData::List(l) => {
            let range = l.range(row);
            if let Some(dims) = l.shape(row) {
                out.extend_from_slice(&u32::MAX.to_le_bytes());
                out.push(dims.len() as u8);
                for dim in dims {
                    out.extend_from_slice(&dim.lower.to_le_bytes());
                    out.extend_from_slice(&dim.len.to_le_bytes());
                }
            }
            out.extend_from_slice(&(range.len() as u32).to_le_bytes());
            for idx in range {
                encode_row_key(&[l.child()], idx, out);
            }
        }
        // The element count, then each element (-0 and 0 are equal in vector_cmp).
        VectorData::FloatVector(v) => {
            let elements = v.get(row);
            out.extend_from_slice(&(elements.len() as u32).to_le_bytes());
            for &element in elements {
                out.extend_from_slice(&canonical_f64(f64::from(element)));
            }
        }
        // The fields as one key of several columns.
        VectorData::Struct(r) => {
            let fields: Vec<&Vector> = r.children().iter().collect();
            encode_row_key(&fields, row, out);
        }
    }
}

fn canonical_f64(value: f64) -> [u8; 8] {
    if value.is_nan() {
        f64::NAN.to_bits().to_le_bytes()
    } else if value == 0.0 {
        0u64.to_le_bytes()
    } else {
        value.to_bits().to_le_bytes()
    }
}

/// The key of one integer, for tests of the indexes built on these keys.
#[cfg(test)]
pub(crate) fn int_key(value: i32) -> Vec<u8> {
    let vector = Vector::from_scalar(
        &crate::types::ScalarValue::Int32(value),
        crate::types::DataType::Int32,
        1,
    )
    .expect("invariant: an Int32 value makes an Int32 vector");
    let mut key = Vec::new();
    encode_row_key(&[&vector], 0, &mut key);
    key
}
