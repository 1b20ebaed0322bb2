//! pg_timezone_names: every zone of the bundled tz database with its abbreviation, offset
//! and daylight saving flag at the current time, as PostgreSQL lists its zoneinfo.

use super::{boolean, text, CatalogSnapshot, Rows, BOOL, TEXT};
use crate::function::datetime_functions::clock_micros;
use crate::types::{timezone, DataType, Interval, IntervalTypmod, ScalarValue};

pub(super) const PG_TIMEZONE_NAMES: &[(&str, DataType)] = &[
    ("name", TEXT),
    ("abbrev", TEXT),
    ("utc_offset", DataType::Interval(IntervalTypmod::NONE)),
    ("is_dst", BOOL),
];

pub(super) fn pg_timezone_names(_: &CatalogSnapshot) -> Rows {
    let now = clock_micros();
    timezone::zone_names()
        .into_iter()
        .filter_map(|name| {
            let zone = timezone::Zone::named(&name)?;
            let offset_micros = i64::from(zone.offset_at(now)) * 1_000_000;
            Some(vec![
                text(&name),
                text(&zone.abbreviation_at(now)),
                ScalarValue::Interval(Interval::new(0, 0, offset_micros)),
                boolean(zone.is_dst_at(now)),
            ])
        })
        .collect()
}
