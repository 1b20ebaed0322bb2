//! The store's view of durability: what a commit hands to the write-ahead log, and the log
//! operations the commit path waits on. The store knows nothing of files; an in-memory
//! database has no log at all.

use std::sync::Arc;

use super::{DbState, Map, Sequence, Store, TableEntry};
use crate::catalog::{
    CompositeType, Domain, EnumType, Extension, ForeignServer, FunctionDef, QualifiedName,
    RoleCatalog, SchemaDef, ViewDef,
};
use crate::error::Result;

/// One transaction's changes over `before`, the newest committed state.
pub struct CommitChanges<'a> {
    pub before: &'a DbState,
    /// Schemas created or renamed (`Some`) or dropped (`None`), by OID.
    pub schemas: &'a Map<u32, Option<Arc<SchemaDef>>>,
    /// Names created (`Some(oid)`), re-pointed or dropped (`None`).
    pub names: &'a Map<QualifiedName, Option<u32>>,
    /// New versions of tables (`None`: dropped).
    pub tables: &'a Map<u32, Option<Arc<TableEntry>>>,
    pub sequences: &'a Map<QualifiedName, Option<Arc<Sequence>>>,
    pub views: &'a Map<QualifiedName, Option<Arc<ViewDef>>>,
    /// Enum types created or altered (`Some`) or dropped (`None`), by OID.
    pub enum_types: &'a Map<u32, Option<Arc<EnumType>>>,
    /// Domains created or altered (`Some`) or dropped (`None`), by OID.
    pub domains: &'a Map<u32, Option<Arc<Domain>>>,
    /// Composite types created or renamed (`Some`) or dropped (`None`), by OID.
    pub composite_types: &'a Map<u32, Option<Arc<CompositeType>>>,
    /// The new role catalog, if the transaction changed it.
    pub roles: Option<&'a RoleCatalog>,
    /// SQL functions created or replaced (`Some`) or dropped (`None`), by OID.
    pub functions: &'a Map<u32, Option<Arc<FunctionDef>>>,
    /// Extensions installed (`Some`) or dropped (`None`), by name.
    pub extensions: &'a Map<String, Option<Arc<Extension>>>,
    /// Foreign servers created (`Some`) or dropped (`None`), by name.
    pub foreign_servers: &'a Map<String, Option<Arc<ForeignServer>>>,
    /// The next OID the store will hand out.
    pub next_oid: u32,
}

pub trait CommitLog: Send + Sync {
    /// Refuses writes once the log has failed.
    fn writable(&self) -> Result<()>;
    /// Called under the commit lock, in commit order: appends the commit's record and
    /// returns the LSN [`CommitLog::flush`] must reach for it to be durable.
    fn append(&self, changes: &CommitChanges<'_>) -> Result<u64>;
    /// Returns once the log is on disk up to `lsn`.
    fn flush(&self, lsn: u64) -> Result<()>;
    /// Writes a checkpoint of `store` and truncates the log behind it.
    fn checkpoint(&self, store: &Store) -> Result<()>;
    /// A clean shutdown's checkpoint: it also keeps unlogged tables' rows and every
    /// sequence counter, as a restart after it will.
    fn shutdown(&self, store: &Store) -> Result<()>;
}
