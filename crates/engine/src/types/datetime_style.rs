//! DateStyle and IntervalStyle: how date, timestamp, timestamptz and interval values are
//! written as text, and which order an ambiguous date such as `01/02/2003` is read in; and
//! bytea_output, how bytea values are written.
//!
//! Like the session zone ([`super::timezone`]) they are installed in a thread-local by the
//! session before each statement, since the text output of a vector has no session at
//! hand. Binary formats never depend on them.

use std::cell::Cell;

use super::datetime;
use crate::error::{Error, Result, SqlState};

/// The output style of DateStyle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateStyle {
    Iso,
    Postgres,
    Sql,
    German,
}

/// The field order of DateStyle, for input and for the SQL and Postgres output styles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateOrder {
    Mdy,
    Dmy,
    Ymd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntervalStyle {
    Postgres,
    PostgresVerbose,
    SqlStandard,
    Iso8601,
}

/// bytea_output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteaOutput {
    Hex,
    Escape,
}

/// The session's DateStyle, IntervalStyle and bytea_output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Styles {
    pub date: DateStyle,
    pub order: DateOrder,
    pub interval: IntervalStyle,
    pub bytea: ByteaOutput,
}

impl Styles {
    pub const DEFAULT: Styles = Styles {
        date: DateStyle::Iso,
        order: DateOrder::Mdy,
        interval: IntervalStyle::Postgres,
        bytea: ByteaOutput::Hex,
    };

    /// From the canonical setting values ([`date_style_setting`], [`interval_style_setting`],
    /// and bytea_output's `hex` or `escape`).
    pub fn from_settings(
        date_style: &str,
        interval_style: &str,
        bytea_output: &str,
    ) -> Result<Styles> {
        let (date, order) = parse_date_style(date_style)?;
        Ok(Styles {
            date: date.unwrap_or(DateStyle::Iso),
            order: order.unwrap_or(DateOrder::Mdy),
            interval: parse_interval_style(interval_style)?,
            bytea: match bytea_output {
                "escape" => ByteaOutput::Escape,
                _ => ByteaOutput::Hex,
            },
        })
    }
}

/// PostgreSQL's check_datestyle: an output style and a field order, in any order and
/// spelling (`US`, `European`, `NonEuro`, ...), canonical as SHOW prints it (`German, DMY`).
/// German alone implies DMY. A part left out takes the default (ISO, MDY).
pub fn date_style_setting(value: &str) -> Result<String> {
    let (date, order) = parse_date_style(value)?;
    let date = date.unwrap_or(DateStyle::Iso);
    let order = order.unwrap_or(match date {
        DateStyle::German => DateOrder::Dmy,
        DateStyle::Iso | DateStyle::Postgres | DateStyle::Sql => DateOrder::Mdy,
    });
    let date_name = match date {
        DateStyle::Iso => "ISO",
        DateStyle::Postgres => "Postgres",
        DateStyle::Sql => "SQL",
        DateStyle::German => "German",
    };
    let order_name = match order {
        DateOrder::Mdy => "MDY",
        DateOrder::Dmy => "DMY",
        DateOrder::Ymd => "YMD",
    };
    Ok(format!("{date_name}, {order_name}"))
}

fn parse_date_style(value: &str) -> Result<(Option<DateStyle>, Option<DateOrder>)> {
    let invalid = || {
        Error::new(
            SqlState::InvalidParameterValue,
            format!("invalid value for parameter \"DateStyle\": \"{value}\""),
        )
    };
    let mut style = None;
    let mut order = None;
    for word in value.split([',', ' ']).filter(|w| !w.is_empty()) {
        let (new_style, new_order) = match word.to_ascii_uppercase().as_str() {
            "ISO" => (Some(DateStyle::Iso), None),
            "SQL" => (Some(DateStyle::Sql), None),
            "POSTGRES" => (Some(DateStyle::Postgres), None),
            "GERMAN" => (Some(DateStyle::German), None),
            "YMD" => (None, Some(DateOrder::Ymd)),
            "DMY" | "EURO" | "EUROPEAN" => (None, Some(DateOrder::Dmy)),
            "MDY" | "US" | "NONEURO" | "NONEUROPEAN" => (None, Some(DateOrder::Mdy)),
            "DEFAULT" => (Some(DateStyle::Iso), Some(DateOrder::Mdy)),
            _ => return Err(invalid().with_detail(format!("Unrecognized key word: \"{word}\"."))),
        };
        let conflict = matches!((style, new_style), (Some(a), Some(b)) if a != b)
            || matches!((order, new_order), (Some(a), Some(b)) if a != b);
        if conflict {
            return Err(invalid().with_detail("Conflicting \"datestyle\" specifications."));
        }
        style = new_style.or(style);
        order = new_order.or(order);
    }
    Ok((style, order))
}

