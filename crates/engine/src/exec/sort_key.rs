//! Sort keys: the order of rows under an ORDER BY list, for every operator that sorts
//! (SortExec, TopNExec, WindowExec). Owns two things: the row comparator (`compare_key_rows`,
//! one dispatch per key per comparison) and `sort_order`, which first encodes the keys of
//! every row into one memcomparable string of fixed width — NULL placement, DESC, PostgreSQL's
//! float order (-0 = 0, NaN above everything) and text by bytes (C collation) folded in — so
//! the sort itself compares plain integers. Keys that cannot be encoded whole (long text,
//! NUMERIC beyond 128 bits, INTERVAL) end the encoding; rows whose encodings tie are then
//! ordered by the comparator, so the result is always exactly the comparator's order.
//! The layout (NULL bytes, NUMERIC scale, text width) comes from `KeyStats`, gathered over
//! every batch whose keys are compared with one another: a parallel sort's runs share one,
//! so its merge compares their strings too.

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
    let encoded = KeyStats::of(columns).layout().encode(keys, columns, rows);
    sort_encoded(keys, columns, &encoded)
}

/// The row positions of `encoded` (the encoding of the key `columns`) in `keys` order; rows
/// with equal keys keep their input order.
pub(super) fn sort_encoded(
    keys: &[SortKey],
    columns: &[Arc<Vector>],
    encoded: &EncodedKeys,
) -> Vec<u32> {
    let rows = encoded.rows;
    let mut order: Vec<u32> = match encoded.width {
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
        break_ties(keys, columns, encoded, &mut order);
    }
    order
}

