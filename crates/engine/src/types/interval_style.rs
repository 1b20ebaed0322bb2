//! The interval output styles other than `postgres` (PostgreSQL's EncodeInterval):
//! `postgres_verbose` (`@ 1 year 2 mons ago`), `sql_standard` (`1-2`, `-3 4:05:06`) and
//! `iso_8601` (`P1Y2M3DT4H5M6S`).

use super::datetime_style::IntervalStyle;
use super::interval::{write_fraction, Interval, MICROS_PER_HOUR, MICROS_PER_MINUTE};
use crate::vector::write_int;

/// An interval's fields as EncodeInterval reads them, each with the sign of its part.
struct Fields {
    year: i64,
    mon: i64,
    mday: i64,
    hour: i64,
    min: i64,
    sec: i64,
    fsec: i64,
}

impl Fields {
    fn of(span: Interval) -> Fields {
        let time = span.micros;
        Fields {
            year: i64::from(span.months / 12),
            mon: i64::from(span.months % 12),
            mday: i64::from(span.days),
            hour: time / MICROS_PER_HOUR,
            min: time % MICROS_PER_HOUR / MICROS_PER_MINUTE,
            sec: time % MICROS_PER_MINUTE / 1_000_000,
            fsec: time % 1_000_000,
        }
    }
}

/// Writes `span` in `style`; `postgres` is [`Interval::write_postgres`].
pub fn write_interval(span: Interval, style: IntervalStyle, out: &mut Vec<u8>) {
    let f = Fields::of(span);
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

fn write_verbose(f: &Fields, out: &mut Vec<u8>) {
    out.push(b'@');
    let mut is_zero = true;
    let mut is_before = false;
    for (value, unit) in [
        (f.year, "year"),
        (f.mon, "mon"),
        (f.mday, "day"),
        (f.hour, "hour"),
        (f.min, "min"),
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
    if f.sec != 0 || f.fsec != 0 {
        out.push(b' ');
        let negative = f.sec < 0 || (f.sec == 0 && f.fsec < 0);
        if negative {
            if is_zero {
                is_before = true;
            } else if !is_before {
                out.push(b'-');
            }
        } else if is_before {
            out.push(b'-');
        }
        write_seconds(f.sec, f.fsec, false, out);
        out.extend_from_slice(b" sec");
        if f.sec.abs() != 1 || f.fsec != 0 {
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

fn write_sql_standard(f: &Fields, out: &mut Vec<u8>) {
    let parts = [f.year, f.mon, f.mday, f.hour, f.min, f.sec, f.fsec];
    let has_negative = parts.iter().any(|&v| v < 0);
    let has_positive = parts.iter().any(|&v| v > 0);
    let has_year_month = f.year != 0 || f.mon != 0;
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

fn write_iso_8601(f: &Fields, out: &mut Vec<u8>) {
    let time_nonzero = f.hour != 0 || f.min != 0 || f.sec != 0 || f.fsec != 0;
    if f.year == 0 && f.mon == 0 && f.mday == 0 && !time_nonzero {
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
    part(f.mon, b'M', out);
    part(f.mday, b'D', out);
    if time_nonzero {
        out.push(b'T');
    }
    part(f.hour, b'H', out);
    part(f.min, b'M', out);
    if f.sec != 0 || f.fsec != 0 {
        if f.sec < 0 || f.fsec < 0 {
            out.push(b'-');
        }
        write_seconds(f.sec, f.fsec, false, out);
        out.push(b'S');
    }
}
