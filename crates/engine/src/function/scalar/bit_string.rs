//! Functions and operators of the bit string types: `||`, `&`, `|`, `#`, `~`, `<<`, `>>`,
//! length, bit_length, octet_length, position, substring, overlay, get_bit, set_bit and
//! bit_count, with varbit.c's errors. The values are the text of their bits (see
//! [`crate::types::bit_string`]).

use super::kernel::{map_rows, map_text_rows, texts, values};
use super::BitOp;
use crate::error::Result;
use crate::types::bit_string::{self, BitwiseOp};
use crate::vector::Vector;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BitStringFunction {
    /// `||` (bitcat).
    Concat,
    /// `&`, `|`, `#`, `~`, `<<`, `>>`.
    Operator(BitOp),
    /// length and bit_length.
    Length,
    OctetLength,
    /// `position(needle IN bits)`, arguments as strpos's.
    Position,
    /// `substring(bits FROM start [FOR count])`.
    Substring,
    /// `overlay(bits PLACING other FROM start [FOR count])`.
    Overlay,
    GetBit,
    SetBit,
    BitCount,
}

impl BitStringFunction {
    pub fn name(self) -> &'static str {
        match self {
            BitStringFunction::Concat => "||",
            BitStringFunction::Operator(op) => op.symbol(),
            BitStringFunction::Length => "length",
            BitStringFunction::OctetLength => "octet_length",
            BitStringFunction::Position => "position",
            BitStringFunction::Substring => "substring",
            BitStringFunction::Overlay => "overlay",
            BitStringFunction::GetBit => "get_bit",
            BitStringFunction::SetBit => "set_bit",
            BitStringFunction::BitCount => "bit_count",
        }
    }

    pub(super) fn eval(self, args: &[Vector]) -> Result<Vector> {
        let bits = texts(args, 0)?;
        match self {
            BitStringFunction::Concat => {
                let other = texts(args, 1)?;
                map_text_rows(args, |row, out| {
                    out.extend_from_slice(bits.get_bytes(row));
                    out.extend_from_slice(other.get_bytes(row));
                    Ok(())
                })
            }
            BitStringFunction::Operator(op) => operator(op, args),
            BitStringFunction::Length => map_rows(args, |row| Ok(bits.get(row).len() as i32)),
            BitStringFunction::OctetLength => {
                map_rows(args, |row| Ok(bit_string::octet_length(bits.get(row))))
            }
            BitStringFunction::Position => {
                let needle = texts(args, 1)?;
                map_rows(args, |row| {
                    Ok(bit_string::position(bits.get(row), needle.get(row)))
                })
            }
            BitStringFunction::Substring => {
                let start = values::<i32>(args, 1)?;
                let count = optional_ints(args, 2)?;
                map_text_rows(args, |row, out| {
                    let part =
                        bit_string::substring(bits.get(row), start[row], count.map(|c| c[row]))?;
                    out.extend_from_slice(part.as_bytes());
                    Ok(())
                })
            }
            BitStringFunction::Overlay => {
                let placing = texts(args, 1)?;
                let start = values::<i32>(args, 2)?;
                let count = optional_ints(args, 3)?;
                map_text_rows(args, |row, out| {
                    bit_string::write_overlay(
                        bits.get(row),
                        placing.get(row),
                        start[row],
                        count.map(|c| c[row]),
                        out,
                    )
                })
            }
            BitStringFunction::GetBit => {
                let index = values::<i32>(args, 1)?;
                map_rows(args, |row| bit_string::get_bit(bits.get(row), index[row]))
            }
            BitStringFunction::SetBit => {
                let (index, value) = (values::<i32>(args, 1)?, values::<i32>(args, 2)?);
                map_text_rows(args, |row, out| {
                    bit_string::write_set_bit(bits.get(row), index[row], value[row], out)
                })
            }
            BitStringFunction::BitCount => {
                map_rows(args, |row| Ok(bit_string::count_ones(bits.get(row))))
            }
        }
    }
}

/// An optional trailing integer argument (substring's and overlay's count).
fn optional_ints(args: &[Vector], idx: usize) -> Result<Option<&[i32]>> {
    match args.len() > idx {
        true => values::<i32>(args, idx).map(Some),
        false => Ok(None),
    }
}

fn operator(op: BitOp, args: &[Vector]) -> Result<Vector> {
    let bits = texts(args, 0)?;
    let bitwise = match op {
        BitOp::And => BitwiseOp::And,
        BitOp::Or => BitwiseOp::Or,
        BitOp::Xor => BitwiseOp::Xor,
        BitOp::Not => {
            return map_text_rows(args, |row, out| {
                bit_string::write_not(bits.get(row), out);
                Ok(())
            })
        }
        BitOp::ShiftLeft | BitOp::ShiftRight => {
            let count = values::<i32>(args, 1)?;
            let left = op == BitOp::ShiftLeft;
            return map_text_rows(args, |row, out| {
                // `>> n` is `<< -n`, as bitshiftright calls bitshiftleft.
                let by = match left {
                    true => count[row],
                    false => count[row].saturating_neg(),
                };
                bit_string::write_shift_left(bits.get(row), by, out);
                Ok(())
            });
        }
    };
    let other = texts(args, 1)?;
    map_text_rows(args, |row, out| {
        bitwise.apply(bits.get(row), other.get(row), out)
    })
}
