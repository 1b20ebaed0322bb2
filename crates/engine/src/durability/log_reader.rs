//! Reading the write-ahead log back at start-up.

use std::path::{Path, PathBuf};

use super::io::{io_error, Disk};
use super::log_format::{segment_path, segment_start, unframe};
use crate::error::{Error, Result, SqlState};

/// Where reading the log stopped.
pub struct LogEnd {
    /// The LSN after the last whole record.
    pub end: u64,
    /// Segment starts, oldest first.
    pub segments: Vec<u64>,
    /// The last segment and its length up to the last whole record, when there is one.
    pub last_segment: Option<(PathBuf, u64)>,
    /// Set when the last segment ends in a torn or corrupt record: what was cut, for the
    /// start-up message.
    pub torn_tail: Option<String>,
}

fn corrupt_log(path: &Path, message: String) -> Error {
    Error::new(
        SqlState::DataCorrupted,
        format!(
            "write-ahead log file \"{}\" is corrupt: {message}",
            path.display()
        ),
    )
    .with_hint(
        "Restore the data directory from a backup. Every transaction in the log before \
         this point is intact; removing this and later log files loses the transactions \
         they hold.",
    )
}

/// Calls `apply` with each whole record from `from` on, in order. A bad record ends the
/// log only in the last segment (a crash tore the write in flight); anywhere else it is
/// corruption.
pub fn read_log(
    disk: &dyn Disk,
    wal_dir: &Path,
    from: u64,
    mut apply: impl FnMut(u64, &[u8]) -> Result<()>,
) -> Result<LogEnd> {
    let names = disk
        .list(wal_dir)
        .map_err(|e| io_error("list", wal_dir, &e))?;
    let mut segments: Vec<u64> = names.iter().filter_map(|n| segment_start(n)).collect();
    segments.sort_unstable();
    // Segments wholly before the checkpoint are left over from its clean-up.
    if let Some(first_needed) = segments.iter().rposition(|&start| start <= from) {
        segments.drain(..first_needed);
    }
    let mut end = from;
    let mut last_segment = None;
    let mut torn_tail = None;
    for (index, &start) in segments.iter().enumerate() {
        let path = segment_path(wal_dir, start);
        let is_last = index + 1 == segments.len();
        if start > end {
            return Err(corrupt_log(
                &path,
                format!("it starts at {start:#x} but the log before it ends at {end:#x}"),
            ));
        }
        let bytes = disk.read(&path).map_err(|e| io_error("read", &path, &e))?;
        let mut offset = 0usize;
        while offset < bytes.len() {
            let lsn = start + offset as u64;
            match unframe(&bytes[offset..], lsn) {
                Some((payload, framed)) => {
                    if lsn >= from {
                        apply(lsn, payload)?;
                    }
                    offset += framed;
                }
                None if is_last => {
                    torn_tail = Some(format!(
                        "the log ends in an incomplete record at {lsn:#x} of \"{}\" \
                         ({} bytes discarded); everything before it was recovered",
                        path.display(),
                        bytes.len() - offset
                    ));
                    break;
                }
                None => {
                    return Err(corrupt_log(
                        &path,
                        format!("the record at {lsn:#x} is damaged"),
                    ))
                }
            }
        }
        end = end.max(start + offset as u64);
        if is_last {
            last_segment = Some((path, offset as u64));
        }
    }
    Ok(LogEnd {
        end,
        segments,
        last_segment,
        torn_tail,
    })
}
