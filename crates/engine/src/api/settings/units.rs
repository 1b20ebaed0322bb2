//! PostgreSQL's integer settings with units (`checkpoint_timeout = '5min'`,
//! `max_wal_size = '1GB'`): parsing a value into the setting's base unit, range checks and
//! SHOW's formatting, with PostgreSQL's messages.

use crate::error::{Error, Result, SqlState};

/// A unit spelling and how many base units it is, largest first: SHOW picks the first
/// unit that divides the value evenly.
type Units = &'static [(&'static str, f64)];

/// Seconds are the base unit of `checkpoint_timeout`.
const TIME: Units = &[
    ("d", 86_400.0),
    ("h", 3_600.0),
    ("min", 60.0),
    ("s", 1.0),
    ("ms", 1e-3),
    ("us", 1e-6),
];
const TIME_HINT: &str =
    "Valid units for this parameter are \"us\", \"ms\", \"s\", \"min\", \"h\", and \"d\".";

/// Milliseconds are the base unit of `lock_timeout` and `deadlock_timeout`.
const TIME_MS: Units = &[
    ("d", 86_400_000.0),
    ("h", 3_600_000.0),
    ("min", 60_000.0),
    ("s", 1_000.0),
    ("ms", 1.0),
    ("us", 1e-3),
];

/// Megabytes are the base unit of `max_wal_size`.
const MEMORY: Units = &[
    ("TB", 1_048_576.0),
    ("GB", 1_024.0),
    ("MB", 1.0),
    ("kB", 1.0 / 1_024.0),
    ("B", 1.0 / 1_048_576.0),
];
const MEMORY_HINT: &str =
    "Valid units for this parameter are \"B\", \"kB\", \"MB\", \"GB\", and \"TB\".";

/// Kilobytes are the base unit of `work_mem` and `maintenance_work_mem`.
const KILOBYTES: Units = &[
    ("TB", 1_073_741_824.0),
    ("GB", 1_048_576.0),
    ("MB", 1_024.0),
    ("kB", 1.0),
    ("B", 1.0 / 1_024.0),
];

/// Blocks of 8 kB are the base unit of `effective_cache_size` and the like.
const BLOCKS: Units = &[
    ("TB", 134_217_728.0),
    ("GB", 131_072.0),
    ("MB", 128.0),
    ("kB", 1.0 / 8.0),
    ("B", 1.0 / 8_192.0),
];

/// An integer setting measured in a unit, with its allowed range in base units.
pub(crate) struct UnitSetting {
    pub name: &'static str,
    units: Units,
    hint: &'static str,
    base_unit: &'static str,
    min: i64,
    max: i64,
}

/// PostgreSQL's range: 30 s to one day.
pub(crate) const CHECKPOINT_TIMEOUT: UnitSetting = UnitSetting {
    name: "checkpoint_timeout",
    units: TIME,
    hint: TIME_HINT,
    base_unit: "s",
    min: 30,
    max: 86_400,
};

/// PostgreSQL's range: 1 s to 10 min.
pub(crate) const AUTHENTICATION_TIMEOUT: UnitSetting = UnitSetting {
    name: "authentication_timeout",
    units: TIME,
    hint: TIME_HINT,
    base_unit: "s",
    min: 1,
    max: 600,
};

/// PostgreSQL's range for its timeouts in milliseconds: 0 (no timeout) up to the largest int.
const fn timeout_ms(name: &'static str) -> UnitSetting {
    UnitSetting {
        name,
        units: TIME_MS,
        hint: TIME_HINT,
        base_unit: "ms",
        min: 0,
        max: i32::MAX as i64,
    }
}

/// A memory setting in kilobytes, within `min ..= max` of them.
pub(crate) const fn kilobytes(name: &'static str, min: i64, max: i64) -> UnitSetting {
    UnitSetting {
        name,
        units: KILOBYTES,
        hint: MEMORY_HINT,
        base_unit: "kB",
        min,
        max,
    }
}

/// A memory setting in 8 kB blocks, within `min ..= max` of them.
pub(crate) const fn blocks(name: &'static str, min: i64, max: i64) -> UnitSetting {
    UnitSetting {
        name,
        units: BLOCKS,
        hint: MEMORY_HINT,
        base_unit: "8kB",
        min,
        max,
    }
}

