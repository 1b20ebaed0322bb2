//! `to_char` for timestamps and intervals and `to_date` / `to_timestamp(text, text)`:
//! PostgreSQL's template patterns (`YYYY MM DD HH24 MI SS MS US AM Month Day DDD IW Q ...`)
//! with the `FM` prefix and `TH` suffix, double-quoted literals, in the C locale and the
//! session time zone.
//!
//! The template is matched greedily against a keyword table ordered longest first, as
//! formatting.c does, so `HH24` wins over `HH` and `MONTH` over `MON` and `MM`.

use crate::error::{Error, Result, SqlState};
use crate::types::datetime::{self, Tm};
use crate::types::interval::Interval;
use crate::types::timezone;

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const ROMAN: [&str; 12] = [
    "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII",
];

/// A template keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    YearComma,
    Yyyy,
    Yyy,
    Yy,
    Y,
    IsoYyyy,
    IsoYyy,
    IsoYy,
    IsoY,
    Hh24,
    Hh12,
    Hh,
    Mi,
    Sssss,
    Ss,
    Ms,
    Us,
    Ff(u32),
    Meridian { dots: bool },
    Era { dots: bool },
    Month,
    Mon,
    Mm,
    Day,
    Dy,
    Ddd,
    Iddd,
    Dd,
    D,
    Id,
    Ww,
    Iw,
    W,
    Q,
    Cc,
    J,
    Rm,
    Tzh,
    Tzm,
    Tz,
    Of,
}

/// How a name keyword was spelled: `MONTH`, `Month` or `month`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Case {
    Upper,
    Capitalized,
    Lower,
}

/// The keyword table, longest spellings first within each initial (formatting.c's order).
const KEYWORDS: &[(&str, Key)] = &[
    ("Y,YYY", Key::YearComma),
    ("YYYY", Key::Yyyy),
    ("YYY", Key::Yyy),
    ("YY", Key::Yy),
    ("Y", Key::Y),
    ("IYYY", Key::IsoYyyy),
    ("IYY", Key::IsoYyy),
    ("IY", Key::IsoYy),
    ("IDDD", Key::Iddd),
    ("ID", Key::Id),
    ("IW", Key::Iw),
    ("I", Key::IsoY),
    ("HH24", Key::Hh24),
    ("HH12", Key::Hh12),
    ("HH", Key::Hh),
    ("MI", Key::Mi),
    ("MONTH", Key::Month),
    ("MON", Key::Mon),
    ("MM", Key::Mm),
    ("MS", Key::Ms),
    ("SSSSS", Key::Sssss),
    ("SSSS", Key::Sssss),
    ("SS", Key::Ss),
    ("US", Key::Us),
    ("FF1", Key::Ff(1)),
    ("FF2", Key::Ff(2)),
    ("FF3", Key::Ff(3)),
    ("FF4", Key::Ff(4)),
    ("FF5", Key::Ff(5)),
    ("FF6", Key::Ff(6)),
    ("A.M.", Key::Meridian { dots: true }),
    ("AM", Key::Meridian { dots: false }),
    ("P.M.", Key::Meridian { dots: true }),
    ("PM", Key::Meridian { dots: false }),
    ("A.D.", Key::Era { dots: true }),
    ("AD", Key::Era { dots: false }),
    ("B.C.", Key::Era { dots: true }),
    ("BC", Key::Era { dots: false }),
    ("DAY", Key::Day),
    ("DDD", Key::Ddd),
    ("DD", Key::Dd),
    ("DY", Key::Dy),
    ("D", Key::D),
    ("WW", Key::Ww),
    ("W", Key::W),
    ("Q", Key::Q),
    ("CC", Key::Cc),
    ("J", Key::J),
    ("RM", Key::Rm),
    ("TZH", Key::Tzh),
    ("TZM", Key::Tzm),
    ("TZ", Key::Tz),
    ("OF", Key::Of),
];

/// One piece of a parsed template.
#[derive(Debug, Clone, PartialEq)]
enum Node {
    Field {
        key: Key,
        case: Case,
        fill: bool,
        /// `TH` (upper) or `th` suffix.
        ordinal: Option<bool>,
    },
    Literal(String),
}

