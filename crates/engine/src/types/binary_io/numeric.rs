//! NUMERIC's binary format (numeric_send / numeric_recv): `ndigits, weight, sign, dscale`
//! as Int16s, then `ndigits` base-10000 digits, most significant first; the value is
//! `Σ digit[i] × 10000^(weight − i)`. Our [`Decimal`] is a base-10 mantissa and a scale,
//! so conversion regroups decimal digits around the decimal point.

use crate::error::{Error, SqlState};
use crate::types::numeric::Special;
use crate::types::Decimal;

use super::recv::{incorrect_binary_format, insufficient_data};

const NBASE: u128 = 10_000;
const SIGN_POSITIVE: u16 = 0x0000;
const SIGN_NEGATIVE: u16 = 0x4000;
const SIGN_NAN: u16 = 0xC000;
const SIGN_PLUS_INFINITY: u16 = 0xD000;
const SIGN_MINUS_INFINITY: u16 = 0xF000;
/// PostgreSQL's NUMERIC_MAX_DISPLAY_SCALE-related bound on dscale in numeric_recv.
const DSCALE_MASK: u16 = 0x3FFF;

/// Base-10000 digits of an i128 mantissa: at most 39 decimal digits on each side of the
/// point, so 10 groups each plus one for alignment.
const GROUPS_MAX: usize = 24;

pub(super) fn write_numeric_binary(value: &Decimal, out: &mut Vec<u8>) {
    if let Some(special) = value.special() {
        // No digits and weight 0: the sign word says which value it is. numeric_send reads
        // the dscale out of the special header's bits as if it were a short numeric's, so
        // the infinities go out with a dscale of 32 and NaN with 0.
        let (sign, dscale) = match special {
            Special::NaN => (SIGN_NAN, 0u16),
            Special::PosInf => (SIGN_PLUS_INFINITY, 32),
            Special::NegInf => (SIGN_MINUS_INFINITY, 32),
        };
        out.extend_from_slice(&[0, 0, 0, 0]);
        out.extend_from_slice(&sign.to_be_bytes());
        out.extend_from_slice(&dscale.to_be_bytes());
        return;
    }
    let magnitude = value.mantissa().unsigned_abs();
    let scale = value.scale();
    let (mut int_part, mut frac_part) = match 10u128.checked_pow(scale) {
        Some(divisor) => (magnitude / divisor, magnitude % divisor),
        // A scale past 38 digits leaves no integer part.
        None => (0, magnitude),
    };

    // Integer groups, least significant first, then reversed into place.
    let mut groups = [0u16; GROUPS_MAX];
    let mut int_count = 0;
    while int_part > 0 && int_count < GROUPS_MAX {
        groups[int_count] = (int_part % NBASE) as u16;
        int_part /= NBASE;
        int_count += 1;
    }
    groups[..int_count].reverse();

    // Fraction groups: the last one is zero-padded on the right to four digits.
    // With a scale past 38 only the rightmost groups can be non-zero; the zero groups left
    // of them are not materialised but still count towards the weight.
    let frac_total = (scale as usize).div_ceil(4);
    let frac_count = frac_total.min(GROUPS_MAX - int_count);
    let frac_skipped = frac_total - frac_count;
    let last_digits = match scale % 4 {
        0 => 4,
        rest => rest,
    };
    for idx in (0..frac_count).rev() {
        let digits = if idx == frac_count - 1 {
            last_digits
        } else {
            4
        };
        let unit = 10u128.pow(digits);
        let group = (frac_part % unit) * 10u128.pow(4 - digits);
        frac_part /= unit;
        groups[int_count + idx] = group as u16;
    }

    let all = &groups[..int_count + frac_count];
    let leading_zeros = all.iter().take_while(|&&g| g == 0).count();
    let trailing_zeros = all[leading_zeros..]
        .iter()
        .rev()
        .take_while(|&&g| g == 0)
        .count();
    let digits = &all[leading_zeros..all.len() - trailing_zeros];
    let (weight, sign) = if digits.is_empty() {
        (0, SIGN_POSITIVE)
    } else {
        let weight = int_count as i64 - 1 - leading_zeros as i64 - frac_skipped as i64;
        let sign = if value.mantissa() < 0 {
            SIGN_NEGATIVE
        } else {
            SIGN_POSITIVE
        };
        (weight, sign)
    };
    out.extend_from_slice(&(digits.len() as i16).to_be_bytes());
    out.extend_from_slice(&(weight as i16).to_be_bytes());
    out.extend_from_slice(&sign.to_be_bytes());
    out.extend_from_slice(&(scale.min(u32::from(DSCALE_MASK)) as u16).to_be_bytes());
    for &digit in digits {
        out.extend_from_slice(&digit.to_be_bytes());
    }
}

