//! The `interval` type: PostgreSQL's three-part representation (months, days, microseconds),
//! text input (the postgres style with units, `@ ... ago`, `h:m:s`, SQL `y-m`, and ISO 8601
//! `P1Y2M3DT4H5M6S` with its alternative forms), output in IntervalStyle `postgres`, the
//! comparison PostgreSQL uses (30-day months, 24-hour days) and the arithmetic on intervals
//! alone (sum, negation, scaling, justify_*).
//!
//! The parts are kept apart because they are not convertible: adding `1 mon` to a timestamp
//! moves it by a calendar month, `30 days` by thirty calendar days. Equality and ordering
//! still treat `1 mon`, `30 days` and `720:00:00` as equal, as `interval_cmp` does, so
//! hashing keys on [`Interval::span`], never on the fields.

use std::cmp::Ordering;

use super::interval_typmod::IntervalRange;
use crate::error::{Error, Result, SqlState};

pub const MICROS_PER_SECOND: i64 = 1_000_000;
pub const MICROS_PER_MINUTE: i64 = 60 * MICROS_PER_SECOND;
pub const MICROS_PER_HOUR: i64 = 60 * MICROS_PER_MINUTE;
pub const MICROS_PER_DAY: i64 = 24 * MICROS_PER_HOUR;
/// The month length PostgreSQL assumes when months meet days (interval_cmp, justify_days).
pub const DAYS_PER_MONTH: i32 = 30;

/// An interval value. The derived equality is field by field (two plan literals are the same
/// only if they print the same); SQL's `=` is [`Interval::cmp_span`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Interval {
    pub months: i32,
    pub days: i32,
    pub micros: i64,
}

/// An interval split as PostgreSQL's interval2itm does: every part truncated toward zero
/// and carrying its own sign.
#[derive(Debug, Clone, Copy)]
pub struct Itm {
    pub year: i64,
    pub month: i64,
    pub day: i64,
    pub hour: i64,
    pub minute: i64,
    pub second: i64,
    pub micros: i64,
}

impl Itm {
    /// itm2interval: 22008 when the parts do not fit.
    pub fn to_interval(&self) -> Result<Interval> {
        let months = self.year * 12 + self.month;
        let time = self
            .hour
            .checked_mul(MICROS_PER_HOUR)
            .and_then(|h| h.checked_add(self.minute * MICROS_PER_MINUTE))
            .and_then(|t| t.checked_add(self.second * 1_000_000 + self.micros))
            .ok_or_else(out_of_range)?;
        Ok(Interval::new(
            i32::try_from(months).map_err(|_| out_of_range())?,
            i32::try_from(self.day).map_err(|_| out_of_range())?,
            time,
        ))
    }
}

/// 22008 `interval out of range`.
pub fn out_of_range() -> Error {
    Error::new(SqlState::DatetimeFieldOverflow, "interval out of range")
}

impl Interval {
    /// interval2itm.
    pub fn itm(self) -> Itm {
        let time = self.micros;
        Itm {
            year: i64::from(self.months / 12),
            month: i64::from(self.months % 12),
            day: i64::from(self.days),
            hour: time / MICROS_PER_HOUR,
            minute: time % MICROS_PER_HOUR / MICROS_PER_MINUTE,
            second: time % MICROS_PER_MINUTE / 1_000_000,
            micros: time % 1_000_000,
        }
    }

    pub const ZERO: Interval = Interval {
        months: 0,
        days: 0,
        micros: 0,
    };

    pub fn new(months: i32, days: i32, micros: i64) -> Interval {
        Interval {
            months,
            days,
            micros,
        }
    }

    /// The length in microseconds with 30-day months: what SQL comparison and hashing see.
    pub fn span(self) -> i128 {
        i128::from(self.micros)
            + (i128::from(self.months) * i128::from(DAYS_PER_MONTH) + i128::from(self.days))
                * i128::from(MICROS_PER_DAY)
    }

    /// PostgreSQL's interval_cmp.
    pub fn cmp_span(&self, other: &Interval) -> Ordering {
        self.span().cmp(&other.span())
    }

    pub fn checked_add(self, other: Interval) -> Result<Interval> {
        Ok(Interval {
            months: self
                .months
                .checked_add(other.months)
                .ok_or_else(out_of_range)?,
            days: self.days.checked_add(other.days).ok_or_else(out_of_range)?,
            micros: self
                .micros
                .checked_add(other.micros)
                .ok_or_else(out_of_range)?,
        })
    }

    pub fn checked_sub(self, other: Interval) -> Result<Interval> {
        self.checked_add(other.checked_neg()?)
    }

    pub fn checked_neg(self) -> Result<Interval> {
        Ok(Interval {
            months: self.months.checked_neg().ok_or_else(out_of_range)?,
            days: self.days.checked_neg().ok_or_else(out_of_range)?,
            micros: self.micros.checked_neg().ok_or_else(out_of_range)?,
        })
    }

    /// interval * float8 (interval_mul): whole months and days stay in their fields, the
    /// fractions cascade down to days and microseconds, never up.
    pub fn mul_f64(self, factor: f64) -> Result<Interval> {
        let months = self.months as f64 * factor;
        let days = self.days as f64 * factor;
        if months.is_nan() || !fits_i32(months) || days.is_nan() || !fits_i32(days) {
            return Err(out_of_range());
        }
        self.scaled(months as i32, days as i32, months, days, |t| t * factor)
    }

