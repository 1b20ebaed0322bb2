//! variance / var_samp / var_pop / stddev / stddev_samp / stddev_pop with PostgreSQL's
//! digits. Float inputs use the Youngs-Cramer updates of float8_accum (double precision
//! result). Integer and numeric inputs keep exact sums (count, Σx, Σx²) as numeric.c does and
//! finish as numeric_stddev_internal: (N·Σx² − (Σx)²) / (N·(N−1)) or / N², rounded at
//! select_div_scale's scale, and for stddev the square root of that rounded quotient at the
//! same scale. Σx² and the products of the finish need more than 128 bits, so they use
//! [`U256`].

use crate::error::{Error, Result};
use crate::types::wide::U256;
use crate::types::Decimal;

/// Which statistic an accumulator produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VarianceKind {
    /// Divide by N − 1 (sample) rather than N (population).
    pub sample: bool,
    /// The square root of the variance.
    pub stddev: bool,
}

/// Per-group (N, Σx, Sxx) of float8_accum.
#[derive(Debug, Default)]
pub struct FloatMoments {
    state: Vec<[f64; 3]>,
}

impl FloatMoments {
    pub fn resize(&mut self, groups: usize) {
        self.state.resize(groups, [0.0; 3]);
    }

    /// float8_accum: one Youngs-Cramer step; 22003 when finite inputs overflow.
    pub fn add(&mut self, group: usize, value: f64) -> Result<()> {
        let [n_old, sx_old, sxx_old] = self.state[group];
        let n = n_old + 1.0;
        let sx = sx_old + value;
        let mut sxx = sxx_old;
        if n_old > 0.0 {
            let tmp = value * n - sx;
            sxx += tmp * tmp / (n * n_old);
            if sx.is_infinite() || sxx.is_infinite() {
                if !sx_old.is_infinite() && !value.is_infinite() {
                    return Err(Error::out_of_range("value out of range: overflow"));
                }
                sxx = f64::NAN;
            }
        } else if value.is_nan() || value.is_infinite() {
            // A lone infinite or NaN input must not report variance zero.
            sxx = f64::NAN;
        }
        self.state[group] = [n, sx, sxx];
        Ok(())
    }

    /// float8_var_samp / float8_var_pop / float8_stddev_*: None when undefined.
    pub fn value(&self, group: usize, kind: VarianceKind) -> Option<f64> {
        let [n, _, sxx] = self.state[group];
        let divisor = if kind.sample { n - 1.0 } else { n };
        if n == 0.0 || (kind.sample && n <= 1.0) {
            return None;
        }
        let variance = sxx / divisor;
        Some(if kind.stddev {
            variance.sqrt()
        } else {
            variance
        })
    }

    pub fn len(&self) -> usize {
        self.state.len()
    }
}

/// One group's exact sums: Σx and Σx² as integers at `scale` and `2 * scale` decimals, the
/// largest display scale of any input so far (numeric.c's accum_sum dscale).
#[derive(Debug, Clone, Copy, Default)]
struct ExactSums {
    count: i64,
    /// NaN and infinite inputs, kept out of the sums: any makes the result NaN.
    specials: i64,
    sum: i128,
    sum_squares: U256,
    scale: u32,
}

impl ExactSums {
    /// Rescales the sums to `scale` decimals if that is more than they have.
    fn widen_scale(&mut self, scale: u32) -> Result<()> {
        if scale > self.scale {
            let shift = scale - self.scale;
            self.sum = self
                .sum
                .checked_mul(pow10_i128(shift)?)
                .ok_or_else(overflow)?;
            self.sum_squares = self.sum_squares.mul_pow10(2 * shift).ok_or_else(overflow)?;
            self.scale = scale;
        }
        Ok(())
    }
}

/// Per-group exact sums of integer or numeric inputs.
#[derive(Debug, Default)]
pub struct NumericMoments {
    state: Vec<ExactSums>,
}

