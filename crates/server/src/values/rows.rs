//! DataRow messages straight from a batch's column vectors: each value is written by the
//! vector itself (text) or by [`super::binary`] into the output buffer, behind a length
//! that is reserved first and back-patched, so no value passes through a temporary.

use std::ops::Range;

use kestrel::vector::Batch;
use kestrel::ColumnInfo;

use super::Format;
use crate::protocol::backend::{begin, finish, put_i16};
use kestrel::types::binary_io::write_binary;
use kestrel::types::int_vector;

/// Appends one DataRow per row in `rows` of `batch`; `formats` has one entry per column,
/// and `columns` describes them (binary arrays name their element type).
pub(crate) fn write_data_rows(
    out: &mut Vec<u8>,
    batch: &Batch,
    rows: Range<usize>,
    formats: &[Format],
    columns: &[ColumnInfo],
) {
    let column_count = i16::try_from(batch.columns.len()).unwrap_or(i16::MAX);
    for row in rows {
        let start = begin(out, b'D');
        put_i16(out, column_count);
        for (i, (column, format)) in batch.columns.iter().zip(formats).enumerate() {
            let len_at = out.len();
            out.extend_from_slice(&[0; 4]);
            let written = match format {
                Format::Text => {
                    int_vector::write_text(column, row, columns.get(i).map(|c| c.data_type), out)
                }
                Format::Binary => {
                    // An array of enum labels names the enum as its element type.
                    write_binary(column, row, columns.get(i).map(ColumnInfo::wire_type), out)
                }
            };
            let len = if written {
                i32::try_from(out.len() - len_at - 4).unwrap_or(i32::MAX)
            } else {
                -1
            };
            out[len_at..len_at + 4].copy_from_slice(&len.to_be_bytes());
        }
        finish(out, start);
    }
}

#[cfg(test)]
mod tests {
    use kestrel::vector::{Bitmap, StringVec, Vector, VectorData};

    use super::*;

    #[test]
    fn encodes_text_binary_and_null() {
        let mut names = StringVec::default();
        names.push("ab");
        names.push("");
        let mut validity = Bitmap::new(2, true);
        validity.set(1, false);
        let batch = Batch::new(
            vec![
                Vector::new(VectorData::Int32(vec![7, -1]), None).into(),
                Vector::new(VectorData::Text(names), Some(validity)).into(),
            ],
            2,
        );
        let mut out = Vec::new();
        let formats = [Format::Binary, Format::Binary];
        write_data_rows(&mut out, &batch, 0..2, &formats, &[]);
        let mut expected = Vec::new();
        for (int, text) in [(7i32, Some(&b"ab"[..])), (-1, None)] {
            let body_len = 2 + 8 + 4 + text.map_or(0, <[u8]>::len);
            expected.push(b'D');
            expected.extend_from_slice(&(body_len as i32 + 4).to_be_bytes());
            expected.extend_from_slice(&2i16.to_be_bytes());
            expected.extend_from_slice(&4i32.to_be_bytes());
            expected.extend_from_slice(&int.to_be_bytes());
            match text {
                Some(bytes) => {
                    expected.extend_from_slice(&(bytes.len() as i32).to_be_bytes());
                    expected.extend_from_slice(bytes);
                }
                None => expected.extend_from_slice(&(-1i32).to_be_bytes()),
            }
        }
        assert_eq!(out, expected);
    }
}
