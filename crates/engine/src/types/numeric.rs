//! PostgreSQL NUMERIC as a fixed-point decimal: an `i128` mantissa and a decimal scale.
//!
//! The scale is PostgreSQL's display scale, so results carry the scale PostgreSQL gives them
//! (sum: the larger input scale, product: the sum of scales, quotient: `select_div_scale`) and
//! print all of its digits. Values hold 38 significant digits (39 below 1.7e38); anything needing more
//! is 22003 `value overflows numeric format` rather than a silently rounded answer. Division
//! and remainder widen to 256 bits internally, so only the result has to fit.
//!
//! NaN, Infinity and -Infinity are a mantissa of 0 with a scale above any display scale.
//! Two values of one kind then share a scale, so the same-scale fast paths of addition
//! (NaN + NaN, Inf + Inf) and comparison (NaN = NaN) are right without an extra test, and
//! only the slower mixed-scale paths look for special values.

use std::cmp::Ordering;
use std::fmt;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};

use super::float::{trim_pg_space, StackBuf};
use super::wide::U256;
use super::NumericTypmod;
use crate::error::{Error, Result, SqlState};

/// Largest mantissa magnitude: all of i128 but its minimum, so that negation never overflows
/// (every 38-digit value and some of 39 digits).
const MAX_MANTISSA: u128 = i128::MAX as u128;
/// PostgreSQL's NUMERIC_DSCALE_MAX: the largest display scale a value can carry.
const MAX_SCALE: u32 = 16383;
/// The most digits before the point PostgreSQL's numeric holds (NUMERIC_WEIGHT_MAX + 1
/// base-10000 digits).
const MAX_INT_DIGITS: i64 = 131_072;
/// PostgreSQL's NUMERIC_MIN_SIG_DIGITS: a quotient keeps at least this many significant digits.
const MIN_SIG_DIGITS: i64 = 16;
/// PostgreSQL's NUMERIC_MAX_DISPLAY_SCALE: the largest scale a quotient is given.
const MAX_DISPLAY_SCALE: i64 = 1000;
/// PostgreSQL's NUMERIC_MAX_RESULT_SCALE: round() clamps its scale argument to this.
const MAX_RESULT_SCALE: i32 = 2000;

/// The scales that mark PostgreSQL's special values (with a mantissa of 0).
const NAN_SCALE: u32 = u32::MAX;
const POS_INF_SCALE: u32 = u32::MAX - 1;
const NEG_INF_SCALE: u32 = u32::MAX - 2;

