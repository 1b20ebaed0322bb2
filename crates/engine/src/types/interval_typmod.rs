//! The modifier of an `interval` type: its fields (`interval day to minute`, PostgreSQL's
//! INTERVAL_RANGE) and fractional-second precision (`interval second(3)`). The fields
//! decide what a bare number in the input means (DecodeInterval's use of the range) and
//! which parts a value keeps (AdjustIntervalForTypmod truncates those right of the last
//! field, then rounds the seconds to the precision).

use super::interval::{Interval, MICROS_PER_HOUR, MICROS_PER_MINUTE};

/// Which fields an interval type declares; `Full` is an interval without any.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntervalRange {
    Full,
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    YearToMonth,
    DayToHour,
    DayToMinute,
    DayToSecond,
    HourToMinute,
    HourToSecond,
    MinuteToSecond,
}

/// datetime.h's field numbers, whose bits make INTERVAL_MASK.
const MONTH: i32 = 1 << 1;
const YEAR: i32 = 1 << 2;
const DAY: i32 = 1 << 3;
const HOUR: i32 = 1 << 10;
const MINUTE: i32 = 1 << 11;
const SECOND: i32 = 1 << 12;
/// INTERVAL_FULL_RANGE and INTERVAL_FULL_PRECISION.
const FULL_RANGE: i32 = 0x7FFF;
const FULL_PRECISION: i32 = 0xFFFF;

impl IntervalRange {
    /// Every range, in the order of their durable codes ([`IntervalRange::code`]).
    pub const ALL: [IntervalRange; 14] = [
        IntervalRange::Full,
        IntervalRange::Year,
        IntervalRange::Month,
        IntervalRange::Day,
        IntervalRange::Hour,
        IntervalRange::Minute,
        IntervalRange::Second,
        IntervalRange::YearToMonth,
        IntervalRange::DayToHour,
        IntervalRange::DayToMinute,
        IntervalRange::DayToSecond,
        IntervalRange::HourToMinute,
        IntervalRange::HourToSecond,
        IntervalRange::MinuteToSecond,
    ];

    /// The range's INTERVAL_MASK bits, as the typmod holds them.
    fn mask(self) -> i32 {
        match self {
            IntervalRange::Full => FULL_RANGE,
            IntervalRange::Year => YEAR,
            IntervalRange::Month => MONTH,
            IntervalRange::Day => DAY,
            IntervalRange::Hour => HOUR,
            IntervalRange::Minute => MINUTE,
            IntervalRange::Second => SECOND,
            IntervalRange::YearToMonth => YEAR | MONTH,
            IntervalRange::DayToHour => DAY | HOUR,
            IntervalRange::DayToMinute => DAY | HOUR | MINUTE,
            IntervalRange::DayToSecond => DAY | HOUR | MINUTE | SECOND,
            IntervalRange::HourToMinute => HOUR | MINUTE,
            IntervalRange::HourToSecond => HOUR | MINUTE | SECOND,
            IntervalRange::MinuteToSecond => MINUTE | SECOND,
        }
    }

    /// The range's position in [`IntervalRange::ALL`], as the catalog encoding stores it.
    pub fn code(self) -> u8 {
        Self::ALL.iter().position(|r| *r == self).unwrap_or(0) as u8
    }

    pub fn from_code(code: u8) -> Option<IntervalRange> {
        Self::ALL.get(usize::from(code)).copied()
    }

    /// How format_type (intervaltypmodout) writes the fields: `year to month`.
    pub fn name(self) -> &'static str {
        match self {
            IntervalRange::Full => "",
            IntervalRange::Year => "year",
            IntervalRange::Month => "month",
            IntervalRange::Day => "day",
            IntervalRange::Hour => "hour",
            IntervalRange::Minute => "minute",
            IntervalRange::Second => "second",
            IntervalRange::YearToMonth => "year to month",
            IntervalRange::DayToHour => "day to hour",
            IntervalRange::DayToMinute => "day to minute",
            IntervalRange::DayToSecond => "day to second",
            IntervalRange::HourToMinute => "hour to minute",
            IntervalRange::HourToSecond => "hour to second",
            IntervalRange::MinuteToSecond => "minute to second",
        }
    }

    /// Whether the grammar lets a precision follow the fields (only after SECOND).
    pub fn takes_precision(self) -> bool {
        matches!(
            self,
            IntervalRange::Full
                | IntervalRange::Second
                | IntervalRange::DayToSecond
                | IntervalRange::HourToSecond
                | IntervalRange::MinuteToSecond
        )
    }

    /// AdjustIntervalForTypmod's truncation: the parts right of the last field are zeroed
    /// (toward zero, as C divides); those left of it stay.
    fn truncate(self, value: Interval) -> Interval {
        let time_in = |unit: i64| (value.micros / unit) * unit;
        match self {
            IntervalRange::Year => Interval::new((value.months / 12) * 12, 0, 0),
            IntervalRange::Month | IntervalRange::YearToMonth => Interval::new(value.months, 0, 0),
            IntervalRange::Day => Interval::new(value.months, value.days, 0),
            IntervalRange::Hour | IntervalRange::DayToHour => {
                Interval::new(value.months, value.days, time_in(MICROS_PER_HOUR))
            }
            IntervalRange::Minute | IntervalRange::DayToMinute | IntervalRange::HourToMinute => {
                Interval::new(value.months, value.days, time_in(MICROS_PER_MINUTE))
            }
            IntervalRange::Full
            | IntervalRange::Second
            | IntervalRange::DayToSecond
            | IntervalRange::HourToSecond
            | IntervalRange::MinuteToSecond => value,
        }
    }
}

