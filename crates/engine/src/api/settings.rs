//! Session settings (GUCs): the ones clients send at connect time and read with SHOW, with
//! PostgreSQL's names and defaults. Values we cannot honour are refused, never ignored.

use std::sync::Arc;

use crate::error::{Error, Result, SqlState};

struct Definition {
    /// PostgreSQL's canonical spelling (SHOW's column name, ParameterStatus name).
    name: &'static str,
    default: &'static str,
    /// Sent to the client in ParameterStatus when it changes.
    reported: bool,
    /// Refuses values whose behaviour we do not implement.
    check: fn(&str) -> Result<String>,
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

const DEFINITIONS: &[Definition] = &[
    Definition {
        name: "application_name",
        default: "",
        reported: true,
        check: any,
    },
    Definition {
        name: "client_encoding",
        default: "UTF8",
        reported: true,
        check: encoding,
    },
    Definition {
        name: "DateStyle",
        default: "ISO, MDY",
        reported: true,
        check: date_style,
    },
    Definition {
        name: "IntervalStyle",
        default: "postgres",
        reported: true,
        check: any,
    },
    Definition {
        name: "TimeZone",
        default: "UTC",
        reported: true,
        check: utc_only,
    },
    Definition {
        name: "extra_float_digits",
        default: "1",
        reported: false,
        check: float_digits,
    },
    Definition {
        name: "standard_conforming_strings",
        default: "on",
        reported: true,
        check: standard_strings,
    },
    Definition {
        name: "integer_datetimes",
        default: "on",
        reported: true,
        check: any,
    },
    Definition {
        name: "is_superuser",
        default: "on",
        reported: true,
        check: any,
    },
    Definition {
        name: "server_encoding",
        default: "UTF8",
        reported: true,
        check: any,
    },
    Definition {
        name: "server_version",
        default: "15.0",
        reported: true,
        check: any,
    },
    Definition {
        name: "server_version_num",
        default: "150000",
        reported: false,
        check: any,
    },
    Definition {
        name: "search_path",
        default: "\"$user\", public",
        reported: false,
        check: any,
    },
    Definition {
        name: "transaction_isolation",
        default: "read committed",
        reported: false,
        check: read_committed,
    },
    Definition {
        name: "default_transaction_isolation",
        default: "read committed",
        reported: false,
        check: read_committed,
    },
    Definition {
        name: "statement_timeout",
        default: "0",
        reported: false,
        check: any,
    },
    Definition {
        name: "lock_timeout",
        default: "0",
        reported: false,
        check: any,
    },
    Definition {
        name: "idle_in_transaction_session_timeout",
        default: "0",
        reported: false,
        check: any,
    },
    Definition {
        name: "client_min_messages",
        default: "notice",
        reported: false,
        check: any,
    },
    Definition {
        name: "bytea_output",
        default: "hex",
        reported: false,
        check: any,
    },
    Definition {
        name: "max_identifier_length",
        default: "63",
        reported: false,
        check: any,
    },
    Definition {
        name: "synchronous_commit",
        default: "on",
        reported: false,
        check: any,
    },
    Definition {
        name: "jit",
        default: "off",
        reported: false,
        check: any,
    },
    Definition {
        name: "kestrel.result_cache",
        default: "on",
        reported: false,
        check: on_off,
    },
    Definition {
        name: "kestrel.disabled_optimizer_rules",
        default: "",
        reported: false,
        check: optimizer_rules,
    },
    Definition {
        name: "kestrel.max_recursive_iterations",
        default: "1000000",
        reported: false,
        check: positive_integer,
    },
];

/// One session's setting values.
#[derive(Clone)]
pub struct Settings {
    /// Shared until changed: a transaction keeps a copy of the settings at BEGIN (every
    /// autocommit statement is one), which should not copy every value.
    values: Arc<Vec<String>>,
    /// Custom `prefix.name` settings PostgreSQL accepts without knowing them.
    custom: Vec<(String, String)>,
    changed: Vec<usize>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            values: Arc::new(DEFINITIONS.iter().map(|d| d.default.to_string()).collect()),
            custom: Vec::new(),
            changed: Vec::new(),
        }
    }
}

fn find(name: &str) -> Option<usize> {
    DEFINITIONS
        .iter()
        .position(|d| d.name.eq_ignore_ascii_case(name))
}

fn unrecognized(name: &str) -> Error {
    Error::new(
        SqlState::UndefinedObject,
        format!("unrecognized configuration parameter \"{name}\""),
    )
}

impl Settings {
    /// `SET name = value`, or back to the default with `None`.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<()> {
        let Some(index) = find(name) else {
            if name.contains('.') {
                self.custom.retain(|(n, _)| n != name);
                if let Some(value) = value {
                    self.custom.push((name.to_string(), value.to_string()));
                }
                return Ok(());
            }
            return Err(unrecognized(name));
        };
        let definition = &DEFINITIONS[index];
        let value = match value {
            Some(v) => (definition.check)(v)?,
            None => definition.default.to_string(),
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
        for (index, definition) in DEFINITIONS.iter().enumerate() {
            if definition.reported
                && self.values[index] != definition.default
                && !self.changed.contains(&index)
            {
                self.changed.push(index);
            }
        }
        self.values = Settings::default().values;
        self.custom.clear();
    }

    /// Goes back to `saved` (ROLLBACK undoes SET), reporting what that changes.
    pub fn restore(&mut self, saved: Settings) {
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

    /// Reported settings changed since the last call.
    pub fn take_changes(&mut self) -> Vec<(String, String)> {
        self.changed
            .drain(..)
            .map(|i| (DEFINITIONS[i].name.to_string(), self.values[i].clone()))
            .collect()
    }
}
