//! COPY FROM's input, text or CSV, turned into batches of full table rows as it arrives:
//! complete records are split into fields (PostgreSQL's `CopyReadAttributesText` /
//! `CopyReadAttributesCSV` rules), gathered a batch at a time as text columns, then
//! converted column by column to the table's types with the input functions (casts
//! from text). Only the unfinished last record of the input is ever held back, so a load
//! of any size streams.

use std::sync::Arc;

use super::expression::evaluate;
use super::ExecContext;
use crate::error::{Error, Result, SqlState};
use crate::function::cast::{cast_vector, CastContext};
use crate::plan::{CopyColumn, CopyFormat, CopyHeader, CopyOptions};
use crate::types::{DataType, ScalarValue};
use crate::vector::{Batch, Bitmap, StringVec, Vector, VectorData, BATCH_SIZE};

/// What COPY FROM writes into: the table's name (for error context), column names, types
/// and where each value comes from.
pub struct CopyTarget<'a> {
    pub table_name: &'a str,
    pub field_names: &'a [String],
    pub types: &'a [DataType],
    pub row: &'a [CopyColumn],
}

/// COPY FROM's input parser, per format: bytes go into [`CopyRows::buffer`], each
/// [`CopyRows::parse`] hands complete batches of full table rows to the sink, and
/// [`CopyRows::finish`] ends the input.
pub trait CopyRows {
    fn buffer(&mut self) -> &mut Vec<u8>;
    fn parse(&mut self, ctx: &ExecContext, sink: &mut dyn FnMut(Batch) -> Result<()>)
        -> Result<()>;
    fn finish(self, ctx: &ExecContext, sink: &mut dyn FnMut(Batch) -> Result<()>) -> Result<()>;
}

impl CopyTarget<'_> {
    /// The type of each field, in field order.
    pub(crate) fn field_types(&self) -> Vec<DataType> {
        let mut types = vec![DataType::Text; self.field_names.len()];
        for (source, &ty) in self.row.iter().zip(self.types) {
            if let CopyColumn::Field(field) = source {
                types[*field] = read_as(ty);
            }
        }
        types
    }

    /// A batch of full table rows from `rows` rows of `fields` (one vector per field, each
    /// turned into its column's type by `convert`), the other columns getting their
    /// defaults.
    pub(crate) fn full_rows(
        &self,
        mut fields: Vec<Option<Vector>>,
        rows: usize,
        ctx: &ExecContext,
        convert: impl Fn(Vector, DataType, usize) -> Result<Vector>,
    ) -> Result<Batch> {
        let no_columns = Batch::new(Vec::new(), rows);
        let mut columns = Vec::with_capacity(self.row.len());
        for (source, &ty) in self.row.iter().zip(self.types) {
            columns.push(match source {
                CopyColumn::Default(expr) => evaluate(expr, &no_columns, ctx)?,
                // Computed below, from the row.
                CopyColumn::Generated(_) => {
                    Arc::new(Vector::from_scalar(&ScalarValue::Null, ty, rows)?)
                }
                CopyColumn::Field(field) => {
                    let values = fields[*field].take().ok_or_else(|| {
                        Error::internal("invariant: a COPY field feeds one column")
                    })?;
                    let mut vector = convert(values, read_as(ty), *field)?;
                    if let Some(oid) = ty.enum_oid() {
                        let enum_type = ctx.state.enum_types.get(&oid).ok_or_else(|| {
                            Error::internal(format!("cache lookup failed for type {oid}"))
                        })?;
                        let committed = ctx.state.committed_enum_type(oid);
                        vector = enum_type.parse_vector(&vector, committed)?;
                    }
                    // The vector becomes a chunk of the table as it is.
                    vector.data.shrink_to_fit();
                    Arc::new(vector)
                }
            });
        }
        let mut batch = Batch::new(columns, rows);
        for (position, source) in self.row.iter().enumerate() {
            if let CopyColumn::Generated(expr) = source {
                batch.columns[position] = evaluate(expr, &batch, ctx)?;
            }
        }
        Ok(batch)
    }
}

