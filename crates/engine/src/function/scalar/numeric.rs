//! Kernels for the NUMERIC overloads, exact on the fixed-point [`Decimal`], with
//! PostgreSQL's result scales: `trunc`/`ceil`/`floor`/`div` give scale 0, `sqrt` the scale of
//! `numeric_sqrt` (at least 16 significant digits), integer powers `power_var_int`'s.
//! Values that outgrow the 38 digits of a Decimal are 22003, as everywhere for numeric.
//! `exp`, `ln`, `log` and powers with fractional exponents need PostgreSQL's arbitrary
//! precision algorithms to give its digits, and are 0A000 until then.

use super::kernel::{map_rows, values};
use super::math::{bucket_above, bucket_error, check_log_argument, negative_sqrt};
use super::numeric_transcendental;
use crate::error::{Error, Result, SqlState};
use crate::types::numeric::Special;
use crate::types::Decimal;
use crate::vector::{Bitmap, Vector};

/// PostgreSQL's NUMERIC_MIN_SIG_DIGITS.
const MIN_SIG_DIGITS: i64 = 16;
/// PostgreSQL's NUMERIC_MAX_DISPLAY_SCALE.
const MAX_DISPLAY_SCALE: i64 = 1000;

fn overflow() -> Error {
    Error::out_of_range("value overflows numeric format")
}

fn pow10(exponent: u32) -> Option<i128> {
    10i128.checked_pow(exponent)
}

/// `m * 10^shift`, or None if it does not fit.
fn scale_up(m: i128, shift: u32) -> Option<i128> {
    pow10(shift).and_then(|p| m.checked_mul(p))
}

/// The mantissas of `a` and `b` at their common (larger) scale.
fn align(a: &Decimal, b: &Decimal) -> Result<(i128, i128, u32)> {
    let scale = a.scale().max(b.scale());
    let ma = scale_up(a.mantissa(), scale - a.scale()).ok_or_else(overflow)?;
    let mb = scale_up(b.mantissa(), scale - b.scale()).ok_or_else(overflow)?;
    Ok((ma, mb, scale))
}

/// `trunc(x, scale)`: toward zero at `scale` digits (left of the point when negative); the
/// result's display scale is `max(scale, 0)`, as PostgreSQL.
pub(super) fn trunc(x: &Decimal, scale: i32) -> Result<Decimal> {
    if !x.is_finite() {
        return Ok(*x);
    }
    let target = i64::from(scale.clamp(-2000, 2000));
    let current = i64::from(x.scale());
    if target >= current {
        return x.round(scale);
    }
    let dropped = u32::try_from(current - target).unwrap_or(u32::MAX);
    let kept = pow10(dropped).map_or(0, |p| x.mantissa() / p);
    if target >= 0 {
        Ok(Decimal::new(kept, target as u32))
    } else {
        let m = scale_up(kept, target.unsigned_abs() as u32).ok_or_else(overflow)?;
        Ok(Decimal::new(m, 0))
    }
}

/// `ceil`/`floor(numeric)`: an integer of scale 0.
pub(super) fn ceil_floor(x: &Decimal, ceil: bool) -> Result<Decimal> {
    if !x.is_finite() {
        return Ok(*x);
    }
    let (quotient, remainder) = match pow10(x.scale()) {
        Some(p) => (x.mantissa() / p, x.mantissa() % p),
        None => (0, x.mantissa()),
    };
    let adjust = match (ceil, remainder.signum()) {
        (true, 1) => 1,
        (false, -1) => -1,
        _ => 0,
    };
    Ok(Decimal::new(quotient + adjust, 0))
}

/// `div(a, b)`: the integer quotient truncated toward zero.
pub(super) fn div(args: &[Vector]) -> Result<Vector> {
    let (a, b) = (values::<Decimal>(args, 0)?, values::<Decimal>(args, 1)?);
    map_rows(args, |row| {
        let (a, b) = (&a[row], &b[row]);
        // numeric_div_trunc treats NaN and the infinities as numeric_div does.
        if !a.is_finite() || !b.is_finite() {
            return a.checked_div(b);
        }
        if b.mantissa() == 0 {
            return Err(Error::division_by_zero());
        }
        let (ma, mb, _) = align(a, b)?;
        Ok(Decimal::new(ma / mb, 0))
    })
}

pub(super) fn gcd(a: i128, b: i128) -> Option<i128> {
    let (mut a, mut b) = (a.checked_abs()?, b.checked_abs()?);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    Some(a)
}

pub(super) fn lcm(a: i128, b: i128) -> Option<i128> {
    if a == 0 || b == 0 {
        return Some(0);
    }
    let g = gcd(a, b)?;
    (a / g).checked_mul(b)?.checked_abs()
}

