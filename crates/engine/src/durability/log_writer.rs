//! Appending to the write-ahead log, with group commit.
//!
//! Committers append their records to a shared buffer under a short lock, in commit order.
//! Whoever then needs the log on disk and finds no flush under way becomes the flusher: it
//! takes the whole buffer, writes and fsyncs it outside the lock, and wakes everyone whose
//! record that covered. Committers arriving during a flush wait for it and are served
//! together by the next one, so N concurrent commits cost far fewer than N fsyncs.
//!
//! A failed write or fsync is final (PostgreSQL's lesson: after a failed fsync the kernel
//! may have dropped the dirty pages, so retrying can report success for lost data). Every
//! commit waiting for it fails, and so does every later one, until a restart recovers
//! from what really is on disk.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};

use super::io::{io_error, Disk, DiskFile};
use super::log_format::{frame, segment_path, HEADER_BYTES, MAX_RECORD_BYTES};
use crate::error::{Error, Result, SqlState};
use crate::sync::lock;

pub struct LogWriter {
    disk: Arc<dyn Disk>,
    wal_dir: PathBuf,
    state: Mutex<LogState>,
    flushed: Condvar,
    /// Only the flusher of the moment touches the file.
    file: Mutex<Box<dyn DiskFile>>,
}

struct LogState {
    /// Records appended but not yet handed to a flusher.
    pending: Vec<u8>,
    /// The LSN after the last appended record.
    end: u64,
    /// Everything before this LSN is on disk.
    synced: u64,
    flushing: bool,
    failure: Option<Error>,
    segment: PathBuf,
    /// Segment starts, oldest first (the current segment last).
    segments: Vec<u64>,
}

impl LogWriter {
    /// A writer appending at `end` to the segment starting at the last of `segments`
    /// (created empty when `file` is `None`).
    pub fn open(
        disk: Arc<dyn Disk>,
        wal_dir: &Path,
        mut segments: Vec<u64>,
        end: u64,
        file: Option<Box<dyn DiskFile>>,
    ) -> Result<LogWriter> {
        let file = match file {
            Some(file) => file,
            None => {
                let path = segment_path(wal_dir, end);
                let file = disk
                    .create(&path)
                    .map_err(|e| io_error("create", &path, &e))?;
                disk.sync_dir(wal_dir)
                    .map_err(|e| io_error("sync directory of", &path, &e))?;
                segments.push(end);
                file
            }
        };
        let current = segments.last().copied().unwrap_or(end);
        Ok(LogWriter {
            disk,
            wal_dir: wal_dir.to_path_buf(),
            state: Mutex::new(LogState {
                pending: Vec::new(),
                end,
                synced: end,
                flushing: false,
                failure: None,
                segment: segment_path(wal_dir, current),
                segments,
            }),
            flushed: Condvar::new(),
            file: Mutex::new(file),
        })
    }

    /// The error that stopped the log, if one did.
    pub fn failure(&self) -> Option<Error> {
        lock(&self.state).failure.clone()
    }

    pub fn end(&self) -> u64 {
        lock(&self.state).end
    }

    /// Bytes of log since `lsn`.
    pub fn bytes_since(&self, lsn: u64) -> u64 {
        self.end().saturating_sub(lsn)
    }

    /// Appends one record; returns the LSN after it, which [`LogWriter::flush`] takes.
    pub fn append(&self, payload: &[u8]) -> Result<u64> {
        if payload.len() > MAX_RECORD_BYTES {
            return Err(Error::new(
                SqlState::ProgramLimitExceeded,
                format!(
                    "a transaction's log record of {} bytes exceeds the limit of {MAX_RECORD_BYTES}",
                    payload.len()
                ),
            ));
        }
        let mut state = lock(&self.state);
        if let Some(failure) = &state.failure {
            return Err(failure.clone());
        }
        let lsn = state.end;
        frame(&mut state.pending, lsn, payload);
        state.end = lsn + (HEADER_BYTES + payload.len()) as u64;
        Ok(state.end)
    }

    /// Returns once everything before `lsn` is on disk (or the log has failed).
    pub fn flush(&self, lsn: u64) -> Result<()> {
        let mut state = lock(&self.state);
        loop {
            if state.synced >= lsn {
                return Ok(());
            }
            if let Some(failure) = &state.failure {
                return Err(failure.clone());
            }
            if state.flushing {
                state = match self.flushed.wait(state) {
                    Ok(guard) => guard,
                    Err(poisoned) => poisoned.into_inner(),
                };
                continue;
            }
            state.flushing = true;
            let batch = std::mem::take(&mut state.pending);
            let target = state.end;
            let segment = state.segment.clone();
            drop(state);
            let written = self.write_and_sync(&segment, &batch);
            state = lock(&self.state);
            state.flushing = false;
            match written {
                Ok(()) => state.synced = target,
                Err(error) => state.failure = Some(error),
            }
            self.flushed.notify_all();
        }
    }

    fn write_and_sync(&self, segment: &Path, batch: &[u8]) -> Result<()> {
        let mut file = lock(&self.file);
        if !batch.is_empty() {
            file.write_all(batch)
                .map_err(|e| io_error("write to", segment, &e))?;
        }
        file.sync().map_err(|e| io_error("fsync", segment, &e))
    }

    /// Flushes everything and starts a new segment at the end of the log; returns its
    /// start. The caller holds off appends (the commit lock) while this runs, so the new
    /// segment starts exactly after the last commit it has seen.
    pub fn rotate(&self) -> Result<u64> {
        let end = self.end();
        self.flush(end)?;
        let mut state = lock(&self.state);
        if let Some(failure) = &state.failure {
            return Err(failure.clone());
        }
        if state.end != end || state.flushing {
            return Err(Error::internal(
                "invariant: the log was appended to while it rotated",
            ));
        }
        let path = segment_path(&self.wal_dir, end);
        if state.segment != path {
            let file = self
                .disk
                .create(&path)
                .map_err(|e| io_error("create", &path, &e))?;
            self.disk
                .sync_dir(&self.wal_dir)
                .map_err(|e| io_error("sync directory of", &path, &e))?;
            *lock(&self.file) = file;
            state.segment = path;
            state.segments.push(end);
        }
        Ok(end)
    }

    /// Deletes the segments that end at or before `lsn` (a checkpoint covers them).
    pub fn remove_before(&self, lsn: u64) -> Result<()> {
        let doomed: Vec<u64> = {
            let mut state = lock(&self.state);
            let keep_from = state
                .segments
                .iter()
                .rposition(|&start| start <= lsn)
                .unwrap_or(0);
            state.segments.drain(..keep_from).collect()
        };
        for start in doomed {
            let path = segment_path(&self.wal_dir, start);
            self.disk
                .remove(&path)
                .map_err(|e| io_error("remove", &path, &e))?;
        }
        Ok(())
    }
}