/// PostgreSQL's special numeric values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    NaN,
    PosInf,
    NegInf,
}

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

    pub const NAN: Decimal = Decimal {
        mantissa: 0,
        scale: NAN_SCALE,
    };
    pub const POS_INFINITY: Decimal = Decimal {
        mantissa: 0,
        scale: POS_INF_SCALE,
    };
    pub const NEG_INFINITY: Decimal = Decimal {
        mantissa: 0,
        scale: NEG_INF_SCALE,
    };

    pub fn new(mantissa: i128, scale: u32) -> Decimal {
        Decimal { mantissa, scale }
    }
    /// A decimal read back from disk: `None` for a mantissa or scale no computation makes
    /// (i128::MIN, whose negation overflows; a scale past PostgreSQL's maximum that does not
    /// mark a special value).
    pub fn from_parts(mantissa: i128, scale: u32) -> Option<Decimal> {
        let value = Decimal { mantissa, scale };
        let valid = match value.special() {
            Some(_) => mantissa == 0,
            None => mantissa != i128::MIN && scale <= MAX_SCALE,
        };
        valid.then_some(value)
    }
    pub fn from_special(special: Special) -> Decimal {
        match special {
            Special::NaN => Decimal::NAN,
            Special::PosInf => Decimal::POS_INFINITY,
            Special::NegInf => Decimal::NEG_INFINITY,
        }
    }
    /// NaN or an infinity; `None` for a finite value, the only kind whose mantissa and scale
    /// mean anything.
    #[inline]
    pub fn special(&self) -> Option<Special> {
        match self.scale {
            NAN_SCALE => Some(Special::NaN),
            POS_INF_SCALE => Some(Special::PosInf),
            NEG_INF_SCALE => Some(Special::NegInf),
            _ => None,
        }
    }
    #[inline]
    pub fn is_finite(&self) -> bool {
        self.scale <= MAX_SCALE
    }
    pub fn is_nan(&self) -> bool {
        self.scale == NAN_SCALE
    }
    /// -1, 0 or 1 as PostgreSQL's numeric_sign_internal (infinities have a sign); None for NaN.
    pub fn signum(&self) -> Option<i32> {
        match self.special() {
            Some(Special::NaN) => None,
            Some(Special::PosInf) => Some(1),
            Some(Special::NegInf) => Some(-1),
            None => Some(self.mantissa.signum() as i32),
        }
    }
    /// The mantissa of a finite value (0 for a special one: check [`Decimal::special`] first).
    pub fn mantissa(&self) -> i128 {
        self.mantissa
    }
    /// The display scale of a finite value (a marker past 16383 for a special one).
    pub fn scale(&self) -> u32 {
        self.scale
    }
    pub fn from_i64(value: i64) -> Decimal {
        Decimal::new(value as i128, 0)
    }
    /// numeric_in. Errors: 22P02 `invalid input syntax for type numeric: "x"`; 22003 past
    /// PostgreSQL's own limits (131072 digits before the point, a scale of 16383); 0A000
    /// for a value within them that 38 significant digits cannot hold.
    pub fn parse(text: &str) -> Result<Decimal> {
        let invalid = || Error::invalid_input("numeric", text);
        let trimmed = trim_pg_space(text);
        if let Some(special) = special_word(trimmed) {
            return Ok(Decimal::from_special(special));
        }
        let bytes = trimmed.as_bytes();
        let (negative, mut pos) = match bytes.first() {
            Some(b'-') => (true, 1),
            Some(b'+') => (false, 1),
            _ => (false, 0),
        };
        let mut magnitude: u128 = 0;
        let mut too_many_digits = false;
        let mut any_digit = false;
        let mut seen_point = false;
        let mut frac_digits: i64 = 0;
        // Digits before the point from the first non-zero one: PostgreSQL's weight.
        let mut int_digits: i64 = 0;
        while let Some(&b) = bytes.get(pos) {
            match b {
                b'0'..=b'9' => {
                    any_digit = true;
                    if !seen_point && (b != b'0' || int_digits > 0) {
                        int_digits += 1;
                    }
                    let next = magnitude
                        .checked_mul(10)
                        .and_then(|m| m.checked_add(u128::from(b - b'0')));
                    magnitude = next.unwrap_or(u128::MAX);
                    if magnitude > MAX_MANTISSA {
                        // Keep scanning so that a syntax error still wins, as in PostgreSQL.
                        too_many_digits = true;
                        magnitude = 0;
                    }
                    if seen_point {
                        frac_digits += 1;
                    }
                }
                b'.' if !seen_point => seen_point = true,
                _ => break,
            }
            pos += 1;
        }
        if !any_digit {
            return Err(invalid());
        }
        let mut exponent: i64 = 0;
        if matches!(bytes.get(pos), Some(b'e' | b'E')) {
            pos += 1;
            let exp_negative = match bytes.get(pos) {
                Some(b'-') => {
                    pos += 1;
                    true
                }
                Some(b'+') => {
                    pos += 1;
                    false
                }
                _ => false,
            };
            let start = pos;
            while let Some(&b) = bytes.get(pos).filter(|b| b.is_ascii_digit()) {
                // Saturate: anything this large overflows the format anyway.
                exponent = (exponent * 10 + i64::from(b - b'0')).min(1 << 40);
                pos += 1;
            }
            if pos == start {
                return Err(invalid());
            }
            if exp_negative {
                exponent = -exponent;
            }
        }
        if pos != bytes.len() {
            return Err(invalid());
        }
        let scale = frac_digits - exponent;
        // PostgreSQL's limits: its exponent check, then make_result's weight and scale.
        let beyond_postgres = exponent.abs() >= i64::from(i32::MAX / 2)
            || int_digits + exponent > MAX_INT_DIGITS
            || scale > i64::from(MAX_SCALE);
        let too_wide = || match beyond_postgres {
            true => overflow(),
            false => beyond_our_digits(),
        };
        if too_many_digits || beyond_postgres {
            return Err(too_wide());
        }
        if scale >= 0 {
            let scale = u32::try_from(scale).map_err(|_| overflow())?;
            make(negative, magnitude, scale)
        } else {
            let magnitude = scale_up(magnitude, scale.unsigned_abs()).ok_or_else(too_wide)?;
            make(negative, magnitude, 0)
        }
    }
    /// float8 → numeric as PostgreSQL casts it (15 significant digits); NaN and the
    /// infinities map to their numeric kin.
    pub fn from_f64(value: f64) -> Result<Decimal> {
        if let Some(special) = float_special(value) {
            return Ok(special);
        }
        let mut buf = StackBuf::new();
        // `%.15g`: 15 significant digits, correctly rounded (ties to even, as glibc).
        let _ = write!(buf, "{value:.14e}");
        parse_g_format(buf.as_str())
    }
    /// float4 → numeric (6 significant digits).
    pub fn from_f32(value: f32) -> Result<Decimal> {
        if let Some(special) = float_special(f64::from(value)) {
            return Ok(special);
        }
        let mut buf = StackBuf::new();
        let _ = write!(buf, "{:.5e}", f64::from(value));
        parse_g_format(buf.as_str())
    }
    /// The nearest double, as numeric_float8 gets it: by reading the decimal text.
    pub fn to_f64(&self) -> f64 {
        if let Some(special) = self.special() {
            return special_to_f64(special);
        }
        let mut buf = StackBuf::new();
        let _ = write!(buf, "{}e-{}", self.mantissa, self.scale);
        // The text is always a valid float literal; 0.0 is unreachable.
        buf.as_str().parse().unwrap_or(0.0)
    }
    /// The nearest float4, read straight from the decimal text (no double rounding).
    pub fn to_f32(&self) -> f32 {
        if let Some(special) = self.special() {
            return special_to_f64(special) as f32;
        }
        let mut buf = StackBuf::new();
        let _ = write!(buf, "{}e-{}", self.mantissa, self.scale);
        buf.as_str().parse().unwrap_or(0.0)
    }
    /// The value rounded half away from zero to an integer; None if it exceeds i128 or is
    /// not finite.
    pub fn to_i128(&self) -> Option<i128> {
        if !self.is_finite() {
            return None;
        }
        let magnitude = round_div_pow10(self.mantissa.unsigned_abs(), self.scale);
        let value = i128::try_from(magnitude).ok()?;
        Some(if self.mantissa < 0 { -value } else { value })
    }
    /// Rounds half away from zero; 22003 `bigint out of range` when it does not fit.
    pub fn to_i64(&self) -> Result<i64> {
        self.check_integral("bigint")?;
        self.to_i128()
            .and_then(|v| i64::try_from(v).ok())
            .ok_or_else(|| Error::out_of_range("bigint out of range"))
    }
    /// numeric_int4 and its kin refuse NaN and the infinities: 0A000 `cannot convert NaN to
    /// integer` (`type_name` is the target's name).
    pub fn check_integral(&self, type_name: &str) -> Result<()> {
        match self.special() {
            None => Ok(()),
            Some(Special::NaN) => Err(Error::new(
                SqlState::FeatureNotSupported,
                format!("cannot convert NaN to {type_name}"),
            )),
            Some(Special::PosInf | Special::NegInf) => Err(Error::new(
                SqlState::FeatureNotSupported,
                format!("cannot convert infinity to {type_name}"),
            )),
        }
    }
    /// Result scale max(s1, s2), as PostgreSQL. Inlined for the common case of one column's
    /// values (equal scales, no overflow), which sums and additions repeat per row.
    #[inline(always)]
    pub fn checked_add(&self, other: &Decimal) -> Result<Decimal> {
        if self.scale == other.scale {
            if let Some(mantissa) = self.mantissa.checked_add(other.mantissa) {
                if mantissa != i128::MIN {
                    return Ok(Decimal {
                        mantissa,
                        scale: self.scale,
                    });
                }
            }
        }
        self.checked_add_rescaled(other)
    }

    fn checked_add_rescaled(&self, other: &Decimal) -> Result<Decimal> {
        if !self.is_finite() || !other.is_finite() {
            return Ok(special_add(self, other));
        }
        let (a, b, scale) = align(self, other)?;
        bounded(a.checked_add(b), scale)
    }
    pub fn checked_sub(&self, other: &Decimal) -> Result<Decimal> {
        if !self.is_finite() || !other.is_finite() {
            return Ok(special_add(self, &other.neg()));
        }
        let (a, b, scale) = align(self, other)?;
        bounded(a.checked_sub(b), scale)
    }
    /// Result scale s1 + s2, as PostgreSQL.
    pub fn checked_mul(&self, other: &Decimal) -> Result<Decimal> {
        if !self.is_finite() || !other.is_finite() {
            return Ok(special_mul(self, other));
        }
        let scale = self
            .scale
            .checked_add(other.scale)
            .filter(|&s| s <= MAX_SCALE)
            .ok_or_else(overflow)?;
        bounded(self.mantissa.checked_mul(other.mantissa), scale)
    }
    /// Result scale by PostgreSQL's select_div_scale; 22012 on division by zero.
    pub fn checked_div(&self, other: &Decimal) -> Result<Decimal> {
        if !self.is_finite() || !other.is_finite() {
            return special_div(self, other);
        }
        if other.mantissa == 0 {
            return Err(Error::division_by_zero());
        }
        let rscale = div_scale(self, other);
        let negative = (self.mantissa < 0) != (other.mantissa < 0);
        if self.mantissa == 0 {
            return Ok(Decimal::new(0, rscale));
        }
        // quotient = m1 * 10^(rscale - s1 + s2) / m2, rounded; rscale >= s1 always.
        let shift = rscale - self.scale + other.scale;
        let divisor = other.mantissa.unsigned_abs();
        let numerator = U256::from_u128(self.mantissa.unsigned_abs())
            .mul_pow10(shift)
            .ok_or_else(overflow)?;
        let (quotient, remainder) = numerator.div_rem(divisor);
        let mut quotient = quotient.to_u128().ok_or_else(overflow)?;
        if remainder >= divisor - remainder {
            quotient += 1;
        }
        make(negative, quotient, rscale)
    }
    /// numeric modulo (sign of the dividend); 22012 on zero.
    pub fn checked_rem(&self, other: &Decimal) -> Result<Decimal> {
        if !self.is_finite() || !other.is_finite() {
            return special_rem(self, other);
        }
        if other.mantissa == 0 {
            return Err(Error::division_by_zero());
        }
        let negative = self.mantissa < 0;
        let (a, b) = (self.mantissa.unsigned_abs(), other.mantissa.unsigned_abs());
        if self.scale >= other.scale {
            // A divisor too wide for 128 bits exceeds the dividend: the remainder is it.
            let remainder = match scale_up(b, u64::from(self.scale - other.scale)) {
                Some(b) => a % b,
                None => a,
            };
            make(negative, remainder, self.scale)
        } else {
            let a = U256::from_u128(a)
                .mul_pow10(other.scale - self.scale)
                .ok_or_else(overflow)?;
            make(negative, a.div_rem(b).1, other.scale)
        }
    }
    pub fn neg(&self) -> Decimal {
        match self.special() {
            Some(Special::PosInf) => Decimal::NEG_INFINITY,
            Some(Special::NegInf) => Decimal::POS_INFINITY,
            Some(Special::NaN) | None => Decimal::new(-self.mantissa, self.scale),
        }
    }
    pub fn abs(&self) -> Decimal {
        match self.special() {
            Some(Special::NegInf) => Decimal::POS_INFINITY,
            Some(Special::NaN | Special::PosInf) | None => {
                Decimal::new(self.mantissa.abs(), self.scale)
            }
        }
    }
    /// round(numeric, scale): half away from zero; a negative scale rounds left of the point.
    pub fn round(&self, scale: i32) -> Result<Decimal> {
        if !self.is_finite() {
            return Ok(*self);
        }
        let target = i64::from(scale.clamp(-MAX_RESULT_SCALE, MAX_RESULT_SCALE));
        let current = i64::from(self.scale);
        let negative = self.mantissa < 0;
        let magnitude = self.mantissa.unsigned_abs();
        if target >= current {
            let magnitude =
                scale_up(magnitude, (target - current).unsigned_abs()).ok_or_else(overflow)?;
            return make(negative, magnitude, target.unsigned_abs() as u32);
        }
        let dropped = u32::try_from(current - target).unwrap_or(u32::MAX);
        let rounded = round_div_pow10(magnitude, dropped);
        if target >= 0 {
            make(negative, rounded, target as u32)
        } else {
            // A negative scale leaves zeros left of the point and a display scale of 0.
            let rounded = scale_up(rounded, target.unsigned_abs()).ok_or_else(overflow)?;
            make(negative, rounded, 0)
        }
    }
    /// Coerces to numeric(p, s): round to s, then 22003 `numeric field overflow` with
    /// PostgreSQL's detail if it needs more than p - s integer digits.
    pub fn apply_typmod(&self, typmod: NumericTypmod) -> Result<Decimal> {
        match self.special() {
            None => {}
            Some(Special::NaN) => return Ok(*self),
            Some(Special::PosInf | Special::NegInf) => {
                return Err(field_overflow().with_detail(format!(
                    "A field with precision {}, scale {} cannot hold an infinite value.",
                    typmod.precision, typmod.scale
                )))
            }
        }
        let rounded = self.round(i32::try_from(typmod.scale).unwrap_or(i32::MAX))?;
        // After rounding to scale s, |value| < 10^(p - s) exactly when |mantissa| < 10^p.
        let fits = match 10u128.checked_pow(typmod.precision) {
            Some(limit) => rounded.mantissa.unsigned_abs() < limit,
            None => true,
        };
        if fits {
            return Ok(rounded);
        }
        Err(typmod_overflow(typmod))
    }
    /// numeric_out: all `scale` digits after the point.
    pub fn write_text(&self, out: &mut Vec<u8>) {
        if let Some(special) = self.special() {
            out.extend_from_slice(special_text(special).as_bytes());
            return;
        }
        let mut buf = [0u8; 40];
        let mut pos = buf.len();
        let mut magnitude = self.mantissa.unsigned_abs();
        loop {
            pos -= 1;
            buf[pos] = b'0' + (magnitude % 10) as u8;
            magnitude /= 10;
            if magnitude == 0 {
                break;
            }
        }
        let digits = &buf[pos..];
        if self.mantissa < 0 {
            out.push(b'-');
        }
        let scale = self.scale as usize;
        if scale == 0 {
            out.extend_from_slice(digits);
        } else if digits.len() > scale {
            let (int_part, frac_part) = digits.split_at(digits.len() - scale);
            out.extend_from_slice(int_part);
            out.push(b'.');
            out.extend_from_slice(frac_part);
        } else {
            out.extend_from_slice(b"0.");
            out.resize(out.len() + scale - digits.len(), b'0');
            out.extend_from_slice(digits);
        }
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
    fn cmp(&self, other: &Self) -> Ordering {
        if self.scale == other.scale {
            return self.mantissa.cmp(&other.mantissa);
        }
        if !self.is_finite() || !other.is_finite() {
            return order_rank(self).cmp(&order_rank(other));
        }
        let (sa, sb) = (self.mantissa.signum(), other.mantissa.signum());
        if sa != sb || sa == 0 {
            return sa.cmp(&sb);
        }
        // Same sign: compare magnitudes at the larger scale. A magnitude that overflows
        // 128 bits when rescaled is the larger one.
        let (a, b) = (self.mantissa.unsigned_abs(), other.mantissa.unsigned_abs());
        let magnitude_order = if self.scale < other.scale {
            scale_up(a, u64::from(other.scale - self.scale))
                .map_or(Ordering::Greater, |a| a.cmp(&b))
        } else {
            scale_up(b, u64::from(self.scale - other.scale)).map_or(Ordering::Less, |b| a.cmp(&b))
        };
        if sa > 0 {
            magnitude_order
        } else {
            magnitude_order.reverse()
        }
    }
}
/// Equal values hash equally whatever their scale (1.5 and 1.50).
impl Hash for Decimal {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let (mut mantissa, mut scale) = (self.mantissa, self.scale);
        if mantissa == 0 {
            // Zero at any scale is one value; a special value is its marker scale.
            scale = if self.is_finite() { 0 } else { self.scale };
        } else {
            while scale > 0 && mantissa % 10 == 0 {
                mantissa /= 10;
                scale -= 1;
            }
        }
        mantissa.hash(state);
        scale.hash(state);
    }
}
impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = Vec::new();
        self.write_text(&mut out);
        f.write_str(&String::from_utf8_lossy(&out))
    }
}

