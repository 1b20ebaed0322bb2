//! Named fields of dates, timestamps and intervals: `date_trunc`, `extract` (numeric, as
//! PostgreSQL 15 returns it) and `date_part` (double precision), with PostgreSQL's unit
//! names, results for BC years and infinities, and errors (22023 for an unknown unit, 0A000
//! for a unit the type does not have).

use crate::error::{Error, Result, SqlState};
use crate::types::datetime::{self, Tm};
use crate::types::interval::{Interval, MICROS_PER_HOUR, MICROS_PER_MINUTE};
use crate::types::{timetz, timezone};
use crate::types::{DataType, Decimal, IntervalTypmod};

/// A unit name of date_trunc, extract and date_part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Microseconds,
    Milliseconds,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
    Decade,
    Century,
    Millennium,
    Dow,
    IsoDow,
    Doy,
    IsoYear,
    Epoch,
    Julian,
    Timezone,
    TimezoneHour,
    TimezoneMinute,
}

impl Field {
    /// PostgreSQL's unit tokens (compared on their first 10 characters, lower-cased).
    pub fn parse(name: &str, ty: DataType) -> Result<Field> {
        let lower = name.to_ascii_lowercase();
        let key = &lower[..lower.len().min(10)];
        Ok(match key {
            "us" | "usec" | "usecs" | "usecond" | "useconds" | "microsecon" => Field::Microseconds,
            "ms" | "msec" | "msecs" | "msecond" | "mseconds" | "millisecon" => Field::Milliseconds,
            "s" | "sec" | "secs" | "second" | "seconds" => Field::Second,
            "m" | "min" | "mins" | "minute" | "minutes" => Field::Minute,
            "h" | "hr" | "hrs" | "hour" | "hours" => Field::Hour,
            "d" | "day" | "days" => Field::Day,
            "w" | "week" | "weeks" => Field::Week,
            "mon" | "mons" | "month" | "months" => Field::Month,
            "qtr" | "quarter" => Field::Quarter,
            "y" | "yr" | "yrs" | "year" | "years" => Field::Year,
            "dec" | "decs" | "decade" | "decades" => Field::Decade,
            "c" | "cent" | "century" | "centuries" => Field::Century,
            "mil" | "mils" | "millennia" | "millennium" => Field::Millennium,
            "dow" => Field::Dow,
            "isodow" => Field::IsoDow,
            "doy" => Field::Doy,
            "isoyear" => Field::IsoYear,
            "epoch" => Field::Epoch,
            "j" | "jd" | "julian" => Field::Julian,
            "timezone" => Field::Timezone,
            "timezone_h" => Field::TimezoneHour,
            "timezone_m" => Field::TimezoneMinute,
            _ => {
                return Err(Error::new(
                    SqlState::InvalidParameterValue,
                    format!("unit \"{lower}\" not recognized for type {}", ty.name()),
                ))
            }
        })
    }

    /// The fields whose value keeps growing: they are ±infinity for infinite inputs, the
    /// others NULL.
    fn is_monotonic(self) -> bool {
        matches!(
            self,
            Field::Year
                | Field::Decade
                | Field::Century
                | Field::Millennium
                | Field::Julian
                | Field::IsoYear
                | Field::Epoch
        )
    }
}

/// 0A000 `unit "hour" not supported for type date`.
fn not_supported(name: &str, ty: DataType) -> Error {
    Error::new(
        SqlState::FeatureNotSupported,
        format!(
            "unit \"{}\" not supported for type {}",
            name.to_ascii_lowercase(),
            ty.name()
        ),
    )
}

