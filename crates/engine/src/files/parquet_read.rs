//! Reading Parquet: a file's footer (kept while the file is unchanged) gives its columns
//! and row groups; a column of a row group is decoded with the crate's column readers
//! straight into vectors of at most [`BATCH_SIZE`] rows (definition levels become the
//! validity bitmap, repetition levels a list's offsets), and kept in the file cache, so
//! a scan of a cached file hands out shared vectors without copying them. Row groups
//! whose min/max statistics rule out a pushed-down comparison are never read.

use std::cmp::Ordering;
use std::fs::File;
use std::sync::{Arc, LazyLock};

use parquet::column::reader::{ColumnReader, ColumnReaderImpl};
use parquet::data_type::{ByteArray, DataType as ParquetType, FixedLenByteArray, Int96};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::reader::{FileReader, RowGroupReader};
use parquet::file::serialized_reader::SerializedFileReader;
use parquet::file::statistics::Statistics;

use super::cache::{FileCache, FileIdentity};
use super::parquet_schema::{self, Decode, FieldLayout, Unit};
use crate::error::Result;
use crate::plan::CompareOp;
use crate::types::datetime::UNIX_TO_PG_DAYS;
use crate::types::{DataType, Decimal, ScalarValue};
use crate::vector::{Batch, Bitmap, BytesVec, ListVec, StringVec, Vector, VectorData, BATCH_SIZE};

/// Footers of the files read lately.
static FOOTERS: LazyLock<FileCache<Footer>> = LazyLock::new(|| FileCache::new(64 << 20));
/// Decoded column chunks: one entry per (file version, column, row group).
static CHUNKS: LazyLock<FileCache<Vec<Arc<Vector>>>> = LazyLock::new(|| FileCache::new(1 << 30));

const MICROS_PER_DAY: i64 = crate::types::datetime::MICROS_PER_DAY;
const UNIX_TO_PG_MICROS: i64 = UNIX_TO_PG_DAYS * MICROS_PER_DAY;

struct Footer {
    metadata: Arc<ParquetMetaData>,
    columns: Vec<(String, DataType)>,
    layouts: Vec<FieldLayout>,
}

/// An open Parquet file in the version it has now.
pub struct ParquetFile {
    path: String,
    file: File,
    identity: FileIdentity,
    footer: Arc<Footer>,
}

/// Comparisons `column op constant` that every row read must pass (the scan's filter
/// still runs): a row group whose statistics show no row can is skipped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RowGroupFilter {
    pub conjuncts: Vec<(usize, CompareOp, ScalarValue)>,
}

impl ParquetFile {
    pub fn open(path: &str) -> Result<ParquetFile> {
        let file = File::open(path).map_err(|e| super::open_error(&e, path))?;
        let identity = FileIdentity::of(&file, path)?;
        let footer = FOOTERS.get_or_load(identity.key(path, "footer"), || {
            let reader = open_reader(&file, path)?;
            let metadata = Arc::new(reader.metadata().clone());
            let (columns, layouts) =
                parquet_schema::columns(metadata.file_metadata().schema_descr(), path)?;
            let bytes = 4096 + metadata.memory_size();
            Ok((
                Footer {
                    metadata,
                    columns,
                    layouts,
                },
                bytes,
            ))
        })?;
        Ok(ParquetFile {
            path: path.to_string(),
            file,
            identity,
            footer,
        })
    }

    pub fn rows(&self) -> u64 {
        u64::try_from(self.footer.metadata.file_metadata().num_rows()).unwrap_or(0)
    }

    pub fn columns(&self) -> &[(String, DataType)] {
        &self.footer.columns
    }