/// numeric_recv: digits past `dscale` are truncated, as PostgreSQL does.
pub(super) fn read_numeric_binary(bytes: &[u8]) -> Result<Decimal, Error> {
    let header = |idx: usize| -> Result<u16, Error> {
        match bytes.get(2 * idx..2 * idx + 2) {
            Some(pair) => Ok(u16::from_be_bytes([pair[0], pair[1]])),
            None => Err(insufficient_data()),
        }
    };
    let ndigits = header(0)? as i16;
    let weight = i64::from(header(1)? as i16);
    let sign = header(2)?;
    let dscale = header(3)?;
    let digit_count = usize::try_from(ndigits)
        .map_err(|_| invalid("invalid length in external \"numeric\" value"))?;
    if bytes.len() < 8 + 2 * digit_count {
        return Err(insufficient_data());
    }
    if bytes.len() > 8 + 2 * digit_count {
        return Err(incorrect_binary_format());
    }
    let special = match sign {
        SIGN_POSITIVE | SIGN_NEGATIVE => None,
        SIGN_NAN => Some(Decimal::NAN),
        SIGN_PLUS_INFINITY => Some(Decimal::POS_INFINITY),
        SIGN_MINUS_INFINITY => Some(Decimal::NEG_INFINITY),
        _ => return Err(invalid("invalid sign in external \"numeric\" value")),
    };
    if dscale & !DSCALE_MASK != 0 {
        return Err(invalid("invalid scale in external \"numeric\" value"));
    }

    let mut mantissa: i128 = 0;
    for idx in 0..digit_count {
        let digit = i128::from(header(4 + idx)?);
        if digit >= NBASE as i128 {
            return Err(invalid("invalid digit in external \"numeric\" value"));
        }
        let exponent = 4 * (weight - idx as i64) + i64::from(dscale);
        let term = if exponent >= 0 {
            u32::try_from(exponent)
                .ok()
                .and_then(|e| 10i128.checked_pow(e))
                .and_then(|power| digit.checked_mul(power))
        } else if exponent > -4 {
            Some(digit / 10i128.pow((-exponent) as u32))
        } else {
            Some(0)
        };
        mantissa = term
            .and_then(|term| mantissa.checked_add(term))
            .ok_or_else(|| Error::out_of_range("value overflows numeric format"))?;
    }
    // numeric_recv reads a special value's digits but keeps only its sign word.
    if let Some(special) = special {
        return Ok(special);
    }
    if sign == SIGN_NEGATIVE {
        mantissa = -mantissa;
    }
    Ok(Decimal::new(mantissa, u32::from(dscale)))
}

fn invalid(message: &str) -> Error {
    Error::new(SqlState::InvalidBinaryRepresentation, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(mantissa: i128, scale: u32) -> Vec<i16> {
        let mut out = Vec::new();
        write_numeric_binary(&Decimal::new(mantissa, scale), &mut out);
        out.chunks(2)
            .map(|p| i16::from_be_bytes([p[0], p[1]]))
            .collect()
    }

    #[test]
    fn encodes_like_numeric_send() {
        // Expected words checked against PostgreSQL 15's numeric_send.
        assert_eq!(encode(150, 2), vec![2, 0, 0, 2, 1, 5000]);
        assert_eq!(encode(12_345_678, 3), vec![3, 1, 0, 3, 1, 2345, 6780]);
        assert_eq!(encode(-1, 4), vec![1, -1, 0x4000, 4, 1]);
        assert_eq!(encode(1, 5), vec![1, -2, 0, 5, 1000]);
        assert_eq!(encode(0, 2), vec![0, 0, 0, 2]);
        assert_eq!(encode(100_000_000, 0), vec![1, 2, 0, 0, 1]);
        assert_eq!(encode(i128::MAX, 0)[..4], [10, 9, 0, 0]);
    }

    #[test]
    fn decodes_what_it_encodes() -> Result<(), Error> {
        for (mantissa, scale) in [
            (150, 2),
            (12_345_678, 3),
            (-1, 4),
            (1, 5),
            (0, 2),
            (100_000_000, 0),
            (-i128::MAX, 0),
            (123_456_789, 38),
            (7, 60),
        ] {
            let mut out = Vec::new();
            write_numeric_binary(&Decimal::new(mantissa, scale), &mut out);
            let back = read_numeric_binary(&out)?;
            assert_eq!((back.mantissa(), back.scale()), (mantissa, scale));
        }
        Ok(())
    }

    #[test]
    fn truncates_digits_past_dscale_and_rejects_garbage() -> Result<(), Error> {
        // 1.2345 sent with dscale 2 is 1.23.
        let words: [u16; 6] = [2, 0, 0, 2, 1, 2345];
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        let value = read_numeric_binary(&bytes)?;
        assert_eq!((value.mantissa(), value.scale()), (123, 2));
        assert!(read_numeric_binary(&bytes[..10]).is_err());
        Ok(())
    }

    #[test]
    fn special_values_are_sign_words() -> Result<(), Error> {
        // numeric_send of NaN, Infinity and -Infinity in PostgreSQL 15.
        for (value, sign, dscale) in [
            (Decimal::NAN, 0xC000u16, 0),
            (Decimal::POS_INFINITY, 0xD000, 32),
            (Decimal::NEG_INFINITY, 0xF000, 32),
        ] {
            let mut out = Vec::new();
            write_numeric_binary(&value, &mut out);
            let words: Vec<u8> = [0u16, 0, sign, dscale]
                .iter()
                .flat_map(|w| w.to_be_bytes())
                .collect();
            assert_eq!(out, words);
            assert_eq!(read_numeric_binary(&out)?.special(), value.special());
        }
        Ok(())
    }
}