    /// interval / float8 (interval_div); 22012 for a zero divisor.
    pub fn div_f64(self, divisor: f64) -> Result<Interval> {
        if divisor == 0.0 {
            return Err(Error::division_by_zero());
        }
        let months = self.months as f64 / divisor;
        let days = self.days as f64 / divisor;
        if months.is_nan() || !fits_i32(months) || days.is_nan() || !fits_i32(days) {
            return Err(out_of_range());
        }
        self.scaled(months as i32, days as i32, months, days, |t| t / divisor)
    }

    /// The shared tail of interval_mul and interval_div: `months_exact` and `days_exact` are
    /// the scaled fields before truncation, `scale_time` scales the microseconds.
    fn scaled(
        self,
        months: i32,
        mut days: i32,
        months_exact: f64,
        days_exact: f64,
        scale_time: impl Fn(f64) -> f64,
    ) -> Result<Interval> {
        const SECS_PER_DAY: f64 = 86_400.0;
        let ts_round = |x: f64| (x * 1e6).round_ties_even() / 1e6;
        let month_remainder_days = ts_round((months_exact - months as f64) * 30.0);
        let mut sec_remainder = ts_round(
            (days_exact - days as f64 + month_remainder_days - month_remainder_days.trunc())
                * SECS_PER_DAY,
        );
        if sec_remainder.abs() >= SECS_PER_DAY {
            let whole = (sec_remainder / SECS_PER_DAY) as i32;
            days = days.wrapping_add(whole);
            sec_remainder -= f64::from(whole) * SECS_PER_DAY;
        }
        days = days.wrapping_add(month_remainder_days as i32);
        let micros = (scale_time(self.micros as f64) + sec_remainder * 1e6).round_ties_even();
        if micros.is_nan()
            || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&micros)
        {
            return Err(out_of_range());
        }
        Ok(Interval {
            months,
            days,
            micros: micros as i64,
        })
    }

    /// justify_hours: whole 24-hour periods of the time become days, and the time takes the
    /// days' sign.
    pub fn justify_hours(self) -> Result<Interval> {
        let whole_days = self.micros / MICROS_PER_DAY;
        let mut micros = self.micros - whole_days * MICROS_PER_DAY;
        let mut days =
            i32::try_from(i64::from(self.days) + whole_days).map_err(|_| out_of_range())?;
        if days > 0 && micros < 0 {
            micros += MICROS_PER_DAY;
            days -= 1;
        } else if days < 0 && micros > 0 {
            micros -= MICROS_PER_DAY;
            days += 1;
        }
        Ok(Interval::new(self.months, days, micros))
    }

    /// justify_days: whole 30-day periods become months, and the days take the months' sign.
    pub fn justify_days(self) -> Result<Interval> {
        let whole_months = self.days / DAYS_PER_MONTH;
        let mut days = self.days - whole_months * DAYS_PER_MONTH;
        let mut months = self
            .months
            .checked_add(whole_months)
            .ok_or_else(out_of_range)?;
        if months > 0 && days < 0 {
            days += DAYS_PER_MONTH;
            months -= 1;
        } else if months < 0 && days > 0 {
            days -= DAYS_PER_MONTH;
            months += 1;
        }
        Ok(Interval::new(months, days, self.micros))
    }

    /// justify_interval: both, with every part taking one sign.
    pub fn justify_interval(self) -> Result<Interval> {
        let (mut months, mut days, mut micros) = (self.months, self.days, self.micros);
        let carry_months = |months: &mut i32, days: &mut i32| -> Result<()> {
            let whole = *days / DAYS_PER_MONTH;
            *days -= whole * DAYS_PER_MONTH;
            *months = months.checked_add(whole).ok_or_else(out_of_range)?;
            Ok(())
        };
        if (days > 0 && micros > 0) || (days < 0 && micros < 0) {
            carry_months(&mut months, &mut days)?;
        }
        let whole_days = micros / MICROS_PER_DAY;
        micros -= whole_days * MICROS_PER_DAY;
        days = i32::try_from(i64::from(days) + whole_days).map_err(|_| out_of_range())?;
        carry_months(&mut months, &mut days)?;
        if months > 0 && (days < 0 || (days == 0 && micros < 0)) {
            days += DAYS_PER_MONTH;
            months -= 1;
        } else if months < 0 && (days > 0 || (days == 0 && micros > 0)) {
            days -= DAYS_PER_MONTH;
            months += 1;
        }
        if days > 0 && micros < 0 {
            micros += MICROS_PER_DAY;
            days -= 1;
        } else if days < 0 && micros > 0 {
            micros -= MICROS_PER_DAY;
            days += 1;
        }
        Ok(Interval::new(months, days, micros))
    }

    /// interval_out in IntervalStyle `postgres`: `1 year 2 mons -3 days +04:05:06.5`.
    /// interval_out in the session's IntervalStyle.
    pub fn write_text(self, out: &mut Vec<u8>) {
        let style = super::datetime_style::current().interval;
        super::interval_style::write_interval(self, style, out);
    }

    /// The `postgres` style: `1 year 2 mons -3 days +04:05:06`.
    pub(crate) fn write_postgres(self, out: &mut Vec<u8>) {
        let years = self.months / 12;
        let months = self.months % 12;
        let mut is_zero = true;
        let mut is_before = false;
        for (value, unit) in [
            (i64::from(years), "year"),
            (i64::from(months), "mon"),
            (i64::from(self.days), "day"),
        ] {
            if value == 0 {
                continue;
            }
            if !is_zero {
                out.push(b' ');
            }
            if is_before && value > 0 {
                out.push(b'+');
            }
            crate::vector::write_int(value, out);
            out.push(b' ');
            out.extend_from_slice(unit.as_bytes());
            if value != 1 {
                out.push(b's');
            }
            // Each nonzero field decides whether the next one shows its plus sign.
            is_before = value < 0;
            is_zero = false;
        }
        let time = self.micros;
        if is_zero || time != 0 {
            if !is_zero {
                out.push(b' ');
            }
            if time < 0 {
                out.push(b'-');
            } else if is_before {
                out.push(b'+');
            }
            let magnitude = time.unsigned_abs();
            let hours = magnitude / MICROS_PER_HOUR as u64;
            if hours < 10 {
                out.push(b'0');
            }
            crate::vector::write_int(hours as i64, out);
            let rest = magnitude % MICROS_PER_HOUR as u64;
            out.push(b':');
            write_two(rest / MICROS_PER_MINUTE as u64, out);
            out.push(b':');
            let rest = rest % MICROS_PER_MINUTE as u64;
            write_two(rest / MICROS_PER_SECOND as u64, out);
            write_fraction(rest % MICROS_PER_SECOND as u64, out);
        }
    }

    pub fn to_text(self) -> String {
        let mut out = Vec::new();
        self.write_text(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// interval_in: 22007 on bad syntax, 22015 for a field out of range, 22008 when the sum
    /// does not fit.
    pub fn parse(text: &str) -> Result<Interval> {
        Interval::parse_in(text, IntervalRange::Full)
    }

    /// interval_in for a type with fields `range`, which give a bare number its unit
    /// (`'3'` is 3 hours for `interval hour`) and `m:s` its meaning for MINUTE TO SECOND.
    /// The caller truncates the value to the fields.
    pub fn parse_in(text: &str, range: IntervalRange) -> Result<Interval> {
        let parsed = if text.starts_with('P') {
            parse_iso8601(text)
        } else {
            parse_postgres(text, range)
        };
        parsed.map_err(|fail| match fail {
            Fail::Syntax => Error::new(
                SqlState::InvalidDatetimeFormat,
                format!("invalid input syntax for type interval: \"{text}\""),
            ),
            Fail::Field => Error::new(
                SqlState::IntervalFieldOverflow,
                format!("interval field value out of range: \"{text}\""),
            ),
            Fail::Overflow => out_of_range(),
        })
    }
}

fn fits_i32(x: f64) -> bool {
    (f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&x)
}

fn write_two(value: u64, out: &mut Vec<u8>) {
    out.push(b'0' + (value / 10 % 10) as u8);
    out.push(b'0' + (value % 10) as u8);
}

/// `.ffffff` without trailing zeros; nothing for zero.
pub(crate) fn write_fraction(micros: u64, out: &mut Vec<u8>) {
    if micros == 0 {
        return;
    }
    let mut digits = [0u8; 6];
    let mut rest = micros;
    for slot in digits.iter_mut().rev() {
        *slot = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    let len = 6 - digits.iter().rev().take_while(|&&d| d == b'0').count();
    out.push(b'.');
    out.extend_from_slice(&digits[..len]);
}

/// Why the input was rejected: bad syntax (22007), a field out of range (22015), or a
/// result that does not fit (22008).
#[derive(Debug)]
enum Fail {
    Syntax,
    Field,
    Overflow,
}

type Parse<T> = std::result::Result<T, Fail>;

/// The parts being summed while decoding, wider than the result so overflow is seen once.
#[derive(Default)]
struct Parts {
    years: i64,
    months: i64,
    days: i64,
    micros: i64,
}

impl Parts {
    fn add_micros(&mut self, micros: i64) -> Parse<()> {
        self.micros = self.micros.checked_add(micros).ok_or(Fail::Field)?;
        Ok(())
    }

    /// `frac` of `scale` microseconds, rounded as PostgreSQL's AdjustFractMicroseconds.
    fn add_fraction_micros(&mut self, frac: f64, scale: i64) -> Parse<()> {
        if frac == 0.0 {
            return Ok(());
        }
        let scaled = frac * scale as f64;
        let whole = scaled as i64;
        self.add_micros(whole + (scaled - whole as f64).round_ties_even() as i64)
    }

    /// `frac` of `scale` days: whole days, then the rest as microseconds (AdjustFractDays).
    fn add_fraction_days(&mut self, frac: f64, scale: i64) -> Parse<()> {
        if frac == 0.0 {
            return Ok(());
        }
        let scaled = frac * scale as f64;
        let whole = scaled as i64;
        self.days = self.days.checked_add(whole).ok_or(Fail::Field)?;
        self.add_fraction_micros(scaled - whole as f64, MICROS_PER_DAY)
    }

    /// `frac` of `scale` years as months, rounded (the year cases of DecodeInterval).
    fn add_fraction_years(&mut self, frac: f64, scale: i64) -> Parse<()> {
        let months = (frac * (12 * scale) as f64).round_ties_even() as i64;
        self.months = self.months.checked_add(months).ok_or(Fail::Field)?;
        Ok(())
    }

    /// Adds `whole` + `frac` of `unit`.
    fn add(&mut self, unit: Unit, whole: i64, frac: f64) -> Parse<()> {
        let overflow = |x: Option<i64>| x.ok_or(Fail::Field);
        let scaled_micros = |scale: i64| overflow(whole.checked_mul(scale));
        match unit {
            Unit::Microsecond => {
                let micros = overflow(whole.checked_add(frac.round_ties_even() as i64))?;
                self.add_micros(micros)
            }
            Unit::Millisecond => {
                self.add_micros(scaled_micros(1000)?)?;
                self.add_micros((frac * 1000.0).round_ties_even() as i64)
            }
            Unit::Second => {
                self.add_micros(scaled_micros(MICROS_PER_SECOND)?)?;
                self.add_micros((frac * 1e6).round_ties_even() as i64)
            }
            Unit::Minute => {
                self.add_micros(scaled_micros(MICROS_PER_MINUTE)?)?;
                self.add_fraction_micros(frac, MICROS_PER_MINUTE)
            }
            Unit::Hour => {
                self.add_micros(scaled_micros(MICROS_PER_HOUR)?)?;
                self.add_fraction_micros(frac, MICROS_PER_HOUR)
            }
            Unit::Day => {
                self.days = overflow(self.days.checked_add(whole))?;
                self.add_fraction_micros(frac, MICROS_PER_DAY)
            }
            Unit::Week => {
                self.days = overflow(whole.checked_mul(7).and_then(|d| self.days.checked_add(d)))?;
                self.add_fraction_days(frac, 7)
            }
            Unit::Month => {
                self.months = overflow(self.months.checked_add(whole))?;
                self.add_fraction_days(frac, i64::from(DAYS_PER_MONTH))
            }
            Unit::Year | Unit::Decade | Unit::Century | Unit::Millennium => {
                let scale = match unit {
                    Unit::Decade => 10,
                    Unit::Century => 100,
                    Unit::Millennium => 1000,
                    _ => 1,
                };
                self.years = overflow(
                    whole
                        .checked_mul(scale)
                        .and_then(|y| self.years.checked_add(y)),
                )?;
                self.add_fraction_years(frac, scale)
            }
        }
    }

    fn negate(&mut self) {
        self.years = -self.years;
        self.months = -self.months;
        self.days = -self.days;
        self.micros = -self.micros;
    }

    /// itmin2interval: the fields must fit the representation, else 22008.
    fn finish(self) -> Parse<Interval> {
        let months = self
            .years
            .checked_mul(12)
            .and_then(|m| m.checked_add(self.months))
            .and_then(|m| i32::try_from(m).ok())
            .ok_or(Fail::Overflow)?;
        let days = i32::try_from(self.days).map_err(|_| Fail::Field)?;
        Ok(Interval::new(months, days, self.micros))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Microsecond,
    Millisecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Year,
    Decade,
    Century,
    Millennium,
}

impl Unit {
    /// The bit of this unit in the set of fields already given (a unit may appear once).
    fn mask(self) -> u32 {
        1 << self as u32
    }
}

/// The bits of the fields an `h:m:s` time sets.
const TIME_MASK: u32 = (1 << Unit::Hour as u32)
    | (1 << Unit::Minute as u32)
    | (1 << Unit::Second as u32)
    | (1 << Unit::Millisecond as u32)
    | (1 << Unit::Microsecond as u32);

/// A word of the postgres-style input: PostgreSQL's deltatktbl, whose tokens are compared on
/// their first 10 characters (so `microseconds` and `millenniums` are accepted).
enum Word {
    Unit(Unit),
    Ago,
    Ignore,
}

fn word(word: &str) -> Option<Word> {
    let key = &word[..word.len().min(10)];
    Some(Word::Unit(match key {
        "@" => return Some(Word::Ignore),
        "ago" => return Some(Word::Ago),
        "us" | "usec" | "usecs" | "usecond" | "useconds" | "microsecon" => Unit::Microsecond,
        "ms" | "msec" | "msecs" | "msecond" | "mseconds" | "millisecon" => Unit::Millisecond,
        "s" | "sec" | "secs" | "second" | "seconds" => Unit::Second,
        "m" | "min" | "mins" | "minute" | "minutes" => Unit::Minute,
        "h" | "hr" | "hrs" | "hour" | "hours" => Unit::Hour,
        "d" | "day" | "days" => Unit::Day,
        "w" | "week" | "weeks" => Unit::Week,
        "mon" | "mons" | "month" | "months" => Unit::Month,
        "y" | "yr" | "yrs" | "year" | "years" => Unit::Year,
        "dec" | "decs" | "decade" | "decades" => Unit::Decade,
        "c" | "cent" | "century" | "centuries" => Unit::Century,
        "mil" | "mils" | "millennia" | "millennium" => Unit::Millennium,
        _ => return None,
    }))
}

/// One field of the postgres-style input.
#[derive(Debug)]
enum Token {
    /// A number, maybe signed, maybe with a fraction, or SQL's `years-months`.
    Number(String),
    /// `[+-]h:m[:s[.f]]`.
    Time(String),
    Word(String),
}

fn tokenize(text: &str) -> Parse<Vec<Token>> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let c = bytes[pos];
        // ParseDateTime skips punctuation it has no use for.
        if c.is_ascii_whitespace()
            || (c.is_ascii_punctuation() && !matches!(c, b'@' | b'+' | b'-' | b'.'))
        {
            pos += 1;
            continue;
        }
        if c == b'@' {
            tokens.push(Token::Word("@".to_string()));
            pos += 1;
            continue;
        }
        if c.is_ascii_alphabetic() {
            let start = pos;
            while pos < bytes.len() && bytes[pos].is_ascii_alphabetic() {
                pos += 1;
            }
            tokens.push(Token::Word(text[start..pos].to_ascii_lowercase()));
            continue;
        }
        let mut field = String::new();
        if c == b'+' || c == b'-' {
            field.push(c as char);
            pos += 1;
            // A sign may be separated from its number by spaces.
            while pos < bytes.len() && bytes[pos].is_ascii_whitespace() {
                pos += 1;
            }
            if !bytes.get(pos).is_some_and(u8::is_ascii_digit) {
                return Err(Fail::Syntax);
            }
        } else if !(c.is_ascii_digit() || c == b'.') {
            return Err(Fail::Syntax);
        }
        let start = pos;
        while pos < bytes.len() && (bytes[pos].is_ascii_digit() || bytes[pos] == b'.') {
            pos += 1;
        }
        if bytes.get(pos) == Some(&b':') {
            while pos < bytes.len()
                && (bytes[pos].is_ascii_digit() || bytes[pos] == b':' || bytes[pos] == b'.')
            {
                pos += 1;
            }
            field.push_str(&text[start..pos]);
            tokens.push(Token::Time(field));
            continue;
        }
        if bytes.get(pos) == Some(&b'-') && bytes.get(pos + 1).is_some_and(u8::is_ascii_digit) {
            pos += 1;
            while pos < bytes.len() && bytes[pos].is_ascii_digit() {
                pos += 1;
            }
        }
        field.push_str(&text[start..pos]);
        tokens.push(Token::Number(field));
    }
    Ok(tokens)
}

/// DecodeInterval: the fields are read right to left, so a unit word gives the unit of the
/// number before it; a number with no unit is seconds at the end and days before a time.
fn parse_postgres(text: &str, range: IntervalRange) -> Parse<Interval> {
    let tokens = tokenize(text)?;
    let mut parts = Parts::default();
    let mut seen = 0u32;
    let mut ago = false;
    // The unit of the next number to the left (DecodeInterval's `type`): None before any
    // (the range decides), Some(None) right after `ago` (a number there needs its own
    // unit). A number keeps it for the next one, which then fails as a repeated field,
    // except that an hour moves it to days.
    let mut pending: Option<Option<Unit>> = None;
    for token in tokens.iter().rev() {
        let mask = match token {
            Token::Time(field) => {
                let micros = decode_time(field, range)?;
                parts.add_micros(micros)?;
                pending = Some(Some(Unit::Day));
                TIME_MASK
            }
            Token::Number(field) => {
                let unit = match pending {
                    None => bare_number_unit(range),
                    Some(Some(unit)) => unit,
                    Some(None) => return Err(Fail::Syntax),
                };
                let (unit, whole, frac) = decode_number(field, unit)?;
                pending = Some(Some(match unit {
                    Unit::Hour => Unit::Day,
                    other => other,
                }));
                parts.add(unit, whole, frac)?;
                if unit == Unit::Second && frac != 0.0 {
                    Unit::Second.mask() | Unit::Millisecond.mask() | Unit::Microsecond.mask()
                } else {
                    unit.mask()
                }
            }
            Token::Word(w) => {
                match word(w).ok_or(Fail::Syntax)? {
                    Word::Ignore => {}
                    Word::Ago => {
                        ago = true;
                        pending = Some(None);
                    }
                    Word::Unit(unit) => pending = Some(Some(unit)),
                }
                0
            }
        };
        if seen & mask != 0 {
            return Err(Fail::Syntax);
        }
        seen |= mask;
    }
    if seen == 0 {
        return Err(Fail::Syntax);
    }
    if ago {
        parts.negate();
    }
    parts.finish()
}

/// The unit of a number with no unit of its own at the end of the input: DecodeInterval's
/// switch on the range, where DAY TO SECOND is no case and takes the default, seconds.
fn bare_number_unit(range: IntervalRange) -> Unit {
    match range {
        IntervalRange::Year => Unit::Year,
        IntervalRange::Month | IntervalRange::YearToMonth => Unit::Month,
        IntervalRange::Day => Unit::Day,
        IntervalRange::Hour | IntervalRange::DayToHour => Unit::Hour,
        IntervalRange::Minute | IntervalRange::HourToMinute | IntervalRange::DayToMinute => {
            Unit::Minute
        }
        IntervalRange::Full
        | IntervalRange::Second
        | IntervalRange::DayToSecond
        | IntervalRange::HourToSecond
        | IntervalRange::MinuteToSecond => Unit::Second,
    }
}

/// A number field: its whole part, its signed fraction, and its unit (SQL's `y-m` is months).
fn decode_number(field: &str, unit: Unit) -> Parse<(Unit, i64, f64)> {
    let negative = field.starts_with('-');
    let digits = field.trim_start_matches(['+', '-']);
    let int_len = digits.bytes().take_while(u8::is_ascii_digit).count();
    let (int_part, rest) = digits.split_at(int_len);
    let whole = if int_part.is_empty() {
        0
    } else {
        let magnitude: i64 = int_part.parse().map_err(|_| Fail::Field)?;
        if negative {
            -magnitude
        } else {
            magnitude
        }
    };
    if let Some(months) = rest.strip_prefix('-') {
        let months: i64 = months.parse().map_err(|_| Fail::Syntax)?;
        if months >= 12 {
            return Err(Fail::Field);
        }
        let months = if negative { -months } else { months };
        let total = whole.checked_mul(12).and_then(|y| y.checked_add(months));
        return match total {
            Some(total) if i32::try_from(total).is_ok() => Ok((Unit::Month, total, 0.0)),
            _ => Err(Fail::Field),
        };
    }
    let frac = match rest {
        "" if int_part.is_empty() => return Err(Fail::Syntax),
        "" => 0.0,
        _ => {
            let frac_digits = rest.strip_prefix('.').ok_or(Fail::Syntax)?;
            if !frac_digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(Fail::Syntax);
            }
            let value: f64 = format!("0.{frac_digits}")
                .parse()
                .map_err(|_| Fail::Syntax)?;
            if negative {
                -value
            } else {
                value
            }
        }
    };
    Ok((unit, whole, frac))
}

