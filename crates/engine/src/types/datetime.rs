//! date and timestamp (without time zone): text input and output in ISO style, calendar
//! arithmetic. Dates are days and timestamps microseconds since 2000-01-01, PostgreSQL's
//! epoch.
//!
//! Input covers what PostgreSQL accepts under `DateStyle = 'ISO, MDY'` in practice: ISO
//! `2024-01-05`, `20240105`, `1/5/2024`, month names (`Jan 5 2024`, `05-Jan-2024`), BC, a
//! time after a space or `T` with fractional seconds and AM/PM, a trailing time zone (offset,
//! abbreviation or tz database name such as `Europe/Paris`, which
//! timestamp without time zone ignores, as PostgreSQL does), and the words `epoch`,
//! `infinity` and `-infinity`. Infinity is stored as the extreme value of the type. Years are
//! astronomical inside this module (year 0 is 1 BC); only text shows BC.

use super::datetime_style::{self, DateOrder, DateStyle, Styles};
use super::timezone::{self, Zone};
use crate::error::{Error, Result, SqlState};

pub const MICROS_PER_DAY: i64 = 86_400_000_000;

/// Days from 1970-01-01 (the civil algorithm's origin) to 2000-01-01.
pub const UNIX_TO_PG_DAYS: i64 = 10_957;
/// First valid date, 4714-11-24 BC (Julian day 0), in days since 2000-01-01.
const MIN_DATE: i64 = -2_451_545;
/// Last valid date, 5874897-12-31.
const MAX_DATE: i64 = 2_145_031_948;
/// First valid timestamp, 4714-11-24 00:00:00 BC.
const MIN_TIMESTAMP: i64 = MIN_DATE * MICROS_PER_DAY;
/// First timestamp past the valid range, 294277-01-01 00:00:00.
const END_TIMESTAMP: i64 = 9_223_371_331_200_000_000;

/// date_in (DateStyle ISO, MDY). 22007 on bad syntax, 22008 for an out-of-range field.
pub fn parse_date(text: &str) -> Result<i32> {
    match parse_datetime(text, "date")? {
        Parsed::Infinity => Ok(i32::MAX),
        Parsed::NegInfinity => Ok(i32::MIN),
        Parsed::Finite { days, .. } => {
            if (MIN_DATE..=MAX_DATE).contains(&days) {
                Ok(days as i32)
            } else {
                Err(range_error("date", text))
            }
        }
    }
}

/// date_out in the session's DateStyle.
pub fn write_date(days: i32, out: &mut Vec<u8>) {
    match days {
        i32::MAX => out.extend_from_slice(b"infinity"),
        i32::MIN => out.extend_from_slice(b"-infinity"),
        _ => {
            let (year, month, day) = ymd_from_days(days);
            match datetime_style::current() {
                Styles {
                    date: DateStyle::Iso,
                    ..
                } => write_ymd(year, month, day, out),
                styles => datetime_style::write_date_fields(year, month, day, styles, out),
            }
            if year <= 0 {
                out.extend_from_slice(b" BC");
            }
        }
    }
}

/// timestamp_in.
pub fn parse_timestamp(text: &str) -> Result<i64> {
    parse_timestamp_as(text, "timestamp", false)
}

/// timestamptz_in: a zone in the input (`+02`, `-05:30`, `PST`, `Europe/Paris`) says
/// which local time is meant; without one it is the session's ([`timezone`]).
pub fn parse_timestamptz(text: &str) -> Result<i64> {
    parse_timestamp_as(text, "timestamp with time zone", true)
}

fn parse_timestamp_as(text: &str, type_name: &str, with_zone: bool) -> Result<i64> {
    match parse_datetime(text, type_name)? {
        Parsed::Infinity => Ok(i64::MAX),
        Parsed::NegInfinity => Ok(i64::MIN),
        Parsed::Finite { days, micros, zone } => {
            let local = days
                .checked_mul(MICROS_PER_DAY)
                .and_then(|d| d.checked_add(micros))
                .filter(|t| {
                    (MIN_TIMESTAMP - MICROS_PER_DAY..END_TIMESTAMP + MICROS_PER_DAY).contains(t)
                })
                .ok_or_else(|| range_error(type_name, text))?;
            let instant = match (with_zone, zone) {
                (false, _) => local,
                (true, None) => timezone::from_local(local),
                (true, Some(InputZone::Offset(east_seconds))) => {
                    local - i64::from(east_seconds) * 1_000_000
                }
                (true, Some(InputZone::Named(zone))) => zone.to_utc(local),
            };
            Some(instant)
                .filter(|t| (MIN_TIMESTAMP..END_TIMESTAMP).contains(t))
                .ok_or_else(|| range_error(type_name, text))
        }
    }
}

/// timestamp_out in the session's DateStyle.
pub fn write_timestamp(micros: i64, out: &mut Vec<u8>) {
    write_timestamp_styled(micros, false, datetime_style::current(), out);
}

/// timestamptz_out: the local time in the session zone and its offset in the session's
/// DateStyle, `2024-01-02 03:04:05-08` (ISO) or `Tue Jan 02 03:04:05 2024 PST`.
pub fn write_timestamptz(micros: i64, out: &mut Vec<u8>) {
    write_timestamp_styled(micros, true, datetime_style::current(), out);
}

