//! Date/time functions and operators: lookup by name and argument types (PostgreSQL's
//! signatures and result types) and their kernels.
//!
//! They are apart from the other scalar functions because some read the statement's clock
//! (`now()`, `current_date`, `age(x)`): [`DateTimeFunction::eval`] takes the statement
//! timestamp, which PostgreSQL keeps fixed for the whole statement so `now() = now()`.
//! A timestamptz's fields, truncation and calendar arithmetic are those of its local time
//! in the session zone ([`crate::types::timezone`]).

pub use crate::types::datetime::clock_micros;

use super::datetime_arithmetic::{
    self as arith, is_infinite_timestamp, map_rows, zip_rows, DateTimeOp,
};
use super::datetime_fields::{self as fields, Part};
use crate::error::{Error, Result, SqlState};
use crate::types::interval::{self, Interval, MICROS_PER_HOUR, MICROS_PER_MINUTE};
use crate::types::timezone::{self, Zone};
use crate::types::{datetime, timetz};
use crate::types::{DataType, IntervalTypmod};
use crate::vector::{Bitmap, StringVec, Vector, VectorData};

/// `micros` rounded to `digits` fractional digits of a second (half away from zero, as
/// PostgreSQL's AdjustTimestampForTypmod); more than 6 digits keep all 6.
fn round_to_digits(micros: i64, digits: i32) -> Result<i64> {
    if digits < 0 {
        return Err(Error::new(
            SqlState::InvalidParameterValue,
            format!("TIMESTAMP({digits}) precision must not be negative"),
        ));
    }
    let Some(scale) = 10i64.checked_pow(6u32.saturating_sub(digits as u32)) else {
        return Ok(micros);
    };
    let half = scale / 2;
    Ok(if micros >= 0 {
        (micros + half) / scale * scale
    } else {
        -((-micros + half) / scale * scale)
    })
}

/// The times a statement reads: now() is the transaction's start (PostgreSQL keeps it for
/// the whole transaction), statement_timestamp() the statement's; microseconds since
/// 2000-01-01 UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatementClock {
    pub transaction: i64,
    pub statement: i64,
}