/// date_trunc(unit, timestamp[tz]) (timestamp_trunc): BC centuries and millennia count as
/// PostgreSQL's do; infinities stay.
pub fn trunc_timestamp(name: &str, ts: i64, ty: DataType) -> Result<i64> {
    let field = Field::parse(name, ty)?;
    if ts == i64::MAX || ts == i64::MIN {
        return Ok(ts);
    }
    if matches!(ty, DataType::TimestampTz(_)) {
        // Truncated as local time; below a day the instant keeps its offset, from a day up
        // the offset is the one at the truncated local time (PostgreSQL's redotz).
        let zone_micros = i64::from(timezone::session_offset(ts)) * 1_000_000;
        let local = trunc_timestamp(name, ts + zone_micros, DataType::Timestamp(None))?;
        return Ok(match field {
            Field::Hour
            | Field::Minute
            | Field::Second
            | Field::Milliseconds
            | Field::Microseconds => local - zone_micros,
            _ => timezone::from_local(local),
        });
    }
    let mut tm = Tm::from_timestamp(ts);
    let year = tm.year;
    match field {
        Field::Week => {
            let (iso_year, week) = datetime::iso_week(tm.days());
            let monday = datetime::iso_week_start(iso_year, i64::from(week));
            let (y, m, d) = datetime::ymd_from_days(monday as i32);
            tm = Tm {
                year: y,
                month: m,
                day: d,
                ..Tm::from_timestamp(0)
            };
        }
        Field::Millennium | Field::Century | Field::Decade => {
            tm.year = match field {
                Field::Millennium if year > 0 => ((year + 999) / 1000) * 1000 - 999,
                Field::Millennium => -((999 - (year - 1)) / 1000) * 1000 + 1,
                Field::Century if year > 0 => ((year + 99) / 100) * 100 - 99,
                Field::Century => -((99 - (year - 1)) / 100) * 100 + 1,
                _ if year > 0 => (year / 10) * 10,
                _ => -((8 - (year - 1)) / 10) * 10,
            };
            tm = truncate_tm(tm, Field::Year);
        }
        Field::Year
        | Field::Quarter
        | Field::Month
        | Field::Day
        | Field::Hour
        | Field::Minute
        | Field::Second
        | Field::Milliseconds
        | Field::Microseconds => tm = truncate_tm(tm, field),
        Field::Dow
        | Field::IsoDow
        | Field::Doy
        | Field::IsoYear
        | Field::Epoch
        | Field::Julian
        | Field::Timezone
        | Field::TimezoneHour
        | Field::TimezoneMinute => return Err(not_supported(name, ty)),
    }
    tm.to_timestamp()
        .ok_or_else(super::datetime_arithmetic::timestamp_out_of_range)
}

/// Zeroes every field below `field` (the fall-through chain of timestamp_trunc).
fn truncate_tm(mut tm: Tm, field: Field) -> Tm {
    let rank = |f: Field| match f {
        Field::Year => 6,
        Field::Quarter => 5,
        Field::Month => 4,
        Field::Day => 3,
        Field::Hour => 2,
        Field::Minute => 1,
        Field::Second => 0,
        _ => -1,
    };
    let level = rank(field);
    if level >= 6 {
        tm.month = 1;
    }
    if level >= 5 {
        tm.month = 3 * ((tm.month - 1) / 3) + 1;
    }
    if level >= 4 {
        tm.day = 1;
    }
    if level >= 3 {
        tm.hour = 0;
    }
    if level >= 2 {
        tm.minute = 0;
    }
    if level >= 1 {
        tm.second = 0;
    }
    if level >= 0 {
        tm.micros = 0;
    }
    if field == Field::Milliseconds {
        tm.micros = tm.micros / 1000 * 1000;
    }
    tm
}