/// A timestamp (the local time of a timestamptz in the session zone when `zoned`) in
/// `styles`; ISO is what JSON writes whatever the setting.
pub fn write_timestamp_styled(micros: i64, zoned: bool, styles: Styles, out: &mut Vec<u8>) {
    match micros {
        i64::MAX => return out.extend_from_slice(b"infinity"),
        i64::MIN => return out.extend_from_slice(b"-infinity"),
        _ => {}
    }
    let east_seconds = if zoned {
        timezone::session_offset(micros)
    } else {
        0
    };
    let local = micros.saturating_add(i64::from(east_seconds) * 1_000_000);
    let days = local.div_euclid(MICROS_PER_DAY);
    let time = local.rem_euclid(MICROS_PER_DAY);
    // Any i64 of microseconds is within ±2^31 days.
    let (year, month, day) = ymd_from_days(days as i32);
    if styles.date == DateStyle::Iso {
        write_ymd(year, month, day, out);
        out.push(b' ');
        write_time_of_day(time, out);
        if zoned {
            timezone::write_offset_bytes(east_seconds, out);
        }
    } else {
        let zone = zoned.then(|| timezone::session_abbreviation(micros));
        let date = (year, month, day);
        datetime_style::write_timestamp_fields(date, days, time, zone.as_deref(), styles, out);
    }
    if year <= 0 {
        out.extend_from_slice(b" BC");
    }
}

/// `HH:MM:SS` and the fraction of a second without trailing zeros.
pub(crate) fn write_time_of_day(time: i64, out: &mut Vec<u8>) {
    let seconds = time / 1_000_000;
    let fraction = time % 1_000_000;
    write_2digits((seconds / 3600) as u32, out);
    out.push(b':');
    write_2digits((seconds / 60 % 60) as u32, out);
    out.push(b':');
    write_2digits((seconds % 60) as u32, out);
    if fraction != 0 {
        let mut digits = [0u8; 6];
        let mut rest = fraction;
        for slot in digits.iter_mut().rev() {
            *slot = b'0' + (rest % 10) as u8;
            rest /= 10;
        }
        let len = 6 - digits.iter().rev().take_while(|&&d| d == b'0').count();
        out.push(b'.');
        out.extend_from_slice(&digits[..len]);
    }
}

/// time_in: `HH:MM[:SS[.f]]` with AM/PM and a zone (ignored), `allballs`, or a whole
/// timestamp whose time it takes. Microseconds since midnight, up to `24:00:00`.
pub fn parse_time(text: &str) -> Result<i64> {
    parse_time_parts(text, "time").map(|(micros, _)| micros)
}

/// timetz_in: the time of day and its offset in seconds east of UTC. Without a zone the
/// session's offset of today applies; a zone with daylight saving rules needs a date.
pub fn parse_timetz(text: &str) -> Result<(i64, i32)> {
    const TYPE_NAME: &str = "time with time zone";
    let (micros, zone) = parse_time_parts(text, TYPE_NAME)?;
    let east_seconds = match zone {
        None => timezone::session_offset(clock_micros()),
        Some((InputZone::Offset(east_seconds), _)) => east_seconds,
        Some((InputZone::Named(zone), Some(days))) => {
            zone.offset_at(zone.to_utc(days * MICROS_PER_DAY + micros))
        }
        Some((InputZone::Named(zone), None)) => {
            let now = clock_micros();
            let half_year = 183 * MICROS_PER_DAY;
            if zone.offset_at(now) != zone.offset_at(now + half_year) {
                return Err(syntax_error(TYPE_NAME, text));
            }
            zone.offset_at(now)
        }
    };
    Ok((micros, east_seconds))
}

/// A zone a time's text names, with the day number of the date it came with, if any.
type ZoneOfTime = (InputZone, Option<i64>);

/// The time of day a time or timetz text names, and its zone.
fn parse_time_parts(text: &str, type_name: &str) -> Result<(i64, Option<ZoneOfTime>)> {
    let trimmed = super::float::trim_pg_space(text);
    if trimmed.eq_ignore_ascii_case("allballs") {
        return Ok((0, None));
    }
    let decoded = match tokenize(trimmed) {
        Ok(fields)
            if fields
                .iter()
                .any(|f| matches!(f, Field::Date(_) | Field::Number(_))) =>
        {
            decode(trimmed).map(|parsed| match parsed {
                Parsed::Finite { days, micros, zone } => (micros, zone.map(|z| (z, Some(days)))),
                Parsed::Infinity | Parsed::NegInfinity => (0, None),
            })
        }
        Ok(fields) => {
            decode_time_only(&fields).map(|(micros, zone)| (micros, zone.map(|z| (z, None))))
        }
        Err(fail) => Err(fail),
    };
    decoded.map_err(|fail| match fail {
        Fail::Syntax => syntax_error(type_name, text),
        Fail::Field | Fail::Month => field_error(text),
    })
}

/// A time without a date: one `H:M[:S]` field, AM/PM, and a zone (which time ignores).
fn decode_time_only(fields: &[Field<'_>]) -> std::result::Result<(i64, Option<InputZone>), Fail> {
    let mut micros = None;
    let mut meridian = None;
    let mut zone = None;
    for field in fields {
        match field {
            Field::Time(s) if micros.is_none() => micros = Some(decode_time(s)?),
            Field::Word(w) if w.eq_ignore_ascii_case("am") || w.eq_ignore_ascii_case("pm") => {
                meridian = Some(w.eq_ignore_ascii_case("pm"));
            }
            Field::Offset(s) if zone.is_none() => {
                zone = Some(InputZone::Offset(decode_offset(s)?));
            }
            Field::Word(w) if zone.is_none() => {
                zone = Some(match zone_abbreviation(&w.to_ascii_lowercase()) {
                    Some(east_seconds) => InputZone::Offset(east_seconds),
                    None => InputZone::Named(Zone::named(w).ok_or(Fail::Syntax)?),
                });
            }
            _ => return Err(Fail::Syntax),
        }
    }
    let mut micros = micros.ok_or(Fail::Syntax)?;
    if let Some(pm) = meridian {
        let hour = micros / 3_600_000_000;
        if hour > 12 {
            return Err(Fail::Field);
        }
        if hour == 12 {
            micros -= 12 * 3_600_000_000;
        }
        if pm {
            micros += 12 * 3_600_000_000;
        }
    }
    Ok((micros, zone))
}

/// The current time from the system clock, in microseconds since 2000-01-01.
pub fn clock_micros() -> i64 {
    let since_unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX));
    since_unix - UNIX_TO_PG_DAYS * MICROS_PER_DAY
}

