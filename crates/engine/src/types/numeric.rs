//! PostgreSQL NUMERIC as a fixed-point decimal: an `i128` mantissa and a decimal scale.
//! STUB: signatures fixed, bodies to be written.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use super::NumericTypmod;
use crate::error::Result;

/// value = mantissa / 10^scale. `scale` is PostgreSQL's display scale (dscale): 1.50 has
/// mantissa 150 and scale 2, and prints as `1.50`. Equality and order are by value.
#[derive(Debug, Clone, Copy)]
pub struct Decimal {
    mantissa: i128,
    scale: u32,
}

impl Decimal {
    pub const ZERO: Decimal = Decimal {
        mantissa: 0,
        scale: 0,
    };

    pub fn new(mantissa: i128, scale: u32) -> Decimal {
        Decimal { mantissa, scale }
    }
    pub fn mantissa(&self) -> i128 {
        self.mantissa
    }
    pub fn scale(&self) -> u32 {
        self.scale
    }
    pub fn from_i64(value: i64) -> Decimal {
        Decimal::new(value as i128, 0)
    }
    /// numeric_in. Errors: 22P02 `invalid input syntax for type numeric: "x"`; 22003 when
    /// the value does not fit (over 38 significant digits).
    pub fn parse(_text: &str) -> Result<Decimal> {
        unimplemented!()
    }
    /// float8 → numeric as PostgreSQL casts it (15 significant digits); NaN/Infinity → 0A000.
    pub fn from_f64(_value: f64) -> Result<Decimal> {
        unimplemented!()
    }
    /// float4 → numeric (6 significant digits).
    pub fn from_f32(_value: f32) -> Result<Decimal> {
        unimplemented!()
    }
    pub fn to_f64(&self) -> f64 {
        unimplemented!()
    }
    /// Rounds half away from zero; 22003 `bigint out of range` when it does not fit.
    pub fn to_i64(&self) -> Result<i64> {
        unimplemented!()
    }
    /// Result scale max(s1, s2), as PostgreSQL.
    pub fn checked_add(&self, _other: &Decimal) -> Result<Decimal> {
        unimplemented!()
    }
    pub fn checked_sub(&self, _other: &Decimal) -> Result<Decimal> {
        unimplemented!()
    }
    /// Result scale s1 + s2, as PostgreSQL.
    pub fn checked_mul(&self, _other: &Decimal) -> Result<Decimal> {
        unimplemented!()
    }
    /// Result scale by PostgreSQL's select_div_scale; 22012 on division by zero.
    pub fn checked_div(&self, _other: &Decimal) -> Result<Decimal> {
        unimplemented!()
    }
    /// numeric modulo (sign of the dividend); 22012 on zero.
    pub fn checked_rem(&self, _other: &Decimal) -> Result<Decimal> {
        unimplemented!()
    }
    pub fn neg(&self) -> Decimal {
        Decimal::new(-self.mantissa, self.scale)
    }
    pub fn abs(&self) -> Decimal {
        Decimal::new(self.mantissa.abs(), self.scale)
    }
    /// round(numeric, scale): half away from zero; a negative scale rounds left of the point.
    pub fn round(&self, _scale: i32) -> Result<Decimal> {
        unimplemented!()
    }
    /// Coerces to numeric(p, s): round to s, then 22003 `numeric field overflow` with
    /// PostgreSQL's detail if it needs more than p - s integer digits.
    pub fn apply_typmod(&self, _typmod: NumericTypmod) -> Result<Decimal> {
        unimplemented!()
    }
    /// numeric_out: all `scale` digits after the point.
    pub fn write_text(&self, _out: &mut Vec<u8>) {
        unimplemented!()
    }
}

impl PartialEq for Decimal {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Decimal {}
impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Decimal {
    fn cmp(&self, _other: &Self) -> Ordering {
        unimplemented!()
    }
}
/// Equal values hash equally whatever their scale (1.5 and 1.50).
impl Hash for Decimal {
    fn hash<H: Hasher>(&self, _state: &mut H) {
        unimplemented!()
    }
}
impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = Vec::new();
        self.write_text(&mut out);
        f.write_str(&String::from_utf8_lossy(&out))
    }
}