/// `[+-]h:m[:s[.f]]`, or `m:s.f` when the second of two parts has a fraction (or always,
/// for MINUTE TO SECOND: DecodeTime); hours are unbounded, minutes below 60, seconds up
/// to 60.
fn decode_time(field: &str, range: IntervalRange) -> Parse<i64> {
    let negative = field.starts_with('-');
    let body = field.trim_start_matches(['+', '-']);
    let parts: Vec<&str> = body.split(':').collect();
    let number = |s: &str| -> Parse<i64> {
        if s.is_empty() {
            return Ok(0);
        }
        if !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Fail::Syntax);
        }
        s.parse().map_err(|_| Fail::Field)
    };
    let seconds = |s: &str| -> Parse<(i64, i64)> {
        let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
        if !frac.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Fail::Syntax);
        }
        let fraction = if frac.is_empty() {
            0
        } else {
            let value: f64 = format!("0.{frac}").parse().map_err(|_| Fail::Syntax)?;
            (value * 1e6).round_ties_even() as i64
        };
        Ok((number(whole)?, fraction))
    };
    let (hours, minutes, (secs, fraction)) = match parts.as_slice() {
        [h, m] if m.contains('.') || range == IntervalRange::MinuteToSecond => {
            (0, number(h)?, seconds(m)?)
        }
        [h, m] => (number(h)?, number(m)?, (0, 0)),
        [h, m, s] => (number(h)?, number(m)?, seconds(s)?),
        _ => return Err(Fail::Syntax),
    };
    if !(0..60).contains(&minutes) || !(0..=60).contains(&secs) {
        return Err(Fail::Field);
    }
    let micros = hours
        .checked_mul(MICROS_PER_HOUR)
        .and_then(|h| {
            h.checked_add(minutes * MICROS_PER_MINUTE + secs * MICROS_PER_SECOND + fraction)
        })
        .ok_or(Fail::Field)?;
    Ok(if negative { -micros } else { micros })
}