/// time_out: `HH:MM:SS` and the fraction without trailing zeros, in every DateStyle.
pub fn write_time(micros: i64, out: &mut Vec<u8>) {
    write_time_of_day(micros, out);
}

/// date → timestamp (midnight); infinities stay infinite. 22008 `date out of range for
/// timestamp` past 294276 AD.
pub fn date_to_timestamp(days: i32) -> Result<i64> {
    match days {
        i32::MAX => Ok(i64::MAX),
        i32::MIN => Ok(i64::MIN),
        _ => i64::from(days)
            .checked_mul(MICROS_PER_DAY)
            .filter(|micros| (MIN_TIMESTAMP..END_TIMESTAMP).contains(micros))
            .ok_or_else(|| {
                Error::new(
                    SqlState::DatetimeFieldOverflow,
                    "date out of range for timestamp",
                )
            }),
    }
}

/// timestamp → date: the day it falls on; infinities stay infinite.
pub fn timestamp_to_date(micros: i64) -> i32 {
    match micros {
        i64::MAX => i32::MAX,
        i64::MIN => i32::MIN,
        // Any i64 of microseconds is within ±2^31 days.
        _ => micros.div_euclid(MICROS_PER_DAY) as i32,
    }
}

/// Days since 2000-01-01 of a proleptic Gregorian date; None if the date does not exist.
/// The year is astronomical: 0 is 1 BC.
pub fn days_from_ymd(year: i32, month: u32, day: u32) -> Option<i32> {
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(i64::from(year), month) {
        return None;
    }
    i32::try_from(days_from_civil(i64::from(year), month, day)).ok()
}

/// (year, month, day) of days since 2000-01-01; the year is astronomical (0 is 1 BC).
pub fn ymd_from_days(days: i32) -> (i32, u32, u32) {
    // Howard Hinnant's civil_from_days, shifted from 1970 to 2000.
    let z = i64::from(days) + UNIX_TO_PG_DAYS + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year as i32, month, day)
}

/// Days since 2000-01-01 of a valid (year, month, day), without range limits.
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year - era * 400;
    let mp = i64::from((month + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468 - UNIX_TO_PG_DAYS
}

/// A timestamp broken into calendar fields (PostgreSQL's `struct pg_tm` plus fsec); the
/// year is astronomical.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tm {
    pub year: i32,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub micros: u32,
}

impl Tm {
    /// timestamp2tm for a finite timestamp.
    pub fn from_timestamp(micros: i64) -> Tm {
        let days = micros.div_euclid(MICROS_PER_DAY);
        let time = micros.rem_euclid(MICROS_PER_DAY);
        // Any i64 of microseconds is within ±2^31 days.
        let (year, month, day) = ymd_from_days(days as i32);
        let seconds = time / 1_000_000;
        Tm {
            year,
            month,
            day,
            hour: (seconds / 3600) as u32,
            minute: (seconds / 60 % 60) as u32,
            second: (seconds % 60) as u32,
            micros: (time % 1_000_000) as u32,
        }
    }

    /// tm2timestamp: `None` if the date does not exist or the result leaves the valid range.
    pub fn to_timestamp(self) -> Option<i64> {
        let days = days_from_ymd(self.year, self.month, self.day)?;
        let time = ((i64::from(self.hour) * 60 + i64::from(self.minute)) * 60
            + i64::from(self.second))
            * 1_000_000
            + i64::from(self.micros);
        i64::from(days)
            .checked_mul(MICROS_PER_DAY)
            .and_then(|d| d.checked_add(time))
            .filter(|t| is_valid_timestamp(*t))
    }

    /// Days since 2000-01-01 of the date part.
    pub fn days(self) -> i64 {
        days_from_civil(i64::from(self.year), self.month, self.day)
    }
}

/// Whether a finite timestamp is inside PostgreSQL's range (4714-11-24 BC to 294276 AD).
pub fn is_valid_timestamp(micros: i64) -> bool {
    (MIN_TIMESTAMP..END_TIMESTAMP).contains(&micros)
}

/// Whether a finite date is inside PostgreSQL's range.
pub fn is_valid_date(days: i64) -> bool {
    (MIN_DATE..=MAX_DATE).contains(&days)
}

/// Days since 2000-01-01 of a proleptic Gregorian date, without validating or range limits.
pub fn days_from_civil_unchecked(year: i64, month: u32, day: u32) -> i64 {
    days_from_civil(year, month, day)
}

/// The Julian day number of days since 2000-01-01.
pub fn julian_day(days: i64) -> i64 {
    days + 2_451_545
}

/// Day of the week, 0 = Sunday (PostgreSQL's j2day).
pub fn day_of_week(days: i64) -> u32 {
    // 2000-01-01 was a Saturday.
    (days + 6).rem_euclid(7) as u32
}

/// The first day (a Monday) of ISO week 1 of `year`, in days since 2000-01-01.
fn iso_week1_start(year: i64) -> i64 {
    let jan4 = days_from_civil(year, 1, 4);
    let monday_offset = i64::from((day_of_week(jan4) + 6) % 7);
    jan4 - monday_offset
}

/// ISO 8601 (year, week) of a date: weeks start on Monday, week 1 holds January 4th.
pub fn iso_week(days: i64) -> (i64, u32) {
    let (year, _, _) = ymd_from_days(days as i32);
    let year = i64::from(year);
    let next = iso_week1_start(year + 1);
    if days >= next {
        return (year + 1, 1);
    }
    let start = iso_week1_start(year);
    if days < start {
        let previous = iso_week1_start(year - 1);
        return (year - 1, ((days - previous) / 7 + 1) as u32);
    }
    (year, ((days - start) / 7 + 1) as u32)
}

/// The Monday of ISO `week` of ISO `year` (isoweek2j), in days since 2000-01-01.
pub fn iso_week_start(year: i64, week: i64) -> i64 {
    iso_week1_start(year) + (week - 1) * 7
}

