//! How the value of each setting is checked and spelled: PostgreSQL's accepted forms
//! become its canonical text, and values whose behaviour we do not implement are refused
//! (0A000) rather than ignored.

use super::units::{AUTHENTICATION_TIMEOUT, CHECKPOINT_TIMEOUT, MAX_WAL_SIZE};
use crate::error::{Error, Result, SqlState};
use crate::types::datetime_style;
use crate::types::timezone::Zone;

pub(super) fn any(value: &str) -> Result<String> {
    Ok(value.to_string())
}

/// PostgreSQL's `invalid value for parameter` (22023).
fn invalid_value(name: &str, value: &str) -> Error {
    Error::new(
        SqlState::InvalidParameterValue,
        format!("invalid value for parameter \"{name}\": \"{value}\""),
    )
}

/// A list of schema names in PostgreSQL's list syntax (they need not exist).
pub(super) fn search_path(value: &str) -> Result<String> {
    crate::catalog::SearchPath::parse(value, "", "")?;
    Ok(value.to_string())
}

/// PostgreSQL's client encodings, compared as pg_char_to_encoding does: case and
/// punctuation ignored.
const ENCODINGS: [&str; 41] = [
    "SQL_ASCII",
    "UTF8",
    "EUC_JP",
    "EUC_CN",
    "EUC_KR",
    "EUC_TW",
    "EUC_JIS_2004",
    "MULE_INTERNAL",
    "LATIN1",
    "LATIN2",
    "LATIN3",
    "LATIN4",
    "LATIN5",
    "LATIN6",
    "LATIN7",
    "LATIN8",
    "LATIN9",
    "LATIN10",
    "WIN1256",
    "WIN1258",
    "WIN866",
    "WIN874",
    "KOI8R",
    "WIN1251",
    "WIN1252",
    "ISO_8859_5",
    "ISO_8859_6",
    "ISO_8859_7",
    "ISO_8859_8",
    "WIN1250",
    "WIN1253",
    "WIN1254",
    "WIN1255",
    "WIN1257",
    "KOI8U",
    "SJIS",
    "BIG5",
    "GBK",
    "UHC",
    "GB18030",
    "JOHAB",
];

/// UTF8 (also spelled `utf-8` or `unicode`) and SQL_ASCII, which PostgreSQL sends
/// unconverted; the other encodings would need converting, which we do not do.
pub(super) fn encoding(value: &str) -> Result<String> {
    let key = |name: &str| -> String {
        name.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_uppercase())
            .collect()
    };
    let wanted = key(value);
    if wanted == "UNICODE" {
        return Ok("UTF8".into());
    }
    match ENCODINGS.iter().find(|name| key(name) == wanted) {
        Some(&name @ ("UTF8" | "SQL_ASCII")) => Ok(name.into()),
        Some(name) => Err(Error::unsupported(format!("client_encoding {name}"))),
        None => Err(invalid_value("client_encoding", value)),
    }
}

pub(super) fn bytea_output(value: &str) -> Result<String> {
    match value.to_ascii_lowercase().as_str() {
        "hex" => Ok("hex".into()),
        "escape" => Ok("escape".into()),
        _ => Err(invalid_value("bytea_output", value).with_hint("Available values: escape, hex.")),
    }
}

/// There is no xml type, so only the default: DOCUMENT would change how values parse.
pub(super) fn xml_option(value: &str) -> Result<String> {
    match value.to_ascii_lowercase().as_str() {
        "content" => Ok("content".into()),
        "document" => Err(Error::unsupported("xmloption = document")),
        _ => {
            Err(invalid_value("xmloption", value).with_hint("Available values: content, document."))
        }
    }
}

/// Every table lives in memory: the default tablespace (empty, or named) is the only one.
pub(super) fn default_tablespace(value: &str) -> Result<String> {
    match value {
        "" | "pg_default" => Ok(value.to_string()),
        _ => Err(invalid_value("default_tablespace", value)
            .with_detail(format!("Tablespace \"{value}\" does not exist."))),
    }
}

