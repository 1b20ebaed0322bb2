//! The settings of a durable database that are fixed when it opens.

use std::time::Duration;

use crate::api::{CHECKPOINT_TIMEOUT, MAX_WAL_SIZE};
use crate::error::Result;

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

impl DurableOptions {
    /// Sets `checkpoint_timeout` or `max_wal_size` from a PostgreSQL-style value (`300`,
    /// `5min`; `1024`, `1GB`), with PostgreSQL's ranges and messages. `Ok(false)` for any
    /// other name, which is no option of ours.
    pub fn set(&mut self, name: &str, value: &str) -> Result<bool> {
        if name.eq_ignore_ascii_case(CHECKPOINT_TIMEOUT.name) {
            let seconds = CHECKPOINT_TIMEOUT.parse(value)?;
            self.checkpoint_timeout = Duration::from_secs(seconds.unsigned_abs());
        } else if name.eq_ignore_ascii_case(MAX_WAL_SIZE.name) {
            let megabytes = MAX_WAL_SIZE.parse(value)?;
            self.max_wal_size = megabytes.unsigned_abs() << 20;
        } else {
            return Ok(false);
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postgres_values_set_the_options() {
        let mut options = DurableOptions::default();
        assert_eq!(options.set("checkpoint_timeout", "90s").ok(), Some(true));
        assert_eq!(options.set("max_wal_size", "64MB").ok(), Some(true));
        assert_eq!(options.checkpoint_timeout, Duration::from_secs(90));
        assert_eq!(options.max_wal_size, 64 << 20);
        assert_eq!(options.set("work_mem", "4MB").ok(), Some(false));
        assert!(options.set("checkpoint_timeout", "1s").is_err());
        assert!(options.set("max_wal_size", "1").is_err());
    }
}
