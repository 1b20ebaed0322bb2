//! Settings (GUCs): the ones clients send at connect time and read with SHOW, with
//! PostgreSQL's names and defaults, and the server-wide defaults sessions start from.
//! Values we cannot honour are refused, never ignored.

mod units;

use crate::exec::SettingRow;
use std::sync::{Arc, OnceLock};

use crate::error::{Error, Result, SqlState};

pub(crate) use units::{CHECKPOINT_TIMEOUT, MAX_WAL_SIZE};

/// Where a setting may be changed: PostgreSQL's GucContext, for the three we have.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    /// By SET, the startup message and the server's defaults (PGC_USERSET).
    User,
    /// Only by the server's defaults (PGC_SIGHUP: postgresql.conf or `postgres -c`).
    Server,
    /// Fixed when the database opens (PGC_POSTMASTER).
    Open,
}

struct Definition {
    /// PostgreSQL's canonical spelling (SHOW's column name, ParameterStatus name).
    name: &'static str,
    default: &'static str,
    /// Sent to the client in ParameterStatus when it changes.
    reported: bool,
    context: Context,
    /// Refuses values whose behaviour we do not implement.
    check: fn(&str) -> Result<String>,
    /// One line for `kestrel serve --help`.
    description: &'static str,
}

fn any(value: &str) -> Result<String> {
    Ok(value.to_string())
}

fn encoding(value: &str) -> Result<String> {
    match value.to_ascii_uppercase().replace(['-', '_'], "").as_str() {
        "UTF8" | "UNICODE" => Ok("UTF8".into()),
        _ => Err(Error::unsupported(format!("client_encoding \"{value}\""))),
    }
}

fn date_style(value: &str) -> Result<String> {
    let parts: Vec<String> = value
        .split(',')
        .map(|p| p.trim().to_ascii_uppercase())
        .collect();
    if parts.iter().all(|p| p == "ISO" || p == "MDY") {
        Ok("ISO, MDY".into())
    } else {
        Err(Error::unsupported(format!("DateStyle \"{value}\"")))
    }
}

fn utc_only(value: &str) -> Result<String> {
    match value.to_ascii_uppercase().as_str() {
        "UTC" | "ETC/UTC" | "GMT" | "Z" | "UTC0" | "0" | "+00" | "00:00" => Ok(value.to_string()),
        _ => Err(Error::unsupported(format!("time zone \"{value}\""))),
    }
}

fn float_digits(value: &str) -> Result<String> {
    match value.trim().parse::<i32>() {
        Ok(n) if (1..=3).contains(&n) => Ok(n.to_string()),
        Ok(n) if (-15..=0).contains(&n) => {
            Err(Error::unsupported(format!("extra_float_digits = {n}")))
        }
        _ => Err(Error::new(
            SqlState::InvalidParameterValue,
            format!("invalid value for parameter \"extra_float_digits\": \"{value}\""),
        )),
    }
}

fn on_off(value: &str) -> Result<String> {
    match value.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok("on".into()),
        "off" | "false" | "no" | "0" => Ok("off".into()),
        _ => Err(Error::new(
            SqlState::InvalidParameterValue,
            format!("parameter requires a Boolean value: \"{value}\""),
        )),
    }
}

fn positive_integer(value: &str) -> Result<String> {
    match value.trim().parse::<u64>() {
        Ok(n) if n > 0 => Ok(n.to_string()),
        _ => Err(Error::new(
            SqlState::InvalidParameterValue,
            format!("invalid value for a positive integer parameter: \"{value}\""),
        )),
    }
}

