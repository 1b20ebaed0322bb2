//! Files queried in place (DuckDB's `read_parquet` / `read_csv`, and file_fdw's foreign
//! tables) and written by COPY ...
//! (FORMAT parquet): the bound description of a file source ([`FileSource`]: its paths,
//! format and columns, found when the statement is bound), the Parquet and CSV readers that
//! decode straight into column vectors, the Parquet writer, and the cache that keeps what
//! was decoded while the file is unchanged.
//!
//! Receives paths and options from the binder; produces batches for `exec/file_scan.rs`
//! and files for COPY TO. Nothing here knows about tables or transactions.

mod cache;
mod copy_file;
mod csv;
mod parquet_read;
mod parquet_schema;
mod parquet_write;
mod path;

use std::sync::Arc;

pub use cache::FileIdentity;
pub use csv::CsvOptions;
pub use parquet_read::{ParquetFile, RowGroupFilter};
pub use parquet_write::ParquetWriter;

use crate::error::{Error, Result, SqlState};
use crate::exec::ExecContext;
use crate::plan::CopyOptions;
use crate::types::DataType;
use crate::vector::Batch;

/// A column of a file: its name and type.
pub type NamedColumn = (String, DataType);

/// How a file's bytes are laid out.
#[derive(Debug, Clone, PartialEq)]
pub enum FileFormat {
    Parquet,
    Csv(CsvOptions),
    /// Read as COPY FROM reads it, into declared columns: a foreign table's file, with the
    /// table's name for error context.
    Copy {
        options: CopyOptions,
        table_name: String,
    },
}

/// A bound file source: the files (a glob or list already expanded, in order) and the
/// columns every one of them has.
#[derive(Debug, Clone, PartialEq)]
pub struct FileSource {
    pub format: FileFormat,
    pub paths: Vec<String>,
    pub columns: Vec<(String, DataType)>,
    /// The rows of the files when they were bound, for join ordering.
    pub rows: u64,
}

impl FileSource {
    /// Expands `patterns` and reads the columns of the files: a Parquet footer, or a CSV
    /// file's header and values (type detection). Files whose columns differ are 42804.
    pub fn open(format: FileFormat, patterns: &[String]) -> Result<FileSource> {
        let mut paths = Vec::new();
        for pattern in patterns {
            paths.extend(path::expand(pattern)?);
        }
        let mut columns: Option<Vec<(String, DataType)>> = None;
        let mut rows = 0;
        for path in &paths {
            let found = match &format {
                FileFormat::Parquet => {
                    let file = ParquetFile::open(path)?;
                    rows += file.rows();
                    file.columns().to_vec()
                }
                FileFormat::Csv(options) => {
                    let table = csv::read(path, options)?;
                    rows += table.batches.iter().map(|b| b.len() as u64).sum::<u64>();
                    table.columns.clone()
                }
                FileFormat::Copy { .. } => {
                    return Err(Error::internal(
                        "invariant: a foreign table's file source is declared, not opened",
                    ))
                }
            };
            match &columns {
                None => columns = Some(found),
                Some(first) if *first == found => {}
                Some(first) => return Err(schema_mismatch(path, first, &found)),
            }
        }
        let columns = columns.ok_or_else(|| {
            Error::new(
                SqlState::UndefinedFile,
                "no files to read: the list is empty",
            )
        })?;
        Ok(FileSource {
            format,
            paths,
            columns,
            rows,
        })
    }

    /// A foreign table's file: its columns are the declared ones, and the file is first
    /// opened when it is scanned. The row estimate guesses from the file's size.
    pub fn declared(format: FileFormat, path: &str, columns: Vec<NamedColumn>) -> FileSource {
        let rows = match &format {
            FileFormat::Parquet => ParquetFile::open(path).map_or(1000, |file| file.rows()),
            FileFormat::Csv(_) | FileFormat::Copy { .. } => {
                std::fs::metadata(path).map_or(1000, |m| m.len() / 32)
            }
        };
        FileSource {
            format,
            paths: vec![path.to_string()],
            columns,
            rows,
        }
    }

    pub fn rows_estimate(&self) -> u64 {
        self.rows
    }

    /// The batches of file `file_idx` holding the columns at `columns`, skipping the row
    /// groups `filter` rules out. Decoded columns come from the cache while the file is
    /// unchanged; a file whose columns no longer match the bound ones is 42804.
    pub fn read(
        &self,
        file_idx: usize,
        columns: &[usize],
        filter: &RowGroupFilter,
        ctx: &ExecContext,
    ) -> Result<Vec<Batch>> {
        let path = &self.paths[file_idx];
        match &self.format {
            FileFormat::Parquet => {
                let file = ParquetFile::open(path)?;
                if file.columns() != self.columns.as_slice() {
                    return Err(schema_mismatch(path, &self.columns, file.columns()));
                }
                file.read(columns, filter)
            }
            FileFormat::Csv(options) => {
                let table = csv::read(path, options)?;
                if table.columns != self.columns {
                    return Err(schema_mismatch(path, &self.columns, &table.columns));
                }
                Ok(table
                    .batches
                    .iter()
                    .map(|b| {
                        Batch::new(
                            columns.iter().map(|&c| Arc::clone(&b.columns[c])).collect(),
                            b.len(),
                        )
                    })
                    .collect())
            }
            FileFormat::Copy {
                options,
                table_name,
            } => copy_file::read(path, options, table_name, &self.columns, columns, ctx),
        }
    }
}

/// 42804: a file whose columns are not the ones expected.
fn schema_mismatch(
    path: &str,
    expected: &[(String, DataType)],
    found: &[(String, DataType)],
) -> Error {
    let describe = |columns: &[(String, DataType)]| {
        columns
            .iter()
            .map(|(name, ty)| format!("{name} {ty}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Error::new(
        SqlState::DatatypeMismatch,
        format!("file \"{path}\" does not have the expected columns"),
    )
    .with_detail(format!(
        "Expected ({}), found ({}).",
        describe(expected),
        describe(found)
    ))
}

/// A file that cannot be opened: 58P01 when it does not exist, as PostgreSQL words it.
pub fn open_error(error: &std::io::Error, path: &str) -> Error {
    Error::new(
        open_state(error),
        format!("could not open file \"{path}\": {}", io_reason(error)),
    )
}

/// A file that cannot be opened for `purpose` ("reading"), as COPY and file_fdw say it.
pub fn open_error_for(error: &std::io::Error, path: &str, purpose: &str) -> Error {
    Error::new(
        open_state(error),
        format!(
            "could not open file \"{path}\" for {purpose}: {}",
            io_reason(error)
        ),
    )
}

fn open_state(error: &std::io::Error) -> SqlState {
    match error.kind() {
        std::io::ErrorKind::NotFound => SqlState::UndefinedFile,
        _ => SqlState::IoError,
    }
}

/// The C library's wording, as PostgreSQL prints `%m`.
pub fn io_reason(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".into(),
        _ => error.to_string(),
    }
}

/// A file that opened but could not be decoded: XX001 naming the file, never a panic or
/// part of its rows.
pub fn corrupt(path: &str, reason: impl std::fmt::Display) -> Error {
    Error::new(
        SqlState::DataCorrupted,
        format!("could not read file \"{path}\": {reason}"),
    )
}
