//! The fractional-second precision of `timestamp(p)`, `timestamptz(p)`, `time(p)`,
//! `timetz(p)` and `interval(p)`: PostgreSQL's AdjustTimestampForTypmod,
//! AdjustTimeForTypmod and AdjustIntervalForTypmod, which round (half away from zero) every
//! value that enters a slot of such a type (and truncate an interval to its fields, see
//! [`super::interval_typmod`]).

use super::datetime;
use super::timetz;
use super::{DataType, IntervalTypmod, ScalarValue};
use crate::error::{Error, Result, SqlState};
use crate::vector::VectorData;

/// PostgreSQL's MAX_TIMESTAMP_PRECISION and MAX_INTERVAL_PRECISION.
pub const MAX_PRECISION: u8 = 6;

/// The precision a declaration asks for, as the typmodin functions take it: negative is
/// an error, more than 6 is 6 with a warning (the second value).
pub fn declared(name: &str, precision: i64) -> Result<(u8, Option<String>)> {
    if precision < 0 {
        return Err(Error::new(
            SqlState::InvalidParameterValue,
            format!(
                "{} precision must not be negative",
                with_precision(name, precision)
            ),
        ));
    }
    if precision > i64::from(MAX_PRECISION) {
        let warning = format!(
            "{} precision reduced to maximum allowed, {MAX_PRECISION}",
            with_precision(name, precision)
        );
        return Ok((MAX_PRECISION, Some(warning)));
    }
    Ok((precision as u8, None))
}

/// `TIMESTAMP(7) WITH TIME ZONE`, `interval(7)`: how the typmodin messages name the type.
fn with_precision(name: &str, precision: i64) -> String {
    match name.split_once(' ') {
        Some((head, tail)) => format!("{head}({precision}) {tail}"),
        None => format!("{name}({precision})"),
    }
}

/// Microseconds rounded to `precision` digits, half away from zero.
pub(crate) fn round_micros(micros: i64, precision: u8) -> i64 {
    let scale = 10_i64.pow(u32::from(MAX_PRECISION - precision.min(MAX_PRECISION)));
    let half = scale / 2;
    if micros >= 0 {
        (micros.saturating_add(half) / scale) * scale
    } else {
        -((micros.saturating_neg().saturating_add(half) / scale) * scale)
    }
}

/// A timestamp (either kind) rounded; infinities stay, and a value rounded past the
/// range is PostgreSQL's error.
fn round_timestamp(micros: i64, precision: u8) -> Result<i64> {
    if micros == i64::MAX || micros == i64::MIN {
        return Ok(micros);
    }
    let rounded = round_micros(micros, precision);
    if !datetime::is_valid_timestamp(rounded) {
        return Err(Error::new(
            SqlState::DatetimeFieldOverflow,
            "timestamp out of range",
        ));
    }
    Ok(rounded)
}

fn round_timetz(value: i64, precision: u8) -> i64 {
    let (time, east) = timetz::unpack(value);
    timetz::pack(round_micros(time, precision), east)
}

/// The declared precision of a datetime type, if it has one.
pub fn of(ty: DataType) -> Option<u8> {
    match ty {
        DataType::Timestamp(p)
        | DataType::TimestampTz(p)
        | DataType::Time(p)
        | DataType::TimeTz(p) => p,
        DataType::Interval(m) => m.precision,
        _ => None,
    }
}

/// Whether values entering a slot of `ty` are adjusted here: a datetime type with a
/// precision, or an interval with fields.
pub fn adjusts(ty: DataType) -> bool {
    match ty {
        DataType::Interval(m) => m != IntervalTypmod::NONE,
        _ => of(ty).is_some(),
    }
}

/// Rounds a value of `ty` to its precision (values of other types are returned as they are).
pub fn fit_scalar(value: ScalarValue, ty: DataType) -> Result<ScalarValue> {
    if let (ScalarValue::Interval(i), DataType::Interval(m)) = (&value, ty) {
        return Ok(ScalarValue::Interval(m.adjust(*i)));
    }
    let Some(p) = of(ty) else {
        return Ok(value);
    };
    Ok(match value {
        ScalarValue::Timestamp(t) => ScalarValue::Timestamp(round_timestamp(t, p)?),
        ScalarValue::TimestampTz(t) => ScalarValue::TimestampTz(round_timestamp(t, p)?),
        ScalarValue::Time(t) => ScalarValue::Time(round_micros(t, p)),
        ScalarValue::TimeTz(t) => ScalarValue::TimeTz(round_timetz(t, p)),
        other => other,
    })
}

/// Rounds every value of a vector of `ty` to its precision, in place. NULL rows hold
/// placeholders, which round harmlessly.
pub fn fit_vector(data: &mut VectorData, ty: DataType) -> Result<()> {
    if let (VectorData::Interval(v), DataType::Interval(m)) = (&mut *data, ty) {
        if m != IntervalTypmod::NONE {
            v.iter_mut().for_each(|i| *i = m.adjust(*i));
        }
        return Ok(());
    }
    let Some(p) = of(ty) else {
        return Ok(());
    };
    match data {
        VectorData::Timestamp(v) | VectorData::TimestampTz(v) => {
            for t in v.iter_mut() {
                *t = round_timestamp(*t, p)?;
            }
        }
        VectorData::Time(v) => v.iter_mut().for_each(|t| *t = round_micros(*t, p)),
        VectorData::TimeTz(v) => v.iter_mut().for_each(|t| *t = round_timetz(*t, p)),
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_half_away_from_zero() {
        assert_eq!(round_micros(1_234_500, 3), 1_235_000);
        assert_eq!(round_micros(1_234_499, 3), 1_234_000);
        assert_eq!(round_micros(-1_234_500, 3), -1_235_000);
        assert_eq!(round_micros(1_500_000, 0), 2_000_000);
        assert_eq!(round_micros(1_234_567, 6), 1_234_567);
    }

    #[test]
    fn declared_precisions() {
        assert_eq!(declared("TIMESTAMP", 3).ok(), Some((3, None)));
        let (p, warning) = declared("TIMESTAMP WITH TIME ZONE", 7).expect("clamped");
        assert_eq!(p, 6);
        assert_eq!(
            warning.as_deref(),
            Some("TIMESTAMP(7) WITH TIME ZONE precision reduced to maximum allowed, 6")
        );
        let err = declared("interval", -1).expect_err("negative");
        assert_eq!(err.message, "interval(-1) precision must not be negative");
    }
}
