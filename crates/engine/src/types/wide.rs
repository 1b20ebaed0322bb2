//! 256-bit unsigned arithmetic for exact NUMERIC intermediates.

use std::cmp::Ordering;

/// An unsigned 256-bit integer, little-endian 64-bit limbs: the intermediate products of
/// NUMERIC division and of the exact variance, whose results fit 128 bits when the operands'
/// products do not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct U256(pub(crate) [u64; 4]);

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
    pub(crate) fn from_u128(value: u128) -> U256 {
        U256([value as u64, (value >> 64) as u64, 0, 0])
    }

    pub(crate) fn to_u128(self) -> Option<u128> {
        (self.0[2] == 0 && self.0[3] == 0)
            .then(|| u128::from(self.0[0]) | (u128::from(self.0[1]) << 64))
    }

    pub(crate) fn is_zero(self) -> bool {
        self.0 == [0; 4]
    }

    /// a · b, which always fits 256 bits.
    pub(crate) fn mul_u128(a: u128, b: u128) -> U256 {
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

    pub(crate) fn checked_add(self, other: U256) -> Option<U256> {
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

    pub(crate) fn checked_sub(self, other: U256) -> Option<U256> {
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

    pub(crate) fn checked_mul_small(self, factor: u64) -> Option<U256> {
        let mut out = [0u64; 4];
        let mut carry = 0u128;
        for (slot, &limb) in out.iter_mut().zip(&self.0) {
            let product = u128::from(limb) * u128::from(factor) + carry;
            *slot = product as u64;
            carry = product >> 64;
        }
        (carry == 0).then_some(U256(out))
    }

    pub(crate) fn mul_pow10(self, mut exponent: u32) -> Option<U256> {
        let mut value = self;
        while exponent > 0 {
            let step = exponent.min(19);
            value = value.checked_mul_small(10u64.pow(step))?;
            exponent -= step;
        }
        Some(value)
    }

    /// (self / divisor, self % divisor) for a non-zero divisor of at most 2^127.
    pub(crate) fn div_rem(self, divisor: u128) -> (U256, u128) {
        if let Some(value) = self.to_u128() {
            return (U256::from_u128(value / divisor), value % divisor);
        }
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
            // Bit by bit: remainder < divisor <= 2^127, so shifting it left cannot overflow.
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

    pub(crate) fn shr(self, by: u32) -> U256 {
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

    pub(crate) fn bit(index: u32) -> U256 {
        let mut out = [0u64; 4];
        out[(index / 64) as usize] = 1 << (index % 64);
        U256(out)
    }

    pub(crate) fn bits(self) -> u32 {
        for (i, &limb) in self.0.iter().enumerate().rev() {
            if limb != 0 {
                return i as u32 * 64 + 64 - limb.leading_zeros();
            }
        }
        0
    }

    /// floor(√self), by the binary digit-by-digit method.
    pub(crate) fn isqrt(self) -> U256 {
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
    pub(crate) fn decimal_digits(self) -> Vec<u8> {
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