/// A to_char template parsed once: a column of values usually shares one, and parsing
/// costs more than formatting.
pub struct Template {
    nodes: Vec<Node>,
    /// Whether `TZ` is asked for: only then is the zone's abbreviation looked up.
    names_zone: bool,
}

impl Template {
    pub fn parse(format: &str) -> Template {
        let nodes = parse_template(format);
        let names_zone = nodes
            .iter()
            .any(|n| matches!(n, Node::Field { key: Key::Tz, .. }));
        Template { nodes, names_zone }
    }
}

/// Splits a template into keywords and literal text.
fn parse_template(format: &str) -> Vec<Node> {
    let mut nodes = Vec::new();
    let mut literal = String::new();
    let mut rest = format;
    let flush = |literal: &mut String, nodes: &mut Vec<Node>| {
        if !literal.is_empty() {
            nodes.push(Node::Literal(std::mem::take(literal)));
        }
    };
    while let Some(c) = rest.chars().next() {
        if c == '"' {
            // A quoted literal; a backslash escapes the next character.
            let mut chars = rest[1..].char_indices();
            let mut end = rest.len();
            while let Some((i, ch)) = chars.next() {
                match ch {
                    '"' => {
                        end = i + 2;
                        break;
                    }
                    '\\' => {
                        if let Some((_, next)) = chars.next() {
                            literal.push(next);
                        }
                    }
                    other => literal.push(other),
                }
            }
            rest = &rest[end.min(rest.len())..];
            continue;
        }
        if c == '\\' && rest[1..].starts_with('"') {
            literal.push('"');
            rest = &rest[2..];
            continue;
        }
        // Prefixes: FM (fill mode); FX and TM change nothing here.
        let mut fill = false;
        let mut body = rest;
        loop {
            let upper = body.get(..2).map(str::to_ascii_uppercase);
            match upper.as_deref() {
                Some("FM") => fill = true,
                Some("FX" | "TM") => {}
                _ => break,
            }
            body = &body[2..];
        }
        match match_keyword(body) {
            Some((key, case, len)) => {
                flush(&mut literal, &mut nodes);
                body = &body[len..];
                let ordinal = match body.get(..2) {
                    Some("TH") => Some(true),
                    Some("th") => Some(false),
                    _ => None,
                };
                if ordinal.is_some() {
                    body = &body[2..];
                }
                nodes.push(Node::Field {
                    key,
                    case,
                    fill,
                    ordinal,
                });
                rest = body;
            }
            None if body.len() < rest.len() => {
                // Only prefixes: they are consumed even without a keyword after them.
                rest = body;
            }
            None => {
                literal.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    flush(&mut literal, &mut nodes);
    nodes
}

/// The keyword at the start of `text`: upper-case spellings, lower-case ones, and the
/// capitalized `Month`, `Mon`, `Day`, `Dy` for the names.
fn match_keyword(text: &str) -> Option<(Key, Case, usize)> {
    for &(word, key) in KEYWORDS {
        let Some(head) = text.get(..word.len()) else {
            continue;
        };
        // Compared without allocating: this runs for every keyword at every position.
        let lower_from = |from: usize| {
            head.bytes()
                .zip(word.bytes())
                .skip(from)
                .all(|(h, w)| h == w.to_ascii_lowercase())
        };
        let case = if head == word {
            Case::Upper
        } else if lower_from(0) {
            Case::Lower
        } else if matches!(key, Key::Month | Key::Mon | Key::Day | Key::Dy)
            && head.len() > 1
            && head[..1] == word[..1]
            && lower_from(1)
        {
            Case::Capitalized
        } else {
            continue;
        };
        // Single-letter lower-case keywords other than the names' are letters of text in
        // practice only when PostgreSQL also reads them as keywords, so no exception here.
        return Some((key, case, word.len()));
    }
    None
}

/// The fields to_char reads, for a timestamp or an interval.
struct Fields {
    /// Astronomical for timestamps; the interval's years for intervals.
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    micros: i64,
    /// Day of the year, day of the week (0 = Sunday), days since 2000-01-01.
    yday: i64,
    wday: i64,
    days: i64,
    is_interval: bool,
    /// The zone's abbreviation (`TZ`), for a timestamptz whose template asks for it.
    zone: Option<String>,
    /// Seconds east of UTC (`TZH`, `TZM`, `OF`); 0 for timestamp.
    zone_seconds: i64,
}

/// to_char(timestamp[tz], text).
pub fn format_timestamp(micros: i64, with_zone: bool, template: &Template) -> Result<String> {
    if micros == i64::MAX || micros == i64::MIN {
        // PostgreSQL returns NULL for infinities; a NULL cannot come from here.
        return Err(Error::unsupported("to_char of an infinite timestamp"));
    }
    // A timestamptz shows its local time in the session zone.
    let zone_seconds = match with_zone {
        true => i64::from(timezone::session_offset(micros)),
        false => 0,
    };
    let wants_abbreviation = with_zone && template.names_zone;
    let zone = wants_abbreviation.then(|| timezone::session_abbreviation(micros));
    let tm = Tm::from_timestamp(micros + zone_seconds * 1_000_000);
    let days = tm.days();
    let fields = Fields {
        year: i64::from(tm.year),
        month: i64::from(tm.month),
        day: i64::from(tm.day),
        hour: i64::from(tm.hour),
        minute: i64::from(tm.minute),
        second: i64::from(tm.second),
        micros: i64::from(tm.micros),
        yday: days - datetime::days_from_civil_unchecked(i64::from(tm.year), 1, 1) + 1,
        wday: i64::from(datetime::day_of_week(days)),
        days,
        is_interval: false,
        zone,
        zone_seconds,
    };
    Ok(render(&template.nodes, &fields))
}

/// to_char(interval, text).
pub fn format_interval(span: Interval, template: &Template) -> Result<String> {
    let itm = span.itm();
    let fields = Fields {
        year: itm.year,
        month: itm.month,
        day: itm.day,
        hour: itm.hour,
        minute: itm.minute,
        second: itm.second,
        micros: itm.micros,
        yday: itm.day,
        wday: 0,
        days: 0,
        is_interval: true,
        zone: None,
        zone_seconds: 0,
    };
    Ok(render(&template.nodes, &fields))
}

fn render(nodes: &[Node], f: &Fields) -> String {
    let mut out = String::new();
    for node in nodes {
        match node {
            Node::Literal(text) => out.push_str(text),
            Node::Field {
                key,
                case,
                fill,
                ordinal,
            } => {
                let start = out.len();
                render_field(*key, *case, *fill, f, &mut out);
                if let Some(upper) = ordinal {
                    let number = out[start..].trim_start_matches('-').parse::<i64>().ok();
                    if let Some(n) = number {
                        let suffix = ordinal_suffix(n);
                        out.push_str(&if *upper {
                            suffix.to_ascii_uppercase()
                        } else {
                            suffix.to_string()
                        });
                    }
                }
            }
        }
    }
    out
}

fn ordinal_suffix(n: i64) -> &'static str {
    match (n % 100, n % 10) {
        (11..=13, _) => "th",
        (_, 1) => "st",
        (_, 2) => "nd",
        (_, 3) => "rd",
        _ => "th",
    }
}

/// `%0*d`: zero-padded to `width` (one more for a minus sign) unless fill mode.
fn padded(value: i64, width: usize, fill: bool, out: &mut String) {
    let width = if fill {
        0
    } else if value < 0 {
        width + 1
    } else {
        width
    };
    out.push_str(&format!("{value:0width$}"));
}

fn cased(name: &str, case: Case) -> String {
    match case {
        Case::Upper => name.to_ascii_uppercase(),
        Case::Lower => name.to_ascii_lowercase(),
        Case::Capitalized => name.to_string(),
    }
}

/// A name, blank-padded to `width` unless fill mode.
fn name(text: &str, case: Case, width: usize, fill: bool, out: &mut String) {
    let text = cased(text, case);
    if fill {
        out.push_str(&text);
    } else {
        out.push_str(&format!("{text:<width$}"));
    }
}

fn render_field(key: Key, case: Case, fill: bool, f: &Fields, out: &mut String) {
    // Years show BC years as positive numbers (ADJUST_YEAR), except in intervals.
    let shown_year = if f.is_interval || f.year > 0 {
        f.year
    } else {
        1 - f.year
    };
    let (iso_year, iso_week) = if f.is_interval {
        (f.year, 0)
    } else {
        let (y, w) = datetime::iso_week(f.days);
        (if y > 0 { y } else { 1 - y }, i64::from(w))
    };
    match key {
        Key::Hh | Key::Hh12 => {
            let hour = match f.hour % 12 {
                0 => 12,
                h => h,
            };
            // The width follows the hour's sign, not the shown value's.
            let width = if fill {
                0
            } else if f.hour < 0 {
                3
            } else {
                2
            };
            out.push_str(&format!("{hour:0width$}"))
        }
        Key::Hh24 => padded(f.hour, 2, fill, out),
        Key::Mi => padded(f.minute, 2, fill, out),
        Key::Ss => padded(f.second, 2, fill, out),
        Key::Ms => out.push_str(&format!("{:03}", f.micros / 1000)),
        Key::Us => out.push_str(&format!("{:06}", f.micros)),
        Key::Ff(digits) => {
            let value = f.micros / 10i64.pow(6 - digits);
            out.push_str(&format!("{value:0width$}", width = digits as usize))
        }
        Key::Sssss => out.push_str(&(f.hour * 3600 + f.minute * 60 + f.second).to_string()),
        Key::Meridian { dots } => {
            let pm = f.hour % 24 >= 12;
            let text = match (pm, dots) {
                (false, false) => "AM",
                (true, false) => "PM",
                (false, true) => "A.M.",
                (true, true) => "P.M.",
            };
            out.push_str(&cased(text, case));
        }
        Key::Era { dots } => {
            let bc = f.year <= 0;
            let text = match (bc, dots) {
                (false, false) => "AD",
                (true, false) => "BC",
                (false, true) => "A.D.",
                (true, true) => "B.C.",
            };
            out.push_str(&cased(text, case));
        }
        Key::YearComma => {
            let thousands = shown_year / 1000;
            out.push_str(&format!("{thousands},{:03}", shown_year - thousands * 1000));
        }
        Key::Yyyy | Key::IsoYyyy => {
            let year = if key == Key::Yyyy {
                shown_year
            } else {
                iso_year
            };
            padded(year, 4, fill, out)
        }
        Key::Yyy | Key::IsoYyy => {
            let year = if key == Key::Yyy {
                shown_year
            } else {
                iso_year
            };
            padded(year % 1000, 3, fill, out)
        }
        Key::Yy | Key::IsoYy => {
            let year = if key == Key::Yy { shown_year } else { iso_year };
            padded(year % 100, 2, fill, out)
        }
        Key::Y | Key::IsoY => {
            let year = if key == Key::Y { shown_year } else { iso_year };
            padded(year % 10, 1, fill, out)
        }
        Key::Month | Key::Mon if f.month < 1 => {}
        Key::Month => name(MONTHS[f.month as usize - 1], case, 9, fill, out),
        Key::Mon => out.push_str(&cased(&MONTHS[f.month as usize - 1][..3], case)),
        Key::Mm => padded(f.month, 2, fill, out),
        Key::Day | Key::Dy if f.is_interval => {}
        Key::Day => name(DAYS[f.wday as usize], case, 9, fill, out),
        Key::Dy => out.push_str(&cased(&DAYS[f.wday as usize][..3], case)),
        Key::Ddd => padded(f.yday, 3, fill, out),
        Key::Iddd => {
            let start = datetime::iso_week_start(iso_year_astronomical(f), 1);
            padded(f.days - start + 1, 3, fill, out)
        }
        Key::Dd => padded(f.day, 2, fill, out),
        Key::D => out.push_str(&(f.wday + 1).to_string()),
        Key::Id => out.push_str(&(if f.wday == 0 { 7 } else { f.wday }).to_string()),
        Key::Ww => padded((f.yday - 1) / 7 + 1, 2, fill, out),
        Key::Iw => padded(iso_week, 2, fill, out),
        Key::W => out.push_str(&((f.day - 1) / 7 + 1).to_string()),
        Key::Q if f.is_interval => {}
        Key::Q => out.push_str(&((f.month - 1) / 3 + 1).to_string()),
        Key::Cc => {
            let century = if f.is_interval {
                f.year / 100
            } else if f.year > 0 {
                (f.year - 1) / 100 + 1
            } else {
                f.year / 100 - 1
            };
            if (-99..=99).contains(&century) {
                padded(century, 2, fill, out)
            } else {
                out.push_str(&century.to_string())
            }
        }
        Key::J => out.push_str(&datetime::julian_day(f.days).to_string()),
        Key::Rm if f.month < 1 => {}
        Key::Rm => name(ROMAN[f.month as usize - 1], case, 4, fill, out),
        Key::Tz => {
            if let Some(zone) = &f.zone {
                out.push_str(&cased(zone, case));
            }
        }
        Key::Tzh => {
            out.push(if f.zone_seconds < 0 { '-' } else { '+' });
            padded(f.zone_seconds.abs() / 3600, 2, false, out);
        }
        // Two digits even under FM, as PostgreSQL writes them.
        Key::Tzm => padded(f.zone_seconds.abs() / 60 % 60, 2, false, out),
        Key::Of => {
            // Whole minutes only, as PostgreSQL prints OF.
            let minutes = f.zone_seconds / 60 * 60;
            timezone::write_offset(minutes as i32, out);
        }
    }
}

/// The ISO year of a timestamp's fields, astronomical.
fn iso_year_astronomical(f: &Fields) -> i64 {
    datetime::iso_week(f.days).0
}

/// Fields read by to_date / to_timestamp.
#[derive(Debug, Default)]
pub struct ParsedFields {
    year: Option<i64>,
    bc: bool,
    month: Option<i64>,
    day: Option<i64>,
    yday: Option<i64>,
    hour: i64,
    hour12: bool,
    pm: Option<bool>,
    minute: i64,
    second: i64,
    micros: i64,
    zone_seconds: i64,
    zone_negative: bool,
    /// Whether TZH or TZM was read: without them the time is local to the session zone.
    zone_given: bool,
}

impl ParsedFields {
    /// The date the fields name; 22008 if it does not exist.
    pub fn date(&self) -> Result<i32> {
        let year = self.year.unwrap_or(1);
        let year = if self.bc { 1 - year } else { year };
        let out_of_range = || {
            Error::new(
                SqlState::DatetimeFieldOverflow,
                format!(
                    "date/time field value out of range: \"{}\"",
                    self.describe()
                ),
            )
        };
        let days = match (self.month, self.day, self.yday) {
            (None, None, Some(yday)) => datetime::days_from_civil_unchecked(year, 1, 1) + yday - 1,
            (month, day, _) => {
                let (month, day) = (month.unwrap_or(1), day.unwrap_or(1));
                if !(1..=12).contains(&month)
                    || day < 1
                    || day > i64::from(datetime::month_days(year, month as u32))
                {
                    return Err(out_of_range());
                }
                datetime::days_from_civil_unchecked(year, month as u32, day as u32)
            }
        };
        if !datetime::is_valid_date(days) {
            return Err(Error::new(
                SqlState::DatetimeFieldOverflow,
                "date out of range",
            ));
        }
        Ok(days as i32)
    }

    /// The instant the fields name.
    pub fn timestamp(&self) -> Result<i64> {
        let days = i64::from(self.date()?);
        let mut hour = self.hour;
        if self.hour12 || self.pm.is_some() {
            if !(1..=12).contains(&hour) {
                return Err(Error::new(
                    SqlState::InvalidDatetimeFormat,
                    format!("hour \"{hour}\" is invalid for the 12-hour clock"),
                )
                .with_hint("Use the 24-hour clock, or give an hour between 1 and 12."));
            }
            hour %= 12;
            if self.pm == Some(true) {
                hour += 12;
            }
        }
        if hour > 24 || self.minute > 59 || self.second > 60 {
            return Err(Error::new(
                SqlState::DatetimeFieldOverflow,
                format!(
                    "date/time field value out of range: \"{}\"",
                    self.describe()
                ),
            ));
        }
        let time = ((hour * 60 + self.minute) * 60 + self.second) * 1_000_000 + self.micros;
        days.checked_mul(datetime::MICROS_PER_DAY)
            .and_then(|d| d.checked_add(time))
            .and_then(|t| match self.zone_given {
                true => t.checked_sub(self.zone_seconds * 1_000_000),
                false => Some(timezone::from_local(t)),
            })
            .filter(|t| datetime::is_valid_timestamp(*t))
            .ok_or_else(super::datetime_arithmetic::timestamp_out_of_range)
    }

    fn describe(&self) -> String {
        format!(
            "{}-{:02}-{:02}",
            self.year.unwrap_or(1),
            self.month.unwrap_or(1),
            self.day.unwrap_or(1)
        )
    }
}

/// to_date / to_timestamp: reads `text` by the template `format`. Separators in the
/// template match any single non-alphanumeric character (or none); numbers take as many
/// digits as the field has, or all digits up to a separator.
pub fn parse_with_format(text: &str, format: &str) -> Result<ParsedFields> {
    let nodes = parse_template(format);
    let mut fields = ParsedFields::default();
    let mut rest = text;
    for (i, node) in nodes.iter().enumerate() {
        match node {
            Node::Literal(literal) => {
                for c in literal.chars() {
                    if c.is_whitespace() {
                        rest = rest.trim_start();
                    } else if let Some(next) = rest.chars().next() {
                        if !next.is_alphanumeric() || next == c {
                            rest = &rest[next.len_utf8()..];
                        }
                    }
                }
            }
            Node::Field { key, .. } => {
                rest = rest.trim_start();
                let followed_by_field = matches!(nodes.get(i + 1), Some(Node::Field { .. }));
                rest = read_field(*key, rest, followed_by_field, &mut fields)?;
            }
        }
    }
    Ok(fields)
}

fn read_field<'a>(key: Key, text: &'a str, fixed: bool, f: &mut ParsedFields) -> Result<&'a str> {
    let number = |width: usize| -> Result<(i64, &'a str)> { read_number(text, width, fixed) };
    Ok(match key {
        Key::Yyyy | Key::IsoYyyy | Key::YearComma => {
            let (year, rest) = number(4)?;
            f.year = Some(year);
            rest
        }
        Key::Yyy | Key::IsoYyy => {
            let (year, rest) = number(3)?;
            f.year = Some(if year < 100 { year + 2000 } else { year + 1000 });
            rest
        }
        Key::Yy | Key::IsoYy => {
            let (year, rest) = number(2)?;
            f.year = Some(if year < 70 { year + 2000 } else { year + 1900 });
            rest
        }
        Key::Y | Key::IsoY => {
            let (year, rest) = number(1)?;
            f.year = Some(year + 2000);
            rest
        }
        Key::Mm => {
            let (month, rest) = number(2)?;
            f.month = Some(month);
            rest
        }
        Key::Dd => {
            let (day, rest) = number(2)?;
            f.day = Some(day);
            rest
        }
        Key::Ddd | Key::Iddd => {
            let (yday, rest) = number(3)?;
            f.yday = Some(yday);
            rest
        }
        Key::Hh | Key::Hh12 | Key::Hh24 => {
            let (hour, rest) = number(2)?;
            f.hour = hour;
            f.hour12 = key != Key::Hh24;
            rest
        }
        Key::Mi => {
            let (minute, rest) = number(2)?;
            f.minute = minute;
            rest
        }
        Key::Ss => {
            let (second, rest) = number(2)?;
            f.second = second;
            rest
        }
        Key::Ms | Key::Us | Key::Ff(_) => {
            let width = match key {
                Key::Ms => 3,
                Key::Ff(d) => d as usize,
                _ => 6,
            };
            let digits = text
                .bytes()
                .take_while(u8::is_ascii_digit)
                .count()
                .min(width);
            let (value, rest) = read_number(text, digits.max(1), true)?;
            let scale = if key == Key::Ms { 3 } else { 6 };
            f.micros = value * 10i64.pow((scale - digits.min(scale)) as u32);
            if key == Key::Ms {
                f.micros *= 1000;
            }
            rest
        }
        Key::Month | Key::Mon => {
            let (index, rest) = read_name(text, &MONTHS, key == Key::Mon).ok_or_else(|| {
                invalid_value(
                    text,
                    "MONTH",
                    "The given value did not match any of the allowed values for this field.",
                )
            })?;
            f.month = Some(index as i64 + 1);
            rest
        }
        Key::Day | Key::Dy => {
            read_name(text, &DAYS, key == Key::Dy)
                .ok_or_else(|| {
                    invalid_value(
                        text,
                        "DAY",
                        "The given value did not match any of the allowed values for this field.",
                    )
                })?
                .1
        }
        Key::Meridian { dots } => {
            let len = if dots { 4 } else { 2 };
            let word = text.get(..len).unwrap_or("").to_ascii_uppercase();
            f.pm =
                Some(match word.as_str() {
                    "AM" | "A.M." => false,
                    "PM" | "P.M." => true,
                    _ => return Err(invalid_value(
                        text,
                        "AM",
                        "The given value did not match any of the allowed values for this field.",
                    )),
                });
            &text[len..]
        }
        Key::Era { dots } => {
            let len = if dots { 4 } else { 2 };
            let word = text.get(..len).unwrap_or("").to_ascii_uppercase();
            f.bc = word == "BC" || word == "B.C.";
            text.get(len..).unwrap_or("")
        }
        Key::Tzh => {
            let negative = text.starts_with('-');
            let body = text.trim_start_matches(['+', '-']);
            let (hours, rest) = read_number(body, 2, true)?;
            f.zone_negative = negative;
            f.zone_given = true;
            f.zone_seconds += if negative { -hours } else { hours } * 3600;
            rest
        }
        Key::Tzm => {
            let (minutes, rest) = number(2)?;
            f.zone_given = true;
            f.zone_seconds += if f.zone_negative { -minutes } else { minutes } * 60;
            rest
        }
        Key::J => {
            let (julian, rest) = number(7)?;
            let days = julian - datetime::julian_day(0);
            let (y, m, d) = datetime::ymd_from_days(days as i32);
            f.year = Some(i64::from(y));
            f.month = Some(i64::from(m));
            f.day = Some(i64::from(d));
            rest
        }
        Key::Q | Key::W | Key::Ww | Key::Iw | Key::D | Key::Id | Key::Cc | Key::Sssss => {
            // Read and ignored, as PostgreSQL does when a full date is given.
            number(2)?.1
        }
        Key::Rm => {
            let upper = text.to_ascii_uppercase();
            let (index, len) = ROMAN
                .iter()
                .enumerate()
                .filter(|(_, r)| upper.starts_with(*r))
                .max_by_key(|(_, r)| r.len())
                .map(|(i, r)| (i, r.len()))
                .ok_or_else(|| {
                    invalid_value(
                        text,
                        "RM",
                        "The given value did not match any of the allowed values for this field.",
                    )
                })?;
            f.month = Some(index as i64 + 1);
            &text[len..]
        }
        Key::Tz | Key::Of => {
            return Err(Error::unsupported("the TZ and OF patterns in to_timestamp"))
        }
    })
}

/// A number of up to `width` digits, or (unless the next template item is a field) all
/// digits there are.
fn read_number(text: &str, width: usize, fixed: bool) -> Result<(i64, &str)> {
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let available = body.bytes().take_while(u8::is_ascii_digit).count();
    let len = if fixed {
        available.min(width)
    } else {
        available
    };
    if len == 0 {
        let shown: String = text.chars().take(20).collect();
        return Err(Error::new(
            SqlState::InvalidDatetimeFormat,
            format!("invalid value \"{shown}\" for \"number\""),
        )
        .with_detail("Value must be an integer."));
    }
    let value: i64 = body[..len].parse().map_err(|_| {
        Error::new(
            SqlState::DatetimeFieldOverflow,
            "value for \"number\" in source string is out of range",
        )
    })?;
    Ok((if negative { -value } else { value }, &body[len..]))
}

/// A month or day name (full, or its first three letters), any case.
fn read_name<'a>(text: &'a str, names: &[&str], abbreviated: bool) -> Option<(usize, &'a str)> {
    let lower = text.to_ascii_lowercase();
    names.iter().enumerate().find_map(|(i, name)| {
        let name = name.to_ascii_lowercase();
        let candidate = if abbreviated {
            &name[..3]
        } else {
            name.as_str()
        };
        lower
            .starts_with(candidate)
            .then(|| (i, &text[candidate.len()..]))
    })
}

