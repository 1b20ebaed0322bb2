//! Settings (GUCs): the ones clients send at connect time and read with SHOW, with
//! PostgreSQL's names and defaults, and the server-wide defaults sessions start from.
//! Values we cannot honour are refused, never ignored.

mod checks;
mod listing;
mod planner;
mod units;

use crate::exec::{ListedSetting, SettingRow};
use std::sync::{Arc, OnceLock};

use crate::error::{Error, Result, SqlState};

use checks::{
    any, authentication_timeout, bytea_output, checkpoint_timeout, date_style, deadlock_timeout,
    default_tablespace, default_transaction_isolation, encoding, english_messages, float_digits,
    force_parallel_mode, hnsw_ef_search, idle_in_transaction_session_timeout, idle_session_timeout,
    interval_style, lock_timeout, max_wal_size, non_negative_integer, on_off, optimizer_rules,
    parallel_min_rows, parallel_workers, password_encryption, positive_integer, query_memory_limit,
    search_path, standard_strings, statement_timeout, synchronous_commit, table_access_method,
    time_zone, transaction_isolation, xml_option,
};
pub(crate) use listing::Listing;
pub(crate) use units::{
    UnitSetting, AUTHENTICATION_TIMEOUT, CHECKPOINT_TIMEOUT, IDLE_IN_TRANSACTION_SESSION_TIMEOUT,
    IDLE_SESSION_TIMEOUT, LOCK_TIMEOUT, MAX_WAL_SIZE, QUERY_MEMORY_LIMIT, STATEMENT_TIMEOUT,
};

/// Where a setting may be changed: PostgreSQL's GucContext, for the four we have.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    /// By SET, the startup message and the server's defaults (PGC_USERSET).
    User,
    /// Only by the server's defaults (PGC_SIGHUP: postgresql.conf or `postgres -c`).
    Server,
    /// Fixed when the database opens (PGC_POSTMASTER).
    Open,
    /// Never changed: facts about the server (PGC_INTERNAL).
    Internal,
}

/// Where a value came from, as pg_settings' source names it (PostgreSQL's GucSource).
pub(crate) mod source {
    pub const DEFAULT: &str = "default";
    /// `kestrel serve -c`, PostgreSQL's `postgres -c`.
    pub const COMMAND_LINE: &str = "command line";
    /// The client's startup message.
    pub const CLIENT: &str = "client";
    pub const SESSION: &str = "session";
}

