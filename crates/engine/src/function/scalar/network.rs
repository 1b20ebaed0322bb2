//! Functions and operators of inet and cidr (network.c): text, host, abbrev, masklen,
//! set_masklen, netmask, hostmask, network, broadcast, family, inet_same_family,
//! inet_merge, the containment operators `<<`, `<<=`, `>>`, `>>=`, `&&`, and the bitwise
//! and arithmetic `~`, `&`, `|`, `+`, `-`. The value work is in [`crate::types::inet`].

use super::kernel::{map_rows, map_text_rows, values};
use crate::error::{Error, Result};
use crate::types::inet::{self, Inet};
use crate::vector::Vector;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkFunction {
    /// text(inet): the address and its mask length, always.
    Text,
    Host,
    Abbrev,
    Masklen,
    SetMasklen,
    Netmask,
    Hostmask,
    Network,
    Broadcast,
    Family,
    SameFamily,
    Merge,
    /// `<<` (strict) and `<<=`: the left side is within the right's network.
    Within {
        or_equal: bool,
    },
    /// `>>` (strict) and `>>=`: the left side's network holds the right.
    Contains {
        or_equal: bool,
    },
    /// `&&`
    Overlaps,
    /// `~`
    Not,
    /// `&`
    And,
    /// `|`
    Or,
    /// `inet + bigint`, and `bigint + inet` with `swapped`.
    Add {
        swapped: bool,
    },
    /// `inet - bigint`
    SubtractInt,
    /// `inet - inet`
    Difference,
}

impl NetworkFunction {
    pub fn name(self) -> &'static str {
        match self {
            NetworkFunction::Text => "text",
            NetworkFunction::Host => "host",
            NetworkFunction::Abbrev => "abbrev",
            NetworkFunction::Masklen => "masklen",
            NetworkFunction::SetMasklen => "set_masklen",
            NetworkFunction::Netmask => "netmask",
            NetworkFunction::Hostmask => "hostmask",
            NetworkFunction::Network => "network",
            NetworkFunction::Broadcast => "broadcast",
            NetworkFunction::Family => "family",
            NetworkFunction::SameFamily => "inet_same_family",
            NetworkFunction::Merge => "inet_merge",
            NetworkFunction::Within { or_equal: false } => "<<",
            NetworkFunction::Within { or_equal: true } => "<<=",
            NetworkFunction::Contains { or_equal: false } => ">>",
            NetworkFunction::Contains { or_equal: true } => ">>=",
            NetworkFunction::Overlaps => "&&",
            NetworkFunction::Not => "~",
            NetworkFunction::And => "&",
            NetworkFunction::Or => "|",
            NetworkFunction::Add { .. } => "+",
            NetworkFunction::SubtractInt | NetworkFunction::Difference => "-",
        }
    }

    pub(super) fn eval(self, args: &[Vector]) -> Result<Vector> {
        if let NetworkFunction::Add { swapped: true } = self {
            let (n, a) = (values::<i64>(args, 0)?, values::<Inet>(args, 1)?);
            return map_rows(args, |row| a[row].offset(n[row]));
        }
        let a = values::<Inet>(args, 0)?;
        let text = |write: fn(Inet, &mut Vec<u8>)| {
            map_text_rows(args, |row, out| {
                write(a[row], out);
                Ok(())
            })
        };
        let each = |f: fn(Inet) -> Inet| map_rows(args, |row| Ok(f(a[row])));
        match self {
            NetworkFunction::Text => text(inet::write_text_with_mask),
            NetworkFunction::Host => text(inet::write_host),
            NetworkFunction::Abbrev => text(inet::write_abbrev),
            NetworkFunction::Masklen => map_rows(args, |row| Ok(i32::from(a[row].bits))),
            NetworkFunction::Family => map_rows(args, |row| Ok(a[row].family())),
            NetworkFunction::SetMasklen => {
                let bits = values::<i32>(args, 1)?;
                map_rows(args, |row| a[row].set_masklen(bits[row]))
            }
            NetworkFunction::Netmask => each(Inet::netmask),
            NetworkFunction::Hostmask => each(Inet::hostmask),
            NetworkFunction::Network => each(Inet::network),
            NetworkFunction::Broadcast => each(Inet::broadcast),
            NetworkFunction::Not => each(Inet::complement),
            NetworkFunction::SubtractInt => {
                let n = values::<i64>(args, 1)?;
                map_rows(args, |row| {
                    let n = n[row]
                        .checked_neg()
                        .ok_or_else(|| Error::out_of_range("result is out of range"))?;
                    a[row].offset(n)
                })
            }
            NetworkFunction::Add { .. } => {
                let n = values::<i64>(args, 1)?;
                map_rows(args, |row| a[row].offset(n[row]))
            }
            NetworkFunction::SameFamily
            | NetworkFunction::Merge
            | NetworkFunction::Within { .. }
            | NetworkFunction::Contains { .. }
            | NetworkFunction::Overlaps
            | NetworkFunction::And
            | NetworkFunction::Or
            | NetworkFunction::Difference => self.eval_pair(args, a),
        }
    }

    /// The functions of two addresses.
    fn eval_pair(self, args: &[Vector], a: &[Inet]) -> Result<Vector> {
        let b = values::<Inet>(args, 1)?;
        let test = |f: fn(Inet, Inet) -> bool| map_rows(args, |row| Ok(f(a[row], b[row])));
        match self {
            NetworkFunction::SameFamily => test(|x, y| x.v6 == y.v6),
            NetworkFunction::Within { or_equal } => {
                map_rows(args, |row| Ok(a[row].is_within(b[row], or_equal)))
            }
            NetworkFunction::Contains { or_equal } => {
                map_rows(args, |row| Ok(b[row].is_within(a[row], or_equal)))
            }
            NetworkFunction::Overlaps => test(Inet::overlaps),
            NetworkFunction::Merge => map_rows(args, |row| a[row].merge(b[row])),
            NetworkFunction::And => map_rows(args, |row| a[row].bitwise(b[row], false)),
            NetworkFunction::Or => map_rows(args, |row| a[row].bitwise(b[row], true)),
            NetworkFunction::Difference => map_rows(args, |row| a[row].subtract(b[row])),
            NetworkFunction::Text
            | NetworkFunction::Host
            | NetworkFunction::Abbrev
            | NetworkFunction::Masklen
            | NetworkFunction::SetMasklen
            | NetworkFunction::Netmask
            | NetworkFunction::Hostmask
            | NetworkFunction::Network
            | NetworkFunction::Broadcast
            | NetworkFunction::Family
            | NetworkFunction::Not
            | NetworkFunction::Add { .. }
            | NetworkFunction::SubtractInt => Err(Error::internal(format!(
                "{} is not a pair function",
                self.name()
            ))),
        }
    }
}
