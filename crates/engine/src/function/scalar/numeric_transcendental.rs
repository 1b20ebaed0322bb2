//! `exp`, `ln`, `log` and `power` of finite NUMERIC values with PostgreSQL 15's digits: the
//! algorithms of numeric.c (exp_var, ln_var, log_var, power_var, power_var_int) and their
//! choices of result and working scales, carried out on a [`WideDecimal`] so that the guard
//! digits they ask for are really there. NaN, the infinities and the argument checks stay
//! with the callers in `numeric.rs`; a result that does not fit a Decimal's 38 digits is
//! 0A000, and one past PostgreSQL's own range 22003, as there.

use std::cmp::Ordering;

use crate::error::{Error, Result, SqlState};
use crate::types::wide_decimal::WideDecimal;
use crate::types::Decimal;

/// PostgreSQL's NUMERIC_MIN_SIG_DIGITS.
const MIN_SIG_DIGITS: i64 = 16;
/// PostgreSQL's NUMERIC_MAX_DISPLAY_SCALE (NUMERIC_MIN_DISPLAY_SCALE is 0).
const MAX_DISPLAY_SCALE: i64 = 1000;
/// PostgreSQL's NUMERIC_MAX_RESULT_SCALE.
const MAX_RESULT_SCALE: f64 = 2000.0;
/// PostgreSQL's NUMERIC_WEIGHT_MAX, in base-10000 digits.
const WEIGHT_MAX: i64 = 32767;
/// The decimal digits a Decimal's mantissa holds in full.
const DECIMAL_DIGITS: i64 = 38;
/// log10(e), ln(10) and log10(2) as numeric.c writes them, a digit short of std's: its
/// estimates truncate to int, so only the same doubles give the same scales.
#[allow(clippy::approx_constant)]
const LOG10_E: f64 = 0.434294481903252;
#[allow(clippy::approx_constant)]
const LN_10: f64 = 2.302585092994046;
#[allow(clippy::approx_constant)]
const LOG10_2: f64 = 0.301029995663981;

fn overflow() -> Error {
    Error::out_of_range("value overflows numeric format")
}

fn too_wide() -> Error {
    Error::unsupported("a numeric result of more than 38 digits")
}

/// A result scale within PostgreSQL's display bounds.
fn display_scale(scale: i64) -> i64 {
    scale.clamp(0, MAX_DISPLAY_SCALE)
}

/// `exp(x)` of a finite x (numeric_exp).
pub(super) fn exp(x: &Decimal) -> Result<Decimal> {
    let arg = WideDecimal::from_decimal(x);
    let weight_estimate = (arg.to_f64() * LOG10_E).clamp(-MAX_RESULT_SCALE, MAX_RESULT_SCALE);
    let rscale = display_scale((MIN_SIG_DIGITS - weight_estimate as i64).max(arg.scale()));
    exp_var(&arg, rscale)?.to_decimal()
}

/// `ln(x)` of a finite positive x (numeric_ln).
pub(super) fn ln(x: &Decimal) -> Result<Decimal> {
    let arg = WideDecimal::from_decimal(x);
    let rscale = display_scale((MIN_SIG_DIGITS - estimate_ln_dweight(&arg)).max(arg.scale()));
    ln_var(&arg, rscale)?.to_decimal()
}

/// `log(base, x)` of finite positive values (numeric_log, and `log(x)` as `log(10, x)`).
pub(super) fn log(base: &Decimal, x: &Decimal) -> Result<Decimal> {
    let (base, num) = (
        WideDecimal::from_decimal(base),
        WideDecimal::from_decimal(x),
    );
    let (ln_base_dweight, ln_num_dweight) = (estimate_ln_dweight(&base), estimate_ln_dweight(&num));
    let result_dweight = ln_num_dweight - ln_base_dweight;
    let rscale = display_scale(
        (MIN_SIG_DIGITS - result_dweight)
            .max(base.scale())
            .max(num.scale()),
    );
    // Each logarithm gets more significant digits than the quotient needs.
    let ln_base_rscale = (rscale + result_dweight - ln_base_dweight + 8).max(0);
    let ln_num_rscale = (rscale + result_dweight - ln_num_dweight + 8).max(0);
    let ln_base = ln_var(&base, ln_base_rscale)?;
    let ln_num = ln_var(&num, ln_num_rscale)?;
    if ln_base.is_zero() {
        return Err(Error::division_by_zero());
    }
    ln_num.div(&ln_base, rscale).to_decimal()
}