fn optimizer_rules(value: &str) -> Result<String> {
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

fn read_committed(value: &str) -> Result<String> {
    match value.to_ascii_lowercase().as_str() {
        "read committed" | "read uncommitted" => Ok("read committed".into()),
        _ => Err(Error::unsupported(format!(
            "transaction isolation \"{value}\""
        ))),
    }
}

fn standard_strings(value: &str) -> Result<String> {
    match on_off(value)?.as_str() {
        "on" => Ok("on".into()),
        _ => Err(Error::unsupported("standard_conforming_strings = off")),
    }
}

/// PostgreSQL's spellings; without replication every level but off waits for the local disk.
fn synchronous_commit(value: &str) -> Result<String> {
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

fn checkpoint_timeout(value: &str) -> Result<String> {
    CHECKPOINT_TIMEOUT.canonical(value)
}

fn max_wal_size(value: &str) -> Result<String> {
    MAX_WAL_SIZE.canonical(value)
}

const DEFINITIONS: &[Definition] = &[
    Definition {
        name: "application_name",
        default: "",
        reported: true,
        context: Context::User,
        check: any,
        description: "Sets the application name to be reported in statistics and logs.",
    },
    Definition {
        name: "client_encoding",
        default: "UTF8",
        reported: true,
        context: Context::User,
        check: encoding,
        description: "Sets the client's character set encoding (UTF8 only).",
    },
    Definition {
        name: "DateStyle",
        default: "ISO, MDY",
        reported: true,
        context: Context::User,
        check: date_style,
        description: "Sets the display format for date and time values (ISO, MDY only).",
    },
    Definition {
        name: "IntervalStyle",
        default: "postgres",
        reported: true,
        context: Context::User,
        check: any,
        description: "Sets the display format for interval values.",
    },
    Definition {
        name: "TimeZone",
        default: "UTC",
        reported: true,
        context: Context::User,
        check: utc_only,
        description: "Sets the time zone for displaying and interpreting time stamps (UTC only).",
    },
    Definition {
        name: "extra_float_digits",
        default: "1",
        reported: false,
        context: Context::User,
        check: float_digits,
        description: "Sets the number of digits displayed for floating-point values (1 to 3).",
    },
    Definition {
        name: "standard_conforming_strings",
        default: "on",
        reported: true,
        context: Context::User,
        check: standard_strings,
        description: "Causes '...' strings to treat backslashes literally (on only).",
    },
    Definition {
        name: "integer_datetimes",
        default: "on",
        reported: true,
        context: Context::User,
        check: any,
        description: "Shows whether datetimes are integer based.",
    },
    Definition {
        name: "is_superuser",
        default: "on",
        reported: true,
        context: Context::User,
        check: any,
        description: "Shows whether the current user is a superuser.",
    },
    Definition {
        name: "server_encoding",
        default: "UTF8",
        reported: true,
        context: Context::User,
        check: any,
        description: "Shows the server (database) character set encoding.",
    },
    Definition {
        name: "server_version",
        default: "15.0",
        reported: true,
        context: Context::User,
        check: any,
        description: "Shows the PostgreSQL version the server is compatible with.",
    },
    Definition {
        name: "server_version_num",
        default: "150000",
        reported: false,
        context: Context::User,
        check: any,
        description: "Shows the PostgreSQL version as an integer.",
    },
    Definition {
        name: "search_path",
        default: "\"$user\", public",
        reported: false,
        context: Context::User,
        check: any,
        description: "Sets the schema search order for names that are not schema-qualified.",
    },
    Definition {
        name: "transaction_isolation",
        default: "read committed",
        reported: false,
        context: Context::User,
        check: read_committed,
        description: "Sets the current transaction's isolation level (read committed only).",
    },
    Definition {
        name: "default_transaction_isolation",
        default: "read committed",
        reported: false,
        context: Context::User,
        check: read_committed,
        description: "Sets the transaction isolation level of each new transaction (read committed only).",
    },
    Definition {
        name: "statement_timeout",
        default: "0",
        reported: false,
        context: Context::User,
        check: any,
        description: "Accepted for clients that set it; not enforced.",
    },
    Definition {
        name: "lock_timeout",
        default: "0",
        reported: false,
        context: Context::User,
        check: any,
        description: "Accepted for clients that set it; not enforced.",
    },
    Definition {
        name: "idle_in_transaction_session_timeout",
        default: "0",
        reported: false,
        context: Context::User,
        check: any,
        description: "Accepted for clients that set it; not enforced.",
    },
    Definition {
        name: "client_min_messages",
        default: "notice",
        reported: false,
        context: Context::User,
        check: any,
        description: "Sets the message levels that are sent to the client.",
    },
    Definition {
        name: "bytea_output",
        default: "hex",
        reported: false,
        context: Context::User,
        check: any,
        description: "Sets the output format for bytea.",
    },
    Definition {
        name: "max_identifier_length",
        default: "63",
        reported: false,
        context: Context::User,
        check: any,
        description: "Shows the maximum identifier length.",
    },
    Definition {
        name: "synchronous_commit",
        default: "on",
        reported: false,
        context: Context::User,
        check: synchronous_commit,
        description: "Sets the current transaction's synchronization level: off answers COMMIT before its log record is on disk.",
    },
    Definition {
        name: "jit",
        default: "off",
        reported: false,
        context: Context::User,
        check: any,
        description: "Accepted for clients that set it; there is no JIT compilation.",
    },
    Definition {
        name: "kestrel.result_cache",
        default: "on",
        reported: false,
        context: Context::User,
        check: on_off,
        description: "Serves repeated queries from the result cache.",
    },
    Definition {
        name: "kestrel.disabled_optimizer_rules",
        default: "",
        reported: false,
        context: Context::User,
        check: optimizer_rules,
        description: "Optimizer rules to skip, comma-separated, or all.",
    },
    Definition {
        name: "kestrel.max_recursive_iterations",
        default: "1000000",
        reported: false,
        context: Context::User,
        check: positive_integer,
        description: "WITH RECURSIVE stops with 54000 after this many rounds.",
    },
    Definition {
        name: "checkpoint_timeout",
        default: "5min",
        reported: false,
        context: Context::Server,
        check: checkpoint_timeout,
        description: "Sets the maximum time between automatic checkpoints (30s to 1d; not by SET).",
    },
    Definition {
        name: "max_wal_size",
        default: "1GB",
        reported: false,
        context: Context::Server,
        check: max_wal_size,
        description: "Sets the log size that triggers a checkpoint (at least 2MB; not by SET).",
    },
    Definition {
        name: "data_directory",
        default: "",
        reported: false,
        context: Context::Open,
        check: any,
        description: "Shows the data directory; empty for an in-memory database.",
    },
];

/// A setting that a server's defaults can set, for help texts.
pub struct SettingDoc {
    pub name: &'static str,
    pub default: &'static str,
    pub description: &'static str,
}

/// Every setting [`crate::Database::set_setting_default`] accepts, in a stable order.
pub fn default_settable() -> impl Iterator<Item = SettingDoc> {
    DEFINITIONS
        .iter()
        .filter(|d| d.context != Context::Open)
        .map(|d| SettingDoc {
            name: d.name,
            default: d.default,
            description: d.description,
        })
}

/// The values sessions start from and RESET goes back to: PostgreSQL's defaults, changed
/// server-wide by [`crate::Database::set_setting_default`] (PostgreSQL's `postgres -c`).
#[derive(Clone)]
pub(crate) struct Defaults {
    values: Arc<Vec<String>>,
    /// Custom `prefix.name` settings, as PostgreSQL accepts them in its configuration.
    custom: Vec<(String, String)>,
}

impl Default for Defaults {
    fn default() -> Self {
        Defaults {
            values: Arc::new(DEFINITIONS.iter().map(|d| d.default.to_string()).collect()),
            custom: Vec::new(),
        }
    }
}

impl Defaults {
    /// A server-wide default, validated as SET would validate it.
    pub(crate) fn set(&mut self, name: &str, value: &str) -> Result<()> {
        let Some(index) = find(name) else {
            if name.contains('.') {
                self.custom.retain(|(n, _)| n != name);
                self.custom.push((name.to_string(), value.to_string()));
                return Ok(());
            }
            return Err(unrecognized(name));
        };
        let definition = &DEFINITIONS[index];
        if definition.context == Context::Open {
            return Err(cannot_change(definition));
        }
        Arc::make_mut(&mut self.values)[index] = (definition.check)(value)?;
        Ok(())
    }

    /// These defaults with `data_directory` showing `directory`; shared, not copied, when
    /// it already does.
    pub(crate) fn in_directory(self: &Arc<Self>, directory: &str) -> Arc<Defaults> {
        let Some(index) = find("data_directory") else {
            return self.clone();
        };
        if self.values[index] == directory {
            return self.clone();
        }
        let mut defaults = Defaults::clone(self);
        Arc::make_mut(&mut defaults.values)[index] = directory.to_string();
        Arc::new(defaults)
    }
}

/// One session's setting values.
#[derive(Clone)]
pub struct Settings {
    /// Shared until changed: a transaction keeps a copy of the settings at BEGIN (every
    /// autocommit statement is one), which should not copy every value.
    values: Arc<Vec<String>>,
    /// Custom `prefix.name` settings PostgreSQL accepts without knowing them.
    custom: Vec<(String, String)>,
    changed: Vec<usize>,
    defaults: Arc<Defaults>,
    /// What [`Settings::rows`] last made, until a value changes: statements take it along
    /// for the price of a reference count.
    rows: OnceLock<Arc<Vec<SettingRow>>>,
}

fn find(name: &str) -> Option<usize> {
    DEFINITIONS
        .iter()
        .position(|d| d.name.eq_ignore_ascii_case(name))
}

/// PostgreSQL's refusal to SET a setting that is not the session's to change.
fn cannot_change(definition: &Definition) -> Error {
    let when = match definition.context {
        Context::Open => "without restarting the server",
        Context::User | Context::Server => "now",
    };
    Error::new(
        SqlState::CantChangeRuntimeParam,
        format!("parameter \"{}\" cannot be changed {when}", definition.name),
    )
}

fn unrecognized(name: &str) -> Error {
    Error::new(
        SqlState::UndefinedObject,
        format!("unrecognized configuration parameter \"{name}\""),
    )
}

impl Settings {
    /// A new session's settings: the server's defaults.
    pub(crate) fn new(defaults: Arc<Defaults>) -> Settings {
        Settings {
            values: defaults.values.clone(),
            custom: defaults.custom.clone(),
            changed: Vec::new(),
            defaults,
            rows: OnceLock::new(),
        }
    }

    /// `SET name = value`, or back to the server's default with `None`.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<()> {
        self.rows = OnceLock::new();
        let Some(index) = find(name) else {
            if name.contains('.') {
                self.custom.retain(|(n, _)| n != name);
                let default = self.defaults.custom.iter().find(|(n, _)| n == name);
                match (value, default) {
                    (Some(value), _) => self.custom.push((name.to_string(), value.to_string())),
                    (None, Some(default)) => self.custom.push(default.clone()),
                    (None, None) => {}
                }
                return Ok(());
            }
            return Err(unrecognized(name));
        };
        let definition = &DEFINITIONS[index];
        if definition.context != Context::User {
            return Err(cannot_change(definition));
        }
        let value = match value {
            Some(v) => (definition.check)(v)?,
            None => self.defaults.values[index].clone(),
        };
        if self.values[index] != value {
            Arc::make_mut(&mut self.values)[index] = value;
            if definition.reported && !self.changed.contains(&index) {
                self.changed.push(index);
            }
        }
        Ok(())
    }

    /// The value and canonical name for SHOW.
    pub fn get(&self, name: &str) -> Result<(&'static str, String)> {
        match find(name) {
            Some(index) => Ok((DEFINITIONS[index].name, self.values[index].clone())),
            None => self
                .custom
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| ("", v.clone()))
                .ok_or_else(|| unrecognized(name)),
        }
    }

    /// The value of a built-in setting, borrowed: for the checks every statement makes.
    pub fn value(&self, name: &str) -> Option<&str> {
        find(name).map(|index| self.values[index].as_str())
    }

    /// `RESET ALL`.
    pub fn reset_all(&mut self) {
        self.rows = OnceLock::new();
        for (index, definition) in DEFINITIONS.iter().enumerate() {
            if definition.reported
                && self.values[index] != self.defaults.values[index]
                && !self.changed.contains(&index)
            {
                self.changed.push(index);
            }
        }
        self.values = self.defaults.values.clone();
        self.custom = self.defaults.custom.clone();
    }

    /// Goes back to `saved` (ROLLBACK undoes SET), reporting what that changes.
    pub fn restore(&mut self, saved: Settings) {
        self.rows = OnceLock::new();
        for (index, definition) in DEFINITIONS.iter().enumerate() {
            if definition.reported
                && self.values[index] != saved.values[index]
                && !self.changed.contains(&index)
            {
                self.changed.push(index);
            }
        }
        self.values = saved.values;
        self.custom = saved.custom;
    }

    /// Every setting with its current value, for pg_settings and current_setting().
    pub(crate) fn rows(&self) -> Arc<Vec<SettingRow>> {
        self.rows.get_or_init(|| Arc::new(self.make_rows())).clone()
    }

    fn make_rows(&self) -> Vec<SettingRow> {
        let built_in = DEFINITIONS
            .iter()
            .zip(self.values.iter())
            .map(|(d, value)| {
                let context = match d.context {
                    Context::User => "user",
                    Context::Server => "sighup",
                    Context::Open => "postmaster",
                };
                SettingRow {
                    name: d.name.to_string(),
                    setting: value.clone(),
                    description: d.description,
                    context,
                    default: d.default.to_string(),
                }
            });
        let custom = self.custom.iter().map(|(name, value)| SettingRow {
            name: name.clone(),
            setting: value.clone(),
            description: "",
            context: "user",
            default: String::new(),
        });
        built_in.chain(custom).collect()
    }

    /// Reported settings changed since the last call.
    pub fn take_changes(&mut self) -> Vec<(String, String)> {
        self.changed
            .drain(..)
            .map(|i| (DEFINITIONS[i].name.to_string(), self.values[i].clone()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{Defaults, Settings};

    #[test]
    fn data_directory_shows_where_the_database_is() {
        let defaults = Arc::new(Defaults::default());
        let settings = Settings::new(defaults.in_directory("/var/lib/kestrel"));
        let shown = settings.get("data_directory").ok();
        assert_eq!(shown, Some(("data_directory", "/var/lib/kestrel".into())));
        assert!(Arc::ptr_eq(&defaults.in_directory(""), &defaults));
    }

    #[test]
    fn synchronous_commit_takes_postgres_spellings() {
        let mut settings = Settings::new(Arc::default());
        for (given, shown) in [
            ("off", "off"),
            ("TRUE", "on"),
            ("0", "off"),
            ("yes", "on"),
            ("Remote_Apply", "remote_apply"),
            ("local", "local"),
        ] {
            assert!(settings.set("synchronous_commit", Some(given)).is_ok());
            assert_eq!(settings.value("synchronous_commit"), Some(shown));
        }
        let error = settings.set("synchronous_commit", Some("tru")).err();
        assert_eq!(
            error.and_then(|e| e.hint).as_deref(),
            Some("Available values: local, remote_write, remote_apply, on, off.")
        );
    }

    #[test]
    fn server_settings_cannot_be_set_or_reset_by_a_session() {
        let mut settings = Settings::new(Arc::default());
        for value in [Some("10min"), Some("garbage"), None] {
            let error = settings.set("checkpoint_timeout", value).err();
            assert_eq!(
                error.map(|e| (e.sqlstate(), e.message)),
                Some((
                    "55P02",
                    "parameter \"checkpoint_timeout\" cannot be changed now".into()
                ))
            );
        }
    }
}
