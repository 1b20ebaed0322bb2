//! variance / var_samp / var_pop / stddev / stddev_samp / stddev_pop with PostgreSQL's
//! digits. Float inputs use the Youngs-Cramer updates of float8_accum (double precision
//! result). Integer and numeric inputs keep exact sums (count, Σx, Σx²) as numeric.c does and
//! finish as numeric_stddev_internal: (N·Σx² − (Σx)²) / (N·(N−1)) or / N², rounded at
//! select_div_scale's scale, and for stddev the square root of that rounded quotient at the
//! same scale. Σx² and the products of the finish need more than 128 bits, so they use
//! [`U256`].

use std::cmp::Ordering;

use crate::error::{Error, Result};
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
    sum: i128,
    sum_squares: U256,
    scale: u32,
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
        self.add(group, value.mantissa(), value.scale())
    }

    fn add(&mut self, group: usize, mantissa: i128, scale: u32) -> Result<()> {
        let sums = &mut self.state[group];
        if scale > sums.scale {
            let shift = scale - sums.scale;
            sums.sum = sums
                .sum
                .checked_mul(pow10_i128(shift)?)
                .ok_or_else(overflow)?;
            sums.sum_squares = sums.sum_squares.mul_pow10(2 * shift).ok_or_else(overflow)?;
            sums.scale = scale;
        }
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

    /// numeric_stddev_internal; None when undefined (no rows, or one row for a sample).
    pub fn value(&self, group: usize, kind: VarianceKind) -> Result<Option<Decimal>> {
        let sums = self.state[group];
        let n = sums.count;
        if n == 0 || (kind.sample && n <= 1) {
            return Ok(None);
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

/// An unsigned 256-bit integer, little-endian 64-bit limbs: just the operations the exact
/// variance needs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct U256([u64; 4]);

impl Ord for U256 {
    fn cmp(&self, other: &U256) -> Ordering {
        self.0.iter().rev().cmp(other.0.iter().rev())
    }
}

impl PartialOrd for U256 {
    fn partial_cmp(&self, other: &U256) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl U256 {
    fn from_u128(value: u128) -> U256 {
        U256([value as u64, (value >> 64) as u64, 0, 0])
    }

    fn to_u128(self) -> Option<u128> {
        (self.0[2] == 0 && self.0[3] == 0)
            .then(|| u128::from(self.0[0]) | (u128::from(self.0[1]) << 64))
    }

    fn is_zero(self) -> bool {
        self.0 == [0; 4]
    }

    /// a · b, which always fits 256 bits.
    fn mul_u128(a: u128, b: u128) -> U256 {
        let (a, b) = ([a as u64, (a >> 64) as u64], [b as u64, (b >> 64) as u64]);
        let mut out = [0u64; 4];
        for (i, &x) in a.iter().enumerate() {
            let mut carry = 0u128;
            for (j, &y) in b.iter().enumerate() {
                let t = u128::from(x) * u128::from(y) + u128::from(out[i + j]) + carry;
                out[i + j] = t as u64;
                carry = t >> 64;
            }
            out[i + 2] = carry as u64;
        }
        U256(out)
    }

    fn checked_add(self, other: U256) -> Option<U256> {
        let mut out = [0u64; 4];
        let mut carry = false;
        for (slot, (&a, &b)) in out.iter_mut().zip(self.0.iter().zip(&other.0)) {
            let (sum, c1) = a.overflowing_add(b);
            let (sum, c2) = sum.overflowing_add(u64::from(carry));
            *slot = sum;
            carry = c1 || c2;
        }
        (!carry).then_some(U256(out))
    }

    fn checked_sub(self, other: U256) -> Option<U256> {
        let mut out = [0u64; 4];
        let mut borrow = false;
        for (slot, (&a, &b)) in out.iter_mut().zip(self.0.iter().zip(&other.0)) {
            let (diff, b1) = a.overflowing_sub(b);
            let (diff, b2) = diff.overflowing_sub(u64::from(borrow));
            *slot = diff;
            borrow = b1 || b2;
        }
        (!borrow).then_some(U256(out))
    }

    fn checked_mul_small(self, factor: u64) -> Option<U256> {
        let mut out = [0u64; 4];
        let mut carry = 0u128;
        for (slot, &limb) in out.iter_mut().zip(&self.0) {
            let product = u128::from(limb) * u128::from(factor) + carry;
            *slot = product as u64;
            carry = product >> 64;
        }
        (carry == 0).then_some(U256(out))
    }

    fn mul_pow10(self, mut exponent: u32) -> Option<U256> {
        let mut value = self;
        while exponent > 0 {
            let step = exponent.min(19);
            value = value.checked_mul_small(10u64.pow(step))?;
            exponent -= step;
        }
        Some(value)
    }

    /// (self / divisor, self % divisor) for a non-zero divisor below 2^127.
    fn div_rem(self, divisor: u128) -> (U256, u128) {
        let mut quotient = [0u64; 4];
        let mut remainder = 0u128;
        if let Ok(small) = u64::try_from(divisor) {
            let small = u128::from(small);
            for (q, &limb) in quotient.iter_mut().zip(&self.0).rev() {
                let current = (remainder << 64) | u128::from(limb);
                *q = (current / small) as u64;
                remainder = current % small;
            }
        } else {
            // Bit by bit: remainder < divisor < 2^127, so shifting it left cannot overflow.
            for bit in (0..256).rev() {
                remainder = (remainder << 1) | u128::from((self.0[bit / 64] >> (bit % 64)) & 1);
                if remainder >= divisor {
                    remainder -= divisor;
                    quotient[bit / 64] |= 1 << (bit % 64);
                }
            }
        }
        (U256(quotient), remainder)
    }

    fn shr(self, by: u32) -> U256 {
        let mut out = [0u64; 4];
        let (limbs, bits) = ((by / 64) as usize, by % 64);
        for (i, slot) in out.iter_mut().enumerate() {
            let Some(&low) = self.0.get(i + limbs) else {
                break;
            };
            let high = self.0.get(i + limbs + 1).copied().unwrap_or(0);
            *slot = if bits == 0 {
                low
            } else {
                (low >> bits) | (high << (64 - bits))
            };
        }
        U256(out)
    }

    fn bit(index: u32) -> U256 {
        let mut out = [0u64; 4];
        out[(index / 64) as usize] = 1 << (index % 64);
        U256(out)
    }

    fn bits(self) -> u32 {
        for (i, &limb) in self.0.iter().enumerate().rev() {
            if limb != 0 {
                return i as u32 * 64 + 64 - limb.leading_zeros();
            }
        }
        0
    }

    /// floor(√self), by the binary digit-by-digit method.
    fn isqrt(self) -> U256 {
        let mut remainder = self;
        let mut root = U256::default();
        let top = self.bits();
        if top == 0 {
            return root;
        }
        let mut bit = U256::bit((top - 1) & !1);
        while !bit.is_zero() {
            // Neither sum overflows: root + bit <= 2 * sqrt(self) < 2^129.
            let trial = root.checked_add(bit).unwrap_or(root);
            if remainder >= trial {
                remainder = remainder.checked_sub(trial).unwrap_or_default();
                root = root.shr(1).checked_add(bit).unwrap_or(root);
            } else {
                root = root.shr(1);
            }
            bit = bit.shr(2);
        }
        root
    }

    /// The decimal digits, most significant first; `[0]` for zero.
    fn decimal_digits(self) -> Vec<u8> {
        const CHUNK: u128 = 10_000_000_000_000_000_000; // 10^19
        let mut chunks = Vec::new();
        let mut value = self;
        while !value.is_zero() {
            let (quotient, remainder) = value.div_rem(CHUNK);
            chunks.push(remainder as u64);
            value = quotient;
        }
        let mut digits = Vec::with_capacity(chunks.len() * 19);
        for (i, chunk) in chunks.iter().rev().enumerate() {
            let text = if i == 0 {
                chunk.to_string()
            } else {
                format!("{chunk:019}")
            };
            digits.extend(text.bytes().map(|b| b - b'0'));
        }
        if digits.is_empty() {
            digits.push(0);
        }
        digits
    }
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