/// Orders each run of rows whose encodings are equal with the full comparator.
fn break_ties(keys: &[SortKey], columns: &[Arc<Vector>], encoded: &EncodedKeys, order: &mut [u32]) {
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

/// What decides the encoding of each key: gathered from every batch of keys that will be
/// compared with one another (a sort's runs are merged by their encodings, so all must
/// share one layout) and merged.
#[derive(Clone, Debug, Default)]
pub(super) struct KeyStats {
    columns: Vec<ColumnStats>,
}

#[derive(Clone, Debug)]
struct ColumnStats {
    nulls: bool,
    values: ValueStats,
}

#[derive(Clone, Debug, PartialEq)]
enum ValueStats {
    /// Every value takes this encoding.
    Fixed(ValueEncoding),
    /// NUMERIC: the largest scale, and the largest magnitude of a mantissa rescaled to it.
    Numeric { scale: u32, largest: u128 },
    /// Text or bytea: the longest value, and whether a value holds a NUL byte.
    Bytes { longest: usize, has_nul: bool },
    /// Compared by the comparator only.
    Unencodable,
}

impl KeyStats {
    /// The statistics of one batch of evaluated keys.
    pub fn of(columns: &[Arc<Vector>]) -> KeyStats {
        KeyStats {
            columns: columns
                .iter()
                .map(|column| ColumnStats {
                    nulls: column.null_count() > 0,
                    values: value_stats(column),
                })
                .collect(),
        }
    }

    /// Adds the statistics of other keys of the same types (the default is the empty set).
    pub fn merge(&mut self, other: KeyStats) {
        if self.columns.is_empty() {
            *self = other;
            return;
        }
        for (mine, theirs) in self.columns.iter_mut().zip(other.columns) {
            mine.nulls |= theirs.nulls;
            mine.values = merge_values(&mine.values, theirs.values);
        }
    }

    /// The layout every key batch these statistics cover can be encoded in, comparable
    /// across batches: keys are laid out in order until one cannot be encoded whole or
    /// [`WIDTH_MAX`] is reached.
    pub fn layout(&self) -> KeyLayout {
        let mut parts = Vec::new();
        let mut width = 0;
        let mut exact = true;
        for column in &self.columns {
            let null_byte = column.nulls;
            let room = WIDTH_MAX.saturating_sub(width + usize::from(null_byte));
            let Some((value, whole)) = column.values.encoding(room) else {
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
        KeyLayout {
            parts,
            width,
            exact,
        }
    }
}

fn merge_values(a: &ValueStats, b: ValueStats) -> ValueStats {
    match (a, b) {
        (ValueStats::Fixed(x), ValueStats::Fixed(y)) if *x == y => ValueStats::Fixed(y),
        (
            &ValueStats::Numeric { scale, largest },
            ValueStats::Numeric {
                scale: other_scale,
                largest: other_largest,
            },
        ) => {
            let at = scale.max(other_scale);
            match (
                rescaled_magnitude(largest, scale, at),
                rescaled_magnitude(other_largest, other_scale, at),
            ) {
                (Some(x), Some(y)) => ValueStats::Numeric {
                    scale: at,
                    largest: x.max(y),
                },
                _ => ValueStats::Unencodable,
            }
        }
        (
            &ValueStats::Bytes { longest, has_nul },
            ValueStats::Bytes {
                longest: other_longest,
                has_nul: other_nul,
            },
        ) => ValueStats::Bytes {
            longest: longest.max(other_longest),
            has_nul: has_nul || other_nul,
        },
        // Different kinds never meet (keys have one type); comparing is always right.
        _ => ValueStats::Unencodable,
    }
}

impl ValueStats {
    /// The encoding in at most `room` bytes, and whether whole; None if there is none.
    fn encoding(&self, room: usize) -> Option<(ValueEncoding, bool)> {
        match *self {
            ValueStats::Fixed(encoding) => (encoding.width() <= room).then_some((encoding, true)),
            ValueStats::Numeric { scale, largest } => {
                let bytes = if largest <= i64::MAX as u128 { 8 } else { 16 };
                (bytes <= room).then_some((ValueEncoding::Numeric { scale, bytes }, true))
            }
            ValueStats::Bytes { longest, has_nul } => {
                if room == 0 {
                    return None;
                }
                let bytes = longest.min(room).max(1);
                // Zero padding only ties values that differ by trailing NULs.
                Some((ValueEncoding::Text(bytes), longest <= room && !has_nul))
            }
            ValueStats::Unencodable => None,
        }
    }
}

/// How keys are laid out in each row's string: the same for every batch it encodes, so
/// their strings compare with one another.
pub(super) struct KeyLayout {
    parts: Vec<Part>,
    width: usize,
    /// Whether equal strings mean equal keys (every key encoded whole).
    exact: bool,
}

impl KeyLayout {
    /// The keys of `rows` rows of evaluated key `columns` (covered by the statistics this
    /// layout was made from), encoded.
    pub fn encode(&self, keys: &[SortKey], columns: &[Arc<Vector>], rows: usize) -> EncodedKeys {
        let mut encoded = EncodedKeys {
            width: self.width,
            rows,
            bytes: vec![0; rows * self.width],
            exact: self.exact,
        };
        let mut offset = 0;
        for ((part, key), column) in self.parts.iter().zip(keys).zip(columns) {
            encoded.write(part, key, column, offset);
            offset += usize::from(part.null_byte) + part.value.width();
        }
        encoded
    }
}

/// The keys of every row as a fixed-width memcomparable string, row-major.
pub(super) struct EncodedKeys {
    width: usize,
    rows: usize,
    bytes: Vec<u8>,
    /// Whether equal strings mean equal keys (every key encoded whole).
    exact: bool,
}

/// How one key is laid out in a row's string.
#[derive(Debug)]
struct Part {
    /// A leading byte placing NULLs (only when the column has any).
    null_byte: bool,
    value: ValueEncoding,
}

#[derive(Clone, Copy, Debug, PartialEq)]
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

impl EncodedKeys {
    pub fn row(&self, row: usize) -> &[u8] {
        &self.bytes[row * self.width..(row + 1) * self.width]
    }

    /// Whether equal strings mean equal keys; otherwise the comparator orders equal ones.
    pub fn exact(&self) -> bool {
        self.exact
    }

    /// The bytes held.
    pub fn approximate_bytes(&self) -> usize {
        self.bytes.len()
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

/// What decides how `column`'s values encode.
fn value_stats(column: &Vector) -> ValueStats {
    let fixed = ValueStats::Fixed;
    match &column.data {
        VectorData::Bool(_) => fixed(ValueEncoding::Int(1)),
        VectorData::Int16(_) => fixed(ValueEncoding::Int(2)),
        VectorData::Int32(_) | VectorData::Date(_) => fixed(ValueEncoding::Int(4)),
        VectorData::Int64(_)
        | VectorData::Timestamp(_)
        | VectorData::TimestampTz(_)
        | VectorData::Time(_)
        | VectorData::TimeTz(_) => fixed(ValueEncoding::Int(8)),
        VectorData::Float32(_) => fixed(ValueEncoding::Float(4)),
        VectorData::Float64(_) => fixed(ValueEncoding::Float(8)),
        VectorData::Numeric(values) => numeric_stats(column, values),
        VectorData::Text(strings) => {
            bytes_stats(column, (0..strings.len()).map(|r| strings.get_bytes(r)))
        }
        VectorData::Bytes(values) => bytes_stats(column, (0..values.len()).map(|r| values.get(r))),
        // Big-endian bytes: PostgreSQL's memcmp order.
        VectorData::Uuid(_) => fixed(ValueEncoding::Text(16)),
        // network_cmp's order as bytes (see `Inet::write_sort_key`).
        VectorData::Inet(_) => fixed(ValueEncoding::Text(inet::SORT_KEY_LEN)),
        // Compared element by element (jsonb by its document order) by the comparator.
        VectorData::Interval(_)
        | VectorData::List(_)
        | VectorData::Struct(_)
        | VectorData::Jsonb(_)
        | VectorData::FloatVector(_) => ValueStats::Unencodable,
    }
}

/// Byte strings (text in the C collation, bytea) compare by their bytes: a prefix of them.
fn bytes_stats<'a>(column: &Vector, values: impl Iterator<Item = &'a [u8]>) -> ValueStats {
    let mut longest = 0;
    let mut has_nul = false;
    for (row, bytes) in values.enumerate() {
        if column.is_valid(row) {
            longest = longest.max(bytes.len());
            has_nul |= bytes.contains(&0);
        }
    }
    ValueStats::Bytes { longest, has_nul }
}

/// The common scale of a NUMERIC column and the magnitude of its largest rescaled mantissa;
/// unencodable if one overflows 128 bits or is NaN or infinite (those sort by comparison).
fn numeric_stats(column: &Vector, values: &[crate::types::Decimal]) -> ValueStats {
    let valid = || {
        (0..values.len())
            .filter(|&r| column.is_valid(r))
            .map(|r| &values[r])
    };
    if !valid().all(|d| d.is_finite()) {
        return ValueStats::Unencodable;
    }
    let scale = valid().map(|d| d.scale()).max().unwrap_or(0);
    let mut largest = 0;
    for value in valid() {
        match rescaled_magnitude(value.mantissa().unsigned_abs(), value.scale(), scale) {
            Some(magnitude) => largest = largest.max(magnitude),
            None => return ValueStats::Unencodable,
        }
    }
    ValueStats::Numeric { scale, largest }
}

/// A mantissa's magnitude at `scale` rescaled to `to`, if a signed 128-bit mantissa holds it.
fn rescaled_magnitude(magnitude: u128, scale: u32, to: u32) -> Option<u128> {
    10u128
        .checked_pow(to - scale)
        .and_then(|factor| magnitude.checked_mul(factor))
        .filter(|&m| m <= i128::MAX as u128)
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

    pub(in crate::exec) fn column(kind: usize, seed: u64) -> Vector {
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
