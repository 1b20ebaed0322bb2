//! The public surface of the engine: [`Database`], [`Session`], prepared statements and
//! results. Everything an embedder or the wire server needs, and nothing else.

mod database;
mod result;
mod session;

pub use database::Database;
pub use result::{ColumnInfo, Notice, StatementResult};
pub use session::{CancelHandle, PreparedStatement, Session, TransactionStatus};
