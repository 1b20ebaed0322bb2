//! Reading CSV files in place (DuckDB's `read_csv`): the records are split by COPY FROM's
//! own parser (`exec/copy_from.rs`) into text columns, then each column gets the type the
//! caller gave or the first of bigint, double precision, boolean, date, timestamp that
//! holds every value (DuckDB's sniffing order; text otherwise), and is cast once. The
//! decoded file is cached while it is unchanged.

use std::sync::{Arc, LazyLock};

use super::cache::{FileCache, FileIdentity};
use crate::error::Result;
use crate::exec::copy_from::{CopyParser, CopyRows, CopyTarget};
use crate::exec::ExecContext;
use crate::function::cast::{cast_vector, CastContext};
use crate::plan::{CopyColumn, CopyFormat, CopyHeader, CopyOptions};
use crate::types::DataType;
use crate::vector::{concat_batches, split_batch, Batch, Vector, VectorData};

static TABLES: LazyLock<FileCache<CsvTable>> = LazyLock::new(|| FileCache::new(512 << 20));

/// read_csv's options, DuckDB's names and defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct CsvOptions {
    pub header: bool,
    pub delimiter: u8,
    pub quote: u8,
    pub escape: u8,
    pub null: String,
    /// Lines skipped before the header (or the first record).
    pub skip: usize,
    /// The columns, when given (`columns := {'a': 'INTEGER'}`): no type detection.
    pub columns: Option<Vec<(String, DataType)>>,
}

impl Default for CsvOptions {
    fn default() -> CsvOptions {
        CsvOptions {
            header: true,
            delimiter: b',',
            quote: b'"',
            escape: b'"',
            null: String::new(),
            skip: 0,
            columns: None,
        }
    }
}

/// A decoded CSV file.
pub struct CsvTable {
    pub columns: Vec<(String, DataType)>,
    pub batches: Vec<Batch>,
}

/// The file at `path` as its columns and rows, from the cache while it is unchanged.
pub fn read(path: &str, options: &CsvOptions) -> Result<Arc<CsvTable>> {
    let file = std::fs::File::open(path).map_err(|e| super::open_error(&e, path))?;
    let identity = FileIdentity::of(&file, path)?;
    TABLES.get_or_load(identity.key(path, &format!("{options:?}")), || {
        let bytes = std::fs::read(path).map_err(|e| super::open_error(&e, path))?;
        let table = decode(path, &bytes, options)?;
        Ok((table, bytes.len() * 2 + 4096))
    })
}

fn decode(path: &str, bytes: &[u8], options: &CsvOptions) -> Result<CsvTable> {
    let mut input = bytes;
    for _ in 0..options.skip {
        input = match memchr::memchr(b'\n', input) {
            Some(end) => &input[end + 1..],
            None => &[],
        };
    }
    let fields = match &options.columns {
        Some(columns) => columns.len(),
        None => count_fields(input, options),
    };
    let names: Vec<String> = (0..fields).map(|i| format!("column{i}")).collect();
    let texts = vec![DataType::Text; fields];
    let row: Vec<CopyColumn> = (0..fields).map(CopyColumn::Field).collect();
    let copy_options = CopyOptions {
        format: CopyFormat::Csv,
        delimiter: options.delimiter,
        null: options.null.clone(),
        header: CopyHeader::Absent,
        quote: options.quote,
        escape: options.escape,
        force_quote: vec![false; fields],
        force_not_null: vec![false; fields],
        force_null: vec![false; fields],
    };
    let target = CopyTarget {
        table_name: path,
        field_names: &names,
        types: &texts,
        row: &row,
    };
    let mut parser = CopyParser::new(&copy_options, target);
    parser.buffer().extend_from_slice(input);
    // Text fields need no context: no defaults, sequences or casts of the database.
    let ctx = ExecContext::new(
        Vec::new(),
        Arc::default(),
        Arc::default(),
        Default::default(),
    );
    let mut batches = Vec::new();
    parser.finish(&ctx, &mut |batch| {
        batches.push(batch);
        Ok(())
    })?;
    let mut all = concat_batches(&vec![DataType::Text.physical(); fields], &batches)?;
    let mut header_names = None;
    if options.header && !all.is_empty() {
        header_names = Some(
            all.columns
                .iter()
                .map(|c| match c.get_scalar(0) {
                    crate::types::ScalarValue::Text(name) => name.to_string(),
                    _ => String::new(),
                })
                .collect::<Vec<_>>(),
        );
        let rest: Vec<u32> = (1..all.len() as u32).collect();
        all = all.gather(&rest);
    }
    let columns: Vec<(String, DataType)> = match &options.columns {
        Some(columns) => columns.clone(),
        None => {
            let names = header_names.unwrap_or(names);
            names
                .into_iter()
                .zip(&all.columns)
                .map(|(name, text)| (name, detect_type(text)))
                .collect()
        }
    };
    let rows = all.len();
    let typed = columns
        .iter()
        .zip(&all.columns)
        .map(|((_, ty), text)| {
            cast_vector(text, DataType::Text, *ty, CastContext::Explicit)
                .map(Arc::new)
                .map_err(|e| e.with_context(format!("reading file \"{path}\"")))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(CsvTable {
        columns,
        batches: split_batch(Batch::new(typed, rows)),
    })
}

/// The number of fields of the first record: delimiters outside quotes, plus one.
fn count_fields(input: &[u8], options: &CsvOptions) -> usize {
    let mut quoted = false;
    let mut fields = 1;
    for &byte in input {
        if byte == options.quote {
            quoted = !quoted;
        } else if !quoted && byte == options.delimiter {
            fields += 1;
        } else if !quoted && byte == b'\n' {
            break;
        }
    }
    fields
}

/// The first type, in DuckDB's order, every value of `text` converts to.
fn detect_type(text: &Vector) -> DataType {
    let VectorData::Text(values) = &text.data else {
        return DataType::Text;
    };
    let lengths_at_most =
        |n: usize| (0..values.len()).all(|i| !text.is_valid(i) || values.get(i).len() <= n);
    let candidates = [
        DataType::Int64,
        DataType::Float64,
        DataType::Bool,
        DataType::Date,
        DataType::Timestamp(None),
    ];
    for ty in candidates {
        // A date is written as one: '2024-01-02 10:00' is a timestamp, not a date.
        if ty == DataType::Date && !lengths_at_most(10) {
            continue;
        }
        if text.null_count() < text.len()
            && cast_vector(text, DataType::Text, ty, CastContext::Explicit).is_ok()
        {
            return ty;
        }
    }
    DataType::Text
}