/// date_trunc(unit, interval) (interval_trunc).
pub fn trunc_interval(name: &str, span: Interval) -> Result<Interval> {
    let field = Field::parse(name, DataType::Interval(IntervalTypmod::NONE))?;
    let mut p = span.itm();
    let level = match field {
        Field::Millennium => 9,
        Field::Century => 8,
        Field::Decade => 7,
        Field::Year => 6,
        Field::Quarter => 5,
        Field::Month => 4,
        Field::Day => 3,
        Field::Hour => 2,
        Field::Minute => 1,
        Field::Second => 0,
        Field::Milliseconds => {
            p.micros = p.micros / 1000 * 1000;
            return p.to_interval();
        }
        Field::Microseconds => return p.to_interval(),
        Field::Week => {
            return Err(
                not_supported(name, DataType::Interval(IntervalTypmod::NONE))
                    .with_hint("Months usually have fractional weeks."),
            )
        }
        Field::Dow
        | Field::IsoDow
        | Field::Doy
        | Field::IsoYear
        | Field::Epoch
        | Field::Julian
        | Field::Timezone
        | Field::TimezoneHour
        | Field::TimezoneMinute => {
            return Err(not_supported(
                name,
                DataType::Interval(IntervalTypmod::NONE),
            ))
        }
    };
    if level >= 9 {
        p.year = p.year / 1000 * 1000;
    }
    if level >= 8 {
        p.year = p.year / 100 * 100;
    }
    if level >= 7 {
        p.year = p.year / 10 * 10;
    }
    if level >= 6 {
        p.month = 0;
    }
    if level >= 5 {
        p.month = 3 * (p.month / 3);
    }
    if level >= 4 {
        p.day = 0;
    }
    if level >= 3 {
        p.hour = 0;
    }
    if level >= 2 {
        p.minute = 0;
    }
    if level >= 1 {
        p.second = 0;
    }
    p.micros = 0;
    p.to_interval()
}

/// The value of one field: exact for extract, and the double date_part computes (with
/// PostgreSQL's own float formula, so the last bit agrees).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Part {
    Null,
    Value {
        numeric: Decimal,
        float: f64,
    },
    /// ±infinity: date_part has it; our numeric does not.
    Infinite(bool),
}

impl Part {
    fn int(value: i64) -> Part {
        Part::Value {
            numeric: Decimal::from_i64(value),
            float: value as f64,
        }
    }

    /// extract's numeric result.
    pub fn numeric(self) -> Result<Option<Decimal>> {
        match self {
            Part::Null => Ok(None),
            Part::Value { numeric, .. } => Ok(Some(numeric)),
            Part::Infinite(_) => Err(Error::unsupported("extract of an infinite value")),
        }
    }

    /// date_part's double result.
    pub fn float(self) -> Option<f64> {
        match self {
            Part::Null => None,
            Part::Value { float, .. } => Some(float),
            Part::Infinite(positive) => Some(if positive {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            }),
        }
    }
}

/// extract(field FROM timestamp[tz]) (timestamp_part_common).
pub fn timestamp_part(name: &str, ts: i64, ty: DataType) -> Result<Part> {
    let field = Field::parse(name, ty)?;
    let zone_field = matches!(
        field,
        Field::Timezone | Field::TimezoneHour | Field::TimezoneMinute
    );
    if zone_field && !matches!(ty, DataType::TimestampTz(_)) {
        return Err(not_supported(name, ty));
    }
    if ts == i64::MAX || ts == i64::MIN {
        return Ok(if field.is_monotonic() {
            Part::Infinite(ts == i64::MAX)
        } else {
            Part::Null
        });
    }
    // A timestamptz's fields are those of its local time in the session zone.
    let zone_seconds = match ty {
        DataType::TimestampTz(_) => i64::from(timezone::session_offset(ts)),
        _ => 0,
    };
    let instant = ts;
    let ts = ts.saturating_add(zone_seconds * 1_000_000);
    let tm = Tm::from_timestamp(ts);
    let second_micros = i64::from(tm.second) * 1_000_000 + i64::from(tm.micros);
    let (sec, fsec) = (f64::from(tm.second), f64::from(tm.micros));
    Ok(match field {
        Field::Microseconds => Part::Value {
            numeric: Decimal::from_i64(second_micros),
            float: sec * 1_000_000.0 + fsec,
        },
        Field::Milliseconds => Part::Value {
            numeric: Decimal::new(i128::from(second_micros), 3),
            float: sec * 1000.0 + fsec / 1000.0,
        },
        Field::Second => Part::Value {
            numeric: Decimal::new(i128::from(second_micros), 6),
            float: sec + fsec / 1_000_000.0,
        },
        Field::Minute => Part::int(i64::from(tm.minute)),
        Field::Hour => Part::int(i64::from(tm.hour)),
        Field::Epoch => {
            let micros = instant - (-datetime::UNIX_TO_PG_DAYS) * datetime::MICROS_PER_DAY;
            Part::Value {
                numeric: Decimal::new(i128::from(micros), 6),
                float: micros as f64 / 1_000_000.0,
            }
        }
        Field::Julian => {
            let day = datetime::julian_day(tm.days());
            let time = ts.rem_euclid(datetime::MICROS_PER_DAY);
            let fraction = Decimal::from_i64(time)
                .checked_div(&Decimal::from_i64(datetime::MICROS_PER_DAY))?;
            let seconds = f64::from(((tm.hour * 60) + tm.minute) * 60 + tm.second) + fsec / 1e6;
            Part::Value {
                numeric: Decimal::from_i64(day).checked_add(&fraction)?,
                float: day as f64 + seconds / 86_400.0,
            }
        }
        Field::Timezone => Part::int(zone_seconds),
        Field::TimezoneHour => Part::int(zone_seconds / 3600),
        Field::TimezoneMinute => Part::int(zone_seconds / 60 % 60),
        Field::Day
        | Field::Week
        | Field::Month
        | Field::Quarter
        | Field::Year
        | Field::Decade
        | Field::Century
        | Field::Millennium
        | Field::Dow
        | Field::IsoDow
        | Field::Doy
        | Field::IsoYear => date_field(field, tm.days(), tm),
    })
}