fn beyond_our_digits() -> Error {
    Error::unsupported("a numeric value of more than 38 significant digits")
}

fn overflow() -> Error {
    Error::out_of_range("value overflows numeric format")
}

/// The message of a value too wide for a numeric(p, s) column: raised by the typmod's
/// coercion, never by numeric's input function.
pub const FIELD_OVERFLOW: &str = "numeric field overflow";

fn field_overflow() -> Error {
    Error::out_of_range(FIELD_OVERFLOW)
}

/// 22003 for a finite value that numeric(p, s) cannot hold, with PostgreSQL's detail.
pub fn typmod_overflow(typmod: NumericTypmod) -> Error {
    let max_digits = i64::from(typmod.precision) - i64::from(typmod.scale);
    let bound = if max_digits == 0 {
        "1".to_string()
    } else {
        format!("10^{max_digits}")
    };
    field_overflow().with_detail(format!(
        "A field with precision {}, scale {} must round to an absolute value less than {bound}.",
        typmod.precision, typmod.scale
    ))
}

/// The special inputs numeric_in recognizes before digits: NaN and the infinities.
fn special_word(text: &str) -> Option<Special> {
    const WORDS: [(&str, Special); 7] = [
        ("nan", Special::NaN),
        ("infinity", Special::PosInf),
        ("+infinity", Special::PosInf),
        ("-infinity", Special::NegInf),
        ("inf", Special::PosInf),
        ("+inf", Special::PosInf),
        ("-inf", Special::NegInf),
    ];
    WORDS
        .iter()
        .find(|(word, _)| text.eq_ignore_ascii_case(word))
        .map(|&(_, special)| special)
}