/// Tables are stored one way, which PostgreSQL would call heap.
pub(super) fn table_access_method(value: &str) -> Result<String> {
    match value {
        "heap" => Ok("heap".into()),
        _ => Err(invalid_value("default_table_access_method", value)
            .with_detail(format!("Table access method \"{value}\" does not exist."))),
    }
}

pub(super) fn date_style(value: &str) -> Result<String> {
    datetime_style::date_style_setting(value)
}

/// Any zone PostgreSQL accepts (see [`Zone::from_setting`]), in the spelling SHOW prints.
pub(super) fn time_zone(value: &str) -> Result<String> {
    Ok(Zone::from_setting(value)?.name)
}

pub(super) fn interval_style(value: &str) -> Result<String> {
    datetime_style::interval_style_setting(value)
}

/// Read-only transactions are not implemented: only off.
/// Messages are in English only: the C locale and English ones.
pub(super) fn english_messages(value: &str) -> Result<String> {
    let lower = value.to_ascii_lowercase();
    if ["", "c", "posix", "c.utf-8", "c.utf8"].contains(&lower.as_str()) || lower.starts_with("en_")
    {
        Ok(value.to_string())
    } else {
        Err(invalid_value("lc_messages", value))
    }
}

pub(super) fn float_digits(value: &str) -> Result<String> {
    match value.trim().parse::<i32>() {
        Ok(n) if (1..=3).contains(&n) => Ok(n.to_string()),
        Ok(n) if (-15..=0).contains(&n) => {
            Err(Error::unsupported(format!("extra_float_digits = {n}")))
        }
        Ok(n) => Err(Error::new(
            SqlState::InvalidParameterValue,
            format!(
                "{n} is outside the valid range for parameter \"extra_float_digits\" (-15 .. 3)"
            ),
        )),
        Err(_) => Err(Error::new(
            SqlState::InvalidParameterValue,
            format!("invalid value for parameter \"extra_float_digits\": \"{value}\""),
        )),
    }
}

pub(super) fn on_off(value: &str) -> Result<String> {
    match value.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok("on".into()),
        "off" | "false" | "no" | "0" => Ok("off".into()),
        _ => Err(Error::new(
            SqlState::InvalidParameterValue,
            format!("parameter requires a Boolean value: \"{value}\""),
        )),
    }
}

pub(super) fn positive_integer(value: &str) -> Result<String> {
    match value.trim().parse::<u64>() {
        Ok(n) if n > 0 => Ok(n.to_string()),
        _ => Err(Error::new(
            SqlState::InvalidParameterValue,
            format!("invalid value for a positive integer parameter: \"{value}\""),
        )),
    }
}

pub(super) fn non_negative_integer(value: &str) -> Result<String> {
    match value.trim().parse::<u64>() {
        Ok(n) => Ok(n.to_string()),
        _ => Err(Error::new(
            SqlState::InvalidParameterValue,
            format!("invalid value for a non-negative integer parameter: \"{value}\""),
        )),
    }
}

/// pgvector's hnsw.ef_search: candidates an hnsw index search keeps.
pub(super) fn hnsw_ef_search(value: &str) -> Result<String> {
    integer_in_range("hnsw.ef_search", value, 1, 1000)
}

pub(super) fn password_encryption(value: &str) -> Result<String> {
    match value.to_ascii_lowercase().as_str() {
        "md5" => Ok("md5".into()),
        "scram-sha-256" => Ok("scram-sha-256".into()),
        _ => Err(invalid_value("password_encryption", value)
            .with_hint("Available values: md5, scram-sha-256.")),
    }
}

pub(super) fn optimizer_rules(value: &str) -> Result<String> {
    let known = crate::optimizer::rule_names();
    for name in value.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if name != "all" && !known.contains(&name) {
            return Err(Error::new(
                SqlState::InvalidParameterValue,
                format!(
                    "unknown optimizer rule \"{name}\" (rules: {})",
                    known.join(", ")
                ),
            ));
        }
    }
    Ok(value.to_string())
}

