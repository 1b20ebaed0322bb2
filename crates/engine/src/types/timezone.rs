//! Time zones: what the TimeZone setting and zone names in timestamp input mean, and the
//! session's zone that timestamptz values are shown, read and split into fields in.
//!
//! Zones come from the IANA database bundled into the binary (jiff's `tzdb-bundle-always`),
//! so answers never depend on the host's zoneinfo. Offsets are seconds east of UTC, as
//! ISO 8601 writes them (PostgreSQL's `tm_gmtoff`).
//!
//! The session's zone lives in a thread-local, installed by the session at each call into
//! the engine ([`install`]): casts, functions and the text output of a vector have no
//! session at hand, and the wire server encodes rows on the connection's own thread right
//! after the call that produced them. The last offset looked up is kept with the range of
//! instants it holds for, so a batch of nearby timestamps costs one zone lookup.

use std::cell::{Cell, RefCell};
use std::sync::Arc;

use jiff::tz::{AmbiguousOffset, Offset, TimeZone};

use crate::error::{Error, Result, SqlState};

/// Microseconds from 1970-01-01 (jiff's epoch) to 2000-01-01 (PostgreSQL's).
const UNIX_TO_PG_MICROS: i64 = 946_684_800_000_000;
/// jiff's instants span the years -9999..=9999. Later instants are moved back by whole
/// 400-year Gregorian cycles, which repeat the calendar exactly, so a zone's rules for the
/// year 205000 are those of a year in range (as PostgreSQL extends them); earlier ones take
/// the offset at the start, local mean time.
const JIFF_MIN_MICROS: i64 = -377_705_116_800_000_000 + 86_400_000_000;
const JIFF_MAX_MICROS: i64 = 253_402_207_200_000_000 - 86_400_000_000;
/// 400 Gregorian years in microseconds.
const CYCLE_MICROS: i64 = 146_097 * 86_400_000_000;

/// A session time zone: the setting's canonical text and the rules it names.
#[derive(Debug, Clone)]
pub struct Zone {
    /// What SHOW TimeZone prints.
    pub name: String,
    rules: TimeZone,
    /// The offset of a zone without transitions: no lookups at all.
    fixed_seconds: Option<i32>,
    /// What a zone set by its offset alone calls itself (`-08` for `-8`, nothing for
    /// `+05:30`), as PostgreSQL's to_char shows it.
    fixed_abbreviation: Option<String>,
}

impl Zone {
    pub fn utc() -> Zone {
        Zone::new("UTC".into(), TimeZone::UTC)
    }

    fn new(name: String, rules: TimeZone) -> Zone {
        let fixed_seconds = rules.to_fixed_offset().ok().map(Offset::seconds);
        Zone {
            name,
            rules,
            fixed_seconds,
            fixed_abbreviation: None,
        }
    }

    /// PostgreSQL's check_timezone: a number of hours (`-8`, `5.5`, east of UTC, shown as
    /// `<-08>+08`), `INTERVAL '...'`, a zone of the tz database (any letter case, shown in
    /// the database's spelling), or a POSIX rule (`UTC+3`, `EST5EDT`, `+05:30`: hours WEST
    /// of UTC, as POSIX counts them).
    pub fn from_setting(value: &str) -> Result<Zone> {
        let text = value.trim();
        let invalid = || {
            Error::new(
                SqlState::InvalidParameterValue,
                format!("invalid value for parameter \"TimeZone\": \"{value}\""),
            )
        };
        if let Some(east_seconds) = interval_setting(text)? {
            return Zone::fixed(east_seconds).ok_or_else(invalid);
        }
        if let Ok(hours) = text.parse::<f64>() {
            if !hours.is_finite() {
                return Err(invalid());
            }
            return Zone::fixed((hours * 3600.0).round() as i32).ok_or_else(invalid);
        }
        if let Some(zone) = Zone::named(text) {
            return Ok(zone);
        }
        // `<+05:30>-05:30`: the name SET gave a numeric zone, read back (SET LOCAL's restore,
        // a session reusing the setting).
        if let Some((abbreviation, west)) = text.strip_prefix('<').and_then(|r| r.split_once('>')) {
            if let Some(west_seconds) = posix_offset_only(west) {
                let rules = Offset::from_seconds(-west_seconds)
                    .map_err(|_| invalid())?
                    .to_time_zone();
                return Ok(Zone {
                    fixed_abbreviation: Some(abbreviation.to_string()),
                    ..Zone::new(text.to_string(), rules)
                });
            }
        }
        if let Some(west_seconds) = posix_offset_only(text) {
            let rules = Offset::from_seconds(-west_seconds)
                .map_err(|_| invalid())?
                .to_time_zone();
            return Ok(Zone {
                fixed_abbreviation: Some(String::new()),
                ..Zone::new(text.to_string(), rules)
            });
        }
        let starts_with_name = text.bytes().next().is_some_and(|b| b.is_ascii_alphabetic());
        match TimeZone::posix(text) {
            Ok(rules) if starts_with_name || text.starts_with('<') => {
                // PostgreSQL shows the zone letters of `utc+3` upper-cased.
                let upper = text.to_ascii_uppercase();
                let name = if upper.starts_with("UTC") || upper.starts_with("GMT") {
                    upper
                } else {
                    text.to_string()
                };
                Ok(Zone::new(name, rules))
            }
            _ => Err(invalid()),
        }
    }

