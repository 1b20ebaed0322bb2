//! Writing Parquet (COPY ... TO 'file' (FORMAT parquet)): rows arrive as batches, are
//! gathered into row groups of [`ROW_GROUP_ROWS`] and written column by column, Snappy
//! compressed, with min/max statistics (what DuckDB and pyarrow write by default, and what
//! our reader prunes row groups by). Column types map as `parquet_schema::field_for` says.

use std::fs::File;
use std::sync::Arc;

use parquet::basic::Compression;
use parquet::column::writer::{ColumnWriter, ColumnWriterImpl};
use parquet::data_type::{ByteArray, DataType as ParquetType, FixedLenByteArray};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;

use super::parquet_schema::field_for;
use crate::error::{Error, Result};
use crate::types::datetime::{MICROS_PER_DAY, UNIX_TO_PG_DAYS};
use crate::types::DataType;
use crate::vector::{concat_batches, Batch, Vector, VectorData};

/// Rows per row group written (DuckDB's default).
const ROW_GROUP_ROWS: usize = 122_880;

pub struct ParquetWriter {
    path: String,
    types: Vec<DataType>,
    writer: SerializedFileWriter<File>,
    pending: Vec<Batch>,
    pending_rows: usize,
}

impl ParquetWriter {
    /// Creates (or truncates) the file at `path` for rows of `columns`.
    pub fn create(path: &str, columns: &[(String, DataType)]) -> Result<ParquetWriter> {
        let fields = columns
            .iter()
            .map(|(name, ty)| field_for(name, *ty))
            .collect::<Result<Vec<_>>>()?;
        let schema = Type::group_type_builder("schema")
            .with_fields(fields)
            .build()
            .map_err(|e| Error::internal(format!("Parquet schema: {e}")))?;
        let file = File::create(path).map_err(|e| super::open_error(&e, path))?;
        let properties = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .build();
        let writer = SerializedFileWriter::new(file, Arc::new(schema), Arc::new(properties))
            .map_err(|e| write_error(path, e))?;
        Ok(ParquetWriter {
            path: path.to_string(),
            types: columns.iter().map(|(_, ty)| *ty).collect(),
            writer,
            pending: Vec::new(),
            pending_rows: 0,
        })
    }