/// extract(field FROM time) (time_part): the clock fields and the epoch (seconds since
/// midnight).
pub fn time_part(name: &str, time: i64) -> Result<Part> {
    let field = Field::parse(name, DataType::Time(None))?;
    let second_micros = time % 60_000_000;
    let seconds = second_micros as f64 / 1_000_000.0;
    Ok(match field {
        Field::Microseconds => Part::Value {
            numeric: Decimal::from_i64(second_micros),
            float: second_micros as f64,
        },
        Field::Milliseconds => Part::Value {
            numeric: Decimal::new(i128::from(second_micros), 3),
            float: second_micros as f64 / 1000.0,
        },
        Field::Second => Part::Value {
            numeric: Decimal::new(i128::from(second_micros), 6),
            float: seconds,
        },
        Field::Minute => Part::int(time / MICROS_PER_MINUTE % 60),
        Field::Hour => Part::int(time / MICROS_PER_HOUR),
        Field::Epoch => Part::Value {
            numeric: Decimal::new(i128::from(time), 6),
            float: time as f64 / 1_000_000.0,
        },
        Field::Day
        | Field::Week
        | Field::Month
        | Field::Quarter
        | Field::Year
        | Field::Decade
        | Field::Century
        | Field::Millennium
        | Field::Dow
        | Field::IsoDow
        | Field::Doy
        | Field::IsoYear
        | Field::Julian
        | Field::Timezone
        | Field::TimezoneHour
        | Field::TimezoneMinute => return Err(not_supported(name, DataType::Time(None))),
    })
}

/// extract(field FROM timetz) (timetz_part): the clock fields of its time, its zone's
/// fields, and the epoch of the UTC time.
pub fn timetz_part(name: &str, value: i64) -> Result<Part> {
    let (time, east_seconds) = timetz::unpack(value);
    let east_seconds = i64::from(east_seconds);
    Ok(match Field::parse(name, DataType::TimeTz(None))? {
        Field::Timezone => Part::int(east_seconds),
        Field::TimezoneHour => Part::int(east_seconds / 3600),
        Field::TimezoneMinute => Part::int(east_seconds / 60 % 60),
        Field::Epoch => {
            let utc = time - east_seconds * 1_000_000;
            Part::Value {
                numeric: Decimal::new(i128::from(utc), 6),
                float: utc as f64 / 1_000_000.0,
            }
        }
        Field::Microseconds | Field::Milliseconds | Field::Second | Field::Minute | Field::Hour => {
            return time_part(name, time)
        }
        Field::Day
        | Field::Week
        | Field::Month
        | Field::Quarter
        | Field::Year
        | Field::Decade
        | Field::Century
        | Field::Millennium
        | Field::Dow
        | Field::IsoDow
        | Field::Doy
        | Field::IsoYear
        | Field::Julian => return Err(not_supported(name, DataType::TimeTz(None))),
    })
}