    /// The zone of `AT TIME ZONE zone` and timezone(zone, x), as PostgreSQL's
    /// timestamptz_zone reads it: an abbreviation of timestamp input (`PST`), a zone of
    /// the tz database, or a POSIX rule, where a bare `-8` is 8 hours EAST of UTC.
    /// 22023 for anything else.
    pub fn for_conversion(name: &str) -> Result<Zone> {
        if let Some(east_seconds) = super::datetime::zone_abbreviation(&name.to_ascii_lowercase()) {
            let rules = Offset::from_seconds(east_seconds)
                .map_err(|_| Error::internal("abbreviation offset out of range"))?
                .to_time_zone();
            return Ok(Zone::new(name.to_string(), rules));
        }
        if let Some(zone) = Zone::named(name) {
            return Ok(zone);
        }
        let rules = match posix_offset_only(name) {
            Some(west_seconds) => Offset::from_seconds(-west_seconds)
                .ok()
                .map(Offset::to_time_zone),
            None => TimeZone::posix(name).ok(),
        };
        rules
            .map(|rules| Zone::new(name.to_string(), rules))
            .ok_or_else(|| {
                Error::new(
                    SqlState::InvalidParameterValue,
                    format!("time zone \"{name}\" not recognized"),
                )
            })
    }

    /// A zone of the tz database, found in any letter case; `None` if there is none.
    pub fn named(name: &str) -> Option<Zone> {
        if name.is_empty() || name.starts_with('/') || name.contains("..") {
            return None;
        }
        let rules = jiff::tz::db().get(name).ok()?;
        let canonical = rules.iana_name().unwrap_or(name).to_string();
        Some(Zone::new(canonical, rules))
    }

    /// A zone `east_seconds` east of UTC, named as PostgreSQL names it (`<-08>+08`).
    fn fixed(east_seconds: i32) -> Option<Zone> {
        // Beyond 15 hours PostgreSQL refuses the displacement too.
        if east_seconds.unsigned_abs() > 15 * 3600 {
            return None;
        }
        let rules = Offset::from_seconds(east_seconds).ok()?.to_time_zone();
        let mut east = String::new();
        write_offset(east_seconds, &mut east);
        // The POSIX part counts west, and PostgreSQL writes zero as `-00`.
        let mut west = String::new();
        write_offset(east_seconds.abs(), &mut west);
        west.replace_range(..1, if east_seconds >= 0 { "-" } else { "+" });
        Some(Zone {
            fixed_abbreviation: Some(east.clone()),
            ..Zone::new(format!("<{east}>{west}"), rules)
        })
    }

    /// The offset at the instant `utc_micros` (PostgreSQL's timestamp microseconds).
    pub fn offset_at(&self, utc_micros: i64) -> i32 {
        match self.fixed_seconds {
            Some(seconds) => seconds,
            None => self.rules.to_offset(jiff_timestamp(utc_micros)).seconds(),
        }
    }