/// How a setting's value is checked and spelled for SHOW.
#[derive(Clone, Copy)]
enum Check {
    Custom(fn(&str) -> Result<String>),
    /// One of PostgreSQL's planner settings (see [`planner`]).
    Planner(&'static planner::Kind),
}

#[derive(Clone, Copy)]
struct Definition {
    /// PostgreSQL's canonical spelling (SHOW's column name, ParameterStatus name).
    name: &'static str,
    default: &'static str,
    /// Sent to the client in ParameterStatus when it changes.
    reported: bool,
    context: Context,
    /// Refuses values whose behaviour we do not implement.
    check: Check,
    /// One line for `kestrel serve --help`.
    description: &'static str,
}

const DEFINITIONS: &[Definition] = &[
    Definition {
        name: "application_name",
        default: "",
        reported: true,
        context: Context::User,
        check: Check::Custom(any),
        description: "Sets the application name to be reported in statistics and logs.",
    },
    Definition {
        name: "client_encoding",
        default: "UTF8",
        reported: true,
        context: Context::User,
        check: Check::Custom(encoding),
        description: "Sets the client's character set encoding (UTF8 only).",
    },
    Definition {
        name: "DateStyle",
        default: "ISO, MDY",
        reported: true,
        context: Context::User,
        check: Check::Custom(date_style),
        description: "Sets the display format for date and time values.",
    },
    Definition {
        name: "IntervalStyle",
        default: "postgres",
        reported: true,
        context: Context::User,
        check: Check::Custom(interval_style),
        description: "Sets the display format for interval values.",
    },
    Definition {
        name: "TimeZone",
        default: "UTC",
        reported: true,
        context: Context::User,
        check: Check::Custom(time_zone),
        description: "Sets the time zone for displaying and interpreting time stamps.",
    },
    Definition {
        name: "extra_float_digits",
        default: "1",
        reported: false,
        context: Context::User,
        check: Check::Custom(float_digits),
        description: "Sets the number of digits displayed for floating-point values (1 to 3).",
    },
    Definition {
        name: "standard_conforming_strings",
        default: "on",
        reported: true,
        context: Context::User,
        check: Check::Custom(standard_strings),
        description: "Causes '...' strings to treat backslashes literally (on only).",
    },
    Definition {
        name: "integer_datetimes",
        default: "on",
        reported: true,
        context: Context::Internal,
        check: Check::Custom(any),
        description: "Shows whether datetimes are integer based.",
    },
    Definition {
        name: "is_superuser",
        default: "on",
        reported: true,
        context: Context::Internal,
        check: Check::Custom(any),
        description: "Shows whether the current user is a superuser.",
    },
    Definition {
        name: "server_encoding",
        default: "UTF8",
        reported: true,
        context: Context::Internal,
        check: Check::Custom(any),
        description: "Shows the server (database) character set encoding.",
    },
    Definition {
        name: "server_version",
        default: "15.0",
        reported: true,
        context: Context::Internal,
        check: Check::Custom(any),
        description: "Shows the PostgreSQL version the server is compatible with.",
    },
    Definition {
        name: "server_version_num",
        default: "150000",
        reported: false,
        context: Context::Internal,
        check: Check::Custom(any),
        description: "Shows the PostgreSQL version as an integer.",
    },
    Definition {
        name: "in_hot_standby",
        default: "off",
        reported: true,
        context: Context::Internal,
        check: Check::Custom(any),
        description: "Shows whether hot standby is currently active.",
    },
    Definition {
        name: "default_transaction_read_only",
        default: "off",
        reported: true,
        context: Context::User,
        check: Check::Custom(on_off),
        description: "Sets the default read-only status of new transactions.",
    },
    Definition {
        name: "transaction_read_only",
        default: "off",
        reported: false,
        context: Context::User,
        check: Check::Custom(on_off),
        description: "Sets the current transaction's read-only status.",
    },
    Definition {
        name: "default_transaction_deferrable",
        default: "off",
        reported: false,
        context: Context::User,
        check: Check::Custom(on_off),
        description: "Sets the default deferrable status of new transactions (no effect: no snapshot of a read-only transaction can fail).",
    },
    Definition {
        name: "transaction_deferrable",
        default: "off",
        reported: false,
        context: Context::User,
        check: Check::Custom(on_off),
        description: "Whether to defer a read-only serializable transaction (no effect: no snapshot of a read-only transaction can fail).",
    },
    Definition {
        name: "lc_messages",
        default: "C.UTF-8",
        reported: false,
        context: Context::User,
        check: Check::Custom(english_messages),
        description: "Sets the language in which messages are displayed (English only).",
    },
    Definition {
        name: "search_path",
        default: "\"$user\", public",
        reported: false,
        context: Context::User,
        check: Check::Custom(search_path),
        description: "Sets the schema search order for names that are not schema-qualified.",
    },
    Definition {
        name: "transaction_isolation",
        default: "read committed",
        reported: false,
        context: Context::User,
        check: Check::Custom(transaction_isolation),
        description: "Sets the current transaction's isolation level.",
    },
    Definition {
        name: "default_transaction_isolation",
        default: "read committed",
        reported: false,
        context: Context::User,
        check: Check::Custom(default_transaction_isolation),
        description: "Sets the transaction isolation level of each new transaction.",
    },
    Definition {
        name: "statement_timeout",
        default: "0",
        reported: false,
        context: Context::User,
        check: Check::Custom(statement_timeout),
        description: "Sets the maximum allowed duration of any statement.",
    },
    Definition {
        name: "lock_timeout",
        default: "0",
        reported: false,
        context: Context::User,
        check: Check::Custom(lock_timeout),
        description: "Sets the maximum allowed duration of any wait for a lock.",
    },
    Definition {
        name: "deadlock_timeout",
        default: "1s",
        reported: false,
        context: Context::User,
        check: Check::Custom(deadlock_timeout),
        description: "Accepted for tests that set it; deadlocks are found when a wait begins.",
    },
    Definition {
        name: "idle_in_transaction_session_timeout",
        default: "0",
        reported: false,
        context: Context::User,
        check: Check::Custom(idle_in_transaction_session_timeout),
        description: "Sets the maximum allowed idle time between queries, when in a transaction.",
    },
    Definition {
        name: "idle_session_timeout",
        default: "0",
        reported: false,
        context: Context::User,
        check: Check::Custom(idle_session_timeout),
        description: "Sets the maximum allowed idle time between queries, when not in a transaction.",
    },
    Definition {
        name: "check_function_bodies",
        default: "on",
        reported: false,
        context: Context::User,
        check: Check::Custom(on_off),
        description: "Checks routine bodies during CREATE FUNCTION (there are no user functions).",
    },
    Definition {
        name: "synchronize_seqscans",
        default: "on",
        reported: false,
        context: Context::User,
        check: Check::Custom(on_off),
        description: "Lets concurrent scans share their reads (scans here always start at the first row).",
    },
    Definition {
        name: "xmloption",
        default: "content",
        reported: false,
        context: Context::User,
        check: Check::Custom(xml_option),
        description: "Sets whether XML data is a document or content (content only).",
    },
    Definition {
        name: "row_security",
        default: "on",
        reported: false,
        context: Context::User,
        check: Check::Custom(on_off),
        description: "Enables row security (there are no row security policies).",
    },
    Definition {
        name: "default_tablespace",
        default: "",
        reported: false,
        context: Context::User,
        check: Check::Custom(default_tablespace),
        description: "Sets the tablespace new tables go to (the default one only).",
    },
    Definition {
        name: "default_table_access_method",
        default: "heap",
        reported: false,
        context: Context::User,
        check: Check::Custom(table_access_method),
        description: "Sets the access method of new tables (heap only).",
    },
    Definition {
        name: "client_min_messages",
        default: "notice",
        reported: false,
        context: Context::User,
        check: Check::Custom(any),
        description: "Sets the message levels that are sent to the client.",
    },
    Definition {
        name: "bytea_output",
        default: "hex",
        reported: false,
        context: Context::User,
        check: Check::Custom(bytea_output),
        description: "Sets the output format for bytea.",
    },
    Definition {
        name: "max_identifier_length",
        default: "63",
        reported: false,
        context: Context::Internal,
        check: Check::Custom(any),
        description: "Shows the maximum identifier length.",
    },
    Definition {
        name: "synchronous_commit",
        default: "on",
        reported: false,
        context: Context::User,
        check: Check::Custom(synchronous_commit),
        description: "Sets the current transaction's synchronization level: off answers COMMIT before its log record is on disk.",
    },
    Definition {
        name: "jit",
        default: "off",
        reported: false,
        context: Context::User,
        check: Check::Custom(any),
        description: "Accepted for clients that set it; there is no JIT compilation.",
    },
    Definition {
        name: "kestrel.result_cache",
        default: "on",
        reported: false,
        context: Context::User,
        check: Check::Custom(on_off),
        description: "Serves repeated queries from the result cache.",
    },
    Definition {
        name: "kestrel.concurrent_writes",
        default: "off",
        reported: false,
        context: Context::User,
        check: Check::Custom(on_off),
        description: "Lets this session's INSERT ... VALUES, UPDATE and DELETE share their table with other writers of its rows instead of locking it.",
    },
    Definition {
        name: "kestrel.disabled_optimizer_rules",
        default: "",
        reported: false,
        context: Context::User,
        check: Check::Custom(optimizer_rules),
        description: "Optimizer rules to skip, comma-separated, or all.",
    },
    Definition {
        name: "kestrel.max_recursive_iterations",
        default: "1000000",
        reported: false,
        context: Context::User,
        check: Check::Custom(positive_integer),
        description: "WITH RECURSIVE stops with 54000 after this many rounds.",
    },
    Definition {
        name: "kestrel.query_memory_limit",
        default: "0",
        reported: false,
        context: Context::User,
        check: Check::Custom(query_memory_limit),
        description: "A statement needing more working memory fails with 53200; 0: a quarter of the server's limit.",
    },
    Definition {
        name: "hnsw.ef_search",
        default: "40",
        reported: false,
        context: Context::User,
        check: Check::Custom(hnsw_ef_search),
        description: "Sets the size of the dynamic candidate list for search",
    },
    Definition {
        name: "checkpoint_timeout",
        default: "5min",
        reported: false,
        context: Context::Server,
        check: Check::Custom(checkpoint_timeout),
        description: "Sets the maximum time between automatic checkpoints (30s to 1d; not by SET).",
    },
    Definition {
        name: "max_wal_size",
        default: "1GB",
        reported: false,
        context: Context::Server,
        check: Check::Custom(max_wal_size),
        description: "Sets the log size that triggers a checkpoint (at least 2MB; not by SET).",
    },
    Definition {
        name: "data_directory",
        default: "",
        reported: false,
        context: Context::Open,
        check: Check::Custom(any),
        description: "Shows the data directory; empty for an in-memory database.",
    },
    Definition {
        name: "max_connections",
        default: "100",
        reported: false,
        context: Context::Server,
        check: Check::Custom(positive_integer),
        description: "Sets the maximum number of concurrent connections (a server's, not by SET).",
    },
    Definition {
        name: "authentication_timeout",
        default: "1min",
        reported: false,
        context: Context::Server,
        check: Check::Custom(authentication_timeout),
        description: "Sets the maximum allowed time to complete client authentication.",
    },
    Definition {
        name: "password_encryption",
        default: "scram-sha-256",
        reported: false,
        context: Context::User,
        check: Check::Custom(password_encryption),
        description: "Chooses the algorithm for encrypting passwords.",
    },
    Definition {
        name: "superuser_reserved_connections",
        default: "3",
        reported: false,
        context: Context::Server,
        check: Check::Custom(non_negative_integer),
        description: "Sets the number of connection slots reserved for superusers.",
    },
    Definition {
        name: "role",
        default: "none",
        reported: false,
        context: Context::User,
        check: Check::Custom(any),
        description: "Sets the current role (SET ROLE; the session's user must be a member of it).",
    },
    Definition {
        name: "ssl",
        default: "off",
        reported: false,
        context: Context::Server,
        check: Check::Custom(on_off),
        description: "Enables SSL connections.",
    },
    Definition {
        name: "ssl_cert_file",
        default: "server.crt",
        reported: false,
        context: Context::Server,
        check: Check::Custom(any),
        description: "Location of the SSL server certificate file.",
    },
    Definition {
        name: "ssl_key_file",
        default: "server.key",
        reported: false,
        context: Context::Server,
        check: Check::Custom(any),
        description: "Location of the SSL server private key file.",
    },
    Definition {
        name: "max_parallel_workers_per_gather",
        // Replaced by the pool's size less the statement's own thread (Defaults::default).
        default: "2",
        reported: false,
        context: Context::User,
        check: Check::Custom(parallel_workers),
        description: "Sets the maximum number of helper threads one parallel pipeline may use; 0: serial.",
    },
    Definition {
        name: "force_parallel_mode",
        default: "off",
        reported: false,
        context: Context::User,
        check: Check::Custom(force_parallel_mode),
        description: "Runs every parallel-safe pipeline in parallel, one row per morsel (on, regress: EXPLAIN hides the Gather).",
    },
    Definition {
        name: "kestrel.parallel_min_rows",
        default: "100000",
        reported: false,
        context: Context::User,
        check: Check::Custom(parallel_min_rows),
        description: "Pipelines reading fewer rows run on one thread.",
    },
];

/// Every setting: ours above, then PostgreSQL's planner settings (see [`planner`]).
fn definitions() -> &'static [Definition] {
    static ALL: std::sync::LazyLock<Vec<Definition>> = std::sync::LazyLock::new(|| {
        let planner = planner::SETTINGS.iter().map(|setting| Definition {
            name: setting.name,
            default: setting.default,
            reported: false,
            context: Context::User,
            check: Check::Planner(&setting.kind),
            description: planner::DESCRIPTION,
        });
        DEFINITIONS.iter().copied().chain(planner).collect()
    });
    &ALL
}