/// `power(base, exponent)` of finite values once numeric_power has ruled out 0 ^ negative
/// (power_var).
pub(super) fn power(base: &Decimal, exponent: &Decimal) -> Result<Decimal> {
    let (base, exponent) = (
        WideDecimal::from_decimal(base),
        WideDecimal::from_decimal(exponent),
    );
    if let Some(n) = exponent.to_i64().and_then(|n| i32::try_from(n).ok()) {
        let rscale = display_scale(MIN_SIG_DIGITS.max(base.scale()));
        return power_var_int(&base, n, rscale)?.to_decimal();
    }
    if base.is_zero() {
        // 0 ^ a positive non-integer (0 ^ 0 went to power_var_int).
        return WideDecimal::from_int(0).round(MIN_SIG_DIGITS).to_decimal();
    }
    let negative_result = if base.is_negative() {
        if !exponent.is_integral() {
            return Err(Error::new(
                SqlState::InvalidArgumentForPowerFunction,
                "a negative number raised to a non-integer power yields a complex result",
            ));
        }
        exponent.is_odd()
    } else {
        false
    };
    let base = base.abs();
    // A low-precision exponent · ln(base) gives the result's weight, hence its scale.
    let ln_dweight = estimate_ln_dweight(&base);
    let local_rscale = (8 - ln_dweight).max(0);
    let ln_num = ln_var(&base, local_rscale)?.mul(&exponent, local_rscale);
    let mut val = ln_num.to_f64();
    // exp_var decides the exact threshold; this only stops hopeless cases early.
    if val.abs() > MAX_RESULT_SCALE * 3.0 * 3.01 {
        if val > 0.0 {
            return Err(overflow());
        }
        return WideDecimal::from_int(0)
            .round(MAX_DISPLAY_SCALE)
            .to_decimal();
    }
    val *= LOG10_E;
    let rscale = display_scale(
        (MIN_SIG_DIGITS - val as i64)
            .max(base.scale())
            .max(exponent.scale()),
    );
    let sig_digits = (rscale + val as i64).max(0);
    let local_rscale = (sig_digits - ln_dweight + 8).max(0);
    let ln_num = ln_var(&base, local_rscale)?.mul(&exponent, local_rscale);
    let result = exp_var(&ln_num, rscale)?;
    if negative_result {
        return result.neg().to_decimal();
    }
    result.to_decimal()
}

/// e ^ arg rounded to `rscale`: the Taylor series after halving arg until it is within
/// 0.01, then squared back.
fn exp_var(arg: &WideDecimal, rscale: i64) -> Result<WideDecimal> {
    let mut val = arg.to_f64();
    if val.abs() >= MAX_RESULT_SCALE * 3.0 {
        if val > 0.0 {
            return Err(overflow());
        }
        return Ok(WideDecimal::from_int(0).round(rscale));
    }
    let dweight = (val * LOG10_E) as i64;
    // Past 38 digits the answer cannot be given: stop before computing it.
    if dweight + rscale > DECIMAL_DIGITS + 1 {
        return Err(too_wide());
    }
    let mut x = arg.clone();
    let mut ndiv2: u32 = 0;
    if val.abs() > 0.01 {
        while val.abs() > 0.01 {
            ndiv2 += 1;
            val /= 2.0;
        }
        let local_rscale = x.scale() + i64::from(ndiv2);
        x = x.div(&WideDecimal::from_int(1 << ndiv2), local_rscale);
    }
    // The squarings at the end cost about log10(2^ndiv2) digits.
    let sig_digits = (1 + dweight + rscale + (f64::from(ndiv2) * LOG10_2) as i64).max(0) + 8;
    let local_rscale = sig_digits - 1;
    let mut result = WideDecimal::from_int(1).add(&x);
    let mut elem = x.mul(&x, local_rscale);
    let mut ni = 2;
    elem = elem.div(&WideDecimal::from_int(ni), local_rscale);
    while !elem.is_zero() {
        result = result.add(&elem);
        elem = elem.mul(&x, local_rscale);
        ni += 1;
        elem = elem.div(&WideDecimal::from_int(ni), local_rscale);
    }
    for _ in 0..ndiv2 {
        let local_rscale = (sig_digits - result.weight() * 2 * 4).max(0);
        result = result.mul(&result, local_rscale);
    }
    Ok(result.round(rscale))
}

/// The decimal weight of ln(var), roughly: what sets the scale of a logarithm.
fn estimate_ln_dweight(var: &WideDecimal) -> i64 {
    if var.is_negative() || var.is_zero() {
        return 0;
    }
    let tenth = |tenths: i64| WideDecimal::new(tenths.into(), 1);
    if var.cmp(&tenth(9)) != Ordering::Less && var.cmp(&tenth(11)) != Ordering::Greater {
        // ln(1 + x) ~ x near 1; ln(1) = 0 needs no extra digits.
        return var.sub(&WideDecimal::from_int(1)).decimal_weight();
    }
    let (digits, dweight) = var.leading_base10000(2);
    let ln = (digits as f64).ln() + dweight as f64 * LN_10;
    ln.abs().log10() as i64
}

