//! Casts to and from the bit string types (pg_cast's bit ⇄ varbit length coercions,
//! int4/int8 ⇄ bit, text through bit_in). Bit strings share the text vector with the string
//! types, so [`crate::function::cast::cast_vector`] sends them here first: the string
//! loops would otherwise read `101` as the number one hundred and one.

use crate::error::{Error, Result};
use crate::types::bit_string::{self, BitLength};
use crate::types::DataType;
use crate::vector::{StringVec, Vector, VectorData};

use super::cast::CastContext;

fn is_bits(ty: DataType) -> bool {
    matches!(ty, DataType::Bit(_) | DataType::VarBit(_))
}

/// The cast of `input` from `from` to `to` when either is a bit string type, other than
/// bit strings to a string type (their text is their output); `None` otherwise.
pub(super) fn cast_bits(
    input: &Vector,
    from: DataType,
    to: DataType,
    context: CastContext,
    unsupported: impl Fn() -> Error,
) -> Result<Option<VectorData>> {
    if !is_bits(from) && !is_bits(to) || is_bits(from) && to.is_string() {
        return Ok(None);
    }
    let explicit = context == CastContext::Explicit;
    let length = BitLength::of(to);
    let valid = |row: usize| input.is_valid(row);
    let data = match (&input.data, to) {
        (VectorData::Text(s), _) if is_bits(to) => {
            let parse = !is_bits(from);
            map_bits(s.len(), valid, |row, out| {
                let parsed;
                let bits = match parse {
                    true => {
                        parsed = bit_string::parse_bits(s.get(row))?;
                        parsed.as_str()
                    }
                    false => s.get(row),
                };
                match length {
                    Some(length) => length.fit(bits, explicit, out),
                    None => {
                        out.extend_from_slice(bits.as_bytes());
                        Ok(())
                    }
                }
            })?
        }
        // bitfromint4/8 fill bit(n); varbit has no such cast.
        (VectorData::Int32(v), DataType::Bit(n)) => from_ints(v, n, valid)?,
        (VectorData::Int64(v), DataType::Bit(n)) => from_ints(v, n, valid)?,
        (VectorData::Text(s), DataType::Int32) if is_bits(from) => VectorData::Int32(
            (0..s.len())
                .map(|row| match valid(row) {
                    true => {
                        bit_string::to_int(s.get(row), 32, "integer out of range").map(|x| x as i32)
                    }
                    false => Ok(0),
                })
                .collect::<Result<_>>()?,
        ),
        (VectorData::Text(s), DataType::Int64) if is_bits(from) => VectorData::Int64(
            (0..s.len())
                .map(|row| match valid(row) {
                    true => bit_string::to_int(s.get(row), 64, "bigint out of range"),
                    false => Ok(0),
                })
                .collect::<Result<_>>()?,
        ),
        _ => return Err(unsupported()),
    };
    Ok(Some(data))
}

fn from_ints<T: Copy + Into<i64>>(
    values: &[T],
    length: Option<u32>,
    valid: impl Fn(usize) -> bool,
) -> Result<VectorData> {
    // A cast to plain `bit` means bit(1), as bitfromint4 takes a missing modifier.
    let n = length.unwrap_or(1);
    map_bits(values.len(), valid, |row, out| {
        bit_string::write_from_int(values[row].into(), n, out);
        Ok(())
    })
}

/// A text vector of bit strings, each non-NULL row written by `write`.
fn map_bits(
    rows: usize,
    valid: impl Fn(usize) -> bool,
    mut write: impl FnMut(usize, &mut Vec<u8>) -> Result<()>,
) -> Result<VectorData> {
    let mut out = StringVec::with_capacity(rows, rows * 8);
    let mut result = Ok(());
    for row in 0..rows {
        if !valid(row) {
            out.push("");
            continue;
        }
        out.push_with(|buf| result = write(row, buf));
        result.clone()?;
    }
    Ok(VectorData::Text(out))
}
