//! The public surface of the engine: [`Database`], [`Session`], prepared statements and
//! results. Everything an embedder or the wire server needs, and nothing else.

mod copy;
mod database;
mod query_cache;
mod result;
mod session;
mod settings;

pub use crate::plan::ColumnInfo;
pub use copy::{CopyChannel, NoCopyChannel};
pub use database::Database;
pub use result::{Notice, StatementResult};
pub use session::{CancelHandle, LockWaitProbe, PreparedStatement, Session, TransactionStatus};
pub use settings::{default_settable, SettingDoc};
pub(crate) use settings::{Listing, AUTHENTICATION_TIMEOUT, CHECKPOINT_TIMEOUT, MAX_WAL_SIZE};
