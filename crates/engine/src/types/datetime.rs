//! date and timestamp (without time zone): text input and output in ISO style, calendar
//! arithmetic. Dates are days and timestamps microseconds since 2000-01-01, PostgreSQL's
//! epoch. STUB: signatures fixed, bodies to be written.

use crate::error::Result;

pub const MICROS_PER_DAY: i64 = 86_400_000_000;

/// date_in (DateStyle ISO, MDY). 22007 on bad syntax, 22008 for an out-of-range field.
pub fn parse_date(_text: &str) -> Result<i32> {
    unimplemented!()
}
pub fn write_date(_days: i32, _out: &mut Vec<u8>) {
    unimplemented!()
}
/// timestamp_in.
pub fn parse_timestamp(_text: &str) -> Result<i64> {
    unimplemented!()
}
pub fn write_timestamp(_micros: i64, _out: &mut Vec<u8>) {
    unimplemented!()
}
/// Days since 2000-01-01 of a proleptic Gregorian date; None if the date does not exist.
pub fn days_from_ymd(_year: i32, _month: u32, _day: u32) -> Option<i32> {
    unimplemented!()
}
/// (year, month, day) of days since 2000-01-01.
pub fn ymd_from_days(_days: i32) -> (i32, u32, u32) {
    unimplemented!()
}