    /// The batches of the columns at `columns` of every row group `filter` keeps.
    pub fn read(&self, columns: &[usize], filter: &RowGroupFilter) -> Result<Vec<Batch>> {
        let metadata = &self.footer.metadata;
        let mut reader: Option<SerializedFileReader<File>> = None;
        let mut batches = Vec::new();
        for group in 0..metadata.num_row_groups() {
            if !self.may_pass(group, filter) {
                continue;
            }
            let rows = usize::try_from(metadata.row_group(group).num_rows())
                .map_err(|_| super::corrupt(&self.path, "a row group has a negative row count"))?;
            let mut chunks = Vec::with_capacity(columns.len());
            for &column in columns {
                let key = self.identity.key(&self.path, &format!("{column}/{group}"));
                chunks.push(CHUNKS.get_or_load(key, || {
                    if reader.is_none() {
                        reader = Some(open_reader(&self.file, &self.path)?);
                    }
                    let Some(reader) = &reader else {
                        return Err(crate::error::Error::internal("invariant: reader opened"));
                    };
                    let group_reader = reader.get_row_group(group).map_err(|e| self.corrupt(e))?;
                    let vectors = self.read_column(&*group_reader, column, rows)?;
                    let bytes = vectors.iter().map(|v| vector_bytes(v)).sum();
                    Ok((vectors, bytes))
                })?);
            }
            let mut start = 0;
            for i in 0..rows.div_ceil(BATCH_SIZE) {
                let len = (rows - start).min(BATCH_SIZE);
                let columns = chunks.iter().map(|c| Arc::clone(&c[i])).collect();
                batches.push(Batch::new(columns, len));
                start += len;
            }
        }
        Ok(batches)
    }

    fn corrupt(&self, error: impl std::fmt::Display) -> crate::error::Error {
        super::corrupt(&self.path, error)
    }

    /// Whether row group `group` may hold a row passing `filter`, by its statistics.
    fn may_pass(&self, group: usize, filter: &RowGroupFilter) -> bool {
        let group_meta = self.footer.metadata.row_group(group);
        filter.conjuncts.iter().all(|(column, op, value)| {
            let layout = &self.footer.layouts[*column];
            let prunable = !layout.list
                && matches!(
                    layout.decode,
                    Decode::Int16
                        | Decode::Int32
                        | Decode::Int64
                        | Decode::UInt32
                        | Decode::Decimal(_)
                        | Decode::Date
                        | Decode::Timestamp(..)
                );
            let Some(stats) = group_meta.column(layout.leaf).statistics() else {
                return true;
            };
            let bounds = match stats {
                Statistics::Int32(s) => s
                    .min_opt()
                    .zip(s.max_opt())
                    .and_then(|(&a, &b)| decode_i32(layout.decode, vec![a, b]).ok()),
                Statistics::Int64(s) => s
                    .min_opt()
                    .zip(s.max_opt())
                    .and_then(|(&a, &b)| decode_i64(layout.decode, vec![a, b]).ok()),
                _ => None,
            };
            let Some(bounds) = bounds.filter(|_| prunable) else {
                return true;
            };
            let bounds = Vector::new(bounds, None);
            let (min, max) = (bounds.get_scalar(0), bounds.get_scalar(1));
            let (Some(low), Some(high)) = (min.compare(value), max.compare(value)) else {
                return true;
            };
            match op {
                CompareOp::Eq => low != Ordering::Greater && high != Ordering::Less,
                CompareOp::Lt => low == Ordering::Less,
                CompareOp::LtEq => low != Ordering::Greater,
                CompareOp::Gt => high == Ordering::Greater,
                CompareOp::GtEq => high != Ordering::Less,
                _ => true,
            }
        })
    }

    /// Column `column` of a row group of `rows` rows, as vectors of BATCH_SIZE rows.
    fn read_column(
        &self,
        group: &dyn RowGroupReader,
        column: usize,
        rows: usize,
    ) -> Result<Vec<Arc<Vector>>> {
        let layout = self.footer.layouts[column].clone();
        let reader = group
            .get_column_reader(layout.leaf)
            .map_err(|e| self.corrupt(e))?;
        let descr = group.metadata().column(layout.leaf).column_descr_ptr();
        let levels = Levels {
            max_def: descr.max_def_level(),
            slot_def: if layout.list {
                descr.repeated_ancestor_def_level()
            } else {
                0
            },
            list: layout.list,
        };
        let decode = layout.decode;
        match reader {
            ColumnReader::BoolColumnReader(r) => {
                self.chunks(r, levels, rows, |v| Ok(VectorData::Bool(v)))
            }
            ColumnReader::Int32ColumnReader(r) => {
                self.chunks(r, levels, rows, |v| decode_i32(decode, v))
            }
            ColumnReader::Int64ColumnReader(r) => {
                self.chunks(r, levels, rows, |v| decode_i64(decode, v))
            }
            ColumnReader::Int96ColumnReader(r) => {
                self.chunks(r, levels, rows, |v| Ok(decode_int96(&v)))
            }
            ColumnReader::FloatColumnReader(r) => {
                self.chunks(r, levels, rows, |v| Ok(VectorData::Float32(v)))
            }
            ColumnReader::DoubleColumnReader(r) => {
                self.chunks(r, levels, rows, |v| Ok(VectorData::Float64(v)))
            }
            ColumnReader::ByteArrayColumnReader(r) => {
                self.chunks(r, levels, rows, |v| self.decode_bytes(decode, &v))
            }
            ColumnReader::FixedLenByteArrayColumnReader(r) => {
                self.chunks(r, levels, rows, |v: Vec<FixedLenByteArray>| {
                    let v: Vec<&[u8]> = v.iter().map(|b| b.data()).collect();
                    self.decode_fixed(decode, &v)
                })
            }
        }
    }