/// ISO 8601 durations: `P[nY][nM][nW][nD][T[nH][nM][nS]]` with signed, fractional numbers, or
/// the alternative forms `PYYYYMMDDThhmmss` and `PYYYY-MM-DDThh:mm:ss`.
fn parse_iso8601(text: &str) -> Parse<Interval> {
    let mut rest = &text[1..];
    if rest.is_empty() {
        return Err(Fail::Syntax);
    }
    let mut parts = Parts::default();
    let mut time_part = false;
    // The alternative forms stand alone in their part.
    let mut part_started = false;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('T') {
            if time_part {
                return Err(Fail::Syntax);
            }
            time_part = true;
            part_started = false;
            rest = after;
            continue;
        }
        let (whole, frac, after, digits) = iso_number(rest)?;
        rest = after;
        let designator = rest.as_bytes().first().copied();
        if part_started && matches!(designator, None | Some(b'T' | b'-' | b':')) {
            return Err(Fail::Syntax);
        }
        part_started = true;
        let unit = match (time_part, designator) {
            (false, Some(b'Y')) => Unit::Year,
            (false, Some(b'M')) => Unit::Month,
            (false, Some(b'W')) => Unit::Week,
            (false, Some(b'D')) => Unit::Day,
            (true, Some(b'H')) => Unit::Hour,
            (true, Some(b'M')) => Unit::Minute,
            (true, Some(b'S')) => Unit::Second,
            (false, None | Some(b'T' | b'-')) => {
                rest = iso_alternative_date(&mut parts, whole, frac, digits, rest)?;
                continue;
            }
            (true, None | Some(b':')) => {
                rest = iso_alternative_time(&mut parts, whole, frac, digits, rest)?;
                continue;
            }
            _ => return Err(Fail::Syntax),
        };
        rest = &rest[1..];
        parts.add(unit, whole, frac)?;
    }
    parts.finish()
}

