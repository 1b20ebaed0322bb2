//! Foreign servers and foreign tables, the way file_fdw (PostgreSQL's contrib) has them: a
//! server names its foreign-data wrapper (only `file_fdw` exists here), and a foreign
//! table is a table whose rows are read from a file each time it is scanned, with the
//! columns it was declared with. The table itself is a `TableSchema` (so names,
//! privileges, pg_class and `\d` treat it like any relation) that stays empty; this is
//! what makes it foreign.

use crate::error::{Error, SqlState};

/// The one foreign-data wrapper: what `CREATE EXTENSION file_fdw` provides.
pub const FILE_FDW: &str = "file_fdw";

/// A CREATE SERVER: a pg_foreign_server row.
#[derive(Debug, Clone, PartialEq)]
pub struct ForeignServer {
    pub oid: u32,
    pub name: String,
    pub owner: u32,
    /// Its foreign-data wrapper's name.
    pub wrapper: String,
    /// `OPTIONS (name 'value', ...)`, in the order written.
    pub options: Vec<(String, String)>,
    /// Its CREATE USER MAPPINGs (pg_user_mapping rows), in the order created.
    pub user_mappings: Vec<UserMapping>,
}

/// A CREATE USER MAPPING: which role uses a server with which options. file_fdw reads
/// none, but applications and tools create them, and the catalogs show them.
#[derive(Debug, Clone, PartialEq)]
pub struct UserMapping {
    pub oid: u32,
    /// The role's OID; 0 for PUBLIC (every role without one of its own).
    pub role: u32,
    pub options: Vec<(String, String)>,
}

impl ForeignServer {
    /// 42704 for a server name that names none.
    pub fn missing(name: &str) -> Error {
        Error::new(
            SqlState::UndefinedObject,
            format!("server \"{name}\" does not exist"),
        )
    }

    /// The mapping of `role` (0 for PUBLIC), if there is one.
    pub fn user_mapping(&self, role: u32) -> Option<&UserMapping> {
        self.user_mappings.iter().find(|m| m.role == role)
    }
}

/// What makes a table foreign: its server and its `OPTIONS` (pg_foreign_table).
#[derive(Debug, Clone, PartialEq)]
pub struct ForeignTable {
    pub server: String,
    /// `OPTIONS (filename '...', format 'csv', ...)`, in the order written.
    pub options: Vec<(String, String)>,
}

impl UserMapping {
    /// 42704 for a role without a mapping (its own or PUBLIC's) for `server`.
    pub fn missing(user: &str, server: &str) -> Error {
        Error::new(
            SqlState::UndefinedObject,
            format!("user mapping for \"{user}\" does not exist for server \"{server}\""),
        )
    }
}

impl ForeignTable {
    /// The value of option `name`, if given.
    pub fn option(&self, name: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}
