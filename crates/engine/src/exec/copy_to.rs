//! COPY TO's output, byte for byte as PostgreSQL writes it: text or CSV
//! (`CopyAttributeOutText` / `CopyAttributeOutCSV`), one line per row, or binary (the
//! `PGCOPY` header, per row a field count and length-prefixed `*send` values, a -1
//! trailer). Each row is handed to the caller as soon as it is encoded.

use super::copy_from_binary::BINARY_SIGNATURE;
use crate::error::Result;
use crate::plan::{CopyFormat, CopyHeader, CopyOptions};
use crate::types::binary_io::write_binary;
use crate::types::int_vector;
use crate::types::DataType;
use crate::vector::Batch;

pub struct CopyEncoder<'a> {
    options: &'a CopyOptions,
    /// The columns' types: binary arrays name their element type.
    types: Vec<DataType>,
    line: Vec<u8>,
    /// `line` holds binary's header, still to be sent: PostgreSQL sends it in the first
    /// row's message (or the trailer's), and clients such as tokio-postgres expect that.
    header_pending: bool,
    value: Vec<u8>,
}

impl<'a> CopyEncoder<'a> {
    pub fn new(options: &'a CopyOptions, types: Vec<DataType>) -> CopyEncoder<'a> {
        CopyEncoder {
            options,
            types,
            line: Vec::with_capacity(256),
            header_pending: false,
            value: Vec::with_capacity(64),
        }
    }

    /// The header line, if the options ask for one; binary's header always.
    pub fn header(
        &mut self,
        names: &[String],
        write: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        if self.options.format == CopyFormat::Binary {
            self.line.clear();
            self.line.extend_from_slice(BINARY_SIGNATURE);
            // No flags, no header extension.
            self.line.extend_from_slice(&[0; 8]);
            self.header_pending = true;
            return Ok(());
        }
        if self.options.header == CopyHeader::Absent {
            return Ok(());
        }
        self.line.clear();
        for (i, name) in names.iter().enumerate() {
            if i > 0 {
                self.line.push(self.options.delimiter);
            }
            self.value.clear();
            self.value.extend_from_slice(name.as_bytes());
            self.attribute(false, names.len() == 1);
        }
        self.line.push(b'\n');
        write(&self.line)
    }

    /// Each row of `batch` as one line.
    pub fn rows(
        &mut self,
        batch: &Batch,
        write: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        if self.options.format == CopyFormat::Binary {
            return self.binary_rows(batch, write);
        }
        let single = batch.columns.len() == 1;
        for row in 0..batch.len() {
            self.line.clear();
            for (i, column) in batch.columns.iter().enumerate() {
                if i > 0 {
                    self.line.push(self.options.delimiter);
                }
                self.value.clear();
                let ty = self.types.get(i).copied();
                if int_vector::write_text(column, row, ty, &mut self.value) {
                    let force = self.options.force_quote.get(i).copied().unwrap_or(false);
                    self.attribute(force, single);
                } else {
                    self.line.extend_from_slice(self.options.null.as_bytes());
                }
            }
            self.line.push(b'\n');
            write(&self.line)?;
        }
        Ok(())
    }

    /// The end of the data: binary's -1 trailer.
    pub fn trailer(&mut self, write: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
        match self.options.format {
            CopyFormat::Binary => {
                self.start_binary_message();
                self.line.extend_from_slice(&(-1i16).to_be_bytes());
                write(&self.line)
            }
            CopyFormat::Text | CopyFormat::Csv | CopyFormat::Parquet => Ok(()),
        }
    }

    fn binary_rows(
        &mut self,
        batch: &Batch,
        write: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        let count = i16::try_from(batch.columns.len()).unwrap_or(i16::MAX);
        for row in 0..batch.len() {
            self.start_binary_message();
            self.line.extend_from_slice(&count.to_be_bytes());
            for (i, column) in batch.columns.iter().enumerate() {
                let len_at = self.line.len();
                self.line.extend_from_slice(&[0; 4]);
                let ty = self.types.get(i).copied();
                let len = if write_binary(column, row, ty, &mut self.line) {
                    i32::try_from(self.line.len() - len_at - 4).unwrap_or(i32::MAX)
                } else {
                    -1
                };
                self.line[len_at..len_at + 4].copy_from_slice(&len.to_be_bytes());
            }
            write(&self.line)?;
        }
        Ok(())
    }

    /// Empties `line` for the next message, unless it holds the header still to be sent.
    fn start_binary_message(&mut self) {
        if !std::mem::take(&mut self.header_pending) {
            self.line.clear();
        }
    }

    /// Appends `value` escaped (text) or quoted where needed (CSV).
    fn attribute(&mut self, force_quote: bool, single_column: bool) {
        match self.options.format {
            CopyFormat::Csv => self.csv_attribute(force_quote, single_column),
            CopyFormat::Text | CopyFormat::Binary | CopyFormat::Parquet => self.text_attribute(),
        }
    }

    fn text_attribute(&mut self) {
        let delimiter = self.options.delimiter;
        for &b in &self.value {
            let escaped = match b {
                8 => b'b',
                12 => b'f',
                b'\n' => b'n',
                b'\r' => b'r',
                b'\t' => b't',
                11 => b'v',
                b'\\' => b'\\',
                _ if b == delimiter => b,
                _ => {
                    self.line.push(b);
                    continue;
                }
            };
            self.line.push(b'\\');
            self.line.push(escaped);
        }
    }

    fn csv_attribute(&mut self, force_quote: bool, single_column: bool) {
        let CopyOptions {
            delimiter,
            quote,
            escape,
            ..
        } = *self.options;
        let value = &self.value;
        // A value spelled like NULL is quoted to tell it apart, and so is `\.` alone on a
        // line, which would end the data.
        let quote_it = force_quote
            || value == self.options.null.as_bytes()
            || (single_column && value == b"\\.")
            || value
                .iter()
                .any(|&b| b == delimiter || b == quote || b == b'\n' || b == b'\r');
        if !quote_it {
            self.line.extend_from_slice(value);
            return;
        }
        self.line.push(quote);
        for &b in value {
            if b == quote || b == escape {
                self.line.push(escape);
            }
            self.line.push(b);
        }
        self.line.push(quote);
    }
}