pub(crate) const LOCK_TIMEOUT: UnitSetting = timeout_ms("lock_timeout");
pub(crate) const STATEMENT_TIMEOUT: UnitSetting = timeout_ms("statement_timeout");
pub(crate) const IDLE_IN_TRANSACTION_SESSION_TIMEOUT: UnitSetting =
    timeout_ms("idle_in_transaction_session_timeout");
pub(crate) const IDLE_SESSION_TIMEOUT: UnitSetting = timeout_ms("idle_session_timeout");

/// 0: a share of the server's memory limit (see `exec::memory`).
pub(crate) const QUERY_MEMORY_LIMIT: UnitSetting = UnitSetting {
    name: "kestrel.query_memory_limit",
    units: MEMORY,
    hint: MEMORY_HINT,
    base_unit: "MB",
    min: 0,
    max: i32::MAX as i64,
};

/// PostgreSQL's range: 1 ms up to the largest int of milliseconds.
pub(crate) const DEADLOCK_TIMEOUT: UnitSetting = UnitSetting {
    name: "deadlock_timeout",
    units: TIME_MS,
    hint: TIME_HINT,
    base_unit: "ms",
    min: 1,
    max: i32::MAX as i64,
};

/// PostgreSQL's range: 2 MB up to the largest int.
pub(crate) const MAX_WAL_SIZE: UnitSetting = UnitSetting {
    name: "max_wal_size",
    units: MEMORY,
    hint: MEMORY_HINT,
    base_unit: "MB",
    min: 2,
    max: i32::MAX as i64,
};

impl UnitSetting {
    /// The value in base units: a number (a fraction is rounded) optionally followed by a
    /// unit, with spaces allowed between them, as PostgreSQL's parse_int reads it.
    pub(crate) fn parse(&self, value: &str) -> Result<i64> {
        let invalid = || {
            Error::new(
                SqlState::InvalidParameterValue,
                format!("invalid value for parameter \"{}\": \"{value}\"", self.name),
            )
        };
        let text = value.trim_start();
        let number_len = text
            .find(|c: char| !(c.is_ascii_digit() || matches!(c, '+' | '-' | '.')))
            .unwrap_or(text.len());
        let number: f64 = text[..number_len].parse().map_err(|_| invalid())?;
        let unit = text[number_len..].trim();
        let base = if unit.is_empty() {
            number
        } else {
            let position = self
                .units
                .iter()
                .position(|(name, _)| *name == unit)
                .ok_or_else(|| invalid().with_hint(self.hint))?;
            let scaled = number * self.units[position].1;
            // A fraction of a unit rounds to the next smaller unit, as in PostgreSQL.
            match self.units.get(position + 1) {
                Some((_, smaller)) => (scaled / smaller).round() * smaller,
                None => scaled,
            }
        };
        let rounded = base.round();
        if !(f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&rounded) {
            return Err(invalid().with_hint("Value exceeds integer range."));
        }
        // In range of i32 just above, so the conversion is exact.
        let base = rounded as i64;
        if base < self.min || base > self.max {
            return Err(Error::new(
                SqlState::InvalidParameterValue,
                format!(
                    "{base} {} is outside the valid range for parameter \"{}\" ({} .. {})",
                    self.base_unit, self.name, self.min, self.max
                ),
            ));
        }
        Ok(base)
    }

    /// SHOW's spelling: the largest unit that divides the value evenly (`5min`, `1GB`).
    pub(crate) fn format(&self, base: i64) -> String {
        if base == 0 {
            return "0".to_string();
        }
        for (name, size) in self.units {
            if *size <= 1.0 || base % (*size as i64) == 0 {
                return format!("{}{name}", (base as f64 / size).round() as i64);
            }
        }
        base.to_string()
    }

    /// The check of a settings definition: validates and returns SHOW's spelling.
    pub(crate) fn canonical(&self, value: &str) -> Result<String> {
        self.parse(value).map(|base| self.format(base))
    }
}