/// A signed number with an optional fraction at the start of `text`: (whole, fraction,
/// rest, digits of the whole part).
fn iso_number(text: &str) -> Parse<(i64, f64, &str, usize)> {
    let sign_len = usize::from(text.starts_with(['+', '-']));
    let negative = text.starts_with('-');
    let body = &text[sign_len..];
    let int_len = body.bytes().take_while(u8::is_ascii_digit).count();
    let mut end = int_len;
    if body.as_bytes().get(end) == Some(&b'.') {
        end += 1;
        end += body[end..].bytes().take_while(u8::is_ascii_digit).count();
    }
    if end == 0 || (int_len == 0 && end == 1) {
        return Err(Fail::Syntax);
    }
    let whole: i64 = if int_len == 0 {
        0
    } else {
        body[..int_len].parse().map_err(|_| Fail::Field)?
    };
    let frac: f64 = if end > int_len + 1 {
        format!("0{}", &body[int_len..end])
            .parse()
            .map_err(|_| Fail::Syntax)?
    } else {
        0.0
    };
    let (whole, frac) = if negative {
        (-whole, -frac)
    } else {
        (whole, frac)
    };
    Ok((whole, frac, &body[end..], int_len))
}

/// `YYYYMMDD` (eight digits) or `Y[-M[-D]]` after `P`.
fn iso_alternative_date<'a>(
    parts: &mut Parts,
    whole: i64,
    frac: f64,
    digits: usize,
    mut rest: &'a str,
) -> Parse<&'a str> {
    if digits == 8 && frac == 0.0 && !rest.starts_with('-') {
        parts.add(Unit::Year, whole / 10_000, 0.0)?;
        parts.add(Unit::Month, whole / 100 % 100, 0.0)?;
        parts.add(Unit::Day, whole % 100, 0.0)?;
        return Ok(rest);
    }
    parts.add(Unit::Year, whole, frac)?;
    for unit in [Unit::Month, Unit::Day] {
        let Some(after) = rest.strip_prefix('-') else {
            break;
        };
        let (whole, frac, after, _) = iso_number(after)?;
        parts.add(unit, whole, frac)?;
        rest = after;
    }
    if !(rest.is_empty() || rest.starts_with('T')) {
        return Err(Fail::Syntax);
    }
    Ok(rest)
}