/// Number of days in a month of an astronomical year.
pub fn month_days(year: i64, month: u32) -> u32 {
    days_in_month(year, month)
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn write_ymd(year: i32, month: u32, day: u32, out: &mut Vec<u8>) {
    write_year(year, out);
    out.push(b'-');
    write_2digits(month, out);
    out.push(b'-');
    write_2digits(day, out);
}

/// The year as text shows it (at least 4 digits; 1 BC for year 0, the suffix apart).
pub(crate) fn write_year(year: i32, out: &mut Vec<u8>) {
    let shown = if year <= 0 {
        1 - i64::from(year)
    } else {
        i64::from(year)
    };
    if shown < 1000 {
        let mut digits = [b'0'; 4];
        let mut rest = shown;
        for slot in digits.iter_mut().rev() {
            *slot = b'0' + (rest % 10) as u8;
            rest /= 10;
        }
        out.extend_from_slice(&digits);
    } else {
        crate::vector::write_int(shown, out);
    }
}

pub(crate) fn write_2digits(value: u32, out: &mut Vec<u8>) {
    out.push(b'0' + (value / 10 % 10) as u8);
    out.push(b'0' + (value % 10) as u8);
}

fn syntax_error(type_name: &str, text: &str) -> Error {
    Error::new(
        SqlState::InvalidDatetimeFormat,
        format!("invalid input syntax for type {type_name}: \"{text}\""),
    )
}

fn field_error(text: &str) -> Error {
    Error::new(
        SqlState::DatetimeFieldOverflow,
        format!("date/time field value out of range: \"{text}\""),
    )
}

fn range_error(type_name: &str, text: &str) -> Error {
    Error::new(
        SqlState::DatetimeFieldOverflow,
        format!("{type_name} out of range: \"{text}\""),
    )
}

/// The inputs that name a moment relative to the transaction's start, with their offset in
/// days from today (`None` for `now` itself).
pub const RELATIVE_WORDS: [(&str, Option<i32>); 4] = [
    ("now", None),
    ("today", Some(0)),
    ("tomorrow", Some(1)),
    ("yesterday", Some(-1)),
];

/// A decoded date/time: days since 2000-01-01 plus microseconds into the day (up to one
/// whole day for `24:00:00`) and the time zone given; or an infinity.
enum Parsed {
    Finite {
        days: i64,
        micros: i64,
        zone: Option<InputZone>,
    },
    Infinity,
    NegInfinity,
}

/// A time zone written in date/time input.
enum InputZone {
    /// A numeric offset or an abbreviation: seconds east of UTC.
    Offset(i32),
    /// A zone of the tz database, whose offset depends on the date.
    Named(Zone),
}

/// Why decoding failed: bad syntax (22007), a field out of range (22008), or a month out of
/// range, which PostgreSQL reports with a DateStyle hint.
enum Fail {
    Syntax,
    Field,
    Month,
}

fn parse_datetime(text: &str, type_name: &str) -> Result<Parsed> {
    let trimmed = super::float::trim_pg_space(text);
    let special = |word: &str| trimmed.eq_ignore_ascii_case(word);
    if special("infinity") || special("+infinity") {
        return Ok(Parsed::Infinity);
    }
    if special("-infinity") {
        return Ok(Parsed::NegInfinity);
    }
    if special("epoch") {
        return Ok(Parsed::Finite {
            days: -UNIX_TO_PG_DAYS,
            micros: 0,
            zone: None,
        });
    }
    // Bound as now() where a literal names them (`binder::datetime_syntax`); a value read
    // at run time has no clock here.
    if RELATIVE_WORDS.iter().any(|(w, _)| special(w)) {
        return Err(Error::unsupported(format!(
            "the {type_name} input \"{trimmed}\""
        )));
    }
    decode(trimmed).map_err(|fail| match fail {
        Fail::Syntax => syntax_error(type_name, text),
        Fail::Field => field_error(text),
        Fail::Month => {
            field_error(text).with_hint("Perhaps you need a different \"datestyle\" setting.")
        }
    })
}

/// One whitespace- or comma-separated piece of the input.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Field<'a> {
    /// Digits only.
    Number(&'a str),
    /// Letters only (lower-cased comparisons happen later).
    Word(&'a str),
    /// Digits or month names joined by `-`, `/` or `.`.
    Date(&'a str),
    /// `H:M[:S[.f]]`.
    Time(&'a str),
    /// A numeric time-zone offset: `+02`, `-05:30`, `+0530`.
    Offset(&'a str),
}

fn tokenize(text: &str) -> std::result::Result<Vec<Field<'_>>, Fail> {
    let bytes = text.as_bytes();
    let mut fields = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let c = bytes[pos];
        let start = pos;
        if c.is_ascii_whitespace() || c == b',' || c == 0x0B {
            pos += 1;
        } else if c.is_ascii_digit() {
            pos = skip(bytes, pos, |b| b.is_ascii_digit());
            match bytes.get(pos) {
                Some(b':') => {
                    pos = skip(bytes, pos, |b| b.is_ascii_digit() || b == b':' || b == b'.');
                    fields.push(Field::Time(&text[start..pos]));
                }
                Some(b'-' | b'/' | b'.') if continues_date(bytes, pos) => {
                    pos = scan_date(bytes, pos);
                    fields.push(Field::Date(&text[start..pos]));
                }
                Some(b'.') => {
                    // A fractional number such as `123456.5` after `T`.
                    pos = skip(bytes, pos + 1, |b| b.is_ascii_digit());
                    fields.push(Field::Number(&text[start..pos]));
                }
                _ => fields.push(Field::Number(&text[start..pos])),
            }
        } else if c.is_ascii_alphabetic() {
            pos = skip(bytes, pos, |b| b.is_ascii_alphabetic());
            let is_month = month_number(&text[start..pos].to_ascii_lowercase()).is_some();
            if matches!(bytes.get(pos), Some(b'/' | b'_')) && !is_month {
                // A zone name such as `America/New_York` or `Etc/GMT+5`.
                pos = skip(bytes, pos, |b| {
                    b.is_ascii_alphanumeric() || matches!(b, b'/' | b'_' | b'+' | b'-')
                });
                fields.push(Field::Word(&text[start..pos]));
            } else if matches!(bytes.get(pos), Some(b'-' | b'/')) && continues_date(bytes, pos) {
                pos = scan_date(bytes, pos);
                fields.push(Field::Date(&text[start..pos]));
            } else {
                fields.push(Field::Word(&text[start..pos]));
            }
        } else if (c == b'+' || c == b'-') && bytes.get(pos + 1).is_some_and(u8::is_ascii_digit) {
            pos = skip(bytes, pos + 1, |b| b.is_ascii_digit() || b == b':');
            fields.push(Field::Offset(&text[start..pos]));
        } else {
            return Err(Fail::Syntax);
        }
    }
    Ok(fields)
}

fn skip(bytes: &[u8], mut pos: usize, accept: impl Fn(u8) -> bool) -> usize {
    while bytes.get(pos).is_some_and(|&b| accept(b)) {
        pos += 1;
    }
    pos
}

/// Whether the separator at `pos` is followed by another date part.
fn continues_date(bytes: &[u8], pos: usize) -> bool {
    bytes.get(pos + 1).is_some_and(u8::is_ascii_alphanumeric)
}

/// Scans date parts joined by separators from `pos` (at a separator); a run of letters
/// glued to digits (the `T` of `2024-01-05T10:00`) ends the field.
fn scan_date(bytes: &[u8], mut pos: usize) -> usize {
    while matches!(bytes.get(pos), Some(b'-' | b'/' | b'.')) && continues_date(bytes, pos) {
        pos += 1;
        pos = if bytes[pos].is_ascii_digit() {
            skip(bytes, pos, |b| b.is_ascii_digit())
        } else {
            skip(bytes, pos, |b| b.is_ascii_alphabetic())
        };
    }
    pos
}

/// The date being assembled from fields.
#[derive(Default)]
struct DateParts<'a> {
    date: Option<(i64, u32, u32)>,
    month: Option<u32>,
    numbers: Vec<&'a str>,
    micros: Option<i64>,
    after_t: bool,
    bc: bool,
    meridian: Option<bool>,
    zone: Option<InputZone>,
}

fn decode(text: &str) -> std::result::Result<Parsed, Fail> {
    let mut parts = DateParts::default();
    for field in tokenize(text)? {
        match field {
            Field::Date(s) => {
                if parts.date.is_some() {
                    return Err(Fail::Syntax);
                }
                parts.date = Some(decode_date_field(s)?);
            }
            Field::Time(s) => {
                if parts.micros.is_some() {
                    return Err(Fail::Syntax);
                }
                parts.micros = Some(decode_time(s)?);
            }
            Field::Number(s) if parts.after_t && parts.micros.is_none() => {
                parts.micros = Some(decode_iso_time(s)?);
            }
            // `19970210 173201`: six digits after a whole date are HHMMSS.
            Field::Number(s)
                if parts.micros.is_none()
                    && s.split('.').next().is_some_and(|whole| whole.len() == 6)
                    && (parts.date.is_some()
                        || matches!(parts.numbers[..], [date] if date.len() == 8)) =>
            {
                parts.micros = Some(decode_iso_time(s)?);
            }
            Field::Number(s) => parts.numbers.push(s),
            Field::Word(w) => decode_word(w, &mut parts)?,
            Field::Offset(s) => {
                // A zone may follow a time or a bare date (pgjdbc sends `2024-01-15 +01`).
                let after_date_or_time = parts.micros.is_some()
                    || parts.date.is_some()
                    || parts.month.is_some()
                    || !parts.numbers.is_empty();
                if !after_date_or_time || parts.zone.is_some() {
                    return Err(Fail::Syntax);
                }
                parts.zone = Some(InputZone::Offset(decode_offset(s)?));
            }
        }
    }
    let (year, month, day) = match (parts.date, parts.month) {
        (Some(date), None) if parts.numbers.is_empty() => date,
        (None, Some(month)) => date_with_month_name(month, &parts.numbers)?,
        (None, None) => match parts.numbers.as_slice() {
            [digits] => decode_concatenated(digits)?,
            _ => return Err(Fail::Syntax),
        },
        _ => return Err(Fail::Syntax),
    };
    let year = if parts.bc { 1 - year } else { year };
    if !(1..=12).contains(&month) {
        return Err(Fail::Month);
    }
    if day == 0 || day > days_in_month(year, month) {
        return Err(Fail::Field);
    }
    // Far outside any valid range; keeps the day arithmetic in i64 safe.
    if year.abs() > 10_000_000 {
        return Err(Fail::Field);
    }
    let mut micros = parts.micros.unwrap_or(0);
    if let Some(pm) = parts.meridian {
        let hour = micros / 3_600_000_000;
        if parts.micros.is_none() || hour > 12 {
            return Err(Fail::Field);
        }
        if hour == 12 {
            micros -= 12 * 3_600_000_000;
        }
        if pm {
            micros += 12 * 3_600_000_000;
        }
    }
    Ok(Parsed::Finite {
        days: days_from_civil(year, month, day),
        micros,
        zone: parts.zone,
    })
}

/// `+HH`, `+HHMM`, `+HH:MM` or `+HH:MM:SS` to seconds east of UTC.
fn decode_offset(field: &str) -> std::result::Result<i32, Fail> {
    let negative = field.starts_with('-');
    let body = &field[1..];
    let (hours, minutes, seconds) = match body.split(':').collect::<Vec<_>>().as_slice() {
        [hhmm] if hhmm.len() > 2 => {
            let (h, m) = hhmm.split_at(hhmm.len() - 2);
            (small(h)?, small(m)?, 0)
        }
        [h] => (small(h)?, 0, 0),
        [h, m] => (small(h)?, small(m)?, 0),
        [h, m, s] => (small(h)?, small(m)?, small(s)?),
        _ => return Err(Fail::Syntax),
    };
    if hours > 15 || minutes > 59 || seconds > 59 {
        return Err(Fail::Field);
    }
    let total = (hours * 3600 + minutes * 60 + seconds) as i32;
    Ok(if negative { -total } else { total })
}

fn decode_word<'a>(word: &'a str, parts: &mut DateParts<'a>) -> std::result::Result<(), Fail> {
    let lower = word.to_ascii_lowercase();
    if let Some(month) = month_number(&lower) {
        if parts.month.replace(month).is_some() {
            return Err(Fail::Syntax);
        }
        return Ok(());
    }
    match lower.as_str() {
        "t" => parts.after_t = true,
        "bc" => parts.bc = true,
        "ad" => {}
        "am" | "pm" => parts.meridian = Some(lower == "pm"),
        _ if is_weekday(&lower) => {}
        _ if parts.zone.is_some() => return Err(Fail::Syntax),
        _ => {
            let zone = match zone_abbreviation(&lower) {
                Some(seconds) => InputZone::Offset(seconds),
                None => InputZone::Named(Zone::named(word).ok_or(Fail::Syntax)?),
            };
            parts.zone = Some(zone);
        }
    }
    Ok(())
}

/// The offset in seconds east of UTC of the time-zone abbreviations timestamp input accepts
/// (PostgreSQL's Default set; timestamp without time zone ignores them).
pub fn zone_abbreviation(word: &str) -> Option<i32> {
    let hours: f64 = match word {
        "z" | "zulu" | "utc" | "ut" | "gmt" | "wet" => 0.0,
        "pst" | "akdt" => -8.0,
        "pdt" | "mst" => -7.0,
        "mdt" | "cst" => -6.0,
        "cdt" | "est" => -5.0,
        "edt" | "ast" => -4.0,
        "adt" => -3.0,
        "akst" => -9.0,
        "hst" => -10.0,
        "nst" => -3.5,
        "ndt" => -2.5,
        "west" | "cet" | "bst" => 1.0,
        "cest" | "eet" | "ist" => 2.0,
        "eest" | "msk" => 3.0,
        "jst" | "kst" => 9.0,
        "aest" => 10.0,
        "aedt" => 11.0,
        "nzst" => 12.0,
        _ => return None,
    };
    Some((hours * 3600.0) as i32)
}

fn month_number(word: &str) -> Option<u32> {
    const MONTHS: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    if word == "sept" {
        return Some(9);
    }
    MONTHS
        .iter()
        .position(|m| *m == word || (word.len() == 3 && m.starts_with(word)))
        .map(|i| i as u32 + 1)
}

fn is_weekday(word: &str) -> bool {
    const DAYS: [&str; 7] = [
        "sunday",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
    ];
    DAYS.iter()
        .any(|d| *d == word || (word.len() == 3 && d.starts_with(word)))
}

/// A date field like `2024-01-05`, `1/5/2024`, `2024.01.05` or `05-Jan-2024`.
fn decode_date_field(field: &str) -> std::result::Result<(i64, u32, u32), Fail> {
    let parts: Vec<&str> = field.split(['-', '/', '.']).collect();
    let [a, b, c] = parts.as_slice() else {
        return Err(Fail::Syntax);
    };
    let is_word = |s: &str| s.bytes().all(|b| b.is_ascii_alphabetic());
    let month_of = |s: &str| month_number(&s.to_ascii_lowercase()).ok_or(Fail::Syntax);
    if is_word(a) {
        date_with_month_name(month_of(a)?, &[b, c])
    } else if is_word(b) {
        date_with_month_name(month_of(b)?, &[a, c])
    } else if is_word(c) {
        Err(Fail::Syntax)
    } else if a.len() > 2 {
        Ok((year_of(a)?, small(b)?, small(c)?))
    } else {
        // Three numbers: DateStyle's field order says which is which.
        match datetime_style::current().order {
            DateOrder::Mdy => Ok((year_of(c)?, small(a)?, small(b)?)),
            DateOrder::Dmy => Ok((year_of(c)?, small(b)?, small(a)?)),
            DateOrder::Ymd => Ok((year_of(a)?, small(b)?, small(c)?)),
        }
    }
}

/// Day and year around a month name: a number of more than two digits is the year;
/// otherwise the day comes first.
fn date_with_month_name(
    month: u32,
    numbers: &[&str],
) -> std::result::Result<(i64, u32, u32), Fail> {
    let [first, second] = numbers else {
        return Err(Fail::Syntax);
    };
    if first.len() > 2 {
        Ok((year_of(first)?, month, small(second)?))
    } else {
        Ok((year_of(second)?, month, small(first)?))
    }
}

/// `YYYYMMDD` or `YYMMDD`.
fn decode_concatenated(digits: &str) -> std::result::Result<(i64, u32, u32), Fail> {
    let year_len = match digits.len() {
        8 => 4,
        6 => 2,
        _ => return Err(Fail::Syntax),
    };
    let (year, rest) = digits.split_at(year_len);
    Ok((year_of(year)?, small(&rest[..2])?, small(&rest[2..])?))
}

/// A year: one or two digits mean 1970–2069, as PostgreSQL reads them.
fn year_of(digits: &str) -> std::result::Result<i64, Fail> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Fail::Syntax);
    }
    if digits.len() > 9 {
        return Err(Fail::Field);
    }
    let year: i64 = digits.parse().map_err(|_| Fail::Syntax)?;
    if year == 0 {
        return Err(Fail::Field);
    }
    Ok(match (digits.len() <= 2, year) {
        (true, y) if y < 70 => y + 2000,
        (true, y) => y + 1900,
        (false, y) => y,
    })
}