    /// Reads the column a batch of rows at a time: the stored values of each batch
    /// decoded by `decode`, then spread over the rows (and lists) by the levels.
    fn chunks<T: ParquetType>(
        &self,
        mut reader: ColumnReaderImpl<T>,
        levels: Levels,
        rows: usize,
        decode: impl Fn(Vec<T::T>) -> Result<VectorData>,
    ) -> Result<Vec<Arc<Vector>>> {
        let mut out = Vec::with_capacity(rows.div_ceil(BATCH_SIZE));
        let mut defs = Vec::new();
        let mut reps = Vec::new();
        let mut left = rows;
        while left > 0 {
            let want = left.min(BATCH_SIZE);
            let mut values = Vec::with_capacity(want);
            defs.clear();
            reps.clear();
            let (records, _, level_count) = reader
                .read_records(want, Some(&mut defs), Some(&mut reps), &mut values)
                .map_err(|e| self.corrupt(e))?;
            if records != want {
                return Err(self.corrupt("a column chunk has fewer rows than its row group"));
            }
            let dense = decode(values)?;
            let defs = if levels.max_def == 0 {
                None
            } else {
                Some(&defs[..level_count])
            };
            out.push(Arc::new(
                levels.spread(dense, defs, &reps, records, &self.path)?,
            ));
            left -= want;
        }
        Ok(out)
    }

    fn decode_bytes(&self, decode: Decode, values: &[ByteArray]) -> Result<VectorData> {
        let slices: Vec<&[u8]> = values.iter().map(|b| b.data()).collect();
        self.decode_fixed(decode, &slices)
    }

    /// Byte strings: text (checked to be UTF-8), bytea, uuids and big-endian decimals.
    fn decode_fixed(&self, decode: Decode, values: &[&[u8]]) -> Result<VectorData> {
        Ok(match decode {
            Decode::Text => {
                let bytes = values.iter().map(|v| v.len()).sum();
                let mut out = StringVec::with_capacity(values.len(), bytes);
                for v in values {
                    let text = std::str::from_utf8(v)
                        .map_err(|_| self.corrupt("a string is not valid UTF-8"))?;
                    out.push(text);
                }
                VectorData::Text(out)
            }
            Decode::Bytes => {
                let mut offsets = Vec::with_capacity(values.len() + 1);
                let mut bytes = Vec::new();
                offsets.push(0);
                for v in values {
                    bytes.extend_from_slice(v);
                    offsets.push(bytes.len());
                }
                VectorData::Bytes(
                    BytesVec::from_parts(offsets, bytes).ok_or_else(|| {
                        crate::error::Error::internal("invariant: rising offsets")
                    })?,
                )
            }
            Decode::Uuid => VectorData::Uuid(
                values
                    .iter()
                    .map(|v| <[u8; 16]>::try_from(*v).map(u128::from_be_bytes))
                    .collect::<std::result::Result<_, _>>()
                    .map_err(|_| self.corrupt("a uuid is not 16 bytes"))?,
            ),
            Decode::Decimal(scale) => VectorData::Numeric(
                values
                    .iter()
                    .map(|v| be_i128(v).map(|m| Decimal::new(m, scale)))
                    .collect::<Option<_>>()
                    .ok_or_else(|| self.corrupt("a decimal is wider than 16 bytes"))?,
            ),
            other => return Err(self.corrupt(format!("byte strings stored for {other:?}"))),
        })
    }
}

fn open_reader(file: &File, path: &str) -> Result<SerializedFileReader<File>> {
    let file = file.try_clone().map_err(|e| super::open_error(&e, path))?;
    SerializedFileReader::new(file).map_err(|e| super::corrupt(path, e))
}