/// `hhmmss` (six digits) or `h[:m[:s]]` after `T`.
fn iso_alternative_time<'a>(
    parts: &mut Parts,
    whole: i64,
    frac: f64,
    digits: usize,
    mut rest: &'a str,
) -> Parse<&'a str> {
    if digits == 6 && !rest.starts_with(':') {
        parts.add(Unit::Hour, whole / 10_000, 0.0)?;
        parts.add(Unit::Minute, whole / 100 % 100, 0.0)?;
        parts.add(Unit::Second, whole % 100, frac)?;
        return Ok(rest);
    }
    parts.add(Unit::Hour, whole, frac)?;
    for unit in [Unit::Minute, Unit::Second] {
        let Some(after) = rest.strip_prefix(':') else {
            break;
        };
        let (whole, frac, after, _) = iso_number(after)?;
        parts.add(unit, whole, frac)?;
        rest = after;
    }
    if !rest.is_empty() {
        return Err(Fail::Syntax);
    }
    Ok(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str) -> String {
        Interval::parse(text).expect(text).to_text()
    }

    // Expected outputs produced by PostgreSQL 15 (IntervalStyle postgres).
    #[test]
    fn postgres_style_input() {
        for (input, expected) in [
            ("5", "00:00:05"),
            ("1:30", "01:30:00"),
            ("1 12:00:00", "1 day 12:00:00"),
            ("2 hours 30 minutes", "02:30:00"),
            ("1.5 months", "1 mon 15 days"),
            ("1.5 years", "1 year 6 mons"),
            ("-1.5 days", "-1 days -12:00:00"),
            ("1.5 weeks", "10 days 12:00:00"),
            ("2 centuries", "200 years"),
            ("1 mon -1 day", "1 mon -1 days"),
            ("1d", "1 day"),
            ("1 h 2 m", "01:02:00"),
            ("1 second 500 ms", "00:00:01.5"),
            ("@ 1 hour ago", "-01:00:00"),
            ("-1 day ago", "1 day"),
            ("1 day 1", "1 day 00:00:01"),
            ("1:2:3.4567895", "01:02:03.45679"),
            ("-01:02", "-01:02:00"),
            ("1 day -00:00:01", "1 day -00:00:01"),
            ("-1 day +02:03:04", "-1 days +02:03:04"),
            ("- 1 day", "-1 days"),
            ("1:59:60", "02:00:00"),
            ("1-2", "1 year 2 mons"),
            ("-1-2", "-1 years -2 mons"),
            ("1 day 1 week", "8 days"),
            ("1 millenniums", "1000 years"),
            ("0.1 day", "02:24:00"),
            ("1.1 mon", "1 mon 3 days"),
            ("1.11111111 days", "1 day 02:39:59.999904"),
            ("1 year ago 1 day", "-1 years -1 days"),
            ("1:2.5", "00:01:02.5"),
            (":1", "00:00:01"),
            ("1.5 us", "00:00:00.000001"),
            (".5", "00:00:00.5"),
            ("1-2 3", "1 year 2 mons 00:00:03"),
            ("-1 year +2 mons", "-10 mons"),
            ("9223372036854775807 us", "2562047788:00:54.775807"),
            ("-2147483648 days", "-2147483648 days"),
            ("1 day,2 hours", "1 day 02:00:00"),
            ("1;day!", "1 day"),
            ("0", "00:00:00"),
        ] {
            assert_eq!(round_trip(input), expected, "{input}");
        }
    }

    #[test]
    fn iso8601_input() {
        for (input, expected) in [
            ("P1Y2M3DT4H5M6S", "1 year 2 mons 3 days 04:05:06"),
            ("P0001-02-03T04:05:06", "1 year 2 mons 3 days 04:05:06"),
            ("PT1.5S", "00:00:01.5"),
            ("P1.5D", "1 day 12:00:00"),
            ("PT36H", "36:00:00"),
            ("P1W", "7 days"),
            ("PT", "00:00:00"),
            ("P1", "1 year"),
            ("P10000", "10000 years"),
            ("P00010203", "1 year 2 mons 3 days"),
            ("P1-2", "1 year 2 mons"),
            ("P1.5", "1 year 6 mons"),
            ("PT0102", "102:00:00"),
            ("PT1:2", "01:02:00"),
            ("P-1Y-2M", "-1 years -2 mons"),
            ("P1DT-1H", "1 day -01:00:00"),
            ("P1Y-2M", "10 mons"),
            ("P0001-02-03T040506", "1 year 2 mons 3 days 04:05:06"),
        ] {
            assert_eq!(round_trip(input), expected, "{input}");
        }
    }

    #[test]
    fn input_errors() {
        for bad in [
            "1 hour 1 hour",
            "foo",
            "",
            "1 foo",
            "1 2",
            "day",
            "1:2:3:4",
            "1.5 seconds 500 ms",
            "1 second 1",
            "1:2 3",
            "1 ago",
            "ago",
            "epoch",
            "infinity",
            "-.5 hours",
            "+-1 day",
            "1 day -",
            "1e2 seconds",
            "1.5:00",
            "P",
            "P1Y2",
            "P 1Y",
            "P1Y ",
            " P1Y",
            "PT1H1D",
            "p1y",
        ] {
            let err = Interval::parse(bad).expect_err(bad);
            assert_eq!(err.sqlstate(), "22007", "{bad}");
            assert_eq!(
                err.message,
                format!("invalid input syntax for type interval: \"{bad}\"")
            );
        }
        for field in ["2147483648 days", "1:60", "1-12", "2562047789 hours"] {
            let err = Interval::parse(field).expect_err(field);
            assert_eq!(err.sqlstate(), "22015", "{field}");
        }
        let err = Interval::parse("178956971 years").expect_err("months overflow");
        assert_eq!(
            (err.sqlstate(), err.message.as_str()),
            ("22008", "interval out of range")
        );
    }

    #[test]
    fn comparison_normalizes() {
        let p = |t: &str| Interval::parse(t).expect(t);
        assert_eq!(p("1 mon").cmp_span(&p("30 days")), Ordering::Equal);
        assert_eq!(p("1 day").cmp_span(&p("24 hours")), Ordering::Equal);
        assert_eq!(p("1 mon").cmp_span(&p("29 days 24:00:01")), Ordering::Less);
        assert_ne!(p("1 mon"), p("30 days"));
    }

    #[test]
    fn scaling_and_justify() {
        let p = |t: &str| Interval::parse(t).expect(t);
        let text = |r: Result<Interval>| r.expect("in range").to_text();
        assert_eq!(text(p("1 mon").mul_f64(1.5)), "1 mon 15 days");
        assert_eq!(text(p("1 day").mul_f64(0.1)), "02:24:00");
        assert_eq!(
            text(p("1 mon 1 day 1 hour").div_f64(3.0)),
            "10 days 08:20:00"
        );
        assert_eq!(text(p("36 hours").justify_hours()), "1 day 12:00:00");
        assert_eq!(text(p("35 days").justify_days()), "1 mon 5 days");
        assert_eq!(
            text(p("1 mon -1 hour").justify_interval()),
            "29 days 23:00:00"
        );
        assert_eq!(
            p("1 day").div_f64(0.0).expect_err("zero").sqlstate(),
            "22012"
        );
    }
}
