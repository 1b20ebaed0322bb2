//! COPY FROM's input in PostgreSQL's binary format (`ReceiveCopyBinaryHeader`,
//! `CopyReadBinaryAttribute`): the `PGCOPY` signature, flags and a header extension, then
//! per tuple a 16-bit field count and each field as a 32-bit length (-1 for NULL) and its
//! value in the type's `*recv` format, ended by a count of -1. Complete tuples are decoded
//! as they arrive into typed vectors, a batch at a time; only an unfinished tuple is held
//! back.

use super::copy_from::{bad_format, CopyRows, CopyTarget};
use super::ExecContext;
use crate::error::Result;
use crate::function::cast::{cast_vector, CastContext};
use crate::types::binary_io::recv;
use crate::types::{precision, DataType, ScalarValue};
use crate::vector::{Batch, Vector, BATCH_SIZE};

/// `PGCOPY\n\377\r\n\0`, the first bytes of every binary COPY stream.
pub const BINARY_SIGNATURE: &[u8; 11] = b"PGCOPY\n\xff\r\n\0";
/// Signature, flags and the header extension's length.
const HEADER_BYTES: usize = 11 + 4 + 4;
/// Flag bit 16: the data has OIDs, which PostgreSQL 12 and later refuse.
const FLAG_WITH_OIDS: i32 = 1 << 16;

pub struct BinaryCopyParser<'a> {
    target: CopyTarget<'a>,
    field_types: Vec<DataType>,
    pending: Vec<u8>,
    header_left: bool,
    /// The -1 trailer was read.
    ended: bool,
    /// Tuples read so far, the trailer counted (PostgreSQL's line number).
    line: u64,
    /// One vector per field for the tuples gathered so far.
    fields: Vec<Vector>,
    rows: usize,
    /// The line of the batch's first tuple.
    first_line: u64,
}

/// A tuple's fields' (start, end) in `pending`, `None` for NULL.
type FieldSpans = Vec<Option<(usize, usize)>>;

