//! The settings of a durable database that are fixed when it opens.

use std::time::Duration;

/// How a durable database checkpoints. PostgreSQL's names: `checkpoint_timeout`,
/// `max_wal_size`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DurableOptions {
    /// A checkpoint starts at least this often while there are changes to write.
    pub checkpoint_timeout: Duration,
    /// A checkpoint starts once the log holds this many bytes since the last one.
    pub max_wal_size: u64,
}

impl Default for DurableOptions {
    fn default() -> Self {
        DurableOptions {
            checkpoint_timeout: Duration::from_secs(300),
            max_wal_size: 1 << 30,
        }
    }
}
