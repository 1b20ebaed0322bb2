//! `kestrel serve -c name=value`: settings as PostgreSQL's `postgres -c` takes them.
//! `checkpoint_timeout` and `max_wal_size` configure the durable database; every setting
//! (those two included, for SHOW) becomes the default of every session.

use std::fmt::Write;

use kestrel::durability::DurableOptions;
use kestrel::{Database, Error, SqlState};

/// Reads `name=value` like PostgreSQL: split at the first `=`, `-` in the name read as `_`.
pub(crate) fn parse_assignment(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) => Ok((name.replace('-', "_"), value.to_string())),
        None => Err(format!("-c {text} requires a value")),
    }
}

/// Every `-c` of a command line, checked before anything is opened.
pub(crate) struct ServerSettings {
    pub durable: DurableOptions,
    assignments: Vec<(String, String)>,
}

impl ServerSettings {
    /// Checks each assignment: an unknown name or a bad value is PostgreSQL's error.
    pub(crate) fn new(assignments: Vec<(String, String)>) -> Result<ServerSettings, Error> {
        let mut durable = DurableOptions::default();
        // Checked on a scratch database so that a mistake is reported before a data
        // directory is created or opened.
        let mut scratch = Database::in_memory();
        for (name, value) in &assignments {
            if name.eq_ignore_ascii_case("data_directory") {
                return Err(Error::new(
                    SqlState::CantChangeRuntimeParam,
                    "the data directory is chosen with --data-dir DIR",
                ));
            }
            durable.set(name, value)?;
            scratch.set_setting_default(name, value)?;
        }
        Ok(ServerSettings {
            durable,
            assignments,
        })
    }

    /// Makes every assignment a session default of `database`.
    pub(crate) fn apply(&self, database: &mut Database) -> Result<(), Error> {
        for (name, value) in &self.assignments {
            database.set_setting_default(name, value)?;
        }
        Ok(())
    }
}

/// `kestrel serve --help`'s list of settings, from the engine's own definitions.
pub(crate) fn help() -> String {
    let mut text = String::from(
        "Settings for -c NAME=VALUE (PostgreSQL's names and value syntax). Each becomes the \
         default of every session, which SET can change and RESET returns to, unless noted:\n",
    );
    for setting in kestrel::api::default_settable() {
        let default = if setting.default.is_empty() {
            "''"
        } else {
            setting.default
        };
        // Writing to a String cannot fail.
        let _ = write!(
            text,
            "\n  {} (default {default})\n      {}",
            setting.name, setting.description
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignments_split_at_the_first_equals_sign() {
        assert_eq!(
            parse_assignment("application_name=a=b"),
            Ok(("application_name".into(), "a=b".into()))
        );
        assert_eq!(
            parse_assignment("max-wal-size=2GB"),
            Ok(("max_wal_size".into(), "2GB".into()))
        );
        assert_eq!(
            parse_assignment("synchronous_commit"),
            Err("-c synchronous_commit requires a value".into())
        );
    }

    #[test]
    fn durable_settings_configure_the_database_and_show() {
        let assignments = vec![
            ("checkpoint_timeout".to_string(), "2min".to_string()),
            ("max_wal_size".to_string(), "512".to_string()),
            ("synchronous_commit".to_string(), "off".to_string()),
        ];
        let settings = ServerSettings::new(assignments);
        let Ok(settings) = settings else {
            panic!("valid settings were refused");
        };
        assert_eq!(settings.durable.checkpoint_timeout.as_secs(), 120);
        assert_eq!(settings.durable.max_wal_size, 512 << 20);
        let mut database = Database::in_memory();
        assert!(settings.apply(&mut database).is_ok());
        let session = database.connect();
        assert_eq!(
            session.setting("checkpoint_timeout").as_deref(),
            Some("2min")
        );
        assert_eq!(session.setting("max_wal_size").as_deref(), Some("512MB"));
        assert!(!session.synchronous_commit());
    }

    #[test]
    fn unknown_names_and_bad_values_are_postgres_errors() {
        let message = |name: &str, value: &str| {
            ServerSettings::new(vec![(name.to_string(), value.to_string())])
                .err()
                .map(|e| e.message)
        };
        assert_eq!(
            message("no_such", "1").as_deref(),
            Some("unrecognized configuration parameter \"no_such\"")
        );
        assert_eq!(
            message("checkpoint_timeout", "5").as_deref(),
            Some(
                "5 s is outside the valid range for parameter \"checkpoint_timeout\" (30 .. 86400)"
            )
        );
        assert_eq!(
            message("max_wal_size", "lots").as_deref(),
            Some("invalid value for parameter \"max_wal_size\": \"lots\"")
        );
        assert_eq!(
            message("data_directory", "/tmp").as_deref(),
            Some("the data directory is chosen with --data-dir DIR")
        );
    }

    #[test]
    fn help_lists_every_setting_with_its_default() {
        let help = help();
        for line in [
            "synchronous_commit (default on)",
            "checkpoint_timeout (default 5min)",
            "max_wal_size (default 1GB)",
            "application_name (default '')",
        ] {
            assert!(help.contains(line), "{line} missing from:\n{help}");
        }
        assert!(!help.contains("data_directory"));
    }
}