/// A month or day number (validated later).
fn small(digits: &str) -> std::result::Result<u32, Fail> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Fail::Syntax);
    }
    if digits.len() > 4 {
        return Err(Fail::Field);
    }
    digits.parse().map_err(|_| Fail::Syntax)
}

/// `H:M`, `H:M:S` or `H:M:S.f` to microseconds, fractions rounded half to even as
/// PostgreSQL's rint does.
fn decode_time(field: &str) -> std::result::Result<i64, Fail> {
    let mut parts = field.split(':');
    let hour = time_part(parts.next())?;
    let minute = time_part(parts.next())?;
    let (second, fraction) = match parts.next() {
        None => (0, 0),
        Some(s) => {
            let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
            let fraction = if frac.is_empty() {
                0
            } else {
                fraction_micros(frac)?
            };
            (time_part(Some(whole))?, fraction)
        }
    };
    if parts.next().is_some() {
        return Err(Fail::Syntax);
    }
    time_micros(hour, minute, second, fraction)
}

/// The ISO 8601 basic time after `T`: `HHMMSS[.f]` or `HHMM`.
fn decode_iso_time(field: &str) -> std::result::Result<i64, Fail> {
    let (whole, frac) = field.split_once('.').unwrap_or((field, ""));
    let fraction = if frac.is_empty() {
        0
    } else {
        fraction_micros(frac)?
    };
    let number = |range: std::ops::Range<usize>| time_part(whole.get(range));
    match whole.len() {
        6 => time_micros(number(0..2)?, number(2..4)?, number(4..6)?, fraction),
        4 if frac.is_empty() => time_micros(number(0..2)?, number(2..4)?, 0, 0),
        _ => Err(Fail::Syntax),
    }
}