    pub fn write(&mut self, batch: Batch) -> Result<()> {
        self.pending_rows += batch.len();
        self.pending.push(batch);
        if self.pending_rows >= ROW_GROUP_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes what is left and the footer.
    pub fn finish(mut self) -> Result<()> {
        self.flush()?;
        self.writer
            .close()
            .map_err(|e| write_error(&self.path, e))?;
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if self.pending_rows == 0 {
            return Ok(());
        }
        let physical: Vec<_> = self.types.iter().map(|t| t.physical()).collect();
        let rows = concat_batches(&physical, &self.pending)?;
        self.pending.clear();
        self.pending_rows = 0;
        let path = self.path.clone();
        let mut group = self
            .writer
            .next_row_group()
            .map_err(|e| write_error(&path, e))?;
        for (column, ty) in rows.columns.iter().zip(&self.types) {
            let mut writer = group
                .next_column()
                .map_err(|e| write_error(&path, e))?
                .ok_or_else(|| Error::internal("invariant: one Parquet column per column"))?;
            write_column(writer.untyped(), column, *ty).map_err(|e| write_error(&path, e))?;
            writer.close().map_err(|e| write_error(&path, e))?;
        }
        group.close().map_err(|e| write_error(&path, e))?;
        Ok(())
    }
}

fn write_error(path: &str, error: impl std::fmt::Display) -> Error {
    Error::new(
        crate::error::SqlState::IoError,
        format!("could not write to file \"{path}\": {error}"),
    )
}

/// One column's values: the valid rows' values converted by `convert`, and a definition
/// level per row (1 valid, 0 NULL).
fn put<T: ParquetType, V>(
    writer: &mut ColumnWriterImpl<'_, T>,
    column: &Vector,
    values: &[V],
    convert: impl Fn(&V) -> T::T,
) -> parquet::errors::Result<()>
where
    [T::T]: ToOwned,
{
    let mut dense = Vec::with_capacity(values.len());
    let mut defs = Vec::with_capacity(values.len());
    for (row, value) in values.iter().enumerate() {
        let valid = column.is_valid(row);
        defs.push(i16::from(valid));
        if valid {
            dense.push(convert(value));
        }
    }
    writer.write_batch(&dense, Some(&defs), None).map(|_| ())
}

/// Rows of strings (text, jsonb and numeric's text) as BYTE_ARRAY values.
fn put_strings(
    writer: &mut ColumnWriterImpl<'_, parquet::data_type::ByteArrayType>,
    column: &Vector,
) -> parquet::errors::Result<()> {
    let mut dense = Vec::with_capacity(column.len());
    let mut defs = Vec::with_capacity(column.len());
    let mut text = Vec::new();
    for row in 0..column.len() {
        text.clear();
        let valid = column.write_text(row, &mut text);
        defs.push(i16::from(valid));
        if valid {
            dense.push(ByteArray::from(text.clone()));
        }
    }
    writer.write_batch(&dense, Some(&defs), None).map(|_| ())
}

fn write_column(
    writer: &mut ColumnWriter<'_>,
    column: &Vector,
    ty: DataType,
) -> parquet::errors::Result<()> {
    let unix_micros = UNIX_TO_PG_DAYS * MICROS_PER_DAY;
    match (writer, &column.data) {
        (ColumnWriter::BoolColumnWriter(w), VectorData::Bool(v)) => put(w, column, v, |&x| x),
        (ColumnWriter::Int32ColumnWriter(w), VectorData::Int16(v)) => {
            put(w, column, v, |&x| i32::from(x))
        }
        (ColumnWriter::Int32ColumnWriter(w), VectorData::Int32(v)) => put(w, column, v, |&x| x),
        (ColumnWriter::Int32ColumnWriter(w), VectorData::Date(v)) => {
            put(w, column, v, |&x| x.saturating_add(UNIX_TO_PG_DAYS as i32))
        }
        (ColumnWriter::Int64ColumnWriter(w), VectorData::Int64(v) | VectorData::Time(v)) => {
            put(w, column, v, |&x| x)
        }
        (
            ColumnWriter::Int64ColumnWriter(w),
            VectorData::Timestamp(v) | VectorData::TimestampTz(v),
        ) => put(w, column, v, |&x| x.saturating_add(unix_micros)),
        (ColumnWriter::FloatColumnWriter(w), VectorData::Float32(v)) => put(w, column, v, |&x| x),
        (ColumnWriter::DoubleColumnWriter(w), VectorData::Float64(v)) => put(w, column, v, |&x| x),
        (ColumnWriter::FixedLenByteArrayColumnWriter(w), VectorData::Numeric(v))
            if matches!(ty, DataType::Numeric(Some(_))) =>
        {
            let scale = match ty {
                DataType::Numeric(Some(typmod)) => typmod.scale,
                _ => 0,
            };
            // numeric(p, s) holds NaN, which a Parquet DECIMAL cannot.
            if (0..v.len()).any(|row| column.is_valid(row) && !v[row].is_finite()) {
                return Err(parquet::errors::ParquetError::General(
                    "NaN cannot be written to a Parquet DECIMAL column".to_string(),
                ));
            }
            put(w, column, v, |d| {
                FixedLenByteArray::from(mantissa_at(d, scale).to_be_bytes().to_vec())
            })
        }
        (ColumnWriter::FixedLenByteArrayColumnWriter(w), VectorData::Uuid(v)) => {
            put(w, column, v, |x| {
                FixedLenByteArray::from(x.to_be_bytes().to_vec())
            })
        }
        (ColumnWriter::ByteArrayColumnWriter(w), VectorData::Bytes(b)) => {
            let rows: Vec<usize> = (0..b.len()).collect();
            put(w, column, &rows, |&row| {
                ByteArray::from(b.get(row).to_vec())
            })
        }
        (ColumnWriter::ByteArrayColumnWriter(w), _) => put_strings(w, column),
        _ => Err(parquet::errors::ParquetError::General(format!(
            "no Parquet encoding of a {ty} column"
        ))),
    }
}

/// The mantissa of `d` at `scale` digits (a numeric(p, s) column's values have at most s).
fn mantissa_at(d: &crate::types::Decimal, scale: u32) -> i128 {
    let d = d.round(scale as i32).unwrap_or(*d);
    d.mantissa()
        .saturating_mul(10i128.saturating_pow(scale.saturating_sub(d.scale())))
}
