//! Schemas (PostgreSQL's namespaces) and the qualified names of the relations in them.
//!
//! Every table, view, sequence and index belongs to one schema, named by its OID so that
//! ALTER SCHEMA ... RENAME touches nothing but the schema itself. `public`, `pg_catalog` and
//! `information_schema` exist from the start with fixed OIDs (PostgreSQL's for the first
//! two); user objects may not be created in `pg_catalog`.

/// PostgreSQL's OID of `pg_catalog`.
pub const PG_CATALOG_OID: u32 = 11;
/// PostgreSQL's OID of `public`.
pub const PUBLIC_OID: u32 = 2200;
/// `information_schema`'s OID: PostgreSQL assigns it at initdb (13xxx); this one is fixed,
/// below the first user OID, so it never changes across restarts.
pub const INFORMATION_SCHEMA_OID: u32 = 13_000;
/// The owner of the schemas that exist from the start, as PostgreSQL's bootstrap superuser.
pub const BOOTSTRAP_OWNER: &str = "kestrel";
/// What a session's temporary schema is called, followed by the session's number. Users
/// cannot create a schema named `pg_...`, so the prefix alone marks a temporary schema (as
/// PostgreSQL's isAnyTempNamespace tells them).
const TEMP_SCHEMA_PREFIX: &str = "pg_temp_";
/// The alias of the session's own temporary schema in search_path and qualified names.
pub const PG_TEMP: &str = "pg_temp";

/// The name of the temporary schema of the session numbered `session`.
pub fn temp_schema_name(session: u64) -> String {
    format!("{TEMP_SCHEMA_PREFIX}{session}")
}

/// One schema: CREATE SCHEMA's name and owner, with its OID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaDef {
    pub oid: u32,
    pub name: String,
    pub owner: String,
    /// COMMENT ON SCHEMA.
    pub comment: Option<String>,
}

impl SchemaDef {
    /// The schemas every database has.
    pub fn builtin() -> [SchemaDef; 3] {
        let def = |oid, name: &str, comment: Option<&str>| SchemaDef {
            oid,
            name: name.to_string(),
            owner: BOOTSTRAP_OWNER.to_string(),
            comment: comment.map(str::to_string),
        };
        // With initdb's comments.
        [
            def(PG_CATALOG_OID, "pg_catalog", Some("system catalog schema")),
            def(PUBLIC_OID, "public", Some("standard public schema")),
            def(INFORMATION_SCHEMA_OID, "information_schema", None),
        ]
    }

    /// Schemas that only the system may change (drop, rename, create objects in).
    pub fn is_system(&self) -> bool {
        self.oid == PG_CATALOG_OID || self.oid == INFORMATION_SCHEMA_OID
    }

    /// A session's temporary schema: never logged nor checkpointed, dropped with its session.
    pub fn is_temporary(&self) -> bool {
        self.name.starts_with(TEMP_SCHEMA_PREFIX)
    }
}

/// A relation's name within its schema: the key of the relation namespace.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QualifiedName {
    pub schema: u32,
    pub name: String,
}

impl QualifiedName {
    pub fn new(schema: u32, name: impl Into<String>) -> QualifiedName {
        QualifiedName {
            schema,
            name: name.into(),
        }
    }

    /// A name in no schema, which no relation has: what a name found in no schema of the
    /// search path resolves to, for the caller to report missing.
    pub fn nowhere(name: impl Into<String>) -> QualifiedName {
        QualifiedName::new(0, name)
    }

    /// The key of the write lock of this name (locks are by name, see `Store::acquire`).
    pub fn lock_key(&self) -> String {
        format!("{}.{}", self.schema, self.name)
    }
}

/// PostgreSQL's messages name a relation without its schema.
impl std::fmt::Display for QualifiedName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}