impl Definition {
    /// The value SHOW shows for `value`, or why it is refused.
    fn check(&self, value: &str) -> Result<String> {
        match self.check {
            Check::Custom(check) => check(value),
            Check::Planner(kind) => kind.check(self.name, value),
        }
    }
}

/// A setting that a server's defaults can set, for help texts.
pub struct SettingDoc {
    pub name: &'static str,
    pub default: &'static str,
    pub description: &'static str,
}

/// Every setting [`crate::Database::set_setting_default`] accepts, in a stable order.
pub fn default_settable() -> impl Iterator<Item = SettingDoc> {
    definitions()
        .iter()
        .filter(|d| !matches!(d.context, Context::Open | Context::Internal))
        .filter(|d| !matches!(d.check, Check::Planner(_)))
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
    /// Where each value came from (pg_settings' source).
    sources: Arc<Vec<&'static str>>,
    /// Custom `prefix.name` settings, as PostgreSQL accepts them in its configuration.
    custom: Vec<(String, String)>,
}

/// The built-in defaults (pg_settings' boot_val), made once.
static BOOT: std::sync::LazyLock<Defaults> = std::sync::LazyLock::new(|| {
    let mut values: Vec<String> = definitions()
        .iter()
        .map(|d| d.default.to_string())
        .collect();
    if let Some(index) = find("max_parallel_workers_per_gather") {
        let helpers = crate::exec::parallel::pool_threads().saturating_sub(1);
        values[index] = helpers.to_string();
    }
    Defaults {
        sources: Arc::new(vec![source::DEFAULT; values.len()]),
        values: Arc::new(values),
        custom: Vec::new(),
    }
});