/// A big-endian two's complement integer of at most 16 bytes.
fn be_i128(bytes: &[u8]) -> Option<i128> {
    if bytes.len() > 16 {
        return None;
    }
    let fill = if bytes.first().is_some_and(|b| b & 0x80 != 0) {
        0xff
    } else {
        0
    };
    let mut buf = [fill; 16];
    buf[16 - bytes.len()..].copy_from_slice(bytes);
    Some(i128::from_be_bytes(buf))
}

fn decode_i32(decode: Decode, values: Vec<i32>) -> Result<VectorData> {
    Ok(match decode {
        Decode::Int32 => VectorData::Int32(values),
        // Stored as INT32 by the format; a value out of range is a corrupt file.
        Decode::Int16 => VectorData::Int16(
            values
                .iter()
                .map(|&v| i16::try_from(v))
                .collect::<std::result::Result<_, _>>()
                .map_err(|_| {
                    crate::error::Error::new(
                        crate::error::SqlState::DataCorrupted,
                        "a 16-bit integer column of a Parquet file holds a wider value",
                    )
                })?,
        ),
        Decode::UInt32 => VectorData::Int64(values.iter().map(|&v| i64::from(v as u32)).collect()),
        Decode::Date => VectorData::Date(
            values
                .iter()
                .map(|&v| v.saturating_sub(UNIX_TO_PG_DAYS as i32))
                .collect(),
        ),
        Decode::Decimal(scale) => VectorData::Numeric(
            values
                .iter()
                .map(|&v| Decimal::new(i128::from(v), scale))
                .collect(),
        ),
        Decode::Time(unit) => {
            VectorData::Time(values.iter().map(|&v| micros(i64::from(v), unit)).collect())
        }
        other => {
            return Err(crate::error::Error::internal(format!(
                "invariant: INT32 values stored for {other:?}"
            )))
        }
    })
}

fn decode_i64(decode: Decode, values: Vec<i64>) -> Result<VectorData> {
    Ok(match decode {
        Decode::Int64 => VectorData::Int64(values),
        Decode::Decimal(scale) => VectorData::Numeric(
            values
                .iter()
                .map(|&v| Decimal::new(i128::from(v), scale))
                .collect(),
        ),
        Decode::Time(unit) => VectorData::Time(values.iter().map(|&v| micros(v, unit)).collect()),
        Decode::Timestamp(unit, zoned) => {
            let values = values
                .iter()
                .map(|&v| micros(v, unit).saturating_sub(UNIX_TO_PG_MICROS))
                .collect();
            match zoned {
                true => VectorData::TimestampTz(values),
                false => VectorData::Timestamp(values),
            }
        }
        other => {
            return Err(crate::error::Error::internal(format!(
                "invariant: INT64 values stored for {other:?}"
            )))
        }
    })
}

/// INT96: nanoseconds of the day, then the Julian day number.
fn decode_int96(values: &[Int96]) -> VectorData {
    const JULIAN_UNIX_EPOCH: i64 = 2_440_588;
    VectorData::Timestamp(
        values
            .iter()
            .map(|v| {
                let d = v.data();
                let nanos = i64::from(d[0]) | (i64::from(d[1]) << 32);
                let days = i64::from(d[2]) - JULIAN_UNIX_EPOCH - UNIX_TO_PG_DAYS;
                days.saturating_mul(MICROS_PER_DAY)
                    .saturating_add(nanos.div_euclid(1000))
            })
            .collect(),
    )
}

fn micros(value: i64, unit: Unit) -> i64 {
    match unit {
        Unit::Millis => value.saturating_mul(1000),
        Unit::Micros => value,
        Unit::Nanos => value.div_euclid(1000),
    }
}

/// What the definition and repetition levels of a leaf mean.
#[derive(Debug, Clone, Copy)]
struct Levels {
    max_def: i16,
    /// A level at or above this is an element slot (0 for a plain column: every level).
    slot_def: i16,
    list: bool,
}

