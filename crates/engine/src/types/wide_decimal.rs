//! An arbitrary-precision decimal for the intermediates of NUMERIC's transcendental
//! functions (ln, exp, power with a fractional exponent): a big-integer mantissa and a decimal
//! scale, as PostgreSQL's NumericVar is digits and a display scale. Each operation rounds
//! half away from zero to the scale its caller asks for, as `mul_var`, `div_var`,
//! `sqrt_var` and `round_var` do; only final results go back to the 38-digit [`Decimal`].

use std::cmp::Ordering;

use num_bigint::{BigInt, Sign};

use super::Decimal;
use crate::error::{Error, Result};

/// value = mantissa / 10^scale. A negative scale rounds to the left of the point (the
/// range reduction of `ln` works at such scales for very large arguments).
#[derive(Debug, Clone)]
pub(crate) struct WideDecimal {
    mantissa: BigInt,
    scale: i64,
}

fn pow10(exponent: i64) -> BigInt {
    BigInt::from(10u32).pow(u32::try_from(exponent).unwrap_or(0))
}

/// `value / 10^digits`, rounded half away from zero (`digits` >= 0).
fn round_off(value: &BigInt, digits: i64) -> BigInt {
    if digits <= 0 {
        return value.clone();
    }
    let divisor = pow10(digits);
    let (quotient, remainder) = (value / &divisor, value % &divisor);
    if remainder.magnitude() * 2u32 >= *divisor.magnitude() {
        match value.sign() {
            Sign::Minus => quotient - 1,
            _ => quotient + 1,
        }
    } else {
        quotient
    }
}

impl WideDecimal {
    pub(crate) fn new(mantissa: BigInt, scale: i64) -> WideDecimal {
        WideDecimal { mantissa, scale }
    }

    pub(crate) fn from_int(value: i64) -> WideDecimal {
        WideDecimal::new(BigInt::from(value), 0)
    }

    /// A finite Decimal at its display scale.
    pub(crate) fn from_decimal(value: &Decimal) -> WideDecimal {
        WideDecimal::new(BigInt::from(value.mantissa()), i64::from(value.scale()))
    }

    /// The Decimal of this value at its scale; 0A000 when its digits do not fit the 38 of a
    /// Decimal (PostgreSQL would answer them, so 22003 would be wrong).
    pub(crate) fn to_decimal(&self) -> Result<Decimal> {
        let scale = u32::try_from(self.scale).ok();
        scale
            .zip(i128::try_from(&self.mantissa).ok())
            .and_then(|(scale, mantissa)| Decimal::from_parts(mantissa, scale))
            .ok_or_else(|| Error::unsupported("a numeric result of more than 38 digits"))
    }

    pub(crate) fn scale(&self) -> i64 {
        self.scale
    }

    pub(crate) fn is_zero(&self) -> bool {
        self.mantissa.sign() == Sign::NoSign
    }

    pub(crate) fn is_negative(&self) -> bool {
        self.mantissa.sign() == Sign::Minus
    }

    pub(crate) fn abs(&self) -> WideDecimal {
        WideDecimal::new(BigInt::from(self.mantissa.magnitude().clone()), self.scale)
    }

    pub(crate) fn neg(&self) -> WideDecimal {
        WideDecimal::new(-&self.mantissa, self.scale)
    }

    /// The mantissa at `scale` >= self.scale, exactly.
    fn mantissa_at(&self, scale: i64) -> BigInt {
        &self.mantissa * pow10(scale - self.scale)
    }

    /// This value rounded (or extended with zeros) to `scale`, as `round_var`.
    pub(crate) fn round(&self, scale: i64) -> WideDecimal {
        if scale >= self.scale {
            return WideDecimal::new(self.mantissa_at(scale), scale);
        }
        WideDecimal::new(round_off(&self.mantissa, self.scale - scale), scale)
    }

    pub(crate) fn add(&self, other: &WideDecimal) -> WideDecimal {
        let scale = self.scale.max(other.scale);
        WideDecimal::new(self.mantissa_at(scale) + other.mantissa_at(scale), scale)
    }

    pub(crate) fn sub(&self, other: &WideDecimal) -> WideDecimal {
        self.add(&other.neg())
    }

    /// self · other rounded to `scale`.
    pub(crate) fn mul(&self, other: &WideDecimal, scale: i64) -> WideDecimal {
        let product = WideDecimal::new(&self.mantissa * &other.mantissa, self.scale + other.scale);
        product.round(scale)
    }

    /// self / other rounded to `scale`; `other` is not zero (the callers check).
    pub(crate) fn div(&self, other: &WideDecimal, scale: i64) -> WideDecimal {
        // (m1 / 10^s1) / (m2 / 10^s2) · 10^(scale + 1) with one extra digit to round on.
        let shift = scale + 1 + other.scale - self.scale;
        let (numerator, denominator) = if shift >= 0 {
            (&self.mantissa * pow10(shift), other.mantissa.clone())
        } else {
            (self.mantissa.clone(), &other.mantissa * pow10(-shift))
        };
        if denominator.sign() == Sign::NoSign {
            return WideDecimal::new(BigInt::ZERO, scale);
        }
        // Truncation to the extra digit then rounding on it is exact rounding, since any
        // remainder only moves the value away from the half-way point it could sit on.
        let truncated = numerator / denominator;
        WideDecimal::new(round_off(&truncated, 1), scale)
    }

