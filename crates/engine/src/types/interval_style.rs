//! The interval output styles other than `postgres` (PostgreSQL's EncodeInterval):
//! `postgres_verbose` (`@ 1 year 2 mons ago`), `sql_standard` (`1-2`, `-3 4:05:06`) and
//! `iso_8601` (`P1Y2M3DT4H5M6S`).

use super::datetime_style::IntervalStyle;
use super::interval::{write_fraction, Interval, Itm};
use crate::vector::write_int;

/// Writes `span` in `style`; `postgres` is [`Interval::write_postgres`].
pub fn write_interval(span: Interval, style: IntervalStyle, out: &mut Vec<u8>) {
    let f = span.itm();
    match style {
        IntervalStyle::Postgres => span.write_postgres(out),
        IntervalStyle::PostgresVerbose => write_verbose(&f, out),
        IntervalStyle::SqlStandard => write_sql_standard(&f, out),
        IntervalStyle::Iso8601 => write_iso_8601(&f, out),
    }
}

/// `sec[.frac]` of the absolute values, zero-padded to two digits when `fill`.
fn write_seconds(sec: i64, fsec: i64, fill: bool, out: &mut Vec<u8>) {
    let sec = sec.unsigned_abs();
    if fill && sec < 10 {
        out.push(b'0');
    }
    write_int(sec as i64, out);
    write_fraction(fsec.unsigned_abs(), out);
}

fn write_verbose(f: &Itm, out: &mut Vec<u8>) {
    out.push(b'@');
    let mut is_zero = true;
    let mut is_before = false;
    for (value, unit) in [
        (f.year, "year"),
        (f.month, "mon"),
        (f.day, "day"),
        (f.hour, "hour"),
        (f.minute, "min"),
    ] {
        if value == 0 {
            continue;
        }
        // The first nonzero part decides "ago"; later ones show their sign against it.
        let shown = if is_zero {
            is_before = value < 0;
            value.abs()
        } else if is_before {
            -value
        } else {
            value
        };
        out.push(b' ');
        write_int(shown, out);
        out.push(b' ');
        out.extend_from_slice(unit.as_bytes());
        if shown != 1 {
            out.push(b's');
        }
        is_zero = false;
    }
    if f.second != 0 || f.micros != 0 {
        out.push(b' ');
        let negative = f.second < 0 || (f.second == 0 && f.micros < 0);
        if negative {
            if is_zero {
                is_before = true;
            } else if !is_before {
                out.push(b'-');
            }
        } else if is_before {
            out.push(b'-');
        }
        write_seconds(f.second, f.micros, false, out);
        out.extend_from_slice(b" sec");
        if f.second.abs() != 1 || f.micros != 0 {
            out.push(b's');
        }
        is_zero = false;
    }
    if is_zero {
        out.extend_from_slice(b" 0");
    }
    if is_before {
        out.extend_from_slice(b" ago");
    }
}

fn write_sql_standard(f: &Itm, out: &mut Vec<u8>) {
    let parts = [f.year, f.month, f.day, f.hour, f.minute, f.second, f.micros];
    let has_negative = parts.iter().any(|&v| v < 0);
    let has_positive = parts.iter().any(|&v| v > 0);
    let has_year_month = f.year != 0 || f.month != 0;
    let has_day_time = parts[2..].iter().any(|&v| v != 0);
    // SQL's form has one sign and either year-month or day-time parts.
    let mixed = (has_negative && has_positive) || (has_year_month && has_day_time);
    let standard = !mixed;
    // One sign in front of a standard value, which then prints its magnitudes.
    let sign: i64 = if has_negative && standard {
        out.push(b'-');
        -1
    } else {
        1
    };
    let [year, mon, mday, hour, min, sec, fsec] = parts.map(|v| v * sign);
    let write_time = |hour: i64, out: &mut Vec<u8>| {
        write_int(hour, out);
        out.push(b':');
        if min.abs() < 10 {
            out.push(b'0');
        }
        write_int(min.abs(), out);
        out.push(b':');
        write_seconds(sec, fsec, true, out);
    };
    if !has_negative && !has_positive {
        out.push(b'0');
    } else if !standard {
        // Mixed signs: every part shows its own.
        let sign_of = |negative: bool| if negative { b'-' } else { b'+' };
        out.push(sign_of(year < 0 || mon < 0));
        write_int(year.abs(), out);
        out.push(b'-');
        write_int(mon.abs(), out);
        out.push(b' ');
        out.push(sign_of(mday < 0));
        write_int(mday.abs(), out);
        out.push(b' ');
        out.push(sign_of(hour < 0 || min < 0 || sec < 0 || fsec < 0));
        write_time(hour.abs(), out);
    } else if has_year_month {
        write_int(year, out);
        out.push(b'-');
        write_int(mon, out);
    } else if mday != 0 {
        write_int(mday, out);
        out.push(b' ');
        write_time(hour, out);
    } else {
        write_time(hour, out);
    }
}

fn write_iso_8601(f: &Itm, out: &mut Vec<u8>) {
    let time_nonzero = f.hour != 0 || f.minute != 0 || f.second != 0 || f.micros != 0;
    if f.year == 0 && f.month == 0 && f.day == 0 && !time_nonzero {
        out.extend_from_slice(b"PT0S");
        return;
    }
    out.push(b'P');
    let part = |value: i64, unit: u8, out: &mut Vec<u8>| {
        if value != 0 {
            write_int(value, out);
            out.push(unit);
        }
    };
    part(f.year, b'Y', out);
    part(f.month, b'M', out);
    part(f.day, b'D', out);
    if time_nonzero {
        out.push(b'T');
    }
    part(f.hour, b'H', out);
    part(f.minute, b'M', out);
    if f.second != 0 || f.micros != 0 {
        if f.second < 0 || f.micros < 0 {
            out.push(b'-');
        }
        write_seconds(f.second, f.micros, false, out);
        out.push(b'S');
    }
}