    /// The zone's abbreviation at an instant (`PST`, `CEST`, `+0530` style for numeric
    /// zones without letters), as to_char's `TZ` shows it.
    pub fn abbreviation_at(&self, utc_micros: i64) -> String {
        if let Some(abbreviation) = &self.fixed_abbreviation {
            return abbreviation.clone();
        }
        let info = self.rules.to_offset_info(jiff_timestamp(utc_micros));
        info.abbreviation().to_string()
    }

    /// Whether daylight saving time is in effect at an instant.
    pub fn is_dst_at(&self, utc_micros: i64) -> bool {
        self.rules
            .to_offset_info(jiff_timestamp(utc_micros))
            .dst()
            .is_dst()
    }

    /// The instant whose local time in this zone is `local_micros`. A time skipped by a
    /// spring-forward transition is read with the offset before it (02:30 becomes 03:30
    /// summer time), a time repeated by a fall-back transition as the later, standard one:
    /// PostgreSQL's DetermineTimeZoneOffset.
    pub fn to_utc(&self, local_micros: i64) -> i64 {
        let seconds = match self.fixed_seconds {
            Some(seconds) => seconds,
            None => {
                let local = jiff_timestamp(local_micros)
                    .to_zoned(TimeZone::UTC)
                    .datetime();
                match self.rules.to_ambiguous_timestamp(local).offset() {
                    AmbiguousOffset::Unambiguous { offset } => offset.seconds(),
                    AmbiguousOffset::Gap { before, .. } => before.seconds(),
                    AmbiguousOffset::Fold { after, .. } => after.seconds(),
                }
            }
        };
        local_micros.saturating_sub(i64::from(seconds) * 1_000_000)
    }

    /// The range of instants around `utc_micros` that share its offset: `[start, end)`.
    fn offset_range(&self, utc_micros: i64) -> OffsetRange {
        let Some(seconds) = self.fixed_seconds else {
            let at = jiff_timestamp(utc_micros);
            let last_in_range = JIFF_MAX_MICROS - UNIX_TO_PG_MICROS;
            if utc_micros > last_in_range {
                // A moved instant: its range is not the caller's, so cache no wider one.
                let seconds = self.rules.to_offset(at).seconds();
                let end = utc_micros.saturating_add(1);
                return OffsetRange {
                    start: utc_micros,
                    end,
                    seconds,
                };
            }
            let offset = self.rules.to_offset(at).seconds();
            let after = jiff::Timestamp::from_microsecond(at.as_microsecond() + 1)
                .unwrap_or(jiff::Timestamp::MAX);
            let start = self
                .rules
                .preceding(after)
                .next()
                .map_or(i64::MIN, |t| pg_micros(t.timestamp()));
            let end = self
                .rules
                .following(at)
                .next()
                .map_or(i64::MAX, |t| pg_micros(t.timestamp()));
            // Before jiff's range the offset is the one at its start: keep the range open.
            let start = if start <= JIFF_MIN_MICROS - UNIX_TO_PG_MICROS {
                i64::MIN
            } else {
                start
            };
            let end = end.min(last_in_range + 1);
            return OffsetRange {
                start,
                end,
                seconds: offset,
            };
        };
        OffsetRange {
            start: i64::MIN,
            end: i64::MAX,
            seconds,
        }
    }
}

/// The names of the bundled tz database, as pg_timezone_names lists them.
pub fn zone_names() -> Vec<String> {
    jiff::tz::db()
        .available()
        .map(|name| name.as_str().to_string())
        .collect()
}

/// Instants `[start, end)` where a zone's offset is `seconds`.
#[derive(Clone, Copy)]
struct OffsetRange {
    start: i64,
    end: i64,
    seconds: i32,
}

impl OffsetRange {
    const EMPTY: OffsetRange = OffsetRange {
        start: 0,
        end: 0,
        seconds: 0,
    };
}

fn jiff_timestamp(pg_micros: i64) -> jiff::Timestamp {
    let mut unix = pg_micros.saturating_add(UNIX_TO_PG_MICROS);
    if unix > JIFF_MAX_MICROS {
        unix -= ((unix - JIFF_MAX_MICROS) / CYCLE_MICROS + 1) * CYCLE_MICROS;
    }
    let unix = unix.max(JIFF_MIN_MICROS);
    jiff::Timestamp::from_microsecond(unix).unwrap_or(jiff::Timestamp::UNIX_EPOCH)
}