/// numeric_out's spelling of a special value.
pub fn special_text(special: Special) -> &'static str {
    match special {
        Special::NaN => "NaN",
        Special::PosInf => "Infinity",
        Special::NegInf => "-Infinity",
    }
}

fn float_special(value: f64) -> Option<Decimal> {
    if value.is_nan() {
        Some(Decimal::NAN)
    } else if value.is_infinite() {
        Some(if value > 0.0 {
            Decimal::POS_INFINITY
        } else {
            Decimal::NEG_INFINITY
        })
    } else {
        None
    }
}

fn special_to_f64(special: Special) -> f64 {
    match special {
        Special::NaN => f64::NAN,
        Special::PosInf => f64::INFINITY,
        Special::NegInf => f64::NEG_INFINITY,
    }
}

/// PostgreSQL's order: -Infinity, the finite values, Infinity, then NaN above everything.
fn order_rank(d: &Decimal) -> u8 {
    match d.special() {
        Some(Special::NegInf) => 0,
        None => 1,
        Some(Special::PosInf) => 2,
        Some(Special::NaN) => 3,
    }
}

/// a + b when either is NaN or infinite (numeric_add): opposite infinities give NaN.
fn special_add(a: &Decimal, b: &Decimal) -> Decimal {
    match (a.special(), b.special()) {
        (Some(Special::NaN), _) | (_, Some(Special::NaN)) => Decimal::NAN,
        (Some(Special::PosInf), Some(Special::NegInf))
        | (Some(Special::NegInf), Some(Special::PosInf)) => Decimal::NAN,
        (Some(_), _) => *a,
        (None, _) => *b,
    }
}

