//! KestrelDB's engine: an embeddable PostgreSQL-compatible SQL database over columnar
//! memory. See ARCHITECTURE.md for the life of a query through the modules below.

pub mod api;
pub mod binder;
pub mod catalog;
pub mod durability;
pub mod error;
pub mod exec;
pub mod files;
pub mod function;
pub mod interrupt;
pub mod keywords;
pub mod optimizer;
pub mod parser;
pub mod physical;
pub mod plan;
pub mod storage;
mod sync;
pub mod types;
pub mod vector;

pub use api::{
    CancelHandle, ColumnInfo, CopyChannel, Database, LockWaitProbe, NoCopyChannel, Notice,
    PreparedStatement, Session, StatementResult, TransactionStatus,
};
pub use error::{Error, Result, SqlState};