fn pg_micros(timestamp: jiff::Timestamp) -> i64 {
    timestamp.as_microsecond() - UNIX_TO_PG_MICROS
}

/// `SET TIME ZONE INTERVAL '-08:00' HOUR TO MINUTE` arrives as that text: the interval's
/// hours east of UTC. `None` if the value is not an interval.
fn interval_setting(text: &str) -> Result<Option<i32>> {
    let Some(rest) = text
        .get(..8)
        .filter(|p| p.eq_ignore_ascii_case("interval"))
        .map(|_| text[8..].trim_start())
    else {
        return Ok(None);
    };
    let Some(quoted) = rest.strip_prefix('\'').and_then(|r| r.split('\'').next()) else {
        return Ok(None);
    };
    let interval = super::Interval::parse(quoted)?;
    if interval.months != 0 || interval.days != 0 {
        return Err(Error::new(
            SqlState::InvalidParameterValue,
            format!("invalid interval value for time zone: {quoted}"),
        ));
    }
    Ok(i32::try_from(interval.micros / 1_000_000).ok())
}

/// A POSIX zone of an offset alone, `+05:30` or `-3`: seconds WEST of UTC.
fn posix_offset_only(text: &str) -> Option<i32> {
    let (sign, body) = match text.as_bytes().first()? {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => (1, text),
    };
    let mut seconds = 0;
    let mut parts = 0;
    for (i, part) in body.split(':').enumerate() {
        if part.is_empty() || part.len() > 2 || !part.bytes().all(|b| b.is_ascii_digit()) || i > 2 {
            return None;
        }
        let value: i32 = part.parse().ok()?;
        seconds += value * [3600, 60, 1][i];
        parts += 1;
    }
    (parts > 1 || text.starts_with(['+', '-'])).then_some(sign * seconds)
}

/// PostgreSQL's EncodeTimezone: `+05`, `-03:30`, `-03:30:12`.
pub fn write_offset(east_seconds: i32, out: &mut String) {
    let mut bytes = Vec::new();
    write_offset_bytes(east_seconds, &mut bytes);
    out.push_str(&String::from_utf8_lossy(&bytes));
}

/// [`write_offset`] into a byte buffer.
pub fn write_offset_bytes(east_seconds: i32, out: &mut Vec<u8>) {
    out.push(if east_seconds < 0 { b'-' } else { b'+' });
    let total = east_seconds.unsigned_abs();
    let (hours, minutes, seconds) = (total / 3600, total / 60 % 60, total % 60);
    push_2digits(hours, out);
    if minutes != 0 || seconds != 0 {
        out.push(b':');
        push_2digits(minutes, out);
    }
    if seconds != 0 {
        out.push(b':');
        push_2digits(seconds, out);
    }
}

fn push_2digits(value: u32, out: &mut Vec<u8>) {
    if value >= 100 {
        out.extend_from_slice(value.to_string().as_bytes());
        return;
    }
    out.push(b'0' + (value / 10) as u8);
    out.push(b'0' + (value % 10) as u8);
}

struct Current {
    zone: Arc<Zone>,
    /// The last offset looked up in `zone`, with the instants it holds for.
    range: Cell<OffsetRange>,
    /// The abbreviation of the instants `[start, end)` (a lookup costs microseconds).
    abbreviation: RefCell<Option<(i64, i64, String)>>,
}

thread_local! {
    static CURRENT: RefCell<Current> = RefCell::new(Current {
        zone: Arc::new(Zone::utc()),
        range: Cell::new(OffsetRange::EMPTY),
        abbreviation: RefCell::new(None),
    });
}

/// Makes `zone` the one this thread's timestamptz values are read and shown in, until the
/// next call. Cheap when it is already installed.
pub fn install(zone: &Arc<Zone>) {
    CURRENT.with(|current| {
        let mut current = current.borrow_mut();
        if !Arc::ptr_eq(&current.zone, zone) {
            current.zone = zone.clone();
            current.range.set(OffsetRange::EMPTY);
            current.abbreviation.replace(None);
        }
    });
}

/// The zone installed on this thread (for a parallel statement's helpers to install too).
pub fn installed() -> Arc<Zone> {
    CURRENT.with(|current| current.borrow().zone.clone())
}