/// a * b when either is NaN or infinite (numeric_mul): zero times infinity is NaN.
fn special_mul(a: &Decimal, b: &Decimal) -> Decimal {
    match (a.signum(), b.signum()) {
        (None, _) | (_, None) | (Some(0), _) | (_, Some(0)) => Decimal::NAN,
        (Some(x), Some(y)) if x == y => Decimal::POS_INFINITY,
        _ => Decimal::NEG_INFINITY,
    }
}

/// a / b when either is NaN or infinite (numeric_div): infinity over infinity is NaN,
/// infinity over zero still 22012, a finite value over an infinity 0.
fn special_div(a: &Decimal, b: &Decimal) -> Result<Decimal> {
    if a.is_nan() || b.is_nan() {
        return Ok(Decimal::NAN);
    }
    if a.is_finite() {
        return Ok(Decimal::ZERO);
    }
    match b.signum() {
        _ if !b.is_finite() => Ok(Decimal::NAN),
        Some(0) => Err(Error::division_by_zero()),
        Some(sign) if sign < 0 => Ok(a.neg()),
        _ => Ok(*a),
    }
}

/// a % b when either is NaN or infinite (numeric_mod): infinity % x is NaN (22012 for 0),
/// x % infinity is x.
fn special_rem(a: &Decimal, b: &Decimal) -> Result<Decimal> {
    if a.is_nan() || b.is_nan() {
        return Ok(Decimal::NAN);
    }
    if a.is_finite() {
        return Ok(*a);
    }
    if b.signum() == Some(0) {
        return Err(Error::division_by_zero());
    }
    Ok(Decimal::NAN)
}

/// A value from a sign and magnitude, or 22003 if the magnitude has more than 38 digits.
fn make(negative: bool, magnitude: u128, scale: u32) -> Result<Decimal> {
    if magnitude > MAX_MANTISSA {
        return Err(overflow());
    }
    let value = magnitude as i128;
    Ok(Decimal::new(if negative { -value } else { value }, scale))
}

/// A sum, difference or product: past 38 digits it has more significant digits than we
/// hold, which PostgreSQL would (its limit is 131072 digits before the point): 0A000, not
/// 22003.
fn bounded(mantissa: Option<i128>, scale: u32) -> Result<Decimal> {
    match mantissa {
        Some(m) if m.unsigned_abs() <= MAX_MANTISSA => make(m < 0, m.unsigned_abs(), scale),
        _ => Err(beyond_our_digits()),
    }
}

/// magnitude * 10^by, None on overflow of 128 bits.
fn scale_up(magnitude: u128, by: u64) -> Option<u128> {
    if magnitude == 0 {
        return Some(0);
    }
    magnitude.checked_mul(10u128.checked_pow(u32::try_from(by).ok()?)?)
}

/// magnitude / 10^digits rounded half away from zero.
fn round_div_pow10(magnitude: u128, digits: u32) -> u128 {
    match 10u128.checked_pow(digits) {
        Some(divisor) => {
            let (quotient, remainder) = (magnitude / divisor, magnitude % divisor);
            quotient + u128::from(remainder >= divisor / 2 && divisor > 1)
        }
        // 10^39 exceeds u128 and is more than twice any magnitude: it rounds to zero.
        None => 0,
    }
}