impl NumericMoments {
    pub fn resize(&mut self, groups: usize) {
        self.state.resize(groups, ExactSums::default());
    }

    pub fn len(&self) -> usize {
        self.state.len()
    }

    pub fn add_integer(&mut self, group: usize, value: i64) -> Result<()> {
        self.add(group, i128::from(value), 0)
    }

    pub fn add_numeric(&mut self, group: usize, value: &Decimal) -> Result<()> {
        if !value.is_finite() {
            self.state[group].specials += 1;
            return Ok(());
        }
        self.add(group, value.mantissa(), value.scale())
    }

    fn add(&mut self, group: usize, mantissa: i128, scale: u32) -> Result<()> {
        let sums = &mut self.state[group];
        sums.widen_scale(scale)?;
        let value = mantissa
            .checked_mul(pow10_i128(sums.scale - scale)?)
            .ok_or_else(overflow)?;
        let magnitude = value.unsigned_abs();
        sums.count += 1;
        sums.sum = sums.sum.checked_add(value).ok_or_else(overflow)?;
        sums.sum_squares = sums
            .sum_squares
            .checked_add(U256::mul_u128(magnitude, magnitude))
            .ok_or_else(overflow)?;
        Ok(())
    }

    /// Adds the sums of `other`'s groups into ours by (their group, our group) pairs
    /// (numeric_combine): exact, so partial states of disjoint inputs give the serial result.
    pub fn merge(
        &mut self,
        other: &NumericMoments,
        pairs: impl Iterator<Item = (usize, usize)>,
    ) -> Result<()> {
        for (f, group) in pairs {
            let mut theirs = other.state[f];
            let ours = &mut self.state[group];
            ours.widen_scale(theirs.scale)?;
            theirs.widen_scale(ours.scale)?;
            ours.count += theirs.count;
            ours.specials += theirs.specials;
            ours.sum = ours.sum.checked_add(theirs.sum).ok_or_else(overflow)?;
            ours.sum_squares = ours
                .sum_squares
                .checked_add(theirs.sum_squares)
                .ok_or_else(overflow)?;
        }
        Ok(())
    }

    /// numeric_stddev_internal; None when undefined (no rows, or one row for a sample).
    pub fn value(&self, group: usize, kind: VarianceKind) -> Result<Option<Decimal>> {
        let sums = self.state[group];
        let n = sums.count;
        let total = n + sums.specials;
        if total == 0 || (kind.sample && total <= 1) {
            return Ok(None);
        }
        if sums.specials > 0 {
            return Ok(Some(Decimal::NAN));
        }
        let n_wide = u64::try_from(n).map_err(|_| overflow())?;
        let sum_magnitude = sums.sum.unsigned_abs();
        let numerator = match sums
            .sum_squares
            .checked_mul_small(n_wide)
            .ok_or_else(overflow)?
            .checked_sub(U256::mul_u128(sum_magnitude, sum_magnitude))
        {
            Some(value) if !value.is_zero() => value,
            // A zero numerator is numeric's constant zero, which prints as `0`.
            _ => return Ok(Some(Decimal::ZERO)),
        };
        let n = u128::from(n_wide);
        let denominator = if kind.sample { n * (n - 1) } else { n * n };
        let numerator_scale = 2 * sums.scale;
        let rscale = select_div_scale(
            &numerator.decimal_digits(),
            numerator_scale,
            &U256::from_u128(denominator).decimal_digits(),
        );
        // quotient = numerator / 10^numerator_scale / denominator at rscale decimals.
        let scaled = numerator
            .mul_pow10(rscale - numerator_scale)
            .ok_or_else(overflow)?;
        let (quotient, remainder) = scaled.div_rem(denominator);
        let round_up = remainder >= denominator - remainder;
        let quotient = quotient
            .checked_add(U256::from_u128(u128::from(round_up)))
            .ok_or_else(overflow)?;
        let mantissa = if kind.stddev {
            // sqrt_var of the rounded variance at the same scale, rounded half up from one
            // more digit: floor(sqrt(q / 10^r) * 10^(r+1)) = isqrt(q * 10^(r+2)).
            let root = quotient.mul_pow10(rscale + 2).ok_or_else(overflow)?.isqrt();
            let (root, last_digit) = root.div_rem(10);
            root.checked_add(U256::from_u128(u128::from(last_digit >= 5)))
                .ok_or_else(overflow)?
        } else {
            quotient
        };
        let mantissa = mantissa
            .to_u128()
            .and_then(|m| i128::try_from(m).ok())
            .ok_or_else(overflow)?;
        Ok(Some(Decimal::new(mantissa, rscale)))
    }
}

