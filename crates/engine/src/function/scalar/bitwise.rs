//! The integer bit operators `&`, `|`, `#` (xor), `~` (not), `<<` and `>>` for smallint,
//! integer and bigint. Shifts behave as PostgreSQL's C code on x86-64: the count is taken
//! modulo the width of the promoted operand (32 bits for smallint and integer, 64 for bigint)
//! and a smallint result keeps the low 16 bits.

use super::kernel::{map_rows, values, Element};
use crate::error::{Error, Result};
use crate::types::PhysicalType;
use crate::vector::Vector;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BitOp {
    And,
    Or,
    Xor,
    Not,
    ShiftLeft,
    ShiftRight,
}

impl BitOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BitOp::And => "&",
            BitOp::Or => "|",
            BitOp::Xor => "#",
            BitOp::Not => "~",
            BitOp::ShiftLeft => "<<",
            BitOp::ShiftRight => ">>",
        }
    }
}

/// Integer types the operators are defined on, widened to the width C promotes them to.
trait BitInt: Element {
    fn widen(self) -> i64;
    fn narrow(value: i64) -> Self;
    /// Bits of the promoted operand: the shift count is taken modulo this.
    const PROMOTED_BITS: u32;
}

macro_rules! bit_int {
    ($ty:ty, $bits:expr) => {
        impl BitInt for $ty {
            fn widen(self) -> i64 {
                i64::from(self)
            }
            fn narrow(value: i64) -> Self {
                // Keeping the low bits is the C conversion PostgreSQL's result goes through.
                value as $ty
            }
            const PROMOTED_BITS: u32 = $bits;
        }
    };
}
bit_int!(i16, 32);
bit_int!(i32, 32);
bit_int!(i64, 64);

fn shift<T: BitInt>(value: T, count: i32, left: bool) -> T {
    let count = (count as u32) % T::PROMOTED_BITS;
    let wide = value.widen();
    let shifted = if T::PROMOTED_BITS == 32 {
        let v = wide as i32;
        i64::from(if left {
            v.wrapping_shl(count)
        } else {
            v >> count
        })
    } else if left {
        wide.wrapping_shl(count)
    } else {
        wide >> count
    };
    T::narrow(shifted)
}

fn apply<T: BitInt>(op: BitOp, args: &[Vector]) -> Result<Vector> {
    let a = values::<T>(args, 0)?;
    match op {
        BitOp::Not => map_rows(args, |row| Ok(T::narrow(!a[row].widen()))),
        BitOp::ShiftLeft | BitOp::ShiftRight => {
            let count = values::<i32>(args, 1)?;
            let left = op == BitOp::ShiftLeft;
            map_rows(args, |row| Ok(shift(a[row], count[row], left)))
        }
        BitOp::And | BitOp::Or | BitOp::Xor => {
            let b = values::<T>(args, 1)?;
            map_rows(args, |row| {
                let (x, y) = (a[row].widen(), b[row].widen());
                Ok(T::narrow(match op {
                    BitOp::And => x & y,
                    BitOp::Or => x | y,
                    _ => x ^ y,
                }))
            })
        }
    }
}

pub(super) fn eval(op: BitOp, args: &[Vector]) -> Result<Vector> {
    let first = args
        .first()
        .ok_or_else(|| Error::internal("bit operator without operands"))?;
    match first.data.physical() {
        PhysicalType::Int16 => apply::<i16>(op, args),
        PhysicalType::Int32 => apply::<i32>(op, args),
        PhysicalType::Int64 => apply::<i64>(op, args),
        other => Err(Error::internal(format!("{} of {other:?}", op.symbol()))),
    }
}

#[cfg(test)]
mod tests {
    use super::shift;

    #[test]
    fn shifts_follow_the_promoted_width() {
        assert_eq!(shift(1i16, 16, true), 0);
        assert_eq!(shift(-8i16, 1, false), -4);
        assert_eq!(shift(1i32, 33, true), 2);
        assert_eq!(shift(1i64, 65, true), 2);
        assert_eq!(shift(5i32, -1, true), i32::MIN);
    }
}