/// Both mantissas at the larger of the two scales.
fn align(a: &Decimal, b: &Decimal) -> Result<(i128, i128, u32)> {
    // The common case in sums over one column: nothing to rescale.
    if a.scale == b.scale {
        return Ok((a.mantissa, b.mantissa, a.scale));
    }
    let rescale = |d: &Decimal, scale: u32| -> Result<i128> {
        let magnitude = scale_up(d.mantissa.unsigned_abs(), u64::from(scale - d.scale))
            .and_then(|m| i128::try_from(m).ok())
            .ok_or_else(beyond_our_digits)?;
        Ok(if d.mantissa < 0 {
            -magnitude
        } else {
            magnitude
        })
    };
    let scale = a.scale.max(b.scale);
    Ok((rescale(a, scale)?, rescale(b, scale)?, scale))
}

/// PostgreSQL's select_div_scale: at least 16 significant digits in the quotient, and no
/// fewer decimals than either input. Weights are in base-10000 digits as in numeric.c.
fn div_scale(a: &Decimal, b: &Decimal) -> u32 {
    let (weight1, first1) = base10000_lead(a);
    let (weight2, first2) = base10000_lead(b);
    let mut qweight = weight1 - weight2;
    if first1 <= first2 {
        qweight -= 1;
    }
    let rscale = (MIN_SIG_DIGITS - qweight * 4)
        .max(i64::from(a.scale))
        .max(i64::from(b.scale))
        .clamp(0, MAX_DISPLAY_SCALE.max(i64::from(a.scale.max(b.scale))));
    rscale as u32
}

/// The weight (power of 10000) and value of the leading non-zero base-10000 digit of |d|,
/// (0, 0) for zero.
fn base10000_lead(d: &Decimal) -> (i64, u128) {
    let magnitude = d.mantissa.unsigned_abs();
    if magnitude == 0 {
        return (0, 0);
    }
    let digits = i64::from(magnitude.ilog10()) + 1;
    let exponent = digits - 1 - i64::from(d.scale);
    let weight = exponent.div_euclid(4);
    let shift = i64::from(d.scale) + 4 * weight;
    let first = if shift >= 0 {
        magnitude / 10u128.pow(shift as u32)
    } else {
        magnitude * 10u128.pow((-shift) as u32)
    };
    (weight, first)
}