/// An interval type's modifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IntervalTypmod {
    pub range: IntervalRange,
    pub precision: Option<u8>,
}

impl IntervalTypmod {
    /// Plain `interval`.
    pub const NONE: IntervalTypmod = IntervalTypmod {
        range: IntervalRange::Full,
        precision: None,
    };

    /// `interval(p)`.
    pub fn with_precision(precision: Option<u8>) -> IntervalTypmod {
        IntervalTypmod {
            range: IntervalRange::Full,
            precision,
        }
    }

    /// INTERVAL_TYPMOD(precision, range), or -1 for plain `interval`.
    pub fn typmod(self) -> i32 {
        if self == Self::NONE {
            return -1;
        }
        let precision = self.precision.map_or(FULL_PRECISION, i32::from);
        (self.range.mask() << 16) | precision
    }

    /// [`IntervalTypmod::typmod`]'s inverse; anything else is plain `interval`.
    pub fn from_typmod(typmod: i32) -> IntervalTypmod {
        if typmod < 0 {
            return Self::NONE;
        }
        let mask = (typmod >> 16) & 0x7FFF;
        let range = IntervalRange::ALL.into_iter().find(|r| r.mask() == mask);
        let precision = match typmod & 0xFFFF {
            FULL_PRECISION => Some(None),
            p => u8::try_from(p)
                .ok()
                .filter(|p| *p <= super::precision::MAX_PRECISION)
                .map(Some),
        };
        match (range, precision) {
            (Some(range), Some(precision)) => IntervalTypmod { range, precision },
            _ => Self::NONE,
        }
    }

    /// AdjustIntervalForTypmod: the value truncated to the fields, then rounded to the
    /// precision.
    pub fn adjust(self, value: Interval) -> Interval {
        let value = self.range.truncate(value);
        match self.precision {
            Some(p) => Interval {
                micros: super::precision::round_micros(value.micros, p),
                ..value
            },
            None => value,
        }
    }
}

/// intervaltypmodout after `interval`: ` day to second(3)`, `(3)`, ` year`.
impl std::fmt::Display for IntervalTypmod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.range != IntervalRange::Full {
            write!(f, " {}", self.range.name())?;
        }
        match self.precision {
            Some(p) => write!(f, "({p})"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typmods_are_postgres() {
        let day_to_second = IntervalTypmod {
            range: IntervalRange::DayToSecond,
            precision: Some(3),
        };
        assert_eq!(day_to_second.typmod(), 470_286_339);
        let year = IntervalTypmod {
            range: IntervalRange::Year,
            precision: None,
        };
        assert_eq!(year.typmod(), 327_679);
        let two = IntervalTypmod::with_precision(Some(2));
        assert_eq!(two.typmod(), 2_147_418_114);
        for m in [day_to_second, year, two, IntervalTypmod::NONE] {
            assert_eq!(IntervalTypmod::from_typmod(m.typmod()), m);
        }
        assert_eq!(day_to_second.to_string(), " day to second(3)");
        assert_eq!(two.to_string(), "(2)");
    }

    #[test]
    fn adjusts_toward_zero() {
        let value = Interval::new(14, 3, -(MICROS_PER_HOUR + 90 * 1_000_000));
        let hour = IntervalTypmod {
            range: IntervalRange::DayToHour,
            precision: None,
        };
        assert_eq!(hour.adjust(value), Interval::new(14, 3, -MICROS_PER_HOUR));
        let year = IntervalTypmod {
            range: IntervalRange::Year,
            precision: None,
        };
        assert_eq!(year.adjust(value), Interval::new(12, 0, 0));
    }
}