/// `value`, as SHOW spells it, in `base_unit`s: pg_settings' setting, boot_val and reset_val.
/// `None` for a unit no setting has, or a value that is no number of it.
pub(super) fn in_base_unit(base_unit: &str, value: &str) -> Option<i64> {
    let (units, base_unit) = match base_unit {
        "s" => (TIME, "s"),
        "ms" => (TIME_MS, "ms"),
        "kB" => (KILOBYTES, "kB"),
        "8kB" => (BLOCKS, "8kB"),
        "MB" => (MEMORY, "MB"),
        _ => return None,
    };
    let unbounded = UnitSetting {
        name: "",
        units,
        hint: "",
        base_unit,
        min: i64::MIN,
        max: i64::MAX,
    };
    unbounded.parse(value).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_values_take_postgres_units() {
        let parse = |v| CHECKPOINT_TIMEOUT.parse(v);
        assert_eq!(parse("300").ok(), Some(300));
        assert_eq!(parse("5min").ok(), Some(300));
        assert_eq!(parse(" 2 h ").ok(), Some(7200));
        assert_eq!(parse("1d").ok(), Some(86_400));
        assert_eq!(parse("45s").ok(), Some(45));
        assert_eq!(parse("1.5min").ok(), Some(90));
        assert_eq!(parse("30000ms").ok(), Some(30));
    }

    #[test]
    fn time_values_out_of_range_or_malformed_are_refused() {
        let message = |v| CHECKPOINT_TIMEOUT.parse(v).err().map(|e| e.message);
        assert_eq!(
            message("10").as_deref(),
            Some("10 s is outside the valid range for parameter \"checkpoint_timeout\" (30 .. 86400)")
        );
        assert_eq!(
            message("2d").as_deref(),
            Some("172800 s is outside the valid range for parameter \"checkpoint_timeout\" (30 .. 86400)")
        );
        assert_eq!(
            message("abc").as_deref(),
            Some("invalid value for parameter \"checkpoint_timeout\": \"abc\"")
        );
        let error = CHECKPOINT_TIMEOUT.parse("5 minutes").err();
        assert_eq!(error.as_ref().map(|e| e.sqlstate()), Some("22023"));
        assert_eq!(error.and_then(|e| e.hint).as_deref(), Some(TIME_HINT));
        assert!(
            CHECKPOINT_TIMEOUT.parse("5MIN").is_err(),
            "units are case-sensitive"
        );
    }

    #[test]
    fn memory_values_take_postgres_units() {
        let parse = |v| MAX_WAL_SIZE.parse(v);
        assert_eq!(parse("1024").ok(), Some(1024));
        assert_eq!(parse("1GB").ok(), Some(1024));
        assert_eq!(parse("2048kB").ok(), Some(2));
        assert_eq!(parse("1TB").ok(), Some(1_048_576));
        assert_eq!(parse("64 MB").ok(), Some(64));
        assert!(parse("1MB").is_err(), "below the 2 MB minimum");
        assert!(parse("1gb").is_err(), "units are case-sensitive");
        assert!(parse("99999999999").is_err(), "beyond an int");
    }

    #[test]
    fn show_uses_the_largest_exact_unit() {
        assert_eq!(CHECKPOINT_TIMEOUT.format(300), "5min");
        assert_eq!(CHECKPOINT_TIMEOUT.format(90), "90s");
        assert_eq!(CHECKPOINT_TIMEOUT.format(3600), "1h");
        assert_eq!(CHECKPOINT_TIMEOUT.format(86_400), "1d");
        assert_eq!(MAX_WAL_SIZE.format(1024), "1GB");
        assert_eq!(MAX_WAL_SIZE.format(1536), "1536MB");
        assert_eq!(MAX_WAL_SIZE.format(1_048_576), "1TB");
    }

    #[test]
    fn pg_settings_shows_numbers_of_the_base_unit() {
        assert_eq!(in_base_unit("s", "5min"), Some(300));
        assert_eq!(in_base_unit("ms", "1s"), Some(1000));
        assert_eq!(in_base_unit("kB", "4MB"), Some(4096));
        assert_eq!(in_base_unit("8kB", "4GB"), Some(524_288));
        assert_eq!(in_base_unit("MB", "1GB"), Some(1024));
        assert_eq!(in_base_unit("MB", "0"), Some(0));
        assert_eq!(in_base_unit("h", "1"), None);
    }
}