/// Reads Rust's `{:.Ne}` output as C's `%g` would have printed it: trailing zeros of the
/// significand are dropped, so they do not count towards the display scale.
fn parse_g_format(sci: &str) -> Result<Decimal> {
    let (significand, exponent) = sci.split_once('e').unwrap_or((sci, "0"));
    let significand = if significand.contains('.') {
        significand.trim_end_matches('0').trim_end_matches('.')
    } else {
        significand
    };
    let mut buf = StackBuf::new();
    let _ = write!(buf, "{significand}e{exponent}");
    Decimal::parse(buf.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(text: &str) -> Decimal {
        Decimal::parse(text).expect("test literal parses")
    }

    fn s(value: Result<Decimal>) -> String {
        value.expect("operation succeeds").to_string()
    }

    fn typmod(precision: u32, scale: u32) -> NumericTypmod {
        NumericTypmod { precision, scale }
    }

    // Every expected value below was checked against PostgreSQL 15.
    #[test]
    fn input_and_output() {
        assert_eq!(n("  -0.0 ").to_string(), "0.0");
        assert_eq!(n(".5").to_string(), "0.5");
        assert_eq!(n("5.").to_string(), "5");
        assert_eq!(n("1e3").to_string(), "1000");
        assert_eq!(n("1.5e-3").to_string(), "0.0015");
        assert_eq!(n("+1.23E+2").to_string(), "123");
        assert_eq!(n("-.000").to_string(), "0.000");
        assert_eq!(n("-12.340").to_string(), "-12.340");
        assert_eq!(
            n("123456789012345678901234567890123456789").to_string(),
            "123456789012345678901234567890123456789"
        );
        for bad in ["abc", "1..2", " ", "", " 1e ", "1e", "-", "1 2", "e5"] {
            let err = Decimal::parse(bad).expect_err("invalid");
            assert_eq!(err.sqlstate(), "22P02", "{bad}");
            assert_eq!(
                err.message,
                format!("invalid input syntax for type numeric: \"{bad}\"")
            );
        }
        for (text, printed) in [
            (" nan ", "NaN"),
            ("Infinity", "Infinity"),
            ("+inf", "Infinity"),
            ("-INFINITY", "-Infinity"),
            ("-inf", "-Infinity"),
        ] {
            assert_eq!(n(text).to_string(), printed, "{text}");
        }
        assert_eq!(
            Decimal::parse("infinit").expect_err("word").sqlstate(),
            "22P02"
        );
        let err = Decimal::parse("1e-20000").expect_err("overflow");
        assert_eq!(err.message, "value overflows numeric format");
        // Valid in PostgreSQL but wider than 38 digits (even than the u128 accumulator):
        // 0A000; past PostgreSQL's own limits: 22003.
        for text in [
            "1e40",
            "123456789012345678901234567890123456789012",
            &"9".repeat(80),
            "1.000000000000000000000000000000000000000000000",
            "1e131071",
        ] {
            assert_eq!(
                Decimal::parse(text).expect_err("too wide").sqlstate(),
                "0A000"
            );
        }
        for text in [
            "1e131072",
            "1e1073741823",
            &format!("1{}", "0".repeat(131_072)),
        ] {
            assert_eq!(
                Decimal::parse(text).expect_err("overflow").sqlstate(),
                "22003"
            );
        }
    }

    #[test]
    fn arithmetic_scales() {
        assert_eq!(s(n("1.5").checked_add(&n("2.25"))), "3.75");
        assert_eq!(s(n("1.5").checked_sub(&n("2.25"))), "-0.75");
        assert_eq!(s(n("1.50").checked_mul(&n("2.5"))), "3.750");
        assert_eq!(s(n("-0.0").checked_mul(&n("5"))), "0.0");
        assert_eq!(s(n("1").checked_div(&n("3"))), "0.33333333333333333333");
        assert_eq!(s(n("10").checked_div(&n("4"))), "2.5000000000000000");
        assert_eq!(s(n("2").checked_div(&n("3"))), "0.66666666666666666667");
        assert_eq!(s(n("-2").checked_div(&n("3"))), "-0.66666666666666666667");
        assert_eq!(
            s(n("1").checked_div(&n("7e10"))),
            "0.0000000000142857142857142857"
        );
        assert_eq!(s(n("1.000").checked_div(&n("3"))), "0.33333333333333333333");
        assert_eq!(
            s(n("12345678901234567890").checked_div(&n("3"))),
            "4115226300411522630"
        );
        assert_eq!(s(n("1").checked_div(&n("0.0003"))), "3333.3333333333333333");
        assert_eq!(s(n("99999").checked_div(&n("10000"))), "9.9999000000000000");
        assert_eq!(
            s(n("0.00005").checked_div(&n("3"))),
            "0.000016666666666666666667"
        );
        assert_eq!(s(n("0").checked_div(&n("3"))), "0.00000000000000000000");
        // avg(x) over (1), (2) and (1.25), (2): sum / count.
        assert_eq!(s(n("3").checked_div(&n("2"))), "1.5000000000000000");
        assert_eq!(s(n("3.25").checked_div(&n("2"))), "1.6250000000000000");
        // Operands wider than 128 bits once scaled.
        assert_eq!(
            s(n("1234567890123456789012345678901234567").checked_div(&n("0.7"))),
            "1763668414462081127160493827001763667.1"
        );
        assert_eq!(
            s(n("99999999999999999999999999999999999999")
                .checked_div(&n("99999999999999999999999999999999999998"))),
            "1.00000000000000000000"
        );
        // PostgreSQL prints 17636684144620811271604938270017636682.9: 39 digits, over our limit.
        assert_eq!(
            n("12345678901234567890123456789012345678")
                .checked_div(&n("0.7"))
                .expect_err("too wide")
                .sqlstate(),
            "22003"
        );
        assert_eq!(
            s(n("1").checked_div(&n("3.0000000000000000000000000000000000001"))),
            "0.3333333333333333333333333333333333333"
        );
        let err = n("1").checked_div(&n("0")).expect_err("div by zero");
        assert_eq!(
            (err.sqlstate(), err.message.as_str()),
            ("22012", "division by zero")
        );
        // More digits than we hold, which PostgreSQL would compute.
        assert_eq!(
            n("1e37")
                .checked_mul(&n("100"))
                .expect_err("beyond our digits")
                .sqlstate(),
            "0A000"
        );
    }

    #[test]
    fn remainder() {
        assert_eq!(s(n("-7").checked_rem(&n("3"))), "-1");
        assert_eq!(s(n("7.5").checked_rem(&n("-2"))), "1.5");
        assert_eq!(s(n("5.5").checked_rem(&n("0.25"))), "0.00");
        assert_eq!(
            s(n("1").checked_rem(&n("0.0000000000000000000000000000000000003"))),
            "0.0000000000000000000000000000000000001"
        );
        assert_eq!(s(n("0.5").checked_rem(&n("1e37"))), "0.5");
        assert_eq!(
            s(n("12345678901234567890123456789012345678").checked_rem(&n("0.7"))),
            "0.6"
        );
        assert_eq!(
            n("5").checked_rem(&n("0")).expect_err("zero").sqlstate(),
            "22012"
        );
    }

    #[test]
    fn rounding_and_typmod() {
        assert_eq!(s(n("1.5").round(3)), "1.500");
        assert_eq!(s(n("1234.5").round(-2)), "1200");
        assert_eq!(s(n("-2.5").round(0)), "-3");
        assert_eq!(s(n("2.5").round(0)), "3");
        assert_eq!(s(n("0.5").round(-1)), "0");
        assert_eq!(s(n("5.5").round(-1)), "10");
        assert_eq!(s(n("-1.2345").round(2)), "-1.23");
        assert_eq!(s(n("1.005").apply_typmod(typmod(5, 2))), "1.01");
        assert_eq!(s(n("7").apply_typmod(typmod(5, 2))), "7.00");
        let err = n("12345.678")
            .apply_typmod(typmod(5, 2))
            .expect_err("overflow");
        assert_eq!(err.sqlstate(), "22003");
        assert_eq!(err.message, "numeric field overflow");
        assert_eq!(
            err.detail.as_deref(),
            Some(
                "A field with precision 5, scale 2 must round to an absolute value less than 10^3."
            )
        );
        let err = n("1").apply_typmod(typmod(2, 2)).expect_err("overflow");
        assert_eq!(
            err.detail.as_deref(),
            Some("A field with precision 2, scale 2 must round to an absolute value less than 1.")
        );
        let err = n("0.01").apply_typmod(typmod(3, 5)).expect_err("overflow");
        assert_eq!(
            err.detail.as_deref(),
            Some("A field with precision 3, scale 5 must round to an absolute value less than 10^-2.")
        );
        assert_eq!(
            n("999.995")
                .apply_typmod(typmod(5, 2))
                .expect_err("rounds up")
                .sqlstate(),
            "22003"
        );
    }

    #[test]
    fn conversions() {
        assert_eq!(n("2.5").to_i64().ok(), Some(3));
        assert_eq!(n("-2.5").to_i64().ok(), Some(-3));
        assert_eq!(n("-2.49").to_i64().ok(), Some(-2));
        let err = n("99999999999999999999").to_i64().expect_err("range");
        assert_eq!(
            (err.sqlstate(), err.message.as_str()),
            ("22003", "bigint out of range")
        );
        assert_eq!(n("9223372036854775807.4").to_i64().ok(), Some(i64::MAX));

        let from = |v: f64| s(Decimal::from_f64(v));
        assert_eq!(from(0.1), "0.1");
        assert_eq!(from(1e20), "100000000000000000000");
        assert_eq!(from(1.5e-5), "0.000015");
        assert_eq!(from(1.0 / 3.0), "0.333333333333333");
        assert_eq!(from(-0.0), "0");
        assert_eq!(from(1e-5), "0.00001");
        assert_eq!(from(1.23456789e-7), "0.000000123456789");
        assert_eq!(from(2f64.powi(60)), "1152921504606850000");
        assert_eq!(from(1000000000000005.0), "1000000000000000");
        assert_eq!(from(1000000000000015.0), "1000000000000020");
        assert_eq!(s(Decimal::from_f32(0.1)), "0.1");
        assert_eq!(s(Decimal::from_f32(123.456)), "123.456");
        assert!(Decimal::from_f64(f64::NAN).is_ok_and(|d| d.is_nan()));
        assert_eq!(from(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(n("Infinity").to_f64(), f64::INFINITY);
        let err = n("NaN").to_i64().expect_err("nan");
        assert_eq!(
            (err.sqlstate(), err.message.as_str()),
            ("0A000", "cannot convert NaN to bigint")
        );

        assert_eq!(n("0.1").to_f64(), 0.1);
        assert_eq!(n("-1.5e-300").to_f64(), -1.5e-300);
        assert_eq!(n("1.1").to_f32(), 1.1f32);
    }

    #[test]
    fn order_and_hash() {
        use std::hash::BuildHasher;
        let state = std::collections::hash_map::RandomState::new();
        let h = |d: Decimal| state.hash_one(d);
        assert_eq!(n("1.5"), n("1.50"));
        assert_eq!(h(n("1.5")), h(n("1.50")));
        assert_eq!(h(n("0")), h(n("0.000")));
        assert_eq!(h(n("100")), h(n("100.00")));
        assert!(n("-1.5") < n("-1.49"));
        assert!(n("0.001") > n("0"));
        assert!(n("-0.001") < n("0.0"));
        assert!(n("12345678901234567890123456789012345678") > n("0.1"));
        assert!(
            n("-12345678901234567890123456789012345678")
                < n("-0.0000000000000000000000000000000000001")
        );
        assert!(n("1e-50") < n("2e-50"));
        assert!(n("1e-50") > n("-99999"));
        // NaN above Infinity above every finite value above -Infinity; NaN = NaN.
        let ordered = ["-Infinity", "-1e30", "0", "1e30", "Infinity", "NaN"];
        for pair in ordered.windows(2) {
            assert!(n(pair[0]) < n(pair[1]), "{pair:?}");
        }
        assert_eq!(n("NaN"), n("nan"));
        assert_eq!(h(n("NaN")), h(n("NaN")));
        assert_ne!(h(n("NaN")), h(n("0")));
    }

    #[test]
    fn special_arithmetic() {
        let t = |v: Result<Decimal>| v.map_or_else(|e| e.sqlstate().to_string(), |d| d.to_string());
        assert_eq!(t(n("Infinity").checked_add(&n("-Infinity"))), "NaN");
        assert_eq!(t(n("Infinity").checked_add(&n("Infinity"))), "Infinity");
        assert_eq!(t(n("1.5").checked_add(&n("-Infinity"))), "-Infinity");
        assert_eq!(t(n("Infinity").checked_sub(&n("Infinity"))), "NaN");
        assert_eq!(t(n("1").checked_sub(&n("Infinity"))), "-Infinity");
        assert_eq!(t(n("0").checked_mul(&n("Infinity"))), "NaN");
        assert_eq!(t(n("-2").checked_mul(&n("Infinity"))), "-Infinity");
        assert_eq!(t(n("Infinity").checked_div(&n("0"))), "22012");
        assert_eq!(t(n("1").checked_div(&n("0"))), "22012");
        assert_eq!(t(n("NaN").checked_div(&n("0"))), "NaN");
        assert_eq!(t(n("1").checked_div(&n("-Infinity"))), "0");
        assert_eq!(t(n("Infinity").checked_div(&n("-2"))), "-Infinity");
        assert_eq!(t(n("1.50").checked_rem(&n("Infinity"))), "1.50");
        assert_eq!(t(n("Infinity").checked_rem(&n("2"))), "NaN");
        assert_eq!(t(n("-Infinity").apply_typmod(typmod(10, 2))), "22003");
        assert_eq!(t(n("NaN").apply_typmod(typmod(3, 1))), "NaN");
        assert_eq!(t(n("-Infinity").round(2)), "-Infinity");
        assert_eq!(n("-Infinity").abs().to_string(), "Infinity");
        assert_eq!(n("Infinity").neg().to_string(), "-Infinity");
    }
}