impl StatementClock {
    /// Both times now: a statement outside a transaction block.
    pub fn starting_now() -> StatementClock {
        let now = clock_micros();
        StatementClock {
            transaction: now,
            statement: now,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateTimeFunction {
    /// An operator (`date + integer`, `timestamp - interval`, ...).
    Operator(DateTimeOp),
    /// now(), current_timestamp, transaction_timestamp(): when the transaction began.
    Now,
    /// statement_timestamp(): when the statement began.
    StatementTimestamp,
    ClockTimestamp,
    CurrentDate,
    LocalTimestamp,
    /// LOCALTIME: the time of day of now() in the session zone.
    LocalTime,
    DateTrunc,
    /// date_part(text, x): double precision.
    DatePart,
    /// extract(field FROM x): numeric.
    Extract,
    Age,
    /// age(x): from midnight of the current date.
    AgeFromToday,
    MakeDate,
    MakeTimestamp,
    MakeTimestampTz,
    MakeInterval,
    JustifyDays,
    JustifyHours,
    JustifyInterval,
    /// to_timestamp(double precision): seconds since 1970 as timestamptz.
    ToTimestampEpoch,
    DateBin,
    IsFinite,
    /// to_char(timestamp[tz] | interval, text).
    ToChar,
    /// to_date(text, text).
    ToDate,
    /// to_timestamp(text, text).
    ToTimestamp,
    /// timezone(zone, x), `x AT TIME ZONE zone`: a timestamp read as local time in the
    /// zone, or a timestamptz's local time there.
    Timezone,
    /// CURRENT_TIME: the time of day of now() in the session zone, with its offset.
    CurrentTime,
}

/// Whether `t` can be an argument of type `want` without an explicit cast.
fn accepts(t: DataType, want: DataType) -> bool {
    t == want
        || t == DataType::Unknown
        || super::cast::can_cast(t, want, super::cast::CastContext::Implicit)
}

/// The timestamp type a function's datetime argument resolves to: timestamp stays, date
/// and unknown become timestamptz (the category's preferred type).
fn timestamp_kind(t: DataType) -> Option<DataType> {
    match t {
        DataType::Timestamp(_) => Some(DataType::Timestamp(None)),
        DataType::TimestampTz(_) | DataType::Date | DataType::Unknown => {
            Some(DataType::TimestampTz(None))
        }
        _ => None,
    }
}

impl DateTimeFunction {
    /// The function `name` for arguments of `args` types: the function, the types its
    /// arguments must be coerced to, and its result type. `None` if there is no such function.
    pub fn resolve(
        name: &str,
        args: &[DataType],
    ) -> Option<(DateTimeFunction, Vec<DataType>, DataType)> {
        use DataType as T;
        use DateTimeFunction as F;
        let text = |t: DataType| t.is_string() || t == T::Unknown;
        let int = |t: DataType| accepts(t, T::Int32);
        let float = |t: DataType| accepts(t, T::Float64);
        Some(match (name, args) {
            ("now" | "transaction_timestamp" | "current_timestamp", []) => {
                (F::Now, vec![], T::TimestampTz(None))
            }
            ("statement_timestamp", []) => (F::StatementTimestamp, vec![], T::TimestampTz(None)),
            ("clock_timestamp", []) => (F::ClockTimestamp, vec![], T::TimestampTz(None)),
            ("current_date", []) => (F::CurrentDate, vec![], T::Date),
            ("localtimestamp", []) => (F::LocalTimestamp, vec![], T::Timestamp(None)),
            // CURRENT_TIMESTAMP(p) and LOCALTIMESTAMP(p): rounded to p fractional digits.
            ("current_timestamp", [p]) if int(*p) => (F::Now, vec![T::Int32], T::TimestampTz(None)),
            ("localtimestamp", [p]) if int(*p) => {
                (F::LocalTimestamp, vec![T::Int32], T::Timestamp(None))
            }
            ("localtime", []) => (F::LocalTime, vec![], T::Time(None)),
            ("localtime", [p]) if int(*p) => (F::LocalTime, vec![T::Int32], T::Time(None)),
            ("current_time", []) => (F::CurrentTime, vec![], T::TimeTz(None)),
            ("current_time", [p]) if int(*p) => (F::CurrentTime, vec![T::Int32], T::TimeTz(None)),
            // timetz_zone; a time is read as a timetz in the session zone first.
            ("timezone", [z, T::Time(_) | T::TimeTz(_)]) if text(*z) => {
                (F::Timezone, vec![T::Text, T::TimeTz(None)], T::TimeTz(None))
            }
            ("date_trunc", [u, T::Interval(_)]) if text(*u) => (
                F::DateTrunc,
                vec![T::Text, T::Interval(IntervalTypmod::NONE)],
                T::Interval(IntervalTypmod::NONE),
            ),
            ("date_trunc", [u, t]) if text(*u) && *t != T::Unknown => {
                let ty = timestamp_kind(*t)?;
                (F::DateTrunc, vec![T::Text, ty], ty)
            }
            ("date_part" | "extract", [u, t]) if text(*u) && *t != T::Unknown => {
                let arg = match t {
                    T::Interval(_) => T::Interval(IntervalTypmod::NONE),
                    T::Time(_) => T::Time(None),
                    T::TimeTz(_) => T::TimeTz(None),
                    // extract has a date version; date_part reads a date as a timestamp.
                    T::Date if name == "extract" => T::Date,
                    T::Date => T::Timestamp(None),
                    other => timestamp_kind(*other)?,
                };
                let (func, ty) = if name == "extract" {
                    (F::Extract, T::Numeric(None))
                } else {
                    (F::DatePart, T::Float64)
                };
                (func, vec![T::Text, arg], ty)
            }
            ("age", [a, b]) => {
                let ty = match (timestamp_kind(*a)?, timestamp_kind(*b)?) {
                    (T::Timestamp(_), T::Timestamp(_)) => T::Timestamp(None),
                    _ => T::TimestampTz(None),
                };
                (F::Age, vec![ty, ty], T::Interval(IntervalTypmod::NONE))
            }
            ("age", [a]) => (
                F::AgeFromToday,
                vec![timestamp_kind(*a)?],
                T::Interval(IntervalTypmod::NONE),
            ),
            ("make_date", [y, m, d]) if int(*y) && int(*m) && int(*d) => {
                (F::MakeDate, vec![T::Int32; 3], T::Date)
            }
            ("make_timestamp" | "make_timestamptz", [y, mo, d, h, mi, s])
                if [y, mo, d, h, mi].iter().all(|t| int(**t)) && float(*s) =>
            {
                let mut types = vec![T::Int32; 5];
                types.push(T::Float64);
                if name == "make_timestamp" {
                    (F::MakeTimestamp, types, T::Timestamp(None))
                } else {
                    (F::MakeTimestampTz, types, T::TimestampTz(None))
                }
            }
            ("make_interval", args) if args.len() <= 7 => {
                let mut types = Vec::with_capacity(args.len());
                for (i, &t) in args.iter().enumerate() {
                    let want = if i == 6 { T::Float64 } else { T::Int32 };
                    if !accepts(t, want) {
                        return None;
                    }
                    types.push(want);
                }
                (F::MakeInterval, types, T::Interval(IntervalTypmod::NONE))
            }
            ("justify_days", [t]) if accepts(*t, T::Interval(IntervalTypmod::NONE)) => (
                F::JustifyDays,
                vec![T::Interval(IntervalTypmod::NONE)],
                T::Interval(IntervalTypmod::NONE),
            ),
            ("justify_hours", [t]) if accepts(*t, T::Interval(IntervalTypmod::NONE)) => (
                F::JustifyHours,
                vec![T::Interval(IntervalTypmod::NONE)],
                T::Interval(IntervalTypmod::NONE),
            ),
            ("justify_interval", [t]) if accepts(*t, T::Interval(IntervalTypmod::NONE)) => (
                F::JustifyInterval,
                vec![T::Interval(IntervalTypmod::NONE)],
                T::Interval(IntervalTypmod::NONE),
            ),
            ("to_timestamp", [t]) if float(*t) => {
                (F::ToTimestampEpoch, vec![T::Float64], T::TimestampTz(None))
            }
            ("to_timestamp", [a, b]) if text(*a) && text(*b) => {
                (F::ToTimestamp, vec![T::Text, T::Text], T::TimestampTz(None))
            }
            ("to_date", [a, b]) if text(*a) && text(*b) => {
                (F::ToDate, vec![T::Text, T::Text], T::Date)
            }
            ("to_char", [T::Interval(_), f]) if text(*f) => (
                F::ToChar,
                vec![T::Interval(IntervalTypmod::NONE), T::Text],
                T::Text,
            ),
            ("to_char", [t, f]) if text(*f) && *t != T::Unknown => {
                (F::ToChar, vec![timestamp_kind(*t)?, T::Text], T::Text)
            }
            ("date_bin", [s, t, o]) if accepts(*s, T::Interval(IntervalTypmod::NONE)) => {
                let ty = match (timestamp_kind(*t)?, timestamp_kind(*o)?) {
                    (T::Timestamp(_), T::Timestamp(_)) => T::Timestamp(None),
                    _ => T::TimestampTz(None),
                };
                (
                    F::DateBin,
                    vec![T::Interval(IntervalTypmod::NONE), ty, ty],
                    ty,
                )
            }
            ("timezone", [z, t]) if text(*z) => {
                let (arg, ty) = match timestamp_kind(*t)? {
                    T::Timestamp(_) => (T::Timestamp(None), T::TimestampTz(None)),
                    _ => (T::TimestampTz(None), T::Timestamp(None)),
                };
                (F::Timezone, vec![T::Text, arg], ty)
            }
            ("isfinite", [t]) => {
                let ty = match t {
                    T::Date | T::Timestamp(_) | T::TimestampTz(_) | T::Interval(_) => *t,
                    _ => return None,
                };
                (F::IsFinite, vec![ty], T::Bool)
            }
            _ => return None,
        })
    }

    /// Whether the result depends on when the statement runs (never fold it into a plan).
    pub fn is_volatile(self) -> bool {
        matches!(
            self,
            DateTimeFunction::Now
                | DateTimeFunction::StatementTimestamp
                | DateTimeFunction::ClockTimestamp
                | DateTimeFunction::CurrentDate
                | DateTimeFunction::LocalTimestamp
                | DateTimeFunction::LocalTime
                | DateTimeFunction::CurrentTime
                | DateTimeFunction::AgeFromToday
        )
    }

    /// Applies the function to argument vectors of the resolved types; `len` is the batch
    /// length (for functions without arguments) and `clock` when the transaction and the
    /// statement began.
    pub fn eval(self, args: &[Vector], len: usize, clock: StatementClock) -> Result<Vector> {
        let now = clock.transaction;
        use DateTimeFunction as F;
        use VectorData as V;
        let validity = all_valid(args);
        let valid = validity.as_ref();
        let constant = |data: VectorData| Ok(Vector::new(data, None));
        let data = match (self, args) {
            (F::Operator(op), _) => return op.eval(args),
            (F::Now, []) => return constant(V::TimestampTz(vec![now; len])),
            (F::StatementTimestamp, []) => {
                return constant(V::TimestampTz(vec![clock.statement; len]))
            }
            (F::ClockTimestamp, []) => return constant(V::TimestampTz(vec![clock_micros(); len])),
            (F::LocalTimestamp, []) => {
                return constant(V::Timestamp(vec![timezone::to_local(now); len]))
            }
            (F::LocalTime, []) => {
                let time = timezone::to_local(now).rem_euclid(datetime::MICROS_PER_DAY);
                return constant(V::Time(vec![time; len]));
            }
            (F::LocalTime, [precision]) => {
                let digits = match &precision.data {
                    V::Int32(p) if precision.is_valid(0) => p.first().copied().unwrap_or(6),
                    _ => 6,
                };
                let rounded = round_to_digits(timezone::to_local(now), digits)?;
                let time = rounded.rem_euclid(datetime::MICROS_PER_DAY);
                return constant(V::Time(vec![time; len]));
            }
            (F::CurrentTime, []) => {
                return constant(V::TimeTz(vec![timetz::from_timestamptz(now); len]))
            }
            (F::CurrentTime, [precision]) => {
                let digits = match &precision.data {
                    V::Int32(p) if precision.is_valid(0) => p.first().copied().unwrap_or(6),
                    _ => 6,
                };
                let rounded = round_to_digits(now, digits)?;
                return constant(V::TimeTz(vec![timetz::from_timestamptz(rounded); len]));
            }
            (F::Now | F::LocalTimestamp, [precision]) => {
                let digits = match &precision.data {
                    V::Int32(p) if precision.is_valid(0) => p.first().copied().unwrap_or(6),
                    _ => 6,
                };
                let rounded = round_to_digits(now, digits)?;
                return constant(if self == F::Now {
                    V::TimestampTz(vec![rounded; len])
                } else {
                    V::Timestamp(vec![timezone::to_local(rounded); len])
                });
            }
            (F::CurrentDate, []) => {
                let today = datetime::timestamp_to_date(timezone::to_local(now));
                return constant(V::Date(vec![today; len]));
            }
            (F::DateTrunc, [units, value]) => match (&units.data, &value.data) {
                (V::Text(u), V::Timestamp(t)) => V::Timestamp(by_row(t, valid, 0, |row, t| {
                    fields::trunc_timestamp(u.get(row), t, DataType::Timestamp(None))
                })?),
                (V::Text(u), V::TimestampTz(t)) => {
                    V::TimestampTz(by_row(t, valid, 0, |row, t| {
                        fields::trunc_timestamp(u.get(row), t, DataType::TimestampTz(None))
                    })?)
                }
                (V::Text(u), V::Interval(i)) => {
                    V::Interval(by_row(i, valid, Interval::ZERO, |row, i| {
                        fields::trunc_interval(u.get(row), i)
                    })?)
                }
                _ => return Err(self.bad_args(args)),
            },
            (F::Extract | F::DatePart, [units, value]) => {
                let V::Text(u) = &units.data else {
                    return Err(self.bad_args(args));
                };
                let parts = match &value.data {
                    V::Timestamp(t) => by_row(t, valid, Part::Null, |row, t| {
                        fields::timestamp_part(u.get(row), t, DataType::Timestamp(None))
                    })?,
                    V::TimestampTz(t) => by_row(t, valid, Part::Null, |row, t| {
                        fields::timestamp_part(u.get(row), t, DataType::TimestampTz(None))
                    })?,
                    V::Date(d) => by_row(d, valid, Part::Null, |row, d| {
                        fields::date_part(u.get(row), d)
                    })?,
                    V::Interval(i) => by_row(i, valid, Part::Null, |row, i| {
                        fields::interval_part(u.get(row), i)
                    })?,
                    V::Time(t) => by_row(t, valid, Part::Null, |row, t| {
                        fields::time_part(u.get(row), t)
                    })?,
                    V::TimeTz(t) => by_row(t, valid, Part::Null, |row, t| {
                        fields::timetz_part(u.get(row), t)
                    })?,
                    _ => return Err(self.bad_args(args)),
                };
                return parts_vector(&parts, self == F::Extract);
            }
            (F::Age, [a, b]) => match (&a.data, &b.data) {
                (V::Timestamp(a), V::Timestamp(b)) => {
                    V::Interval(zip_rows(a, b, valid, Interval::ZERO, arith::age)?)
                }
                // The calendar difference of the local times in the session zone.
                (V::TimestampTz(a), V::TimestampTz(b)) => {
                    V::Interval(zip_rows(a, b, valid, Interval::ZERO, |a, b| {
                        arith::age(timezone::to_local(a), timezone::to_local(b))
                    })?)
                }
                _ => return Err(self.bad_args(args)),
            },
            (F::AgeFromToday, [a]) => match &a.data {
                V::Timestamp(t) => {
                    let midnight = local_midnight(now);
                    V::Interval(map_rows(t, valid, Interval::ZERO, |t| {
                        arith::age(midnight, t)
                    })?)
                }
                V::TimestampTz(t) => {
                    let midnight = local_midnight(now);
                    V::Interval(map_rows(t, valid, Interval::ZERO, |t| {
                        arith::age(midnight, timezone::to_local(t))
                    })?)
                }
                _ => return Err(self.bad_args(args)),
            },
            (F::MakeDate, [y, m, d]) => match (&y.data, &m.data, &d.data) {
                (V::Int32(y), V::Int32(m), V::Int32(d)) => {
                    V::Date(by_row(y, valid, 0, |row, y| make_date(y, m[row], d[row]))?)
                }
                _ => return Err(self.bad_args(args)),
            },
            (F::MakeTimestamp | F::MakeTimestampTz, [y, mo, d, h, mi, s]) => {
                match (&y.data, &mo.data, &d.data, &h.data, &mi.data, &s.data) {
                    (
                        V::Int32(y),
                        V::Int32(mo),
                        V::Int32(d),
                        V::Int32(h),
                        V::Int32(mi),
                        V::Float64(s),
                    ) => {
                        let values = by_row(y, valid, 0, |row, y| {
                            make_timestamp([y, mo[row], d[row], h[row], mi[row]], s[row])
                        })?;
                        if self == F::MakeTimestamp {
                            V::Timestamp(values)
                        } else {
                            // A local time in the session zone.
                            V::TimestampTz(values.into_iter().map(timezone::from_local).collect())
                        }
                    }
                    _ => return Err(self.bad_args(args)),
                }
            }
            (F::MakeInterval, _) => V::Interval(make_interval_rows(args, valid, len)?),
            (F::JustifyDays | F::JustifyHours | F::JustifyInterval, [i]) => {
                let V::Interval(i) = &i.data else {
                    return Err(self.bad_args(args));
                };
                let justify = match self {
                    F::JustifyDays => Interval::justify_days,
                    F::JustifyHours => Interval::justify_hours,
                    _ => Interval::justify_interval,
                };
                V::Interval(map_rows(i, valid, Interval::ZERO, justify)?)
            }
            (F::ToTimestampEpoch, [s]) => {
                let V::Float64(s) = &s.data else {
                    return Err(self.bad_args(args));
                };
                V::TimestampTz(map_rows(s, valid, 0, timestamp_from_epoch)?)
            }
            (F::DateBin, [stride, source, origin]) => {
                match (&stride.data, &source.data, &origin.data) {
                    (V::Interval(s), V::Timestamp(t), V::Timestamp(o)) => {
                        V::Timestamp(by_row(s, valid, 0, |row, s| date_bin(s, t[row], o[row]))?)
                    }
                    (V::Interval(s), V::TimestampTz(t), V::TimestampTz(o)) => {
                        V::TimestampTz(by_row(s, valid, 0, |row, s| date_bin(s, t[row], o[row]))?)
                    }
                    _ => return Err(self.bad_args(args)),
                }
            }
            (F::IsFinite, [x]) => V::Bool(match &x.data {
                V::Date(d) => d.iter().map(|&d| d != i32::MAX && d != i32::MIN).collect(),
                V::Timestamp(t) | V::TimestampTz(t) => {
                    t.iter().map(|&t| !is_infinite_timestamp(t)).collect()
                }
                // PostgreSQL 15's intervals are always finite.
                V::Interval(i) => vec![true; i.len()],
                _ => return Err(self.bad_args(args)),
            }),
            (F::ToChar, [value, format]) => {
                let V::Text(f) = &format.data else {
                    return Err(self.bad_args(args));
                };
                use super::datetime_format::{format_interval, format_timestamp, Template};
                let mut out = StringVec::with_capacity(value.len(), value.len() * 16);
                let mut template: Option<(&str, Template)> = None;
                for row in 0..value.len() {
                    if valid.is_some_and(|v| !v.get(row)) {
                        out.push("");
                        continue;
                    }
                    let format = f.get(row);
                    if template.as_ref().is_none_or(|(text, _)| *text != format) {
                        template = Some((format, Template::parse(format)));
                    }
                    let Some((_, template)) = &template else {
                        return Err(Error::internal("to_char template missing after parse"));
                    };
                    let text = match &value.data {
                        V::Timestamp(t) => format_timestamp(t[row], false, template)?,
                        V::TimestampTz(t) => format_timestamp(t[row], true, template)?,
                        V::Interval(i) => format_interval(i[row], template)?,
                        _ => return Err(self.bad_args(args)),
                    };
                    out.push(&text);
                }
                V::Text(out)
            }
            (F::Timezone, [zone, value]) => {
                let V::Text(z) = &zone.data else {
                    return Err(self.bad_args(args));
                };
                let mut zones = ZoneCache::default();
                match &value.data {
                    V::Timestamp(t) => V::TimestampTz(by_row(t, valid, 0, |row, t| {
                        Ok(match is_infinite_timestamp(t) {
                            true => t,
                            false => zones.get(z.get(row))?.to_utc(t),
                        })
                    })?),
                    V::TimestampTz(t) => V::Timestamp(by_row(t, valid, 0, |row, t| {
                        if is_infinite_timestamp(t) {
                            return Ok(t);
                        }
                        let offset = zones.get(z.get(row))?.offset_at(t);
                        Ok(t + i64::from(offset) * 1_000_000)
                    })?),
                    // A zone with daylight saving rules takes its offset of now.
                    V::TimeTz(t) => V::TimeTz(by_row(t, valid, 0, |row, t| {
                        timetz::at_offset(t, zones.get(z.get(row))?.offset_at(now))
                    })?),
                    _ => return Err(self.bad_args(args)),
                }
            }
            (F::ToDate | F::ToTimestamp, [text, format]) => {
                let (V::Text(t), V::Text(f)) = (&text.data, &format.data) else {
                    return Err(self.bad_args(args));
                };
                let mut out = Vec::with_capacity(t.len());
                for row in 0..t.len() {
                    if valid.is_some_and(|v| !v.get(row)) {
                        out.push(0);
                        continue;
                    }
                    let parsed = super::datetime_format::parse_with_format(t.get(row), f.get(row))?;
                    out.push(if self == F::ToDate {
                        i64::from(parsed.date()?)
                    } else {
                        parsed.timestamp()?
                    });
                }
                if self == F::ToDate {
                    V::Date(out.into_iter().map(|d| d as i32).collect())
                } else {
                    V::TimestampTz(out)
                }
            }
            _ => return Err(self.bad_args(args)),
        };
        Ok(Vector::new(data, validity))
    }

    fn bad_args(self, args: &[Vector]) -> Error {
        let types: Vec<_> = args.iter().map(|a| a.data.physical()).collect();
        Error::internal(format!("{self:?} of {types:?}"))
    }
}

/// Midnight of the session zone's current date, as a local timestamp.
fn local_midnight(now: i64) -> i64 {
    let local = timezone::to_local(now);
    local.div_euclid(datetime::MICROS_PER_DAY) * datetime::MICROS_PER_DAY
}

/// The zone named by the last zone argument: a column of zones is usually one value.
#[derive(Default)]
struct ZoneCache {
    last: Option<(String, Zone)>,
}

impl ZoneCache {
    fn get(&mut self, name: &str) -> Result<&Zone> {
        let stale = self.last.as_ref().is_none_or(|(n, _)| n != name);
        if stale {
            self.last = Some((name.to_string(), Zone::for_conversion(name)?));
        }
        match &self.last {
            Some((_, zone)) => Ok(zone),
            None => Err(Error::internal("zone cache is empty after a fill")),
        }
    }
}

/// Valid where every argument is.
fn all_valid(args: &[Vector]) -> Option<Bitmap> {
    let mut validity: Option<Bitmap> = None;
    for arg in args {
        validity = match (validity, &arg.validity) {
            (None, None) => None,
            (Some(v), None) => Some(v),
            (None, Some(a)) => Some(a.clone()),
            (Some(v), Some(a)) => Some(v.and(a)),
        };
    }
    validity
}

/// `f(row, value)` for each valid row of the first argument's `values`.
fn by_row<A: Copy, O: Copy>(
    values: &[A],
    validity: Option<&Bitmap>,
    null: O,
    mut f: impl FnMut(usize, A) -> Result<O>,
) -> Result<Vec<O>> {
    let mut out = Vec::with_capacity(values.len());
    for (row, &value) in values.iter().enumerate() {
        out.push(if validity.is_none_or(|v| v.get(row)) {
            f(row, value)?
        } else {
            null
        });
    }
    Ok(out)
}

/// A vector of extract's numerics or date_part's doubles; NULL parts stay NULL.
fn parts_vector(parts: &[Part], numeric: bool) -> Result<Vector> {
    let mut out = Vector::with_capacity(
        if numeric {
            DataType::Numeric(None)
        } else {
            DataType::Float64
        }
        .physical(),
        parts.len(),
    );
    for part in parts {
        let value = if numeric {
            part.numeric()?.map(crate::types::ScalarValue::Numeric)
        } else {
            part.float().map(crate::types::ScalarValue::Float64)
        };
        match value {
            Some(v) => out.push_scalar(&v),
            None => {
                out.push_null();
                Ok(())
            }
        }?;
    }
    Ok(out)
}

/// 22008 `date field value out of range: 2024-02-30`.
fn date_field_error(year: i32, month: i32, day: i32) -> Error {
    Error::new(
        SqlState::DatetimeFieldOverflow,
        format!("date field value out of range: {year}-{month:02}-{day:02}"),
    )
}

/// make_date: negative years are BC; year 0 does not exist.
fn make_date(year: i32, month: i32, day: i32) -> Result<i32> {
    let shown = year.unsigned_abs() as i32;
    let astronomical = if year < 0 { year + 1 } else { year };
    if year == 0 || !(1..=12).contains(&month) || day < 1 {
        return Err(date_field_error(shown, month, day));
    }
    let days = datetime::days_from_ymd(astronomical, month as u32, day as u32)
        .ok_or_else(|| date_field_error(shown, month, day))?;
    if !datetime::is_valid_date(i64::from(days)) {
        return Err(Error::new(
            SqlState::DatetimeFieldOverflow,
            format!("date out of range: {shown}-{month:02}-{day:02}"),
        ));
    }
    Ok(days)
}

/// make_timestamp(year, month, day, hour, min, sec).
fn make_timestamp([year, month, day, hour, minute]: [i32; 5], second: f64) -> Result<i64> {
    let date = make_date(year, month, day)?;
    let micros = (second * 1e6).round_ties_even();
    let time_error = || {
        Error::new(
            SqlState::DatetimeFieldOverflow,
            format!(
                "time field value out of range: {hour}:{minute:02}:{}",
                c_float_g(second)
            ),
        )
    };
    if !(0..=24).contains(&hour) || !(0..60).contains(&minute) || micros.is_nan() {
        return Err(time_error());
    }
    if !(0.0..=60.0 * 1e6).contains(&micros) {
        return Err(time_error());
    }
    let time = (i64::from(hour) * 60 + i64::from(minute)) * 60 * 1_000_000 + micros as i64;
    if time > datetime::MICROS_PER_DAY {
        return Err(time_error());
    }
    i64::from(date)
        .checked_mul(datetime::MICROS_PER_DAY)
        .and_then(|d| d.checked_add(time))
        .filter(|t| datetime::is_valid_timestamp(*t))
        .ok_or_else(|| {
            Error::new(
                SqlState::DatetimeFieldOverflow,
                format!(
                    "timestamp out of range: {year}-{month:02}-{day:02} {hour}:{minute:02}:{}",
                    c_float_g(second)
                ),
            )
        })
}

/// C's `%02g`: six significant digits, no trailing zeros, at least two characters.
fn c_float_g(value: f64) -> String {
    let text = if value.fract() == 0.0 && value.abs() < 1e6 {
        format!("{}", value as i64)
    } else {
        let digits = 5 - value.abs().log10().floor().clamp(-5.0, 5.0) as i32;
        let fixed = format!("{value:.*}", digits.max(0) as usize);
        fixed
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    };
    if text.len() < 2 {
        format!("0{text}")
    } else {
        text
    }
}

/// make_interval(years, months, weeks, days, hours, mins, secs) with missing trailing
/// arguments zero.
fn make_interval_rows(
    args: &[Vector],
    validity: Option<&Bitmap>,
    len: usize,
) -> Result<Vec<Interval>> {
    let rows = args.first().map_or(len, Vector::len);
    let mut out = Vec::with_capacity(rows);
    for row in 0..rows {
        if validity.is_some_and(|v| !v.get(row)) {
            out.push(Interval::ZERO);
            continue;
        }
        let mut ints = [0i64; 6];
        let mut secs = 0.0;
        for (i, arg) in args.iter().enumerate() {
            match &arg.data {
                VectorData::Int32(v) if i < 6 => ints[i] = i64::from(v[row]),
                VectorData::Float64(v) if i == 6 => secs = v[row],
                _ => return Err(Error::internal("make_interval argument types")),
            }
        }
        out.push(make_interval(ints, secs)?);
    }
    Ok(out)
}

fn make_interval(
    [years, months, weeks, days, hours, mins]: [i64; 6],
    secs: f64,
) -> Result<Interval> {
    if !secs.is_finite() {
        return Err(interval::out_of_range());
    }
    let micros = (secs * 1e6).round_ties_even();
    if !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&micros) {
        return Err(interval::out_of_range());
    }
    let months = i32::try_from(years * 12 + months).map_err(|_| interval::out_of_range())?;
    let days = i32::try_from(weeks * 7 + days).map_err(|_| interval::out_of_range())?;
    let time = (hours * MICROS_PER_HOUR)
        .checked_add(mins * MICROS_PER_MINUTE)
        .and_then(|t| t.checked_add(micros as i64))
        .ok_or_else(interval::out_of_range)?;
    Ok(Interval::new(months, days, time))
}

/// to_timestamp(double precision): Unix seconds as timestamptz.
fn timestamp_from_epoch(seconds: f64) -> Result<i64> {
    if seconds.is_nan() {
        return Err(Error::new(
            SqlState::DatetimeFieldOverflow,
            "timestamp cannot be NaN",
        ));
    }
    if seconds.is_infinite() {
        return Ok(if seconds > 0.0 { i64::MAX } else { i64::MIN });
    }
    let range_error = || {
        Error::new(
            SqlState::DatetimeFieldOverflow,
            format!("timestamp out of range: \"{}\"", c_float_g(seconds)),
        )
    };
    const UNIX_EPOCH_JULIAN: f64 = 2_440_588.0;
    // From Julian day 0 up to 294277-01-01, PostgreSQL's range.
    let range = 86_400.0 * -UNIX_EPOCH_JULIAN..86_400.0 * (109_203_528.0 - UNIX_EPOCH_JULIAN);
    if !range.contains(&seconds) {
        return Err(range_error());
    }
    let shifted = seconds - (datetime::UNIX_TO_PG_DAYS * 86_400) as f64;
    let micros = (shifted * 1e6).round_ties_even() as i64;
    if !datetime::is_valid_timestamp(micros) {
        return Err(range_error());
    }
    Ok(micros)
}

/// date_bin(stride, source, origin): the start of the stride-wide bin holding `source`.
fn date_bin(stride: Interval, source: i64, origin: i64) -> Result<i64> {
    if is_infinite_timestamp(source) {
        return Ok(source);
    }
    if is_infinite_timestamp(origin) {
        return Err(Error::new(
            SqlState::DatetimeFieldOverflow,
            "origin out of range",
        ));
    }
    if stride.months != 0 {
        return Err(Error::new(
            SqlState::FeatureNotSupported,
            "timestamps cannot be binned into intervals containing months or years",
        ));
    }
    let stride_micros = i64::from(stride.days)
        .checked_mul(datetime::MICROS_PER_DAY)
        .and_then(|d| d.checked_add(stride.micros))
        .ok_or_else(interval::out_of_range)?;
    if stride_micros <= 0 {
        return Err(Error::new(
            SqlState::InvalidParameterValue,
            "stride must be greater than zero",
        ));
    }
    let diff = source
        .checked_sub(origin)
        .ok_or_else(interval::out_of_range)?;
    let modulo = diff % stride_micros;
    let mut result = origin + (diff - modulo);
    if modulo < 0 {
        result = result
            .checked_sub(stride_micros)
            .filter(|t| datetime::is_valid_timestamp(*t))
            .ok_or_else(arith::timestamp_out_of_range)?;
    }
    Ok(result)
}
