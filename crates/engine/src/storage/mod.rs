//! The column store: committed database versions, tables and their chunks, unique and
//! secondary indexes, and the transactions that write them.
//!
//! The committed state is one immutable [`DbState`] behind an `ArcSwap`: a reader clones one
//! `Arc` and is never blocked. A writer locks each table it changes (inserters together in
//! ROW EXCLUSIVE mode, other writers of a table one at a time; readers never wait), builds
//! new table versions privately, and COMMIT publishes them with a single pointer swap, after
//! rebasing an inserter's rows onto what other inserters committed meanwhile.

mod advisory;
mod commit_log;
mod generation_cache;
mod hnsw;
mod isolation;
mod locks;
mod namespace;
mod rebase;
mod secondary_index;
mod sequence;
mod state;
mod table_changes;
mod table_data;
mod transaction;
mod unique_index;
mod value_text;

pub use advisory::{AdvisoryKey, AdvisoryLocks};
pub use commit_log::{CommitChanges, CommitLog};
pub use generation_cache::{generations, GenerationCache, Lookup};
pub use hnsw::{HnswIndex, Nearest};
pub use isolation::Isolation;
pub use locks::{row_lock_name, LockManager, LockMode, Wait};
pub use namespace::{table_kind, RelationKind};
pub use secondary_index::{ChunkRows, SecondaryIndexes};
pub use sequence::{type_max, type_min, Sequence, SequenceOptions};
pub use state::{DbState, TableEntry};
pub use table_changes::TableChanges;
pub use table_data::{Chunk, TableData, ROW_ID_COLUMN};
pub use transaction::{Store, Transaction, TransactionMark, FIRST_USER_OID};
pub(crate) use unique_index::unique_key_text;
pub use unique_index::{build_unique_indexes, UniqueIndex};
pub use value_text::EnumTypes;
pub(crate) use value_text::{key_text, values_text};

/// The maps of names, OIDs and locks that every statement looks up and every commit copies:
/// foldhash, not SipHash (these keys are catalog names, not row data).
pub type Map<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// A set of such keys.
pub type Set<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;