impl Default for Defaults {
    fn default() -> Self {
        BOOT.clone()
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
        let definition = &definitions()[index];
        if matches!(definition.context, Context::Open | Context::Internal) {
            return Err(cannot_change(definition));
        }
        Arc::make_mut(&mut self.values)[index] = definition.check(value)?;
        Arc::make_mut(&mut self.sources)[index] = source::COMMAND_LINE;
        Ok(())
    }

    /// The default of setting `name`, if it is one.
    pub(crate) fn value(&self, name: &str) -> Option<&str> {
        find(name).map(|index| self.values[index].as_str())
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
    /// Where each value came from (pg_settings' source).
    sources: Arc<Vec<&'static str>>,
    /// Custom `prefix.name` settings PostgreSQL accepts without knowing them.
    custom: Vec<(String, String)>,
    changed: Vec<usize>,
    /// Settings SET LOCAL in the open transaction, with the value (and its source) each
    /// goes back to when it commits: the one before, or what a later plain SET chose.
    local_restore: Vec<(usize, String, &'static str)>,
    /// What the client was last told of each reported setting: a change that comes back
    /// to it (SET then ROLLBACK) is not reported again, as in PostgreSQL.
    last_reported: Arc<Vec<String>>,
    defaults: Arc<Defaults>,
    /// The server's defaults, before a session's own (its role's, its client's).
    server_defaults: Arc<Defaults>,
    /// What [`Settings::rows`] last made, until a value changes: statements take it along
    /// for the price of a reference count.
    rows: OnceLock<Arc<Vec<SettingRow>>>,
}

fn find(name: &str) -> Option<usize> {
    definitions()
        .iter()
        .position(|d| d.name.eq_ignore_ascii_case(name))
}

/// PostgreSQL's refusal to SET a setting that is not the session's to change; what it says
/// follows PostgreSQL's context of the setting where pg_settings lists one (max_connections
/// is only ever set by the server's defaults here, and a postmaster setting there).
fn cannot_change(definition: &Definition) -> Error {
    let postmaster = listing::listing(definition.name).is_some_and(|l| l.context == "postmaster");
    let when = match definition.context {
        Context::Internal => "",
        Context::Open => " without restarting the server",
        Context::User | Context::Server if postmaster => " without restarting the server",
        Context::User | Context::Server => " now",
    };
    Error::new(
        SqlState::CantChangeRuntimeParam,
        format!("parameter \"{}\" cannot be changed{when}", definition.name),
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
            sources: defaults.sources.clone(),
            custom: defaults.custom.clone(),
            changed: Vec::new(),
            local_restore: Vec::new(),
            last_reported: defaults.values.clone(),
            server_defaults: defaults.clone(),
            defaults,
            rows: OnceLock::new(),
        }
    }

    /// The settings of a session starting over: the server's defaults.
    pub(crate) fn restarted(&self) -> Settings {
        Settings::new(self.server_defaults.clone())
    }

    /// `SET name = value`, or back to the server's default with `None`.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<()> {
        self.set_from(name, value, source::SESSION)
    }