/// PostgreSQL's four isolation levels (READ UNCOMMITTED behaves as READ COMMITTED).
fn isolation_level(name: &str, value: &str) -> Result<String> {
    let lower = value.to_ascii_lowercase();
    match lower.as_str() {
        "serializable" | "repeatable read" | "read committed" | "read uncommitted" => Ok(lower),
        _ => Err(invalid_value(name, value).with_hint(
            "Available values: serializable, repeatable read, read committed, read uncommitted.",
        )),
    }
}

pub(super) fn transaction_isolation(value: &str) -> Result<String> {
    isolation_level("transaction_isolation", value)
}

pub(super) fn default_transaction_isolation(value: &str) -> Result<String> {
    isolation_level("default_transaction_isolation", value)
}

pub(super) fn standard_strings(value: &str) -> Result<String> {
    match on_off(value)?.as_str() {
        "on" => Ok("on".into()),
        _ => Err(Error::unsupported("standard_conforming_strings = off")),
    }
}

/// PostgreSQL's spellings; without replication every level but off waits for the local disk.
pub(super) fn synchronous_commit(value: &str) -> Result<String> {
    match value.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok("on".into()),
        "off" | "false" | "no" | "0" => Ok("off".into()),
        level @ ("local" | "remote_write" | "remote_apply") => Ok(level.into()),
        _ => Err(Error::new(
            SqlState::InvalidParameterValue,
            format!("invalid value for parameter \"synchronous_commit\": \"{value}\""),
        )
        .with_hint("Available values: local, remote_write, remote_apply, on, off.")),
    }
}

pub(super) fn checkpoint_timeout(value: &str) -> Result<String> {
    CHECKPOINT_TIMEOUT.canonical(value)
}

pub(super) fn authentication_timeout(value: &str) -> Result<String> {
    AUTHENTICATION_TIMEOUT.canonical(value)
}

pub(super) fn max_wal_size(value: &str) -> Result<String> {
    MAX_WAL_SIZE.canonical(value)
}

pub(super) fn lock_timeout(value: &str) -> Result<String> {
    super::units::LOCK_TIMEOUT.canonical(value)
}

pub(super) fn statement_timeout(value: &str) -> Result<String> {
    super::units::STATEMENT_TIMEOUT.canonical(value)
}

pub(super) fn idle_in_transaction_session_timeout(value: &str) -> Result<String> {
    super::units::IDLE_IN_TRANSACTION_SESSION_TIMEOUT.canonical(value)
}

pub(super) fn query_memory_limit(value: &str) -> Result<String> {
    super::units::QUERY_MEMORY_LIMIT.canonical(value)
}

pub(super) fn idle_session_timeout(value: &str) -> Result<String> {
    super::units::IDLE_SESSION_TIMEOUT.canonical(value)
}

pub(super) fn deadlock_timeout(value: &str) -> Result<String> {
    super::units::DEADLOCK_TIMEOUT.canonical(value)
}

/// An integer setting within PostgreSQL's range for it.
fn integer_in_range(name: &str, value: &str, min: i64, max: i64) -> Result<String> {
    let Ok(n) = value.trim().parse::<i64>() else {
        return Err(invalid_value(name, value));
    };
    if !(min..=max).contains(&n) {
        return Err(Error::new(
            SqlState::InvalidParameterValue,
            format!("{n} is outside the valid range for parameter \"{name}\" ({min} .. {max})"),
        ));
    }
    Ok(n.to_string())
}

pub(super) fn parallel_workers(value: &str) -> Result<String> {
    integer_in_range("max_parallel_workers_per_gather", value, 0, 1024)
}

pub(super) fn parallel_min_rows(value: &str) -> Result<String> {
    integer_in_range("kestrel.parallel_min_rows", value, 0, i64::MAX)
}

/// PostgreSQL 15's off | on | regress, with the Boolean spellings it also takes.
pub(super) fn force_parallel_mode(value: &str) -> Result<String> {
    match value.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok("on".into()),
        "off" | "false" | "no" | "0" => Ok("off".into()),
        "regress" => Ok("regress".into()),
        _ => Err(invalid_value("force_parallel_mode", value)
            .with_hint("Available values: off, on, regress.")),
    }
}