impl<'a> BinaryCopyParser<'a> {
    pub fn new(target: CopyTarget<'a>) -> BinaryCopyParser<'a> {
        let field_types = target.field_types();
        let fields = field_types.iter().map(|ty| new_field(*ty)).collect();
        BinaryCopyParser {
            target,
            field_types,
            pending: Vec::new(),
            header_left: true,
            ended: false,
            line: 0,
            fields,
            rows: 0,
            first_line: 0,
        }
    }

    /// Parses the header and complete tuples from `pending[start..]`; returns where the
    /// unparsed rest starts. At the end of input (`eof`) an incomplete piece is an error.
    fn parse_from(
        &mut self,
        ctx: &ExecContext,
        sink: &mut dyn FnMut(Batch) -> Result<()>,
        eof: bool,
    ) -> Result<usize> {
        let mut at = 0;
        if self.header_left {
            match self.header(eof)? {
                Some(end) => at = end,
                None => return Ok(0),
            }
            self.header_left = false;
        }
        while !self.ended {
            let Some(count) = read_i16(&self.pending, at) else {
                // PostgreSQL takes the end of input where a tuple would start (even in the
                // middle of its count) as the end of the data.
                break;
            };
            self.line += 1;
            if count == -1 {
                self.ended = true;
                at += 2;
                break;
            }
            let expected = self.fields.len();
            if usize::try_from(count).ok() != Some(expected) {
                return Err(
                    bad_format(format!("row field count is {count}, expected {expected}"))
                        .with_context(self.context(None)),
                );
            }
            let Some((spans, end)) = self.tuple(at + 2, eof)? else {
                self.line -= 1;
                break;
            };
            self.push_tuple(&spans)?;
            at = end;
            if self.rows == BATCH_SIZE {
                sink(self.take_batch(ctx)?)?;
            }
        }
        if self.ended && self.pending.len() > at {
            return Err(
                bad_format("received copy data after EOF marker").with_context(self.context(None))
            );
        }
        Ok(at)
    }

    /// The header's end, `None` if it has not all arrived.
    fn header(&self, eof: bool) -> Result<Option<usize>> {
        let bytes = &self.pending;
        if bytes.len() < HEADER_BYTES && !eof {
            return Ok(None);
        }
        if bytes.get(..BINARY_SIGNATURE.len()) != Some(&BINARY_SIGNATURE[..]) {
            return Err(bad_format("COPY file signature not recognized"));
        }
        let flags = read_i32(bytes, 11)
            .ok_or_else(|| bad_format("invalid COPY file header (missing flags)"))?;
        if flags & FLAG_WITH_OIDS != 0 {
            return Err(bad_format("invalid COPY file header (WITH OIDS)"));
        }
        if (flags & !FLAG_WITH_OIDS) >> 16 != 0 {
            return Err(bad_format(
                "unrecognized critical flags in COPY file header",
            ));
        }
        let extension = read_i32(bytes, 15)
            .and_then(|len| usize::try_from(len).ok())
            .ok_or_else(|| bad_format("invalid COPY file header (missing length)"))?;
        let end = HEADER_BYTES.saturating_add(extension);
        if bytes.len() < end {
            return match eof {
                true => Err(bad_format("invalid COPY file header (wrong length)")),
                false => Ok(None),
            };
        }
        Ok(Some(end))
    }

    /// The fields of the tuple whose first field starts at `at`, and where the tuple ends;
    /// `None` if it has not all arrived yet.
    fn tuple(&self, mut at: usize, eof: bool) -> Result<Option<(FieldSpans, usize)>> {
        let mut spans = Vec::with_capacity(self.fields.len());
        for field in 0..self.fields.len() {
            let truncated = || -> Result<Option<(FieldSpans, usize)>> {
                match eof {
                    true => Err(bad_format("unexpected EOF in COPY data")
                        .with_context(self.context(Some(field)))),
                    false => Ok(None),
                }
            };
            let Some(size) = read_i32(&self.pending, at) else {
                return truncated();
            };
            at += 4;
            if size == -1 {
                spans.push(None);
                continue;
            }
            let Ok(size) = usize::try_from(size) else {
                return Err(
                    bad_format("invalid field size").with_context(self.context(Some(field)))
                );
            };
            if self.pending.len() - at < size {
                return truncated();
            }
            spans.push(Some((at, at + size)));
            at += size;
        }
        Ok(Some((spans, at)))
    }

    fn push_tuple(&mut self, spans: &[Option<(usize, usize)>]) -> Result<()> {
        for (field, span) in spans.iter().enumerate() {
            let value = match span {
                None => ScalarValue::Null,
                Some((from, to)) => recv(&self.pending[*from..*to], self.field_types[field])
                    .map_err(|error| error.with_context(self.context(Some(field))))?,
            };
            self.fields[field].push_scalar(&value)?;
        }
        if self.rows == 0 {
            self.first_line = self.line;
        }
        self.rows += 1;
        Ok(())
    }

    /// `COPY t, line 3, column b`, or without the column.
    fn context(&self, field: Option<usize>) -> String {
        self.context_at(self.line, field)
    }

    fn context_at(&self, line: u64, field: Option<usize>) -> String {
        let table = self.target.table_name;
        match field {
            Some(field) => format!(
                "COPY {table}, line {line}, column {}",
                self.target.field_names[field]
            ),
            None => format!("COPY {table}, line {line}"),
        }
    }

    fn take_batch(&mut self, ctx: &ExecContext) -> Result<Batch> {
        let fresh = self.field_types.iter().map(|ty| new_field(*ty));
        let fields = fresh
            .zip(&mut self.fields)
            .map(|(new, done)| Some(std::mem::replace(done, new)))
            .collect();
        let rows = std::mem::take(&mut self.rows);
        self.target
            .full_rows(fields, rows, ctx, |values, ty, field| {
                // textrecv takes no typmod: varchar(n) and char(n) check or pad the length as an
                // assignment does (varcharrecv, bpcharrecv); bit_recv and varbit_recv check
                // theirs the same way, and timestamp_recv and the other datetime receive
                // functions round to the precision.
                let received = match ty {
                    DataType::Varchar(Some(_))
                    | DataType::Char(_)
                    | DataType::Bit(Some(_))
                    | DataType::VarBit(Some(_)) => Some(DataType::Text),
                    _ if precision::adjusts(ty) => Some(ty.unmodified()),
                    _ => None,
                };
                match received {
                    Some(received) => {
                        let cast = |values: &Vector| {
                            cast_vector(values, received, ty, CastContext::Assignment)
                        };
                        cast(&values).map_err(|error| {
                            // The first value that fails says where.
                            let row = (0..values.len())
                                .find(|&row| cast(&values.gather(&[row as u32])).is_err())
                                .unwrap_or(0);
                            let line = self.first_line + row as u64;
                            error.with_context(self.context_at(line, Some(field)))
                        })
                    }
                    None => Ok(values),
                }
            })
    }
}

impl CopyRows for BinaryCopyParser<'_> {
    fn buffer(&mut self) -> &mut Vec<u8> {
        &mut self.pending
    }

    fn parse(
        &mut self,
        ctx: &ExecContext,
        sink: &mut dyn FnMut(Batch) -> Result<()>,
    ) -> Result<()> {
        let done = self.parse_from(ctx, sink, false)?;
        self.pending.drain(..done);
        Ok(())
    }

    fn finish(
        mut self,
        ctx: &ExecContext,
        sink: &mut dyn FnMut(Batch) -> Result<()>,
    ) -> Result<()> {
        self.parse_from(ctx, sink, true)?;
        if self.rows > 0 {
            sink(self.take_batch(ctx)?)?;
        }
        Ok(())
    }
}

fn new_field(ty: DataType) -> Vector {
    Vector::with_capacity(ty.physical(), BATCH_SIZE)
}

fn read_i16(bytes: &[u8], at: usize) -> Option<i16> {
    let pair = bytes.get(at..at.checked_add(2)?)?;
    Some(i16::from_be_bytes([pair[0], pair[1]]))
}

fn read_i32(bytes: &[u8], at: usize) -> Option<i32> {
    let quad = bytes.get(at..at.checked_add(4)?)?;
    Some(i32::from_be_bytes([quad[0], quad[1], quad[2], quad[3]]))
}