/// The input parser; feed it with [`CopyParser::buffer`] + [`CopyParser::parse`], end with
/// [`CopyParser::finish`].
pub struct CopyParser<'a> {
    options: &'a CopyOptions,
    target: CopyTarget<'a>,
    /// Received bytes not yet parsed: the start of an unfinished record.
    pending: Vec<u8>,
    /// Lines consumed so far (the line number of the last record).
    line: u64,
    header_left: bool,
    /// `\.` was seen: the rest of the input is ignored.
    ended: bool,
    fields: Vec<FieldColumn>,
    /// The line of each gathered row, for error context.
    row_lines: Vec<u64>,
    /// Scratch for de-escaping one field.
    scratch: Vec<u8>,
    raw_fields: Vec<(usize, usize, bool)>,
}

/// One field's values for the rows gathered so far.
struct FieldColumn {
    text: StringVec,
    validity: Bitmap,
    has_null: bool,
}

impl FieldColumn {
    fn new(bytes: usize) -> FieldColumn {
        FieldColumn {
            text: StringVec::with_capacity(BATCH_SIZE, bytes),
            validity: Bitmap::new(0, true),
            has_null: false,
        }
    }
}

impl<'a> CopyParser<'a> {
    pub fn new(options: &'a CopyOptions, target: CopyTarget<'a>) -> CopyParser<'a> {
        let fields = (0..target.field_names.len())
            .map(|_| FieldColumn::new(BATCH_SIZE * 8))
            .collect();
        CopyParser {
            options,
            header_left: options.header != CopyHeader::Absent,
            target,
            pending: Vec::new(),
            line: 0,
            ended: false,
            fields,
            row_lines: Vec::with_capacity(BATCH_SIZE),
            scratch: Vec::new(),
            raw_fields: Vec::new(),
        }
    }
}

impl CopyRows for CopyParser<'_> {
    fn buffer(&mut self) -> &mut Vec<u8> {
        &mut self.pending
    }

    /// Parses the complete records received; each full batch of rows goes to `sink`.
    fn parse(
        &mut self,
        ctx: &ExecContext,
        sink: &mut dyn FnMut(Batch) -> Result<()>,
    ) -> Result<()> {
        let mut start = 0;
        while !self.ended {
            let Some((end, next, lines)) = self.record_end(start) else {
                break;
            };
            self.line += lines;
            self.record(start, end)?;
            start = next;
            if self.row_lines.len() == BATCH_SIZE {
                sink(self.take_batch(ctx)?)?;
            }
        }
        if self.ended {
            self.pending.clear();
        } else {
            self.pending.drain(..start);
        }
        Ok(())
    }

    /// The input ended: its last record may lack a newline.
    fn finish(
        mut self,
        ctx: &ExecContext,
        sink: &mut dyn FnMut(Batch) -> Result<()>,
    ) -> Result<()> {
        self.parse(ctx, sink)?;
        if !self.ended && !self.pending.is_empty() {
            if self.options.format == CopyFormat::Csv && self.in_quotes(0) {
                self.line += 1;
                return Err(bad_format("unterminated CSV quoted field")
                    .with_context(self.line_context(0, self.pending.len())));
            }
            self.line += 1;
            let end = self.pending.len();
            self.record(0, end)?;
        }
        if !self.row_lines.is_empty() {
            sink(self.take_batch(ctx)?)?;
        }
        Ok(())
    }
}