/// The fields a date has, from its day number and calendar fields.
fn date_field(field: Field, days: i64, tm: Tm) -> Part {
    let year = i64::from(tm.year);
    Part::int(match field {
        Field::Day => i64::from(tm.day),
        Field::Month => i64::from(tm.month),
        Field::Quarter => i64::from((tm.month - 1) / 3 + 1),
        Field::Week => i64::from(datetime::iso_week(days).1),
        Field::Year if year > 0 => year,
        Field::Year => year - 1,
        Field::Decade if year >= 0 => year / 10,
        Field::Decade => -((8 - (year - 1)) / 10),
        Field::Century if year > 0 => (year + 99) / 100,
        Field::Century => -((99 - (year - 1)) / 100),
        Field::Millennium if year > 0 => (year + 999) / 1000,
        Field::Millennium => -((999 - (year - 1)) / 1000),
        Field::Dow => i64::from(datetime::day_of_week(days)),
        Field::IsoDow => match datetime::day_of_week(days) {
            0 => 7,
            d => i64::from(d),
        },
        Field::Doy => days - datetime::days_from_civil_unchecked(year, 1, 1) + 1,
        Field::IsoYear => match datetime::iso_week(days).0 {
            y if y <= 0 => y - 1,
            y => y,
        },
        Field::Julian => datetime::julian_day(days),
        Field::Epoch => (days + datetime::UNIX_TO_PG_DAYS) * 86_400,
        Field::Microseconds
        | Field::Milliseconds
        | Field::Second
        | Field::Minute
        | Field::Hour
        | Field::Timezone
        | Field::TimezoneHour
        | Field::TimezoneMinute => return Part::Null,
    })
}

/// extract(field FROM date) (extract_date): integer results; time fields are not
/// supported.
pub fn date_part(name: &str, days: i32) -> Result<Part> {
    let field = Field::parse(name, DataType::Date)?;
    if matches!(
        field,
        Field::Microseconds
            | Field::Milliseconds
            | Field::Second
            | Field::Minute
            | Field::Hour
            | Field::Timezone
            | Field::TimezoneHour
            | Field::TimezoneMinute
    ) {
        return Err(not_supported(name, DataType::Date));
    }
    if days == i32::MAX || days == i32::MIN {
        return Ok(if field.is_monotonic() {
            Part::Infinite(days == i32::MAX)
        } else {
            Part::Null
        });
    }
    let tm = Tm::from_timestamp(i64::from(days) * datetime::MICROS_PER_DAY);
    Ok(date_field(field, i64::from(days), tm))
}