impl Levels {
    /// The vector of `records` rows from the dense values and the levels: a slot is NULL
    /// below the maximum definition level; for a list, a new row starts at repetition
    /// level 0, and is NULL (or empty) when no element slot is defined.
    fn spread(
        self,
        dense: VectorData,
        defs: Option<&[i16]>,
        reps: &[i16],
        records: usize,
        path: &str,
    ) -> Result<Vector> {
        let mut slots = match defs {
            None => Vector::new(dense, None),
            Some(defs) => {
                let valid: Vec<bool> = defs
                    .iter()
                    .filter(|&&d| d >= self.slot_def)
                    .map(|&d| d == self.max_def)
                    .collect();
                spread_values(dense, &valid)?
            }
        };
        if !self.list {
            return Ok(slots);
        }
        let defs = defs.ok_or_else(|| super::corrupt(path, "a list without levels"))?;
        let mut offsets = Vec::with_capacity(records + 1);
        let mut validity = Bitmap::new(records, true);
        let mut any_null = false;
        let mut slot = 0u32;
        offsets.push(0);
        for (i, (&def, &rep)) in defs.iter().zip(reps).enumerate() {
            if rep == 0 && i > 0 {
                offsets.push(slot);
            }
            if def >= self.slot_def {
                slot += 1;
            } else if def < self.slot_def - 1 {
                validity.set(offsets.len() - 1, false);
                any_null = true;
            }
        }
        offsets.push(slot);
        if offsets.len() != records + 1 {
            return Err(super::corrupt(
                path,
                "list levels do not match the row count",
            ));
        }
        slots.data.shrink_to_fit();
        let list = ListVec::from_parts(
            offsets,
            std::mem::replace(&mut slots, Vector::new(VectorData::Bool(Vec::new()), None)),
        )
        .ok_or_else(|| super::corrupt(path, "list levels do not match the values"))?;
        Ok(Vector::new(
            VectorData::List(list),
            any_null.then_some(validity),
        ))
    }
}

/// The dense values placed at the valid slots, the others NULL.
fn spread_values(dense: VectorData, valid: &[bool]) -> Result<Vector> {
    if valid.iter().all(|&v| v) {
        return Ok(Vector::new(dense, None));
    }
    let dense = Vector::new(dense, None);
    let mut out = Vector::with_capacity(dense.data.physical(), valid.len());
    let mut next = 0;
    for &is_valid in valid {
        if is_valid {
            out.push_from(&dense, next)?;
            next += 1;
        } else {
            out.push_null();
        }
    }
    Ok(out)
}

/// About how much memory a decoded vector holds.
fn vector_bytes(vector: &Vector) -> usize {
    let values = match &vector.data {
        VectorData::Text(s) | VectorData::Jsonb(s) => s.parts().1.len() + 8 * s.len(),
        VectorData::Bytes(b) => b.parts().1.len() + 8 * b.len(),
        VectorData::Numeric(v) => 32 * v.len(),
        VectorData::Uuid(v) => 16 * v.len(),
        VectorData::List(l) => 4 * l.len() + vector_bytes(l.child()),
        other => 8 * other.len(),
    };
    values + vector.len() / 8 + 64
}

#[cfg(test)]
mod tests {
    use super::{ParquetFile, RowGroupFilter};
    use crate::error::Result;
    use crate::plan::CompareOp;
    use crate::types::ScalarValue;

    const ROW_GROUPS: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/files/rowgroups.parquet"
    );

    fn rows_read(conjuncts: Vec<(usize, CompareOp, ScalarValue)>) -> Result<usize> {
        let file = ParquetFile::open(ROW_GROUPS)?;
        let batches = file.read(&[0], &RowGroupFilter { conjuncts })?;
        Ok(batches.iter().map(|b| b.len()).sum())
    }

    /// The fixture holds ids 0..10,000 in row groups of 1,000.
    #[test]
    fn row_groups_outside_the_filter_are_not_read() -> Result<()> {
        assert_eq!(rows_read(vec![])?, 10_000);
        let range = vec![
            (0, CompareOp::GtEq, ScalarValue::Int64(2500)),
            (0, CompareOp::Lt, ScalarValue::Int64(4000)),
        ];
        assert_eq!(rows_read(range)?, 2_000);
        assert_eq!(
            rows_read(vec![(0, CompareOp::Eq, ScalarValue::Int64(9999))])?,
            1_000
        );
        assert_eq!(
            rows_read(vec![(0, CompareOp::Gt, ScalarValue::Int64(9999))])?,
            0
        );
        // A constant of another type rules nothing out.
        assert_eq!(
            rows_read(vec![(0, CompareOp::Eq, ScalarValue::Int32(5))])?,
            10_000
        );
        Ok(())
    }
}