impl CopyParser<'_> {
    /// The end of the record starting at `start` (without its line break), where the next
    /// one starts, and how many lines it spans; `None` if it is not complete yet.
    fn record_end(&self, start: usize) -> Option<(usize, usize, u64)> {
        let bytes = &self.pending[start..];
        let csv = self.options.format == CopyFormat::Csv;
        if !csv {
            // A newline ends the line unless a backslash escapes it (an odd run of them).
            let mut from = 0;
            loop {
                let i = from + bytes[from..].iter().position(|&b| b == b'\n')?;
                let backslashes = bytes[..i].iter().rev().take_while(|&&b| b == b'\\').count();
                if backslashes % 2 == 0 {
                    let end = if i > 0 && bytes[i - 1] == b'\r' {
                        i - 1
                    } else {
                        i
                    };
                    return Some((start + end, start + i + 1, 1));
                }
                from = i + 1;
            }
        }
        let (quote, escape) = (self.options.quote, self.options.escape);
        let mut lines = 1;
        let mut in_quotes = false;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if in_quotes {
                if b == escape
                    && escape != quote
                    && bytes.get(i + 1).is_some_and(|&n| n == quote || n == escape)
                {
                    i += 2;
                    continue;
                }
                if b == quote {
                    in_quotes = false;
                } else if b == b'\n' {
                    lines += 1;
                }
                i += 1;
                continue;
            }
            match b {
                b'\n' => {
                    let end = if i > 0 && bytes[i - 1] == b'\r' {
                        i - 1
                    } else {
                        i
                    };
                    return Some((start + end, start + i + 1, lines));
                }
                _ if b == quote => in_quotes = true,
                _ => {}
            }
            i += 1;
        }
        None
    }

    /// Whether the text from `start` ends inside a quoted CSV field.
    fn in_quotes(&self, start: usize) -> bool {
        let (quote, escape) = (self.options.quote, self.options.escape);
        let bytes = &self.pending[start..];
        let mut in_quotes = false;
        let mut i = 0;
        while i < bytes.len() {
            if in_quotes
                && bytes[i] == escape
                && escape != quote
                && bytes.get(i + 1).is_some_and(|&n| n == quote || n == escape)
            {
                i += 2;
                continue;
            }
            if bytes[i] == quote {
                in_quotes = !in_quotes;
            }
            i += 1;
        }
        in_quotes
    }

    /// One record, `pending[start..end]`: the header, the end marker, or a row.
    fn record(&mut self, start: usize, end: usize) -> Result<()> {
        if &self.pending[start..end] == b"\\." {
            self.ended = true;
            return Ok(());
        }
        if std::str::from_utf8(&self.pending[start..end]).is_err() {
            return Err(
                invalid_utf8(&self.pending[start..end]).with_context(format!(
                    "COPY {}, line {}",
                    self.target.table_name, self.line
                )),
            );
        }
        self.split(start, end)?;
        if self.header_left {
            self.header_left = false;
            if self.options.header == CopyHeader::Match {
                self.match_header(start, end)?;
            }
            return Ok(());
        }
        let expected = self.fields.len();
        let got = self.raw_fields.len();
        // A table of no columns takes empty lines.
        let empty_line = expected == 0 && got == 1 && self.raw_fields[0].0 == self.raw_fields[0].1;
        if got > expected && !empty_line {
            return Err(bad_format("extra data after last expected column")
                .with_context(self.line_context(start, end)));
        }
        if got < expected {
            return Err(bad_format(format!(
                "missing data for column \"{}\"",
                self.target.field_names[got]
            ))
            .with_context(self.line_context(start, end)));
        }
        for field in 0..expected {
            self.push_field(field, start, end)?;
        }
        self.row_lines.push(self.line);
        Ok(())
    }

    /// Splits `pending[start..end]` at unquoted delimiters into `raw_fields`: (start, end,
    /// special) of each field as written, special when it must be decoded (quoted in CSV, a
    /// backslash in text).
    fn split(&mut self, start: usize, end: usize) -> Result<()> {
        self.raw_fields.clear();
        let bytes = &self.pending[..end];
        let delimiter = self.options.delimiter;
        match self.options.format {
            CopyFormat::Csv => {
                let (quote, escape) = (self.options.quote, self.options.escape);
                let mut field_start = start;
                let mut quoted = false;
                let mut in_quotes = false;
                let mut i = start;
                while i < end {
                    let b = bytes[i];
                    if in_quotes {
                        if b == escape
                            && escape != quote
                            && i + 1 < end
                            && (bytes[i + 1] == quote || bytes[i + 1] == escape)
                        {
                            i += 2;
                            continue;
                        }
                        if b == quote {
                            in_quotes = false;
                        }
                    } else if b == quote {
                        in_quotes = true;
                        quoted = true;
                    } else if b == delimiter {
                        self.raw_fields.push((field_start, i, quoted));
                        field_start = i + 1;
                        quoted = false;
                    }
                    i += 1;
                }
                if in_quotes {
                    return Err(bad_format("unterminated CSV quoted field")
                        .with_context(self.line_context(start, end)));
                }
                self.raw_fields.push((field_start, end, quoted));
            }
            CopyFormat::Text | CopyFormat::Binary | CopyFormat::Parquet => {
                let mut field_start = start;
                let mut escaped = false;
                let mut i = start;
                while i < end {
                    match bytes[i] {
                        b'\\' => {
                            escaped = true;
                            i += 1;
                        }
                        b if b == delimiter => {
                            self.raw_fields.push((field_start, i, escaped));
                            field_start = i + 1;
                            escaped = false;
                        }
                        _ => {}
                    }
                    i += 1;
                }
                self.raw_fields
                    .push((field_start, end.max(field_start), escaped));
            }
        }
        Ok(())
    }

    /// What raw field `field` holds: NULL, its bytes as written, or bytes decoded into
    /// `scratch`.
    fn decode(&mut self, field: usize) -> Field {
        let (from, to, special) = self.raw_fields[field];
        let raw = &self.pending[from..to];
        let options = self.options;
        match options.format {
            CopyFormat::Csv => {
                let not_null = self.fields_flag(&options.force_not_null, field);
                if !special {
                    return if raw == options.null.as_bytes() && !not_null {
                        Field::Null
                    } else {
                        Field::Raw
                    };
                }
                self.scratch.clear();
                let (quote, escape) = (options.quote, options.escape);
                let mut in_quotes = false;
                let mut i = 0;
                while i < raw.len() {
                    let b = raw[i];
                    if in_quotes {
                        if b == escape
                            && i + 1 < raw.len()
                            && (raw[i + 1] == quote || raw[i + 1] == escape)
                        {
                            self.scratch.push(raw[i + 1]);
                            i += 2;
                            continue;
                        }
                        if b == quote {
                            in_quotes = false;
                        } else {
                            self.scratch.push(b);
                        }
                    } else if b == quote {
                        in_quotes = true;
                    } else {
                        self.scratch.push(b);
                    }
                    i += 1;
                }
                let force_null = self.fields_flag(&options.force_null, field);
                if force_null && self.scratch == options.null.as_bytes() {
                    return Field::Null;
                }
                Field::Decoded
            }
            CopyFormat::Text | CopyFormat::Binary | CopyFormat::Parquet => {
                if raw == options.null.as_bytes() {
                    return Field::Null;
                }
                if !special {
                    return Field::Raw;
                }
                self.scratch.clear();
                unescape_text(raw, &mut self.scratch);
                Field::Decoded
            }
        }
    }

    fn fields_flag(&self, flags: &[bool], field: usize) -> bool {
        flags.get(field).copied().unwrap_or(false)
    }

    fn push_field(&mut self, field: usize, start: usize, end: usize) -> Result<()> {
        let decoded = self.decode(field);
        // The record was checked to be UTF-8 and CSV decoding only drops ASCII quotes, but a
        // text escape (`\xff`) can make any byte.
        if decoded == Field::Decoded && std::str::from_utf8(&self.scratch).is_err() {
            return Err(invalid_utf8(&self.scratch).with_context(self.line_context(start, end)));
        }
        let (from, to, _) = self.raw_fields[field];
        let column = &mut self.fields[field];
        let bytes: &[u8] = match decoded {
            Field::Null => &[],
            Field::Raw => &self.pending[from..to],
            Field::Decoded => &self.scratch,
        };
        column.text.push_with(|buf| buf.extend_from_slice(bytes));
        let valid = decoded != Field::Null;
        column.validity.push(valid);
        column.has_null |= !valid;
        Ok(())
    }

    /// HEADER MATCH: the header's names must be the copied columns'.
    fn match_header(&mut self, start: usize, end: usize) -> Result<()> {
        let expected = self.fields.len();
        if self.raw_fields.len() != expected {
            return Err(bad_format(format!(
                "wrong number of fields in header line: got {}, expected {expected}",
                self.raw_fields.len()
            ))
            .with_context(self.line_context(start, end)));
        }
        for field in 0..expected {
            let decoded = self.decode(field);
            let (from, to, _) = self.raw_fields[field];
            let name = &self.target.field_names[field];
            let text: &[u8] = match decoded {
                Field::Null => &[],
                Field::Raw => &self.pending[from..to],
                Field::Decoded => &self.scratch,
            };
            let error = match decoded {
                Field::Null => format!(
                    "column name mismatch in header line field {}: got null value (\"{}\"), expected \"{name}\"",
                    field + 1,
                    self.options.null
                ),
                Field::Raw | Field::Decoded if text == name.as_bytes() => continue,
                Field::Raw | Field::Decoded => format!(
                    "column name mismatch in header line field {}: got \"{}\", expected \"{name}\"",
                    field + 1,
                    String::from_utf8_lossy(text)
                ),
            };
            return Err(bad_format(error).with_context(self.line_context(start, end)));
        }
        Ok(())
    }

    /// `COPY t, line 3: "the line"`.
    fn line_context(&self, start: usize, end: usize) -> String {
        let text = String::from_utf8_lossy(&self.pending[start..end.min(self.pending.len())]);
        format!(
            "COPY {}, line {}: \"{text}\"",
            self.target.table_name, self.line
        )
    }

    /// The gathered rows as a batch of full table rows.
    fn take_batch(&mut self, ctx: &ExecContext) -> Result<Batch> {
        let rows = self.row_lines.len();
        let mut texts = Vec::with_capacity(self.fields.len());
        for column in &mut self.fields {
            // The next batch's text is likely as long as this one's: reserve that much.
            let bytes = column.text.parts().1.len();
            let done = std::mem::replace(column, FieldColumn::new(bytes + bytes / 8));
            let validity = done.has_null.then_some(done.validity);
            texts.push(Some(Vector::new(VectorData::Text(done.text), validity)));
        }
        let batch = self.target.full_rows(texts, rows, ctx, |text, ty, field| {
            self.convert(text, ty, field)
        })?;
        self.row_lines.clear();
        Ok(batch)
    }

    /// A field's text values as the column's type; on a bad value, PostgreSQL's error with
    /// the line, column and value as context.
    fn convert(&self, text: Vector, ty: DataType, field: usize) -> Result<Vector> {
        if matches!(ty, DataType::Text) {
            return Ok(text);
        }
        let text = &text;
        // COPY calls the input functions with the column's typmod, which only interval_in
        // reads (a bare `7` is 7 minutes for `interval hour to minute`): its fields apply
        // to an untyped value, not to text.
        let from = match ty {
            DataType::Interval(_) => DataType::Unknown,
            _ => DataType::Text,
        };
        cast_vector(text, from, ty, CastContext::Assignment).map_err(|error| {
            let VectorData::Text(values) = &text.data else {
                return error;
            };
            // Find the first row that fails, to say where.
            for row in 0..text.len() {
                let one = text.gather(&[row as u32]);
                if let Err(error) = cast_vector(&one, from, ty, CastContext::Assignment) {
                    let line = self.row_lines.get(row).copied().unwrap_or(self.line);
                    return error.with_context(format!(
                        "COPY {}, line {line}, column {}: \"{}\"",
                        self.target.table_name,
                        self.target.field_names[field],
                        values.get(row)
                    ));
                }
            }
            error
        })
    }
}