fn overflow() -> Error {
    Error::out_of_range("value overflows numeric format")
}

fn pow10_i128(exponent: u32) -> Result<i128> {
    10i128.checked_pow(exponent).ok_or_else(overflow)
}

/// PostgreSQL's select_div_scale for a numerator given by its decimal digits (most
/// significant first) and display scale, over an integer denominator: at least 16 significant
/// digits, no fewer decimals than the numerator. Weights count base-10000 digits, as numeric.c
/// stores them.
fn select_div_scale(numerator: &[u8], numerator_scale: u32, denominator: &[u8]) -> u32 {
    let (weight1, first1) = base10000_lead(numerator, numerator_scale);
    let (weight2, first2) = base10000_lead(denominator, 0);
    let mut qweight = weight1 - weight2;
    if first1 <= first2 {
        qweight -= 1;
    }
    (16 - qweight * 4)
        .max(i64::from(numerator_scale))
        .clamp(0, 1000) as u32
}

/// The weight and value of the leading base-10000 digit of digits / 10^scale (non-zero).
fn base10000_lead(digits: &[u8], scale: u32) -> (i64, u32) {
    let exponent = digits.len() as i64 - 1 - i64::from(scale);
    let weight = exponent.div_euclid(4);
    let leading = (exponent - 4 * weight + 1) as usize;
    let first = digits
        .iter()
        .take(leading)
        .fold(0u32, |acc, &d| acc * 10 + u32::from(d));
    (weight, first)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: VarianceKind = VarianceKind {
        sample: true,
        stddev: false,
    };

    fn exact(values: &[&str], kind: VarianceKind) -> String {
        let mut moments = NumericMoments::default();
        moments.resize(1);
        for v in values {
            let d = Decimal::parse(v).expect("test literal parses");
            moments.add_numeric(0, &d).expect("fits");
        }
        match moments.value(0, kind).expect("fits") {
            Some(d) => d.to_string(),
            None => "NULL".into(),
        }
    }

    // Expected values are PostgreSQL 15's.
    #[test]
    fn numeric_variance_digits() {
        assert_eq!(exact(&["1", "2", "3", "4"], SAMPLE), "1.6666666666666667");
        let stddev = VarianceKind {
            sample: true,
            stddev: true,
        };
        assert_eq!(exact(&["1", "2", "3", "4"], stddev), "1.2909944487358056");
        let pop_stddev = VarianceKind {
            sample: false,
            stddev: true,
        };
        assert_eq!(
            exact(&["1", "2", "3", "4"], pop_stddev),
            "1.1180339887498948"
        );
        assert_eq!(exact(&["1.5", "1.5"], SAMPLE), "0");
        assert_eq!(exact(&["7"], SAMPLE), "NULL");
    }

    #[test]
    fn wide_arithmetic() {
        let big = U256::mul_u128(u128::MAX, u128::MAX);
        assert_eq!(big.isqrt(), U256::from_u128(u128::MAX));
        assert_eq!(
            U256::from_u128(12345678901234567890123).decimal_digits(),
            b"12345678901234567890123"
                .iter()
                .map(|b| b - b'0')
                .collect::<Vec<_>>()
        );
        assert_eq!(U256::from_u128(99).isqrt(), U256::from_u128(9));
    }
}