/// ln(arg) of a positive arg, rounded to `rscale`: square roots bring arg within 0.9..1.1,
/// then the series of atanh((x - 1) / (x + 1)).
fn ln_var(arg: &WideDecimal, rscale: i64) -> Result<WideDecimal> {
    if arg.is_zero() || arg.is_negative() {
        let message = if arg.is_zero() {
            "cannot take logarithm of zero"
        } else {
            "cannot take logarithm of a negative number"
        };
        return Err(Error::new(SqlState::InvalidArgumentForLogarithm, message));
    }
    let (low, high) = (
        WideDecimal::new(9.into(), 1),
        WideDecimal::new(11.into(), 1),
    );
    let mut x = arg.clone();
    let mut nsqrt: u32 = 0;
    while x.cmp(&low) != Ordering::Greater || x.cmp(&high) != Ordering::Less {
        // Keep about rscale + 8 significant digits as each root halves the weight.
        let local_rscale = rscale - x.weight() * 4 / 2 + 8;
        x = x.sqrt(local_rscale);
        nsqrt += 1;
    }
    // The series result is multiplied by 2^(nsqrt + 1): that many more digits.
    let local_rscale = rscale + (f64::from(nsqrt + 1) * LOG10_2) as i64 + 8;
    let one = WideDecimal::from_int(1);
    let mut result = x.sub(&one).div(&x.add(&one), local_rscale);
    let mut xx = result.clone();
    let z_squared = result.mul(&result, local_rscale);
    let mut ni = 1;
    loop {
        ni += 2;
        xx = xx.mul(&z_squared, local_rscale);
        let elem = xx.div(&WideDecimal::from_int(ni), local_rscale);
        if elem.is_zero() {
            break;
        }
        result = result.add(&elem);
        if elem.weight() < result.weight() - local_rscale * 2 / 4 {
            break;
        }
    }
    let factor = WideDecimal::from_int(1i64 << (nsqrt + 1).min(62));
    Ok(result.mul(&factor, rscale))
}

/// base ^ exponent for an int32 exponent, rounded to `rscale`, by repeated squaring at
/// just enough digits.
fn power_var_int(base: &WideDecimal, exponent: i32, rscale: i64) -> Result<WideDecimal> {
    let one = WideDecimal::from_int(1);
    match exponent {
        0 => return Ok(one.round(rscale)),
        1 => return Ok(base.round(rscale)),
        -1 => return Ok(one.div(base, rscale)),
        2 => return Ok(base.mul(base, rscale)),
        _ => {}
    }
    if base.is_zero() {
        // 0 ^ negative was refused by the caller.
        return Ok(WideDecimal::from_int(0).round(rscale));
    }
    // base ~ f · 10^p, so log10(result) ~ exponent · (log10(f) + p).
    let (f, p) = base.leading_base10000(4);
    let f = f64::from(exponent) * ((f as f64).log10() + p as f64);
    if f > (3 * WEIGHT_MAX * 4) as f64 {
        return Err(overflow());
    }
    if f + 1.0 < -(rscale as f64) || f + 1.0 < -(MAX_DISPLAY_SCALE as f64) {
        return Ok(WideDecimal::from_int(0).round(rscale));
    }
    // Past 38 digits the answer cannot be given: stop before computing it.
    if f as i64 - 2 + rscale > DECIMAL_DIGITS {
        return Err(too_wide());
    }
    let mut sig_digits = 1 + rscale + f as i64;
    // The multiplications cost about log10(|exponent|) digits.
    sig_digits += f64::from(exponent).abs().ln() as i64 + 8;
    let mut negative = exponent < 0;
    let mut mask = exponent.unsigned_abs();
    let mut base_prod = base.clone();
    let mut result = if mask & 1 == 1 {
        base.clone()
    } else {
        one.clone()
    };
    loop {
        mask >>= 1;
        if mask == 0 {
            break;
        }
        let local_rscale = (sig_digits - 2 * base_prod.weight() * 4)
            .min(2 * base_prod.scale())
            .max(0);
        base_prod = base_prod.mul(&base_prod, local_rscale);
        if mask & 1 == 1 {
            let local_rscale = (sig_digits - (base_prod.weight() + result.weight()) * 4)
                .min(base_prod.scale() + result.scale())
                .max(0);
            result = base_prod.mul(&result, local_rscale);
        }
        if base_prod.weight() > WEIGHT_MAX || result.weight() > WEIGHT_MAX {
            // Overflow, or underflow to 0 for a negative exponent.
            if !negative {
                return Err(overflow());
            }
            result = WideDecimal::from_int(0);
            negative = false;
            break;
        }
    }
    if negative {
        return Ok(one.div(&result, rscale));
    }
    Ok(result.round(rscale))
}

#[cfg(test)]
mod tests {
    use super::super::numeric::tests::{num, text};
    use super::*;

    #[test]
    fn digits_as_postgres() {
        assert_eq!(text(exp(&num("1.0"))), "2.7182818284590452");
        assert_eq!(text(ln(&num("2.0"))), "0.6931471805599453");
        assert_eq!(text(log(&num("10"), &num("1000"))), "3.0000000000000000");
        assert_eq!(text(power(&num("2"), &num("0.5"))), "1.4142135623730950");
        assert_eq!(text(power(&num("2.0"), &num("-2"))), "0.2500000000000000");
        assert_eq!(text(power(&num("1.1"), &num("10"))), "2.5937424601000000");
    }
}