/// A field as [`CopyParser::decode`] found it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Null,
    /// Its bytes as written.
    Raw,
    /// Decoded into the parser's scratch buffer.
    Decoded,
}

fn invalid_utf8(bytes: &[u8]) -> Error {
    let at = std::str::from_utf8(bytes)
        .err()
        .map_or(0, |e| e.valid_up_to());
    let bad = bytes.get(at).copied().unwrap_or(0);
    Error::new(
        SqlState::CharacterNotInRepertoire,
        format!("invalid byte sequence for encoding \"UTF8\": 0x{bad:02x}"),
    )
}

pub(super) fn bad_format(message: impl Into<String>) -> Error {
    Error::new(SqlState::BadCopyFileFormat, message)
}

/// The text format's backslash escapes: `\b \f \n \r \t \v`, octal `\ooo`, hex `\xhh`, and
/// a backslash before anything else stands for that character.
fn unescape_text(raw: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i];
        if b != b'\\' || i + 1 == raw.len() {
            out.push(b);
            i += 1;
            continue;
        }
        let c = raw[i + 1];
        i += 2;
        match c {
            b'0'..=b'7' => {
                let mut value = u32::from(c - b'0');
                for _ in 0..2 {
                    match raw.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                out.push((value & 0xff) as u8);
            }
            b'x' if raw.get(i).is_some_and(u8::is_ascii_hexdigit) => {
                let mut value = 0u32;
                for _ in 0..2 {
                    match raw.get(i).and_then(|&d| (d as char).to_digit(16)) {
                        Some(d) => {
                            value = value * 16 + d;
                            i += 1;
                        }
                        None => break,
                    }
                }
                out.push(value as u8);
            }
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(11),
            other => out.push(other),
        }
    }
}

/// The type a field of a column of type `ty` is read as: an enum's labels are text (in the
/// binary format too, as enum_recv reads them), looked up in the catalog afterwards.
fn read_as(ty: DataType) -> DataType {
    ty.param_value_type()
}