/// extract(field FROM interval) (interval_part_common).
pub fn interval_part(name: &str, span: Interval) -> Result<Part> {
    let field = Field::parse(name, DataType::Interval(IntervalTypmod::NONE))?;
    let p = span.itm();
    let second_micros = p.second * 1_000_000 + p.micros;
    let (sec, fsec) = (p.second as f64, p.micros as f64);
    Ok(match field {
        Field::Microseconds => Part::Value {
            numeric: Decimal::from_i64(second_micros),
            float: sec * 1_000_000.0 + fsec,
        },
        Field::Milliseconds => Part::Value {
            numeric: Decimal::new(i128::from(second_micros), 3),
            float: sec * 1000.0 + fsec / 1000.0,
        },
        Field::Second => Part::Value {
            numeric: Decimal::new(i128::from(second_micros), 6),
            float: sec + fsec / 1_000_000.0,
        },
        Field::Minute => Part::int(p.minute),
        Field::Hour => Part::int(p.hour),
        Field::Day => Part::int(p.day),
        Field::Month => Part::int(p.month),
        Field::Quarter => Part::int(p.month / 3 + 1),
        Field::Year => Part::int(p.year),
        Field::Decade => Part::int(p.year / 10),
        Field::Century => Part::int(p.year / 100),
        Field::Millennium => Part::int(p.year / 1000),
        Field::Epoch => {
            // 365.25-day years and 30-day months, in integers by counting quarter days.
            let months = i64::from(span.months);
            let quarter_days =
                1461 * (months / 12) + 120 * (months % 12) + 4 * i64::from(span.days);
            let micros = i128::from(quarter_days) * 21_600 * 1_000_000 + i128::from(span.micros);
            let mut float = span.micros as f64 / 1_000_000.0;
            float += 365.25 * 86_400.0 * (months / 12) as f64;
            float += 30.0 * 86_400.0 * (months % 12) as f64;
            float += 86_400.0 * f64::from(span.days);
            Part::Value {
                numeric: Decimal::new(micros, 6),
                float,
            }
        }
        Field::Week
        | Field::Dow
        | Field::IsoDow
        | Field::Doy
        | Field::IsoYear
        | Field::Julian
        | Field::Timezone
        | Field::TimezoneHour
        | Field::TimezoneMinute => {
            return Err(not_supported(
                name,
                DataType::Interval(IntervalTypmod::NONE),
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(text: &str) -> i64 {
        datetime::parse_timestamp(text).expect("timestamp")
    }

    fn show(micros: i64) -> String {
        let mut out = Vec::new();
        datetime::write_timestamp(micros, &mut out);
        String::from_utf8(out).expect("ascii")
    }

    fn numeric(part: Result<Part>) -> String {
        let mut out = Vec::new();
        if let Some(d) = part.expect("part").numeric().expect("finite") {
            d.write_text(&mut out);
        }
        String::from_utf8(out).expect("ascii")
    }

    // Expected values produced by PostgreSQL 15.
    #[test]
    fn truncation() {
        let trunc = |unit: &str, t: &str| {
            show(trunc_timestamp(unit, ts(t), DataType::Timestamp(None)).expect("trunc"))
        };
        assert_eq!(trunc("week", "2024-01-01 10:00"), "2024-01-01 00:00:00");
        assert_eq!(trunc("week", "2023-01-01 10:00"), "2022-12-26 00:00:00");
        assert_eq!(trunc("quarter", "2024-05-17 10:00"), "2024-04-01 00:00:00");
        assert_eq!(trunc("century", "2024-05-17"), "2001-01-01 00:00:00");
        assert_eq!(trunc("millennium", "2000-05-17"), "1001-01-01 00:00:00");
        assert_eq!(trunc("decade", "2024-05-17"), "2020-01-01 00:00:00");
        assert_eq!(
            trunc("ms", "2024-05-17 01:02:03.456789"),
            "2024-05-17 01:02:03.456"
        );
        let iv = |t: &str| Interval::parse(t).expect("interval");
        let trunc_iv = |unit: &str, t: &str| trunc_interval(unit, iv(t)).expect("trunc").to_text();
        assert_eq!(trunc_iv("day", "1 day 10 hours"), "1 day");
        assert_eq!(trunc_iv("year", "1 year 13 mons 10 days"), "2 years");
        let err = trunc_timestamp("foo", 0, DataType::Timestamp(None)).expect_err("unit");
        assert_eq!(
            (err.sqlstate(), err.message.as_str()),
            (
                "22023",
                "unit \"foo\" not recognized for type timestamp without time zone"
            )
        );
    }

    #[test]
    fn extraction() {
        let t = ts("2024-01-01 12:00:05.5");
        assert_eq!(
            numeric(timestamp_part("second", t, DataType::Timestamp(None))),
            "5.500000"
        );
        assert_eq!(
            numeric(timestamp_part("ms", t, DataType::Timestamp(None))),
            "5500.000"
        );
        assert_eq!(
            numeric(timestamp_part("epoch", t, DataType::Timestamp(None))),
            "1704110405.500000"
        );
        assert_eq!(
            numeric(timestamp_part(
                "julian",
                ts("2024-01-01 12:00"),
                DataType::Timestamp(None)
            )),
            "2460311.50000000000000000000"
        );
        let iv = Interval::parse("1 year 1 mon 1 day 1 hour").expect("interval");
        assert_eq!(numeric(interval_part("epoch", iv)), "34239600.000000");
        let err = date_part("hour", 0).expect_err("no hours in a date");
        assert_eq!(
            (err.sqlstate(), err.message.as_str()),
            ("0A000", "unit \"hour\" not supported for type date")
        );
    }
}