    /// `set`, the value coming from `source` (a reset's from the default's).
    fn set_from(&mut self, name: &str, value: Option<&str>, source: &'static str) -> Result<()> {
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
        let definition = &definitions()[index];
        if definition.context != Context::User {
            return Err(cannot_change(definition));
        }
        let (value, source) = match value {
            Some(v) => (definition.check(v)?, source),
            None => (
                self.defaults.values[index].clone(),
                self.defaults.sources[index],
            ),
        };
        let restore = self.local_restore.iter_mut().find(|(i, ..)| *i == index);
        if let Some((_, after_commit, after_source)) = restore {
            *after_commit = value.clone();
            *after_source = source;
        }
        self.assign(index, value, source);
        Ok(())
    }

    /// SET LOCAL: `set` until the transaction ends ([`Settings::end_transaction`]).
    pub fn set_local(&mut self, name: &str, value: Option<&str>) -> Result<()> {
        let Some(index) = find(name) else {
            return match name.contains('.') {
                true => Err(Error::unsupported("SET LOCAL of a custom setting")),
                false => Err(unrecognized(name)),
            };
        };
        let before = (self.values[index].clone(), self.sources[index]);
        let kept = std::mem::take(&mut self.local_restore);
        let outcome = self.set(name, value);
        self.local_restore = kept;
        outcome?;
        if !self.local_restore.iter().any(|(i, ..)| *i == index) {
            self.local_restore.push((index, before.0, before.1));
        }
        Ok(())
    }

