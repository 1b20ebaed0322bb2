//! Who a statement runs for: the facts behind current_user, current_database(),
//! pg_backend_pid() and version(), set once per session (by the server from the startup
//! packet; defaults for an embedded session).

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, LazyLock};

use crate::plan::SessionInfo;
use crate::types::ScalarValue;

/// The version string version() returns: PostgreSQL's shape, so clients that parse it
/// (SQLAlchemy, pgx) see a 15.x server.
pub const VERSION: &str = concat!(
    "PostgreSQL 15.0 (KestrelDB ",
    env!("CARGO_PKG_VERSION"),
    ") on x86_64-pc-linux-gnu, 64-bit"
);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionIdentity {
    pub user: String,
    pub database: String,
    pub backend_pid: i32,
    /// The role `user` names (OID 10, the bootstrap superuser, for a trusted client that
    /// named no existing role; see `catalog::RoleCatalog`).
    pub role_oid: u32,
    /// The user the client connected as (`user` differs after SET ROLE).
    pub session_user: String,
}

/// A named prepared statement of the session, as pg_prepared_statements lists it.
#[derive(Debug, Clone)]
pub struct PreparedStatementRow {
    pub name: String,
    /// The text the client sent to create it: the query string holding its PREPARE, or
    /// the Parse message's query.
    pub statement: Arc<str>,
    /// When it was prepared, in microseconds since 2000-01-01 UTC (a timestamptz).
    pub prepare_micros: i64,
    /// The OIDs of its parameters' types.
    pub parameter_types: Vec<u32>,
    /// Made by SQL PREPARE rather than a protocol Parse message.
    pub from_sql: bool,
    /// How often it ran, shared with the statement: each run reuses the plan bound at
    /// PREPARE, which PostgreSQL would count as a generic plan.
    pub executions: Arc<AtomicU64>,
}

/// A cursor of the session, as pg_cursors lists it.
#[derive(Debug, Clone)]
pub struct CursorRow {
    pub name: String,
    /// The DECLARE statement.
    pub statement: String,
    pub holdable: bool,
    pub binary: bool,
    pub scrollable: bool,
    /// When it was declared, in microseconds since 2000-01-01 UTC (a timestamptz).
    pub creation_micros: i64,
}

impl Default for SessionIdentity {
    fn default() -> Self {
        SessionIdentity {
            user: "kestrel".to_string(),
            database: "kestrel".to_string(),
            backend_pid: i32::try_from(std::process::id()).unwrap_or(0),
            role_oid: crate::catalog::system::SUPERUSER_OID,
            session_user: "kestrel".to_string(),
        }
    }
}

/// One setting with the session's value, for SHOW, current_setting() and pg_settings.
#[derive(Debug, Clone)]
pub struct SettingRow {
    pub name: String,
    /// As SHOW spells it.
    pub setting: String,
    /// pg_settings' row; `None` for a setting it does not list (is_superuser, custom ones).
    pub listed: Option<ListedSetting>,
}

/// A setting's row of pg_settings, its values in its base unit (`300` for `5min`).
#[derive(Debug, Clone)]
pub struct ListedSetting {
    pub setting: String,
    pub short_desc: &'static str,
    pub source: &'static str,
    pub boot_val: String,
    pub reset_val: String,
    pub listing: &'static crate::api::Listing,
}

/// A `set_config(name, value, is_local)` a statement made: the session applies it once the
/// statement has run, as if by SET (or SET LOCAL).
#[derive(Debug, Clone)]
pub struct SettingChange {
    pub name: String,
    pub value: String,
    pub local: bool,
}

impl SessionIdentity {
    /// The session as the role catalog sees it.
    pub fn session_role(&self) -> crate::catalog::SessionRole {
        crate::catalog::SessionRole {
            name: self.user.clone(),
            role_oid: self.role_oid,
        }
    }

    /// The defaults, made once: a context nobody set an identity for (every statement's,
    /// until the session's replaces it) should not pay a getpid system call.
    pub fn shared_default() -> Arc<SessionIdentity> {
        static DEFAULT: LazyLock<Arc<SessionIdentity>> = LazyLock::new(Arc::default);
        DEFAULT.clone()
    }

    pub fn value(&self, info: SessionInfo) -> ScalarValue {
        match info {
            SessionInfo::User => ScalarValue::Text(self.user.clone()),
            SessionInfo::Database => ScalarValue::Text(self.database.clone()),
            SessionInfo::Version => ScalarValue::Text(VERSION.to_string()),
            SessionInfo::BackendPid => ScalarValue::Int32(self.backend_pid),
            SessionInfo::SessionUser => ScalarValue::Text(self.session_user.clone()),
        }
    }
}