/// IntervalStyle's four values, lower-cased as SHOW prints them.
pub fn interval_style_setting(value: &str) -> Result<String> {
    parse_interval_style(value)?;
    Ok(value.to_ascii_lowercase())
}

fn parse_interval_style(value: &str) -> Result<IntervalStyle> {
    Ok(match value.to_ascii_lowercase().as_str() {
        "postgres" => IntervalStyle::Postgres,
        "postgres_verbose" => IntervalStyle::PostgresVerbose,
        "sql_standard" => IntervalStyle::SqlStandard,
        "iso_8601" => IntervalStyle::Iso8601,
        _ => {
            return Err(Error::new(
                SqlState::InvalidParameterValue,
                format!("invalid value for parameter \"IntervalStyle\": \"{value}\""),
            )
            .with_hint("Available values: postgres, postgres_verbose, sql_standard, iso_8601."))
        }
    })
}

const DAY_NAMES: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTH_NAMES: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
/// PostgreSQL's MAXTZLEN: longer zone abbreviations are cut.
const ZONE_ABBREVIATION_MAX_LEN: usize = 10;

/// A date in the SQL (`07/01/2020`), German (`01.07.2020`) or Postgres (`07-01-2020`)
/// style, day first under DMY; without the BC suffix (EncodeDateOnly).
pub(crate) fn write_date_fields(
    year: i32,
    month: u32,
    day: u32,
    styles: Styles,
    out: &mut Vec<u8>,
) {
    let separator = match styles.date {
        DateStyle::Sql => b'/',
        DateStyle::German => b'.',
        DateStyle::Postgres | DateStyle::Iso => b'-',
    };
    let day_first = styles.date == DateStyle::German || styles.order == DateOrder::Dmy;
    let (first, second) = if day_first {
        (day, month)
    } else {
        (month, day)
    };
    datetime::write_2digits(first, out);
    out.push(separator);
    datetime::write_2digits(second, out);
    out.push(separator);
    datetime::write_year(year, out);
}

/// A timestamp in the SQL, German or Postgres style (EncodeDateTime), with `zone`, the
/// abbreviation of a timestamptz's zone, after the time; without the BC suffix.
pub(crate) fn write_timestamp_fields(
    (year, month, day): (i32, u32, u32),
    days: i64,
    time: i64,
    zone: Option<&str>,
    styles: Styles,
    out: &mut Vec<u8>,
) {
    if styles.date == DateStyle::Postgres {
        let weekday = datetime::day_of_week(days) as usize;
        out.extend_from_slice(DAY_NAMES[weekday % 7].as_bytes());
        out.push(b' ');
        let month_name = MONTH_NAMES[(month as usize + 11) % 12].as_bytes();
        if styles.order == DateOrder::Dmy {
            datetime::write_2digits(day, out);
            out.push(b' ');
            out.extend_from_slice(month_name);
        } else {
            out.extend_from_slice(month_name);
            out.push(b' ');
            datetime::write_2digits(day, out);
        }
        out.push(b' ');
        datetime::write_time_of_day(time, out);
        out.push(b' ');
        datetime::write_year(year, out);
    } else {
        write_date_fields(year, month, day, styles, out);
        out.push(b' ');
        datetime::write_time_of_day(time, out);
    }
    if let Some(zone) = zone {
        out.push(b' ');
        let len = zone.len().min(ZONE_ABBREVIATION_MAX_LEN);
        out.extend_from_slice(&zone.as_bytes()[..len]);
    }
}

thread_local! {
    static CURRENT: Cell<Styles> = const { Cell::new(Styles::DEFAULT) };
}

/// Makes `styles` the ones this thread writes and reads values with, until the next call.
pub fn install(styles: Styles) {
    CURRENT.with(|current| current.set(styles));
}

/// The styles installed on this thread.
pub fn current() -> Styles {
    CURRENT.with(Cell::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_style_spellings_are_canonical() {
        let shown = |v: &str| date_style_setting(v).unwrap_or_else(|e| e.message);
        assert_eq!(shown("German"), "German, DMY");
        assert_eq!(shown("US,Postgres"), "Postgres, MDY");
        assert_eq!(shown("sql, european"), "SQL, DMY");
        assert_eq!(shown("ymd"), "ISO, YMD");
        assert!(date_style_setting("ISO, German").is_err());
        assert!(date_style_setting("Klingon").is_err());
    }
}