/// `gcd`/`lcm(numeric, numeric)` at the larger of the two scales.
pub(super) fn gcd_lcm(a: &Decimal, b: &Decimal, lcm_wanted: bool) -> Result<Decimal> {
    if !a.is_finite() || !b.is_finite() {
        return Ok(Decimal::NAN);
    }
    let (ma, mb, scale) = align(a, b)?;
    let m = if lcm_wanted { lcm(ma, mb) } else { gcd(ma, mb) };
    Ok(Decimal::new(m.ok_or_else(overflow)?, scale))
}

/// The number of decimal digits of `m` (1 for 0).
fn digit_count(m: u128) -> u32 {
    m.checked_ilog10().map_or(1, |d| d + 1)
}

/// PostgreSQL's NumericVar weight: the position of the leading base-10000 digit.
fn weight(x: &Decimal) -> i64 {
    if x.mantissa() == 0 {
        return 0;
    }
    let exponent = i64::from(digit_count(x.mantissa().unsigned_abs())) - 1 - i64::from(x.scale());
    exponent.div_euclid(4)
}

/// `sqrt(numeric)`, correctly rounded at numeric_sqrt's result scale.
pub(super) fn sqrt(x: &Decimal) -> Result<Decimal> {
    match x.special() {
        Some(Special::NegInf) => return Err(negative_sqrt()),
        Some(Special::NaN | Special::PosInf) => return Ok(*x),
        None if x.mantissa() < 0 => return Err(negative_sqrt()),
        None => {}
    }
    let half_weight = (weight(x) + 1) * 4 / 2 - 1;
    let rscale = (MIN_SIG_DIGITS - half_weight)
        .max(i64::from(x.scale()))
        .clamp(0, MAX_DISPLAY_SCALE);
    // floor(sqrt(x) * 10^(rscale + 1)) = isqrt(floor(m * 10^(2 * rscale + 2 - scale))).
    let shift = 2 * rscale + 2 - i64::from(x.scale());
    // The mantissa's digits, most significant first, without allocating.
    let mut buf = [0u8; 40];
    let mut start = buf.len();
    let mut m = x.mantissa().unsigned_abs();
    loop {
        start -= 1;
        buf[start] = (m % 10) as u8;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    let digits = &buf[start..];
    let kept = if shift >= 0 {
        digits.len()
    } else {
        digits.len().saturating_sub(shift.unsigned_abs() as usize)
    };
    let zeros = shift.max(0) as usize;
    let root =
        isqrt_digits(digits[..kept].iter().copied(), kept + zeros, zeros).ok_or_else(overflow)?;
    // Half away from zero on the one extra digit.
    let rounded = root / 10 + u128::from(root % 10 >= 5);
    let m = i128::try_from(rounded).map_err(|_| overflow())?;
    Ok(Decimal::new(m, rscale as u32))
}

/// The integer square root of the number whose decimal digits are `digits` (`len` in all,
/// the last `zeros` of them zeros not in `digits`), digit by digit; None past 128 bits.
fn isqrt_digits(digits: impl Iterator<Item = u8>, len: usize, zeros: usize) -> Option<u128> {
    let mut all = digits.chain(std::iter::repeat_n(0, zeros));
    let (mut root, mut remainder): (u128, u128) = (0, 0);
    // Digits are taken in pairs from the left; an odd count starts with a single digit.
    let mut group_len = if len % 2 == 1 { 1 } else { 2 };
    let mut consumed = 0;
    while consumed < len {
        let mut group = 0u128;
        for _ in 0..group_len {
            group = group * 10 + u128::from(all.next()?);
        }
        consumed += group_len;
        group_len = 2;
        remainder = remainder.checked_mul(100)?.checked_add(group)?;
        let base = root.checked_mul(20)?;
        let mut digit = 9;
        while (base + digit) * digit > remainder {
            digit -= 1;
        }
        remainder -= (base + digit) * digit;
        root = root.checked_mul(10)?.checked_add(digit)?;
    }
    Some(root)
}

pub(super) fn exp(x: &Decimal) -> Result<Decimal> {
    match x.special() {
        Some(Special::NegInf) => Ok(Decimal::ZERO),
        Some(Special::NaN | Special::PosInf) => Ok(*x),
        None => numeric_transcendental::exp(x),
    }
}

/// The sign of a logarithm's argument for check_log_argument (None for NaN).
fn log_sign(x: &Decimal) -> Option<std::cmp::Ordering> {
    x.signum().map(|sign| sign.cmp(&0))
}

/// `ln` and `log(x)` (base 10): NaN and Infinity are their own logarithm.
pub(super) fn ln(x: &Decimal) -> Result<Decimal> {
    check_log_argument(log_sign(x))?;
    if !x.is_finite() {
        return Ok(*x);
    }
    numeric_transcendental::ln(x)
}

/// `log(x)` and `log10(x)`, which PostgreSQL defines as `log(10, x)`.
pub(super) fn log10(x: &Decimal) -> Result<Decimal> {
    check_log_argument(log_sign(x))?;
    if !x.is_finite() {
        return Ok(*x);
    }
    numeric_transcendental::log(&Decimal::from_i64(10), x)
}

/// `log(base, x)`; with an infinite input as numeric_log: log(Inf, Inf) is NaN,
/// log(Inf, x) 0 and log(b, Inf) Infinity.
pub(super) fn log(args: &[Vector]) -> Result<Vector> {
    let (base, x) = (values::<Decimal>(args, 0)?, values::<Decimal>(args, 1)?);
    map_rows(args, |row| {
        let (base, x) = (&base[row], &x[row]);
        if base.is_nan() || x.is_nan() {
            return Ok(Decimal::NAN);
        }
        check_log_argument(log_sign(base))?;
        check_log_argument(log_sign(x))?;
        match (base.is_finite(), x.is_finite()) {
            (false, false) => Ok(Decimal::NAN),
            (false, true) => Ok(Decimal::ZERO),
            (true, false) => Ok(Decimal::POS_INFINITY),
            (true, true) => numeric_transcendental::log(base, x),
        }
    })
}

/// `power(numeric, numeric)`: numeric_power's special cases, then power_var.
pub(super) fn power(x: &Decimal, y: &Decimal) -> Result<Decimal> {
    let power_error = |message: &str| {
        Error::new(
            SqlState::InvalidArgumentForPowerFunction,
            message.to_string(),
        )
    };
    if x.is_nan() || y.is_nan() {
        return Ok(power_nan(x, y));
    }
    let integral = y.is_finite()
        && (pow10(y.scale()).is_some_and(|p| y.mantissa() % p == 0) || y.mantissa() == 0);
    let (x_sign, y_sign) = (x.signum().unwrap_or(0), y.signum().unwrap_or(0));
    if x_sign == 0 && y_sign < 0 {
        return Err(power_error("zero raised to a negative power is undefined"));
    }
    if x_sign < 0 && y.is_finite() && !integral {
        return Err(power_error(
            "a negative number raised to a non-integer power yields a complex result",
        ));
    }
    if !x.is_finite() || !y.is_finite() {
        return Ok(power_infinite(x, y, integral));
    }
    numeric_transcendental::power(x, y)
}

/// x ^ y with a NaN input, as POSIX pow(): NaN ^ 0 and 1 ^ NaN are 1, anything else NaN.
fn power_nan(x: &Decimal, y: &Decimal) -> Decimal {
    let one = Decimal::from_i64(1);
    if (y.is_finite() && y.signum() == Some(0)) || (x.is_finite() && *x == one) {
        one
    } else {
        Decimal::NAN
    }
}

/// x ^ y with an infinite input and no NaN, as POSIX pow() and numeric_power.
fn power_infinite(x: &Decimal, y: &Decimal, integral: bool) -> Decimal {
    let one = Decimal::from_i64(1);
    let y_sign = y.signum().unwrap_or(0);
    if !y.is_finite() {
        // |x| = 1 stays 1; otherwise Infinity when |x| > 1 and y = +Infinity or |x| < 1
        // and y = -Infinity, else 0.
        let magnitude = x.abs();
        if magnitude == one {
            return one;
        }
        return if (magnitude > one) == (y_sign > 0) {
            Decimal::POS_INFINITY
        } else {
            Decimal::ZERO
        };
    }
    match y_sign {
        0 => one,
        sign if sign < 0 => Decimal::ZERO,
        // -Infinity to an odd power stays negative.
        _ if x.special() == Some(Special::NegInf) && integral && is_odd(y) => Decimal::NEG_INFINITY,
        _ => Decimal::POS_INFINITY,
    }
}

/// Whether the integral value `y` is odd.
fn is_odd(y: &Decimal) -> bool {
    pow10(y.scale()).is_some_and(|p| (y.mantissa() / p) % 2 != 0)
}

/// The same value at the smallest scale that holds it exactly (`trim_scale`); NaN and the
/// infinities as they are.
pub(super) fn strip_zeros(x: Decimal) -> Decimal {
    if !x.is_finite() {
        return x;
    }
    let (mut m, mut scale) = (x.mantissa(), x.scale());
    while scale > 0 && m % 10 == 0 {
        m /= 10;
        scale -= 1;
    }
    Decimal::new(m, scale)
}

/// `width_bucket(numeric, ...)`; the count was checked by the caller.
pub(super) fn width_bucket(x: &Decimal, low: &Decimal, high: &Decimal, count: i32) -> Result<i32> {
    if x.is_nan() || low.is_nan() || high.is_nan() {
        return Err(bucket_error(
            "operand, lower bound, and upper bound cannot be NaN",
        ));
    }
    // An infinite operand falls below or above every bucket by comparison.
    if !low.is_finite() || !high.is_finite() {
        return Err(bucket_error("lower and upper bounds must be finite"));
    }
    let bucket = |offset: Decimal, width: Decimal| -> Result<i32> {
        let (mo, mw, _) = align(&offset, &width)?;
        let scaled = mo.checked_mul(i128::from(count)).ok_or_else(overflow)?;
        // offset < width, so the quotient is below count.
        Ok((scaled / mw) as i32 + 1)
    };
    match low.cmp(high) {
        std::cmp::Ordering::Less => {
            if x < low {
                Ok(0)
            } else if x >= high {
                bucket_above(count)
            } else {
                bucket(x.checked_sub(low)?, high.checked_sub(low)?)
            }
        }
        std::cmp::Ordering::Greater => {
            if x > low {
                Ok(0)
            } else if x <= high {
                bucket_above(count)
            } else {
                bucket(low.checked_sub(x)?, low.checked_sub(high)?)
            }
        }
        std::cmp::Ordering::Equal => Err(bucket_error("lower bound cannot equal upper bound")),
    }
}

/// `scale(numeric)` (the display scale) and `min_scale(numeric)` (the fewest decimals that
/// hold the value exactly); NULL for NaN and the infinities, as PostgreSQL.
pub(super) fn scale(args: &[Vector], minimal: bool) -> Result<Vector> {
    let x = values::<Decimal>(args, 0)?;
    let mut out = map_rows(args, |row| {
        let d = if minimal { strip_zeros(x[row]) } else { x[row] };
        Ok(if d.is_finite() { d.scale() as i32 } else { 0 })
    })?;
    if x.iter().any(|d| !d.is_finite()) {
        let validity = out
            .validity
            .get_or_insert_with(|| Bitmap::new(x.len(), true));
        for (row, d) in x.iter().enumerate() {
            if !d.is_finite() {
                validity.set(row, false);
            }
        }
    }
    Ok(out)
}

/// `factorial(bigint)`: exact, 22003 for negative arguments and for results beyond a
/// Decimal's mantissa (34! and up).
pub(super) fn factorial(args: &[Vector]) -> Result<Vector> {
    let n = values::<i64>(args, 0)?;
    map_rows(args, |row| {
        if n[row] < 0 {
            return Err(Error::out_of_range(
                "factorial of a negative number is undefined",
            ));
        }
        // The product overflows by 34!, so the loop stays short for any argument.
        let mut product: i128 = 1;
        for k in 2..=i128::from(n[row]) {
            product = product.checked_mul(k).ok_or_else(overflow)?;
        }
        Ok(Decimal::new(product, 0))
    })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(in crate::function::scalar) fn num(text: &str) -> Decimal {
        Decimal::parse(text).unwrap_or(Decimal::ZERO)
    }

    pub(in crate::function::scalar) fn text(result: Result<Decimal>) -> String {
        result.map_or_else(|e| e.to_string(), |d| d.to_string())
    }

    #[test]
    fn sqrt_scales_as_postgres() {
        assert_eq!(text(sqrt(&num("2.0"))), "1.414213562373095");
        assert_eq!(text(sqrt(&num("0.5"))), "0.70710678118654752");
        assert_eq!(text(sqrt(&num("123456789.0"))), "11111.11106055556");
        assert_eq!(text(sqrt(&num("0.0000000001"))), "0.000010000000000000000");
        assert_eq!(
            text(sqrt(&num("2.00000000000000000000"))),
            "1.41421356237309504880"
        );
        assert_eq!(text(sqrt(&num("100.00"))), "10.000000000000000");
    }

    #[test]
    fn truncation_and_integer_parts() {
        assert_eq!(text(trunc(&num("-1.789"), 2)), "-1.78");
        assert_eq!(text(trunc(&num("1789.5"), -2)), "1700");
        assert_eq!(text(trunc(&num("1.5"), 5)), "1.50000");
        assert_eq!(text(ceil_floor(&num("-0.5"), true)), "0");
        assert_eq!(text(ceil_floor(&num("-1.50"), false)), "-2");
    }
}
