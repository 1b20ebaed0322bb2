//! A file read the way COPY FROM reads it, into the columns a file_fdw foreign table was
//! declared with: COPY's own parser (`exec/copy_from.rs`), so the text and CSV rules, the
//! options and the errors (22P02 with `COPY t, line n, column c` context) are COPY's. As
//! file_fdw does, only the columns the query uses are converted: a bad value in another
//! column is no error. Read afresh on every scan, never cached, as PostgreSQL reads it.

use std::io::Read;

use super::NamedColumn;
use crate::error::Result;
use crate::exec::copy_from::{CopyParser, CopyRows, CopyTarget};
use crate::exec::ExecContext;
use crate::plan::{CopyColumn, CopyOptions};
use crate::types::DataType;
use crate::vector::Batch;

/// How much of the file is read at a time.
const CHUNK_BYTES: usize = 1 << 20;

/// The rows of the file at `path` as batches of the columns at `wanted`.
pub fn read(
    path: &str,
    options: &CopyOptions,
    table_name: &str,
    columns: &[NamedColumn],
    wanted: &[usize],
    ctx: &ExecContext,
) -> Result<Vec<Batch>> {
    let mut file =
        std::fs::File::open(path).map_err(|e| super::open_error_for(&e, path, "reading"))?;
    let names: Vec<String> = columns.iter().map(|(name, _)| name.clone()).collect();
    // An unused column stays text: its values are split out but never converted.
    let types: Vec<DataType> = (columns.iter().enumerate())
        .map(|(i, (_, ty))| {
            if wanted.contains(&i) {
                *ty
            } else {
                DataType::Text
            }
        })
        .collect();
    let row: Vec<CopyColumn> = (0..columns.len()).map(CopyColumn::Field).collect();
    let target = CopyTarget {
        table_name,
        field_names: &names,
        types: &types,
        row: &row,
    };
    let mut parser = CopyParser::new(options, target);
    let mut batches = Vec::new();
    let mut sink = |batch: Batch| {
        let rows = batch.len();
        let kept = wanted.iter().map(|&c| batch.columns[c].clone()).collect();
        batches.push(Batch::new(kept, rows));
        Ok(())
    };
    loop {
        ctx.check_cancelled()?;
        let buffer = parser.buffer();
        let start = buffer.len();
        buffer.resize(start + CHUNK_BYTES, 0);
        let read = file
            .read(&mut buffer[start..])
            .map_err(|e| super::corrupt(path, e));
        buffer.truncate(start + *read.as_ref().unwrap_or(&0));
        if read? == 0 {
            break;
        }
        parser.parse(ctx, &mut sink)?;
    }
    parser.finish(ctx, &mut sink)?;
    Ok(batches)
}