fn invalid_value(text: &str, field: &str, detail: &str) -> Error {
    let shown: String = text.chars().take(field.len().max(3)).collect();
    Error::new(
        SqlState::InvalidDatetimeFormat,
        format!("invalid value \"{shown}\" for \"{field}\""),
    )
    .with_detail(detail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(text: &str) -> i64 {
        datetime::parse_timestamp(text).expect("timestamp")
    }

    // Expected values produced by PostgreSQL 15.
    #[test]
    fn to_char_patterns() {
        let fmt =
            |t: &str, f: &str| format_timestamp(ts(t), false, &Template::parse(f)).expect("format");
        assert_eq!(
            fmt(
                "2024-03-05 14:07:09.123456",
                "YYYY-MM-DD HH24:MI:SS.MS US AM am P.M. HH HH12"
            ),
            "2024-03-05 14:07:09.123 123456 PM pm P.M. 02 02"
        );
        assert_eq!(
            fmt(
                "2024-03-05 14:07:09",
                "Day DAY day Dy DY dy|Month|MONTH|month|Mon|MON|mon"
            ),
            "Tuesday   TUESDAY   tuesday   Tue TUE tue|March    |MARCH    |march    |Mar|MAR|mar"
        );
        assert_eq!(
            fmt(
                "2024-03-05 14:07:09",
                "FMDay FMMonth FMDD FMMM FMHH24 DDD FMDDD D ID IW WW W Q CC J RM rm FMRM"
            ),
            "Tuesday March 5 3 14 065 65 3 2 10 10 1 1 21 2460375 III  iii  III"
        );
        assert_eq!(
            fmt(
                "2024-03-01",
                "DDth DDTH FMDDth Y,YYY YYY YY Y IYYY IY I SSSS SSSSS"
            ),
            "01st 01ST 1st 2,024 024 24 4 2024 24 4 0 0"
        );
        assert_eq!(
            fmt("0044-03-15 BC", "YYYY BC AD B.C. a.d. CC"),
            "0044 BC BC B.C. b.c. -01"
        );
        assert_eq!(
            fmt("2024-03-05 14:07:09", "\"Quarter\" Q \"of\" YYYY \\\\ x"),
            "Quarter 1 of 2024 \\\\ x"
        );
        assert_eq!(
            format_timestamp(
                ts("2024-03-05 14:07:09"),
                true,
                &Template::parse("TZ tz TZH TZM OF")
            )
            .expect("tz"),
            "UTC utc +00 00 +00"
        );
        let iv = Interval::parse("-25 hours 3 mins").expect("interval");
        assert_eq!(
            format_interval(iv, &Template::parse("HH24:MI:SS HH")).expect("interval"),
            "-24:-57:00 012"
        );
    }

    #[test]
    fn parsing_with_templates() {
        let date = |t: &str, f: &str| {
            let days = parse_with_format(t, f)
                .and_then(|p| p.date())
                .expect("date");
            let mut out = Vec::new();
            datetime::write_date(days, &mut out);
            String::from_utf8(out).expect("ascii")
        };
        assert_eq!(date("2024-03-05", "YYYY-MM-DD"), "2024-03-05");
        assert_eq!(date("20240305", "YYYYMMDD"), "2024-03-05");
        assert_eq!(date("05 Mar 2024", "DD Mon YYYY"), "2024-03-05");
        assert_eq!(date("March 5, 2024", "Month DD, YYYY"), "2024-03-05");
        let stamp = parse_with_format("2024-03-05 02:07:09 PM", "YYYY-MM-DD HH:MI:SS AM")
            .and_then(|p| p.timestamp())
            .expect("timestamp");
        assert_eq!(stamp, ts("2024-03-05 14:07:09"));
    }
}
