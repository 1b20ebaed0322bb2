//! COPY TO's output, text or CSV, byte for byte as PostgreSQL writes it
//! (`CopyAttributeOutText` / `CopyAttributeOutCSV`): one line per row, handed to the
//! caller as soon as it is encoded.

use crate::error::Result;
use crate::plan::{CopyFormat, CopyHeader, CopyOptions};
use crate::vector::Batch;

pub struct CopyEncoder<'a> {
    options: &'a CopyOptions,
    line: Vec<u8>,
    value: Vec<u8>,
}

impl<'a> CopyEncoder<'a> {
    pub fn new(options: &'a CopyOptions) -> CopyEncoder<'a> {
        CopyEncoder {
            options,
            line: Vec::with_capacity(256),
            value: Vec::with_capacity(64),
        }
    }

    /// The header line, if the options ask for one.
    pub fn header(
        &mut self,
        names: &[String],
        write: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
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
        let single = batch.columns.len() == 1;
        for row in 0..batch.len() {
            self.line.clear();
            for (i, column) in batch.columns.iter().enumerate() {
                if i > 0 {
                    self.line.push(self.options.delimiter);
                }
                self.value.clear();
                if column.write_text(row, &mut self.value) {
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

    /// Appends `value` escaped (text) or quoted where needed (CSV).
    fn attribute(&mut self, force_quote: bool, single_column: bool) {
        match self.options.format {
            CopyFormat::Csv => self.csv_attribute(force_quote, single_column),
            CopyFormat::Text | CopyFormat::Binary => self.text_attribute(),
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