    /// A committed transaction's SET LOCALs end.
    pub fn end_transaction(&mut self) {
        for (index, value, source) in std::mem::take(&mut self.local_restore) {
            self.assign(index, value, source);
        }
    }

    /// Stores a checked value, noting a reported setting's change.
    fn assign(&mut self, index: usize, value: String, source: &'static str) {
        let definition = &definitions()[index];
        if self.sources[index] != source {
            self.rows = OnceLock::new();
            Arc::make_mut(&mut self.sources)[index] = source;
        }
        if self.values[index] != value {
            self.rows = OnceLock::new();
            Arc::make_mut(&mut self.values)[index] = value;
            if definition.reported && !self.changed.contains(&index) {
                self.changed.push(index);
            }
        }
    }

    /// The value and canonical name for SHOW.
    pub fn get(&self, name: &str) -> Result<(&'static str, String)> {
        match find(name) {
            Some(index) => Ok((definitions()[index].name, self.values[index].clone())),
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

    /// `search_path`, read by every statement: found once, not by name each time.
    pub fn search_path(&self) -> &str {
        static INDEX: std::sync::LazyLock<Option<usize>> =
            std::sync::LazyLock::new(|| find("search_path"));
        INDEX.map_or("", |index| self.values[index].as_str())
    }

    /// `RESET ALL`.
    pub fn reset_all(&mut self) {
        self.rows = OnceLock::new();
        for (index, definition) in definitions().iter().enumerate() {
            if definition.reported
                && self.values[index] != self.defaults.values[index]
                && !self.changed.contains(&index)
            {
                self.changed.push(index);
            }
        }
        self.values = self.defaults.values.clone();
        self.sources = self.defaults.sources.clone();
        self.custom = self.defaults.custom.clone();
        for (index, after_commit, after_source) in &mut self.local_restore {
            after_commit.clone_from(&self.values[*index]);
            *after_source = self.sources[*index];
        }
    }

    /// Goes back to `saved` (ROLLBACK undoes SET), reporting what that changes.
    pub fn restore(&mut self, saved: Settings) {
        self.rows = OnceLock::new();
        for (index, definition) in definitions().iter().enumerate() {
            if definition.reported
                && self.values[index] != saved.values[index]
                && !self.changed.contains(&index)
            {
                self.changed.push(index);
            }
        }
        self.values = saved.values;
        self.sources = saved.sources;
        self.custom = saved.custom;
        self.local_restore = saved.local_restore;
    }

    /// A setting from the client's startup packet or kept by ALTER ROLE / DATABASE ... SET
    /// (`source` says which): also what RESET goes back to in this session, as in PostgreSQL.
    pub fn set_session_default(
        &mut self,
        name: &str,
        value: &str,
        source: &'static str,
    ) -> Result<()> {
        self.set_from(name, Some(value), source)?;
        let Some(index) = find(name) else {
            let mut defaults = Defaults::clone(&self.defaults);
            defaults.custom.retain(|(n, _)| n != name);
            defaults.custom.push((name.to_string(), value.to_string()));
            self.defaults = Arc::new(defaults);
            return Ok(());
        };
        let mut defaults = Defaults::clone(&self.defaults);
        Arc::make_mut(&mut defaults.values)[index] = self.values[index].clone();
        Arc::make_mut(&mut defaults.sources)[index] = source;
        self.defaults = Arc::new(defaults);
        Ok(())
    }

    /// Every setting with its current value, for pg_settings and current_setting().
    pub(crate) fn rows(&self) -> Arc<Vec<SettingRow>> {
        self.rows.get_or_init(|| Arc::new(self.make_rows())).clone()
    }

    fn make_rows(&self) -> Vec<SettingRow> {
        let built_in = definitions().iter().enumerate().map(|(index, d)| {
            let value = &self.values[index];
            let listed = listing::listing(d.name).map(|listing| {
                let in_unit = |value: &str| match listing.unit {
                    Some(unit) => units::in_base_unit(unit, value)
                        .map_or_else(|| value.to_string(), |base| base.to_string()),
                    None => value.to_string(),
                };
                ListedSetting {
                    setting: in_unit(value),
                    short_desc: listing.short_desc.unwrap_or(d.description),
                    source: self.sources[index],
                    boot_val: in_unit(&BOOT.values[index]),
                    reset_val: in_unit(&self.defaults.values[index]),
                    listing,
                }
            });
            SettingRow {
                name: d.name.to_string(),
                setting: value.clone(),
                listed,
            }
        });
        // Custom settings are placeholders, which pg_settings does not list.
        let custom = self.custom.iter().map(|(name, value)| SettingRow {
            name: name.clone(),
            setting: value.clone(),
            listed: None,
        });
        built_in.chain(custom).collect()
    }

    /// Reported settings whose value differs from the one last reported.
    pub fn take_changes(&mut self) -> Vec<(String, String)> {
        let mut changes = Vec::new();
        for index in std::mem::take(&mut self.changed) {
            let value = &self.values[index];
            if *value != self.last_reported[index] {
                Arc::make_mut(&mut self.last_reported)[index] = value.clone();
                changes.push((definitions()[index].name.to_string(), value.clone()));
            }
        }
        changes
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
    fn pg_settings_names_where_each_value_came_from() {
        let mut defaults = Defaults::default();
        assert!(defaults.set("work_mem", "8MB").is_ok());
        let mut settings = Settings::new(Arc::new(defaults));
        let source = |settings: &Settings, name: &str| {
            let rows = settings.rows();
            let row = rows.iter().find(|row| row.name == name);
            row.and_then(|row| row.listed.as_ref())
                .map(|listed| listed.source)
        };
        assert_eq!(source(&settings, "work_mem"), Some("command line"));
        assert_eq!(source(&settings, "lock_timeout"), Some("default"));
        assert!(settings
            .set_session_default("lock_timeout", "1s", super::source::CLIENT)
            .is_ok());
        assert!(settings.set("lock_timeout", Some("2s")).is_ok());
        assert_eq!(source(&settings, "lock_timeout"), Some("session"));
        assert!(settings.set("lock_timeout", None).is_ok());
        assert_eq!(source(&settings, "lock_timeout"), Some("client"));
        settings.reset_all();
        assert_eq!(source(&settings, "lock_timeout"), Some("client"));
        assert_eq!(source(&settings, "is_superuser"), None);
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