    /// The square root of a non-negative value, rounded to `scale` (which may be negative).
    pub(crate) fn sqrt(&self, scale: i64) -> WideDecimal {
        // floor(sqrt(x) · 10^(scale + 1)) = isqrt(floor(m · 10^(2·scale + 2 - s))).
        let shift = 2 * scale + 2 - self.scale;
        let radicand = if shift >= 0 {
            self.mantissa.magnitude() * pow10(shift).magnitude()
        } else {
            self.mantissa.magnitude() / pow10(-shift).magnitude()
        };
        let root = BigInt::from(radicand.sqrt());
        WideDecimal::new(round_off(&root, 1), scale)
    }

    /// The number of decimal digits of the mantissa's magnitude (0 for zero).
    fn digit_count(&self) -> i64 {
        if self.is_zero() {
            return 0;
        }
        // bits · log10(2) is the count or one more than it.
        let estimate = (self.mantissa.bits() as f64 * std::f64::consts::LOG10_2) as i64;
        if *self.mantissa.magnitude() >= *pow10(estimate).magnitude() {
            estimate + 1
        } else {
            estimate
        }
    }

    /// The decimal exponent of the leading digit: 2 for 123.4, -2 for 0.05 (0 for zero).
    pub(crate) fn decimal_weight(&self) -> i64 {
        if self.is_zero() {
            return 0;
        }
        self.digit_count() - 1 - self.scale
    }

    /// PostgreSQL's NumericVar weight: the position of the leading base-10000 digit.
    pub(crate) fn weight(&self) -> i64 {
        self.decimal_weight().div_euclid(4)
    }

    /// The first `count` (1 to 4) base-10000 digits of a non-zero value as one integer, and
    /// the decimal weight of the last digit taken: what estimate_ln_dweight and
    /// power_var_int read from a NumericVar. As there, trailing zero digits are taken only
    /// when a later digit is not zero (a NumericVar is stripped of trailing zeros).
    pub(crate) fn leading_base10000(&self, count: i64) -> (i64, i64) {
        let weight = self.weight();
        let magnitude = self.abs();
        // The value in units of 10000^(weight - count + 1), and whether that is exact.
        let unit_scale = -4 * (weight - count + 1);
        let (whole, exact) = if unit_scale >= magnitude.scale {
            (magnitude.mantissa_at(unit_scale), true)
        } else {
            let divisor = pow10(magnitude.scale - unit_scale);
            let whole = &magnitude.mantissa / &divisor;
            let exact = (&magnitude.mantissa % &divisor).sign() == Sign::NoSign;
            (whole, exact)
        };
        let (mut digits, mut taken) = (i64::try_from(&whole).unwrap_or(0), count);
        while taken > 1 && exact && digits % 10000 == 0 {
            digits /= 10000;
            taken -= 1;
        }
        (digits, (weight - taken + 1) * 4)
    }

    /// The nearest double, infinite when out of range (numericvar_to_double_no_overflow).
    pub(crate) fn to_f64(&self) -> f64 {
        format!("{}e{}", self.mantissa, -self.scale)
            .parse()
            .unwrap_or(0.0)
    }

    pub(crate) fn cmp(&self, other: &WideDecimal) -> Ordering {
        let scale = self.scale.max(other.scale);
        self.mantissa_at(scale).cmp(&other.mantissa_at(scale))
    }

    /// Whether the value is an integer.
    pub(crate) fn is_integral(&self) -> bool {
        self.scale <= 0 || (&self.mantissa % pow10(self.scale)).sign() == Sign::NoSign
    }

    /// The value of an integral WideDecimal if it fits an i64.
    pub(crate) fn to_i64(&self) -> Option<i64> {
        if !self.is_integral() {
            return None;
        }
        let whole = if self.scale >= 0 {
            &self.mantissa / pow10(self.scale)
        } else {
            self.mantissa_at(0)
        };
        i64::try_from(&whole).ok()
    }

    /// Whether an integral value is odd.
    pub(crate) fn is_odd(&self) -> bool {
        let whole = if self.scale >= 0 {
            &self.mantissa / pow10(self.scale)
        } else {
            self.mantissa_at(0)
        };
        (whole % 2u32).sign() != Sign::NoSign
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wide(text: &str) -> WideDecimal {
        WideDecimal::from_decimal(&Decimal::parse(text).unwrap_or(Decimal::ZERO))
    }

    fn text(value: &WideDecimal) -> String {
        value
            .to_decimal()
            .map_or_else(|e| e.to_string(), |d| d.to_string())
    }

    #[test]
    fn rounds_half_away_from_zero() {
        assert_eq!(text(&wide("2.5").round(0)), "3");
        assert_eq!(text(&wide("-2.5").round(0)), "-3");
        assert_eq!(text(&wide("1").div(&wide("3"), 5)), "0.33333");
        assert_eq!(text(&wide("-2").div(&wide("3"), 2)), "-0.67");
        assert_eq!(text(&wide("2").sqrt(10)), "1.4142135624");
        assert_eq!(text(&wide("1.5").mul(&wide("1.5"), 1)), "2.3");
    }

    #[test]
    fn weights_as_numeric_var() {
        assert_eq!(wide("12345.6").weight(), 1);
        assert_eq!(wide("0.00012").weight(), -1);
        assert_eq!(wide("0.0012").weight(), -1);
        assert_eq!(wide("0.12").weight(), -1);
        assert_eq!(wide("1").weight(), 0);
        assert_eq!(wide("12345.6").leading_base10000(2), (12345, 0));
        assert_eq!(wide("12345.6").leading_base10000(4), (1_2345_6000, -4));
        assert_eq!(wide("20000").leading_base10000(2), (2, 4));
        assert_eq!(wide("20000.0001").leading_base10000(2), (20000, 0));
        assert_eq!(wide("0.5").leading_base10000(2), (5000, -4));
    }
}
