//! Extensions (CREATE EXTENSION): which of the extensions this server carries built in are
//! installed, so pg_extension and psql's `\dx` list them as PostgreSQL does. What an
//! extension provides is always there (pgvector's `vector` type and uuid-ossp's functions
//! work without it); installing one records it for the clients and scripts that ask for it.

use super::system::SUPERUSER_OID;
use super::PG_CATALOG_OID;

/// An installed extension: a pg_extension row.
#[derive(Debug, Clone, PartialEq)]
pub struct Extension {
    pub oid: u32,
    pub name: String,
    pub owner: u32,
    /// The schema its objects would be created in (pg_extension.extnamespace).
    pub schema: u32,
    pub version: String,
}

/// An extension this server can install: what pg_available_extensions lists.
#[derive(Debug, Clone, Copy)]
pub struct AvailableExtension {
    pub name: &'static str,
    pub version: &'static str,
    pub comment: &'static str,
    /// Whether CREATE EXTENSION ... SCHEMA may pick its schema (extrelocatable).
    pub relocatable: bool,
    /// Whether a role without superuser may install it (the control file's `trusted`).
    pub trusted: bool,
}

/// plpgsql as initdb installs it, with PostgreSQL 15's OID for its pg_extension row.
const PLPGSQL_OID: u32 = 13570;

/// The extensions built into this server. pgvector's version is the one whose operators
/// (`<+>`, L1 distance, came in 0.7.0) and functions this server has.
pub const AVAILABLE: &[AvailableExtension] = &[
    AvailableExtension {
        name: "file_fdw",
        version: "1.0",
        comment: "foreign-data wrapper for flat file access",
        relocatable: true,
        trusted: false,
    },
    AvailableExtension {
        name: "plpgsql",
        version: "1.0",
        comment: "PL/pgSQL procedural language",
        relocatable: false,
        trusted: true,
    },
    AvailableExtension {
        name: "uuid-ossp",
        version: "1.1",
        comment: "generate universally unique identifiers (UUIDs)",
        relocatable: true,
        trusted: true,
    },
    AvailableExtension {
        name: "vector",
        version: "0.7.0",
        comment: "vector data type and ivfflat and hnsw access methods",
        relocatable: true,
        trusted: false,
    },
];

impl Extension {
    /// The extensions a new database has: plpgsql, in pg_catalog, owned by the bootstrap
    /// superuser.
    pub fn initial() -> Vec<Extension> {
        vec![Extension {
            oid: PLPGSQL_OID,
            name: "plpgsql".to_string(),
            owner: SUPERUSER_OID,
            schema: PG_CATALOG_OID,
            version: "1.0".to_string(),
        }]
    }

    /// The built-in extension called `name`, if there is one.
    pub fn available(name: &str) -> Option<&'static AvailableExtension> {
        AVAILABLE.iter().find(|e| e.name == name)
    }
}
