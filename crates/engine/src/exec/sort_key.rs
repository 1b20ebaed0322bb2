//! Sort keys: the order of rows under an ORDER BY list, for every operator that sorts
//! (SortExec, TopNExec, WindowExec). Owns two things: the row comparator (`compare_key_rows`,
//! one dispatch per key per comparison) and `sort_order`, which first encodes the keys of
//! every row into one memcomparable string of fixed width — NULL placement, DESC, PostgreSQL's
//! float order (-0 = 0, NaN above everything) and text by bytes (C collation) folded in — so
//! the sort itself compares plain integers. Keys that cannot be encoded whole (long text,
//! NUMERIC beyond 128 bits, INTERVAL) end the encoding; rows whose encodings tie are then
//! ordered by the comparator, so the result is always exactly the comparator's order.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::function::compare::compare_rows;
use crate::plan::SortKey;
use crate::types::inet;
use crate::vector::{Vector, VectorData};

/// Widest encoding per row. Past it the comparator breaks the (then rarer) ties.
const WIDTH_MAX: usize = 32;

/// Order of row `a` of `left` and row `b` of `right` (the evaluated sort keys of two
/// batches) under `keys`.
pub(super) fn compare_key_rows(
    keys: &[SortKey],
    left: &[Arc<Vector>],
    a: usize,
    right: &[Arc<Vector>],
    b: usize,
) -> Ordering {
    for ((key, l), r) in keys.iter().zip(left).zip(right) {
        let ord = match (l.is_valid(a), r.is_valid(b)) {
            (true, true) => {
                let ord = compare_rows(l, a, r, b);
                if key.descending {
                    ord.reverse()
                } else {
                    ord
                }
            }
            (false, false) => Ordering::Equal,
            (false, true) => null_order(key),
            (true, false) => null_order(key).reverse(),
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    Ordering::Equal
}

/// Where a NULL goes relative to a value under `key`.
fn null_order(key: &SortKey) -> Ordering {
    if key.nulls_first {
        Ordering::Less
    } else {
        Ordering::Greater
    }
}

pub(super) fn compare_keys(
    keys: &[SortKey],
    columns: &[Arc<Vector>],
    a: usize,
    b: usize,
) -> Ordering {
    compare_key_rows(keys, columns, a, columns, b)
}

/// The row positions `0..rows` of the evaluated key `columns` in `keys` order; rows with
/// equal keys keep their input order.
pub(super) fn sort_order(keys: &[SortKey], columns: &[Arc<Vector>], rows: usize) -> Vec<u32> {
    let encoded = Encoded::new(keys, columns, rows);
    let width = encoded.width;
    let mut order: Vec<u32> = match width {
        0 => (0..rows as u32).collect(),
        1..=8 => {
            // Key in the high bits, row in the low 32: one integer sort, ties by row.
            let mut packed: Vec<u128> = (0..rows)
                .map(|r| (u128::from(encoded.word64(r)) << 32) | r as u128)
                .collect();
            packed.sort_unstable();
            packed.iter().map(|&p| p as u32).collect()
        }
        9..=16 => {
            let mut pairs: Vec<(u128, u32)> =
                (0..rows).map(|r| (encoded.word128(r), r as u32)).collect();
            pairs.sort_unstable();
            pairs.iter().map(|&(_, r)| r).collect()
        }
        _ => {
            let mut order: Vec<u32> = (0..rows as u32).collect();
            order.sort_unstable_by(|&a, &b| {
                encoded
                    .row(a as usize)
                    .cmp(encoded.row(b as usize))
                    .then(a.cmp(&b))
            });
            order
        }
    };
    if !encoded.exact {
        break_ties(keys, columns, &encoded, &mut order);
    }
    order
}

/// Orders each run of rows whose encodings are equal with the full comparator.
fn break_ties(keys: &[SortKey], columns: &[Arc<Vector>], encoded: &Encoded, order: &mut [u32]) {
    let mut start = 0;
    while start < order.len() {
        let head = encoded.row(order[start] as usize);
        let mut end = start + 1;
        while end < order.len() && encoded.row(order[end] as usize) == head {
            end += 1;
        }
        if end - start > 1 {
            order[start..end].sort_by(|&a, &b| {
                compare_keys(keys, columns, a as usize, b as usize).then(a.cmp(&b))
            });
        }
        start = end;
    }
}

/// The keys of every row as a fixed-width memcomparable string, row-major.
struct Encoded {
    width: usize,
    bytes: Vec<u8>,
    /// Whether equal strings mean equal keys (every key encoded whole).
    exact: bool,
}

/// How one key is laid out in a row's string.
struct Part {
    /// A leading byte placing NULLs (only when the column has any).
    null_byte: bool,
    value: ValueEncoding,
}

enum ValueEncoding {
    /// Integers of this many bytes, sign bit flipped.
    Int(usize),
    /// Floats of this many bytes in PostgreSQL's order.
    Float(usize),
    /// NUMERIC mantissas rescaled to `scale`, in this many bytes.
    Numeric { scale: u32, bytes: usize },
    /// Text bytes, zero-padded or cut to this many.
    Text(usize),
}

impl ValueEncoding {
    fn width(&self) -> usize {
        match *self {
            ValueEncoding::Int(b) | ValueEncoding::Float(b) | ValueEncoding::Text(b) => b,
            ValueEncoding::Numeric { bytes, .. } => bytes,
        }
    }
}

impl Encoded {
    fn new(keys: &[SortKey], columns: &[Arc<Vector>], rows: usize) -> Encoded {
        let mut parts = Vec::new();
        let mut width = 0;
        let mut exact = true;
        for column in columns.iter().take(keys.len()) {
            let null_byte = column.null_count() > 0;
            let room = WIDTH_MAX.saturating_sub(width + usize::from(null_byte));
            let Some((value, whole)) = value_encoding(column, room) else {
                exact = false;
                break;
            };
            width += usize::from(null_byte) + value.width();
            parts.push(Part { null_byte, value });
            if !whole {
                exact = false;
                break;
            }
        }
        let mut encoded = Encoded {
            width,
            bytes: vec![0; rows * width],
            exact,
        };
        let mut offset = 0;
        for ((part, key), column) in parts.iter().zip(keys).zip(columns) {
            encoded.write(part, key, column, offset);
            offset += usize::from(part.null_byte) + part.value.width();
        }
        encoded
    }

    fn row(&self, row: usize) -> &[u8] {
        &self.bytes[row * self.width..(row + 1) * self.width]
    }

    /// The row's string (at most 8 bytes) as a big-endian integer, zero-padded.
    fn word64(&self, row: usize) -> u64 {
        let mut buf = [0u8; 8];
        buf[..self.width].copy_from_slice(self.row(row));
        u64::from_be_bytes(buf)
    }

    fn word128(&self, row: usize) -> u128 {
        let mut buf = [0u8; 16];
        buf[..self.width].copy_from_slice(self.row(row));
        u128::from_be_bytes(buf)
    }

    /// Writes one key of every row at `offset`.
    fn write(&mut self, part: &Part, key: &SortKey, column: &Vector, offset: usize) {
        let width = self.width;
        let value_offset = offset + usize::from(part.null_byte);
        let value_width = part.value.width();
        let null_mark = if key.nulls_first { 0 } else { 2 };
        for (row, out) in self.bytes.chunks_exact_mut(width).enumerate() {
            let valid = column.is_valid(row);
            if part.null_byte {
                out[offset] = if valid { 1 } else { null_mark };
            }
            if !valid {
                continue;
            }
            let value = &mut out[value_offset..value_offset + value_width];
            write_value(&part.value, column, row, value);
            if key.descending {
                value.iter_mut().for_each(|b| *b = !*b);
            }
        }
    }
}

/// How `column` encodes in at most `room` bytes, and whether whole; None if it cannot.
fn value_encoding(column: &Vector, room: usize) -> Option<(ValueEncoding, bool)> {
    let fixed = |bytes: usize, encoding: ValueEncoding| (bytes <= room).then_some((encoding, true));
    match &column.data {
        VectorData::Bool(_) => fixed(1, ValueEncoding::Int(1)),
        VectorData::Int16(_) => fixed(2, ValueEncoding::Int(2)),
        VectorData::Int32(_) | VectorData::Date(_) => fixed(4, ValueEncoding::Int(4)),
        VectorData::Int64(_)
        | VectorData::Timestamp(_)
        | VectorData::TimestampTz(_)
        | VectorData::Time(_)
        | VectorData::TimeTz(_) => fixed(8, ValueEncoding::Int(8)),
        VectorData::Float32(_) => fixed(4, ValueEncoding::Float(4)),
        VectorData::Float64(_) => fixed(8, ValueEncoding::Float(8)),
        VectorData::Numeric(values) => {
            let (scale, bytes) = numeric_layout(column, values)?;
            fixed(bytes, ValueEncoding::Numeric { scale, bytes })
        }
        VectorData::Text(strings) => bytes_encoding(
            column,
            (0..strings.len()).map(|r| strings.get_bytes(r)),
            room,
        ),
        VectorData::Bytes(values) => {
            bytes_encoding(column, (0..values.len()).map(|r| values.get(r)), room)
        }
        // Big-endian bytes: PostgreSQL's memcmp order.
        VectorData::Uuid(_) => fixed(16, ValueEncoding::Text(16)),
        // network_cmp's order as bytes (see `Inet::write_sort_key`).
        VectorData::Inet(_) => fixed(inet::SORT_KEY_LEN, ValueEncoding::Text(inet::SORT_KEY_LEN)),
        // Compared element by element (jsonb by its document order) by the comparator.
        VectorData::Interval(_)
        | VectorData::List(_)
        | VectorData::Struct(_)
        | VectorData::Jsonb(_)
        | VectorData::FloatVector(_) => None,
    }
}

/// Byte strings (text in the C collation, bytea) compare by their bytes: a prefix of them.
fn bytes_encoding<'a>(
    column: &Vector,
    values: impl Iterator<Item = &'a [u8]>,
    room: usize,
) -> Option<(ValueEncoding, bool)> {
    if room == 0 {
        return None;
    }
    let mut longest = 0;
    let mut has_nul = false;
    for (row, bytes) in values.enumerate() {
        if column.is_valid(row) {
            longest = longest.max(bytes.len());
            has_nul |= bytes.contains(&0);
        }
    }
    let bytes = longest.min(room).max(1);
    // Zero padding only ties values that differ by trailing NULs.
    Some((ValueEncoding::Text(bytes), longest <= room && !has_nul))
}

/// The common scale of a NUMERIC column and the bytes its rescaled mantissas need (8 or 16),
/// or None if one overflows 128 bits or is NaN or infinite (those sort by comparison).
fn numeric_layout(column: &Vector, values: &[crate::types::Decimal]) -> Option<(u32, usize)> {
    let valid = || {
        (0..values.len())
            .filter(|&r| column.is_valid(r))
            .map(|r| &values[r])
    };
    if !valid().all(|d| d.is_finite()) {
        return None;
    }
    let scale = valid().map(|d| d.scale()).max().unwrap_or(0);
    let mut bytes = 8;
    for value in valid() {
        let mantissa = rescaled(value, scale)?;
        if i64::try_from(mantissa).is_err() {
            bytes = 16;
        }
    }
    Some((scale, bytes))
}

fn rescaled(value: &crate::types::Decimal, scale: u32) -> Option<i128> {
    10i128
        .checked_pow(scale - value.scale())
        .and_then(|factor| value.mantissa().checked_mul(factor))
}

/// Writes row `row` of `column` into `out` (its value bytes, ascending).
fn write_value(encoding: &ValueEncoding, column: &Vector, row: usize, out: &mut [u8]) {
    match (&column.data, encoding) {
        (VectorData::Bool(v), _) => out[0] = u8::from(v[row]),
        (VectorData::Int16(v), _) => {
            out.copy_from_slice(&((v[row] as u16) ^ (1 << 15)).to_be_bytes())
        }
        (VectorData::Int32(v) | VectorData::Date(v), _) => {
            out.copy_from_slice(&((v[row] as u32) ^ (1 << 31)).to_be_bytes())
        }
        (
            VectorData::Int64(v)
            | VectorData::Timestamp(v)
            | VectorData::TimestampTz(v)
            | VectorData::Time(v)
            | VectorData::TimeTz(v),
            _,
        ) => out.copy_from_slice(&((v[row] as u64) ^ (1 << 63)).to_be_bytes()),
        (VectorData::Float32(v), _) => out.copy_from_slice(&f32_key(v[row]).to_be_bytes()),
        (VectorData::Float64(v), _) => out.copy_from_slice(&f64_key(v[row]).to_be_bytes()),
        (VectorData::Numeric(v), ValueEncoding::Numeric { scale, bytes }) => {
            // numeric_layout checked that every valid value rescales.
            let mantissa = rescaled(&v[row], *scale).unwrap_or(0);
            if *bytes == 8 {
                out.copy_from_slice(&((mantissa as u64) ^ (1 << 63)).to_be_bytes());
            } else {
                out.copy_from_slice(&((mantissa as u128) ^ (1 << 127)).to_be_bytes());
            }
        }
        (VectorData::Text(v), _) => write_prefix(v.get_bytes(row), out),
        (VectorData::Bytes(v), _) => write_prefix(v.get(row), out),
        (VectorData::Uuid(v), _) => out.copy_from_slice(&v[row].to_be_bytes()),
        (VectorData::Inet(v), _) => v[row].write_sort_key(out),
        (
            VectorData::Numeric(_)
            | VectorData::Interval(_)
            | VectorData::List(_)
            | VectorData::Struct(_)
            | VectorData::Jsonb(_)
            | VectorData::FloatVector(_),
            _,
        ) => {}
    }
}

fn write_prefix(bytes: &[u8], out: &mut [u8]) {
    let n = bytes.len().min(out.len());
    out[..n].copy_from_slice(&bytes[..n]);
}

/// PostgreSQL's float order as an unsigned integer: -0 = 0, every NaN equal and last.
fn f64_key(value: f64) -> u64 {
    let value = if value.is_nan() {
        f64::NAN
    } else if value == 0.0 {
        0.0
    } else {
        value
    };
    let bits = value.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

fn f32_key(value: f32) -> u32 {
    let value = if value.is_nan() {
        f32::NAN
    } else if value == 0.0 {
        0.0
    } else {
        value
    };
    let bits = value.to_bits();
    if bits >> 31 == 1 {
        !bits
    } else {
        bits | (1 << 31)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::plan::ScalarExpr;
    use crate::types::{DataType, Decimal, Interval, ScalarValue};
    use crate::vector::{Bitmap, StringVec};

    const ROWS: usize = 600;

    /// A small deterministic generator: few distinct values, so keys tie often.
    fn pick(state: &mut u64, n: u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state % n
    }

    fn column(kind: usize, seed: u64) -> Vector {
        let mut s = seed | 1;
        let data = match kind {
            0 => VectorData::Int32((0..ROWS).map(|_| pick(&mut s, 9) as i32 - 4).collect()),
            1 => {
                let floats = [
                    f64::NAN,
                    -0.0,
                    0.0,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                    1.5,
                    -1.5,
                ];
                VectorData::Float64(
                    (0..ROWS)
                        .map(|_| floats[pick(&mut s, 7) as usize])
                        .collect(),
                )
            }
            2 => {
                let mut strings = StringVec::default();
                let words = ["", "a", "ab", "abc", "b", "é"];
                for _ in 0..ROWS {
                    let long = "x".repeat(pick(&mut s, 3) as usize * 20);
                    strings.push(&format!("{long}{}", words[pick(&mut s, 6) as usize]));
                }
                VectorData::Text(strings)
            }
            3 => VectorData::Numeric(
                (0..ROWS)
                    .map(|_| {
                        Decimal::new(pick(&mut s, 7) as i128 * 10 - 30, pick(&mut s, 3) as u32)
                    })
                    .collect(),
            ),
            4 => VectorData::Interval(
                (0..ROWS)
                    .map(|_| Interval::new(0, pick(&mut s, 3) as i32, pick(&mut s, 3) as i64))
                    .collect(),
            ),
            _ => VectorData::Bool((0..ROWS).map(|_| pick(&mut s, 2) == 1).collect()),
        };
        let mut validity = Bitmap::new(ROWS, true);
        (0..ROWS).for_each(|r| validity.set(r, pick(&mut s, 5) != 0));
        Vector::new(data, seed.is_multiple_of(2).then_some(validity))
    }

    /// A sort key in the given direction, for tests that compare encodings only.
    pub(in crate::exec) fn key(descending: bool, nulls_first: bool) -> SortKey {
        SortKey {
            expr: ScalarExpr::Literal {
                value: ScalarValue::Null,
                ty: DataType::Int32,
            },
            descending,
            nulls_first,
        }
    }

    /// Every type, direction and NULL placement, alone and combined: the encoded order is
    /// the comparator's stable order.
    #[test]
    fn encoded_order_is_the_comparator_order() {
        for first in 0..6 {
            for second in 0..6 {
                for flags in 0..16u64 {
                    let columns = vec![
                        Arc::new(column(first, flags + 2)),
                        Arc::new(column(second, flags * 7 + 3)),
                    ];
                    let keys = [
                        key(flags & 1 != 0, flags & 2 != 0),
                        key(flags & 4 != 0, flags & 8 != 0),
                    ];
                    for n in [1, 2] {
                        let mut want: Vec<u32> = (0..ROWS as u32).collect();
                        want.sort_by(|&a, &b| {
                            compare_keys(&keys[..n], &columns, a as usize, b as usize)
                        });
                        let got = sort_order(&keys[..n], &columns, ROWS);
                        assert_eq!(got, want, "kinds {first} {second} flags {flags} keys {n}");
                    }
                }
            }
        }
    }
}