fn time_part(part: Option<&str>) -> std::result::Result<i64, Fail> {
    match part {
        Some(p) if !p.is_empty() && p.len() <= 9 && p.bytes().all(|b| b.is_ascii_digit()) => {
            p.parse().map_err(|_| Fail::Syntax)
        }
        _ => Err(Fail::Syntax),
    }
}

/// PostgreSQL computes `rint(strtod(".f") * 1e6)`; the same double arithmetic here gives
/// the same microseconds.
fn fraction_micros(digits: &str) -> std::result::Result<i64, Fail> {
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Fail::Syntax);
    }
    let mut buf = super::float::StackBuf::new();
    let shown = &digits[..digits.len().min(40)];
    std::fmt::Write::write_fmt(&mut buf, format_args!("0.{shown}")).map_err(|_| Fail::Syntax)?;
    let fraction: f64 = buf.as_str().parse().map_err(|_| Fail::Syntax)?;
    Ok((fraction * 1e6).round_ties_even() as i64)
}

/// Validates the fields as PostgreSQL does: hour 24 only as 24:00:00, second 60 only whole.
fn time_micros(
    hour: i64,
    minute: i64,
    second: i64,
    fraction: i64,
) -> std::result::Result<i64, Fail> {
    let whole_second = fraction == 0;
    if hour > 24
        || (hour == 24 && (minute > 0 || second > 0 || !whole_second))
        || minute > 59
        || second > 60
        || (second == 60 && !whole_second)
    {
        return Err(Fail::Field);
    }
    Ok(((hour * 60 + minute) * 60 + second) * 1_000_000 + fraction)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(text: &str) -> String {
        let mut out = Vec::new();
        write_date(parse_date(text).expect("valid date"), &mut out);
        String::from_utf8(out).expect("ascii")
    }

    fn ts(text: &str) -> String {
        let mut out = Vec::new();
        write_timestamp(parse_timestamp(text).expect("valid timestamp"), &mut out);
        String::from_utf8(out).expect("ascii")
    }

    // Expected outputs checked against PostgreSQL 15 (DateStyle ISO, MDY).
    #[test]
    fn date_input_forms() {
        for text in [
            "2024-1-5",
            " 2024-01-05 ",
            "20240105",
            "Jan 5 2024",
            "January 5, 2024",
            "1/5/2024",
            "5 Jan 2024",
            "2024 Jan 5",
            "01-05-2024",
            "1/5/24",
            "240105",
            "2024.01.05",
            "2024/01/05",
            "Jan-05-2024",
            "05-Jan-2024",
            "2024-Jan-05",
            "2024-01-05 12:34",
            "2024-01-05T12:34:56Z",
            "Fri Jan 5 2024",
        ] {
            assert_eq!(date(text), "2024-01-05", "{text}");
        }
        assert_eq!(date("Jan 5 70"), "1970-01-05");
        assert_eq!(date("epoch"), "1970-01-01");
        assert_eq!(date("infinity"), "infinity");
        assert_eq!(date("-infinity"), "-infinity");
        assert_eq!(date("10000-01-01"), "10000-01-01");
        assert_eq!(date("0044-03-15 BC"), "0044-03-15 BC");
        assert_eq!(date("4714-11-24 BC"), "4714-11-24 BC");
        assert_eq!(date("5874897-12-31"), "5874897-12-31");
        assert_eq!(date("2000-01-01"), "2000-01-01");
        assert_eq!(parse_date("2000-01-01").ok(), Some(0));
        assert_eq!(parse_date("1999-12-31").ok(), Some(-1));
        assert_eq!(date("2024-02-29"), "2024-02-29");
    }

    #[test]
    fn date_errors() {
        let err = parse_date("2024-02-30").expect_err("no such day");
        assert_eq!(err.sqlstate(), "22008");
        assert_eq!(
            err.message,
            "date/time field value out of range: \"2024-02-30\""
        );
        assert_eq!(err.hint, None);
        let err = parse_date("13/01/2024").expect_err("month");
        assert_eq!(err.sqlstate(), "22008");
        assert_eq!(
            err.hint.as_deref(),
            Some("Perhaps you need a different \"datestyle\" setting.")
        );
        assert_eq!(
            parse_date("2024-13-01").expect_err("month").sqlstate(),
            "22008"
        );
        assert_eq!(
            parse_date("0000-01-01").expect_err("year 0").sqlstate(),
            "22008"
        );
        assert_eq!(
            parse_date("2023-02-29").expect_err("not leap").sqlstate(),
            "22008"
        );
        let err = parse_date("foo").expect_err("syntax");
        assert_eq!(err.sqlstate(), "22007");
        assert_eq!(err.message, "invalid input syntax for type date: \"foo\"");
        for bad in ["Jan 5", "2024-01", "", "12:34", "2024-01-05 foo"] {
            assert_eq!(parse_date(bad).expect_err(bad).sqlstate(), "22007", "{bad}");
        }
        let err = parse_date("5874898-01-01").expect_err("range");
        assert_eq!(err.message, "date out of range: \"5874898-01-01\"");
        assert_eq!(err.sqlstate(), "22008");
        assert!(parse_date("4714-11-23 BC").is_err());
        assert_eq!(
            parse_date("today").expect_err("volatile").sqlstate(),
            "0A000"
        );
    }

    #[test]
    fn timestamp_input_and_output() {
        assert_eq!(ts("2024-01-05 1:2:3.1234565"), "2024-01-05 01:02:03.123456");
        assert_eq!(ts("2024-01-05 1:2:3.1234575"), "2024-01-05 01:02:03.123458");
        assert_eq!(ts("2024-01-05T12:34:56+02"), "2024-01-05 12:34:56");
        assert_eq!(ts("2024-01-05 12:34:56.5 -05:30"), "2024-01-05 12:34:56.5");
        assert_eq!(ts("2024-01-05 24:00:00"), "2024-01-06 00:00:00");
        assert_eq!(ts("2024-01-05 23:59:60"), "2024-01-06 00:00:00");
        assert_eq!(ts("2024-01-05 1:00 PM"), "2024-01-05 13:00:00");
        assert_eq!(ts("2024-01-05 12:00 am"), "2024-01-05 00:00:00");
        assert_eq!(ts("2024-01-05 0:00 am"), "2024-01-05 00:00:00");
        assert_eq!(ts("2024-01-05"), "2024-01-05 00:00:00");
        assert_eq!(ts("epoch"), "1970-01-01 00:00:00");
        assert_eq!(ts("infinity"), "infinity");
        assert_eq!(ts("-infinity"), "-infinity");
        assert_eq!(ts("2024-01-05 12:34:56 UTC"), "2024-01-05 12:34:56");
        assert_eq!(ts("2024-01-05 12:34:56 PST"), "2024-01-05 12:34:56");
        assert_eq!(ts("2024-01-05 BC 10:00"), "2024-01-05 10:00:00 BC");
        assert_eq!(ts("2024-01-05 12:34:56.9999999"), "2024-01-05 12:34:57");
        assert_eq!(ts("2024-01-05 12:34:59.9999996"), "2024-01-05 12:35:00");
        assert_eq!(ts("20240105T123456"), "2024-01-05 12:34:56");
        assert_eq!(ts("2024-01-05 12:34:5"), "2024-01-05 12:34:05");
        assert_eq!(ts("2024-01-05 1:2"), "2024-01-05 01:02:00");
        assert_eq!(ts("1999-12-31 23:59:59.25"), "1999-12-31 23:59:59.25");
        assert_eq!(
            ts("294276-12-31 23:59:59.999999"),
            "294276-12-31 23:59:59.999999"
        );
        assert_eq!(parse_timestamp("2000-01-01 00:00:01").ok(), Some(1_000_000));
    }

    #[test]
    fn timestamp_errors() {
        for bad in [
            "2024-01-05 25:00",
            "2024-01-05 12:60",
            "2024-01-05 13:00 pm",
            "2024-01-05 23:59:60.5",
            "2024-01-05 24:00:00.5",
        ] {
            let err = parse_timestamp(bad).expect_err(bad);
            assert_eq!(err.sqlstate(), "22008", "{bad}");
            assert_eq!(
                err.message,
                format!("date/time field value out of range: \"{bad}\"")
            );
        }
        let err = parse_timestamp("2024-01-05 12:34:56 foo").expect_err("syntax");
        assert_eq!(err.sqlstate(), "22007");
        assert_eq!(
            err.message,
            "invalid input syntax for type timestamp: \"2024-01-05 12:34:56 foo\""
        );
        assert_eq!(
            parse_timestamp("12:34").expect_err("no date").sqlstate(),
            "22007"
        );
        let err = parse_timestamp("294277-01-01").expect_err("range");
        assert_eq!(err.message, "timestamp out of range: \"294277-01-01\"");
    }

    #[test]
    fn calendar_round_trip() {
        for days in [
            -2_451_545,
            -730_000,
            -1,
            0,
            1,
            59,
            60,
            366,
            8_766,
            2_145_031_948,
        ] {
            let (y, m, d) = ymd_from_days(days);
            assert_eq!(days_from_ymd(y, m, d), Some(days), "{days}");
        }
        assert_eq!(days_from_ymd(2000, 1, 1), Some(0));
        assert_eq!(days_from_ymd(1970, 1, 1), Some(-10_957));
        assert_eq!(days_from_ymd(2024, 2, 30), None);
        assert_eq!(days_from_ymd(2024, 13, 1), None);
        assert_eq!(ymd_from_days(-1), (1999, 12, 31));
    }

    #[test]
    fn date_timestamp_conversion() {
        let day = |t: &str| parse_date(t).expect("date");
        let stamp = |t: &str| parse_timestamp(t).expect("timestamp");
        assert_eq!(
            timestamp_to_date(stamp("2024-01-05 12:34")),
            day("2024-01-05")
        );
        assert_eq!(
            timestamp_to_date(stamp("1999-12-31 23:00")),
            day("1999-12-31")
        );
        assert_eq!(timestamp_to_date(i64::MIN), i32::MIN);
        assert_eq!(date_to_timestamp(day("-infinity")).ok(), Some(i64::MIN));
        assert_eq!(
            date_to_timestamp(day("1999-12-31")).ok(),
            Some(-MICROS_PER_DAY)
        );
        let err = date_to_timestamp(day("5874897-12-31")).expect_err("range");
        assert_eq!(
            (err.sqlstate(), err.message.as_str()),
            ("22008", "date out of range for timestamp")
        );
    }
}
