//! `time with time zone`: a time of day and a UTC offset, packed into one `i64` so that
//! integer order is PostgreSQL's timetz_cmp order (the UTC time first, then the zone) and
//! integer equality is timetz_eq. Sorting, grouping, hashing and keys then need nothing
//! of their own.
//!
//! Layout: `utc_micros << 17 | (west_seconds + 2^16)`, where `utc_micros` is the time
//! plus the zone (PostgreSQL keeps zones as seconds west of UTC), at most ±16 hours either
//! side of a day, so the value fits in 56 bits; the zone, within ±15:59:59, in 17 bits.

use super::datetime::{self, MICROS_PER_DAY};
use super::timezone;
use crate::error::{Error, Result, SqlState};

const ZONE_BITS: u32 = 17;
const ZONE_BIAS: i64 = 1 << 16;
const MICROS_PER_SECOND: i64 = 1_000_000;
/// PostgreSQL's TZDISP_LIMIT: offsets are within ±15:59:59.
pub const MAX_OFFSET_SECONDS: i32 = 15 * 3600 + 59 * 60 + 59;

/// Packs a time of day (microseconds, up to 24:00:00) with its offset east of UTC.
pub fn pack(time: i64, east_seconds: i32) -> i64 {
    let west = -i64::from(east_seconds);
    let utc = time + west * MICROS_PER_SECOND;
    (utc << ZONE_BITS) | (west + ZONE_BIAS)
}

/// The time of day and its offset in seconds east of UTC.
pub fn unpack(value: i64) -> (i64, i32) {
    let west = (value & ((1 << ZONE_BITS) - 1)) - ZONE_BIAS;
    let utc = value >> ZONE_BITS;
    (utc - west * MICROS_PER_SECOND, -(west as i32))
}

/// timetz_in.
pub fn parse_timetz(text: &str) -> Result<i64> {
    let (time, east_seconds) = datetime::parse_timetz(text)?;
    Ok(pack(time, east_seconds))
}

/// timetz_out: `HH:MM:SS[.f]` and the offset, `+HH[:MM[:SS]]`, in every DateStyle.
pub fn write_timetz(value: i64, out: &mut Vec<u8>) {
    let (time, east_seconds) = unpack(value);
    datetime::write_time(time, out);
    timezone::write_offset_bytes(east_seconds, out);
}

/// time → timetz: the session zone's offset today.
pub fn from_time(time: i64) -> i64 {
    pack(time, timezone::session_offset(datetime::clock_micros()))
}

/// timestamptz → timetz: the local time of the instant in the session zone, and the zone's
/// offset then.
pub fn from_timestamptz(instant: i64) -> i64 {
    let east_seconds = timezone::session_offset(instant);
    let local = instant + i64::from(east_seconds) * MICROS_PER_SECOND;
    pack(local.rem_euclid(MICROS_PER_DAY), east_seconds)
}

/// timetz ± interval: the time moves by the interval's time part, wrapping around the
/// day; the zone stays.
pub fn add_micros(value: i64, micros: i64) -> i64 {
    let (time, east_seconds) = unpack(value);
    pack(
        (time + micros % MICROS_PER_DAY).rem_euclid(MICROS_PER_DAY),
        east_seconds,
    )
}

/// timetz AT TIME ZONE: the same instant of the day seen from another offset.
pub fn at_offset(value: i64, east_seconds: i32) -> Result<i64> {
    if east_seconds.abs() > MAX_OFFSET_SECONDS {
        return Err(Error::new(
            SqlState::InvalidParameterValue,
            "time zone displacement out of range",
        ));
    }
    let (time, from_east) = unpack(value);
    let shifted = time + i64::from(east_seconds - from_east) * MICROS_PER_SECOND;
    Ok(pack(shifted.rem_euclid(MICROS_PER_DAY), east_seconds))
}

/// timetz_send: the time in microseconds, then the zone in seconds west of UTC.
pub fn write_binary(value: i64, out: &mut Vec<u8>) {
    let (time, east_seconds) = unpack(value);
    out.extend_from_slice(&time.to_be_bytes());
    out.extend_from_slice(&(-east_seconds).to_be_bytes());
}

/// timetz_recv, with its range checks.
pub fn read_binary(time: i64, west_seconds: i32) -> Result<i64> {
    if !(0..=MICROS_PER_DAY).contains(&time) {
        return Err(Error::new(
            SqlState::InvalidBinaryRepresentation,
            "time out of range",
        ));
    }
    if west_seconds.unsigned_abs() > MAX_OFFSET_SECONDS as u32 {
        return Err(Error::new(
            SqlState::InvalidBinaryRepresentation,
            "time zone displacement out of range",
        ));
    }
    Ok(pack(time, -west_seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips_and_orders_as_postgres() {
        for (time, east) in [
            (0, 0),
            (MICROS_PER_DAY, -MAX_OFFSET_SECONDS),
            (5, MAX_OFFSET_SECONDS),
        ] {
            assert_eq!(unpack(pack(time, east)), (time, east));
        }
        // 12:00+01 is 11:00 UTC, before 12:00+00.
        assert!(pack(12 * 3_600_000_000, 3600) < pack(12 * 3_600_000_000, 0));
        // The same instant: the zone further west sorts after.
        assert!(pack(11 * 3_600_000_000, 0) < pack(10 * 3_600_000_000, -3600));
    }
}