/// The session zone's offset at an instant, from the cached range when it holds it.
pub fn session_offset(utc_micros: i64) -> i32 {
    CURRENT.with(|current| {
        let current = current.borrow();
        let range = current.range.get();
        if (range.start..range.end).contains(&utc_micros) {
            return range.seconds;
        }
        let range = current.zone.offset_range(utc_micros);
        current.range.set(range);
        range.seconds
    })
}

/// The session zone's abbreviation at an instant (to_char's `TZ`, the non-ISO DateStyles),
/// kept for the range of instants that share the instant's offset.
pub fn session_abbreviation(utc_micros: i64) -> String {
    session_offset(utc_micros);
    CURRENT.with(|current| {
        let current = current.borrow();
        let range = current.range.get();
        let mut cached = current.abbreviation.borrow_mut();
        if let Some((start, end, text)) = cached.as_ref() {
            if (*start..*end).contains(&utc_micros) {
                return text.clone();
            }
        }
        let text = current.zone.abbreviation_at(utc_micros);
        *cached = Some((range.start, range.end, text.clone()));
        text
    })
}

/// The local time in the session zone of an instant (infinities stay infinite).
pub fn to_local(utc_micros: i64) -> i64 {
    if utc_micros == i64::MAX || utc_micros == i64::MIN {
        return utc_micros;
    }
    utc_micros.saturating_add(i64::from(session_offset(utc_micros)) * 1_000_000)
}

/// The instant of a local time in the session zone (infinities stay infinite).
pub fn from_local(local_micros: i64) -> i64 {
    if local_micros == i64::MAX || local_micros == i64::MIN {
        return local_micros;
    }
    CURRENT.with(|current| current.borrow().zone.to_utc(local_micros))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(setting: &str) -> String {
        Zone::from_setting(setting).map_or_else(|e| e.message, |z| z.name)
    }

    #[test]
    fn setting_spellings_show_as_postgresql() {
        assert_eq!(shown("america/new_york"), "America/New_York");
        assert_eq!(shown("-8"), "<-08>+08");
        assert_eq!(shown("5.5"), "<+05:30>-05:30");
        assert_eq!(shown("+05:30"), "+05:30");
        assert_eq!(shown("utc+3"), "UTC+3");
        assert_eq!(shown("INTERVAL '-08:00' HOUR TO MINUTE"), "<-08>+08");
        // What SHOW prints is accepted back.
        assert_eq!(shown("<+05:30>-05:30"), "<+05:30>-05:30");
        assert!(Zone::from_setting("XYZ").is_err());
    }

    #[test]
    fn posix_offsets_count_west() {
        let zone = Zone::from_setting("UTC+3").map_err(|e| e.message);
        assert_eq!(zone.map(|z| z.offset_at(0)), Ok(-3 * 3600));
    }

    #[test]
    fn gaps_and_folds_resolve_as_postgresql() {
        let Some(zone) = Zone::named("America/Los_Angeles") else {
            panic!("bundled tzdb has America/Los_Angeles");
        };
        // 2020-03-08 02:30 does not exist: read with -08, it is 10:30 UTC.
        let day = (crate::types::datetime::days_from_ymd(2020, 3, 8).unwrap_or(0) as i64)
            * 86_400_000_000;
        let half_past_two = day + 9_000_000_000;
        assert_eq!(
            zone.to_utc(half_past_two),
            half_past_two + 8 * 3_600_000_000
        );
        // 2020-11-01 01:30 happens twice: the later, standard one (-08).
        let day = (crate::types::datetime::days_from_ymd(2020, 11, 1).unwrap_or(0) as i64)
            * 86_400_000_000;
        let half_past_one = day + 5_400_000_000;
        assert_eq!(
            zone.to_utc(half_past_one),
            half_past_one + 8 * 3_600_000_000
        );
    }

    #[test]
    fn offsets_are_written_as_postgresql() {
        for (seconds, text) in [
            (0, "+00"),
            (-28800, "-08"),
            (19800, "+05:30"),
            (-12600 - 12, "-03:30:12"),
        ] {
            let mut out = String::new();
            write_offset(seconds, &mut out);
            assert_eq!(out, text);
        }
    }
}
