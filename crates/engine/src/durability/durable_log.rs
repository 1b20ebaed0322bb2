//! A durable database's log: recovery at start-up, the commit path's log operations, and
//! the background work (flushing asynchronous commits, checkpoints).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::{Duration, Instant};

use super::checkpoint::{
    read_checkpoint, remove_unused_files, write_checkpoint, Capture, Written, CLEAN_SHUTDOWN,
};
use super::io::{io_error, write_durably, Disk};
use super::log_reader::read_log;
use super::log_writer::LogWriter;
use super::record::{apply_commit, encode_commit};
use super::{DataDir, DurableOptions};
use crate::error::{Error, Result, SqlState};
use crate::storage::{build_unique_indexes, CommitChanges, CommitLog, DbState, Store};
use crate::sync::lock;

/// How long a commit with `synchronous_commit = off` may sit in memory before a background
/// flush (PostgreSQL's wal_writer_delay is 200 ms; a shorter wait loses less at a crash).
const ASYNC_FLUSH_INTERVAL: Duration = Duration::from_millis(10);
/// How often the checkpointer looks at the log's size and age.
const CHECKPOINT_POLL: Duration = Duration::from_millis(250);
/// The longest wait between attempts after checkpoints failed.
const CHECKPOINT_RETRY_MAX: Duration = Duration::from_secs(30);

pub struct DurableLog {
    disk: Arc<dyn Disk>,
    dir: PathBuf,
    writer: LogWriter,
    options: DurableOptions,
    /// Held by the checkpoint under way; what the last one wrote.
    /// `None` for the time: no checkpoint since a start-up that replayed log, so the next
    /// one is due at once (PostgreSQL's end-of-recovery checkpoint, here in the background
    /// so that connections are served meanwhile): a crash loop must not replay an ever
    /// longer log.
    checkpoints: Mutex<(Written, Option<Instant>)>,
    /// CHECKPOINT requests for the checkpointer thread, and what it made of them.
    requests: Mutex<Requests>,
    requested: Condvar,
    answered: Condvar,
    /// The directory's lock, held as long as anything can still write to the log (the
    /// store and every session's reference to it), not just the `Database` handle.
    _lock: Option<DataDir>,
}

/// CHECKPOINT statements waiting for the checkpointer: tickets `answered + 1 ..= asked`.
struct Requests {
    asked: u64,
    answered: u64,
    /// The outcome of the checkpoint that answered up to `answered`.
    outcome: Result<()>,
}

/// A durable database read back from its directory.
pub struct Recovered {
    pub log: Arc<DurableLog>,
    pub state: DbState,
    pub next_oid: u32,
    /// What start-up did, for the server's log.
    pub report: String,
}

impl DurableLog {
    /// Loads the last checkpoint of `dir`, replays the log after it, and opens the log
    /// for appending after its last whole record.
    pub fn recover(
        disk: Arc<dyn Disk>,
        dir: &Path,
        options: DurableOptions,
        lock: Option<DataDir>,
    ) -> Result<Recovered> {
        let started = Instant::now();
        let (mut state, mut next_oid, written) = read_checkpoint(&*disk, dir)?
            .unwrap_or_else(|| (DbState::default(), 0, Written::default()));
        let loaded_tables = state.tables.len();
        let wal_dir = dir.join("wal");
        // Loaded tables have generation 1; every replayed change gets a newer one.
        let mut generation = 1;
        let mut records = 0u64;
        let end = read_log(&*disk, &wal_dir, written.lsn, |_, payload| {
            generation += 1;
            records += 1;
            apply_commit(&mut state, payload, &mut next_oid, generation)
        })?;
        // Unlogged tables keep their rows only across a clean shutdown with nothing after it.
        let clean = dir.join(CLEAN_SHUTDOWN);
        let keep_unlogged = disk.exists(&clean) && records == 0;
        if disk.exists(&clean) {
            disk.remove(&clean)
                .and_then(|()| disk.sync_dir(dir))
                .map_err(|e| io_error("remove", &clean, &e))?;
        }
        let enums = state.enum_types.clone();
        for entry in state.tables.values_mut() {
            if entry.schema.unlogged && !keep_unlogged {
                Arc::make_mut(entry).data = Arc::default();
            }
            let indexes =
                build_unique_indexes(&entry.schema, &entry.data, &enums).map_err(|e| {
                    Error::new(
                        SqlState::DataCorrupted,
                        format!(
                            "recovered table \"{}\" breaks its unique index: {}",
                            entry.schema.name, e.message
                        ),
                    )
                })?;
            Arc::make_mut(entry).unique_indexes = Arc::new(indexes);
        }
        let file = match &end.last_segment {
            Some((path, len)) => Some(
                disk.open_truncated(path, *len)
                    .map_err(|e| io_error("truncate", path, &e))?,
            ),
            None => None,
        };
        let mut report = format!(
            "recovered {} tables from the checkpoint at log position {:#x} and replayed {records} \
             log records ({} bytes) in {} ms",
            loaded_tables,
            written.lsn,
            end.end - written.lsn,
            started.elapsed().as_millis()
        );
        if let Some(torn) = &end.torn_tail {
            report.push_str("; ");
            report.push_str(torn);
        }
        let writer = LogWriter::open(disk.clone(), &wal_dir, end.segments, end.end, file)?;
        Ok(Recovered {
            log: Arc::new(DurableLog {
                disk,
                dir: dir.to_path_buf(),
                writer,
                options,
                checkpoints: Mutex::new((written, (records == 0).then(Instant::now))),
                requests: Mutex::new(Requests {
                    asked: 0,
                    answered: 0,
                    outcome: Ok(()),
                }),
                requested: Condvar::new(),
                answered: Condvar::new(),
                _lock: lock,
            }),
            state,
            next_oid,
            report,
        })
    }

    /// Starts the threads that flush asynchronous commits and take checkpoints; they end
    /// when the store is dropped.
    pub fn start_background(self: &Arc<Self>, store: Weak<Store>) -> Result<()> {
        let log = Arc::downgrade(self);
        let spawned = std::thread::Builder::new()
            .name("kestrel-wal-writer".into())
            .spawn(move || {
                while let Some(log) = log.upgrade() {
                    // An error is already the log's failure, reported to every committer.
                    let _ = log.writer.flush(log.writer.end());
                    drop(log);
                    std::thread::sleep(ASYNC_FLUSH_INTERVAL);
                }
            });
        spawned.map_err(|e| Error::internal(format!("could not start the log writer: {e}")))?;
        let log = Arc::downgrade(self);
        let spawned = std::thread::Builder::new()
            .name("kestrel-checkpointer".into())
            .spawn(move || {
                lower_priority_of_this_thread();
                // After a failure (a full disk), retry less and less often rather than
                // fill the server's log with the same line four times a second.
                let mut pause = CHECKPOINT_POLL;
                loop {
                    let Some(log) = log.upgrade() else { break };
                    let ticket = log.next_request(pause);
                    let Some(store) = store.upgrade() else { break };
                    if ticket.is_none() && !log.checkpoint_due() {
                        continue;
                    }
                    let outcome = log.write_checkpoint(&store, false);
                    pause = match &outcome {
                        Ok(()) => CHECKPOINT_POLL,
                        Err(error) => {
                            eprintln!("kestrel: checkpoint failed: {error}");
                            (pause * 2).min(CHECKPOINT_RETRY_MAX)
                        }
                    };
                    if let Some(ticket) = ticket {
                        log.answer(ticket, outcome);
                    }
                }
            });
        spawned.map_err(|e| Error::internal(format!("could not start the checkpointer: {e}")))?;
        Ok(())
    }
}

impl CommitLog for DurableLog {
    fn writable(&self) -> Result<()> {
        match self.writer.failure() {
            None => Ok(()),
            Some(failure) => Err(Error::new(
                failure.state,
                format!(
                    "cannot write: the write-ahead log failed earlier ({}); restart the server",
                    failure.message
                ),
            )),
        }
    }

    fn append(&self, changes: &CommitChanges<'_>) -> Result<u64> {
        self.writer.append(&encode_commit(changes)?)
    }

    fn flush(&self, lsn: u64) -> Result<()> {
        self.writer.flush(lsn)
    }

    fn checkpoint(&self, _store: &Store) -> Result<()> {
        let mut requests = lock(&self.requests);
        requests.asked += 1;
        let ticket = requests.asked;
        self.requested.notify_one();
        while requests.answered < ticket {
            requests = match self.answered.wait(requests) {
                Ok(guard) => guard,
                Err(poisoned) => poisoned.into_inner(),
            };
        }
        requests.outcome.clone()
    }

    fn shutdown(&self, store: &Store) -> Result<()> {
        self.write_checkpoint(store, true)?;
        let marker = self.dir.join(CLEAN_SHUTDOWN);
        write_durably(&*self.disk, &marker, b"").map_err(|e| io_error("write", &marker, &e))
    }
}

impl DurableLog {
    /// Waits up to `pause` for a CHECKPOINT request; the newest ticket, if any is waiting.
    fn next_request(&self, pause: Duration) -> Option<u64> {
        let mut requests = lock(&self.requests);
        if requests.asked == requests.answered {
            requests = match self.requested.wait_timeout(requests, pause) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        (requests.asked > requests.answered).then_some(requests.asked)
    }

    /// Answers every request up to `ticket` with `outcome`.
    fn answer(&self, ticket: u64, outcome: Result<()>) {
        let mut requests = lock(&self.requests);
        requests.answered = ticket;
        requests.outcome = outcome;
        self.answered.notify_all();
    }

    /// Whether the log has grown or aged enough since the last checkpoint for another.
    fn checkpoint_due(&self) -> bool {
        let (written, at) = &*lock(&self.checkpoints);
        let bytes = self.writer.bytes_since(written.lsn);
        let aged = at.is_none_or(|at| at.elapsed() >= self.options.checkpoint_timeout);
        bytes >= self.options.max_wal_size || bytes > 0 && aged
    }

    fn write_checkpoint(&self, store: &Store, shutdown: bool) -> Result<()> {
        let mut last = lock(&self.checkpoints);
        self.writable()?;
        if self.writer.end() == last.0.lsn && !shutdown {
            last.1 = Some(Instant::now());
            return Ok(());
        }
        let capture = store.with_commits_paused(|head, next_oid| {
            let lsn = self.writer.rotate()?;
            // Temporary tables are the sessions', never the data directory's.
            let head = Arc::new(head.without_temporary());
            let counters = head
                .sequences
                .values()
                .map(|s| {
                    let (last, is_called) = s.counter();
                    (s.name.clone(), last, is_called)
                })
                .collect();
            Ok::<_, Error>(Capture {
                state: head,
                next_oid,
                lsn,
                counters,
                shutdown,
            })
        })?;
        let written = write_checkpoint(&*self.disk, &self.dir, &capture, &last.0)?;
        self.writer.remove_before(written.lsn)?;
        remove_unused_files(&*self.disk, &self.dir, &written)?;
        *last = (written, Some(Instant::now()));
        Ok(())
    }
}

/// The checkpointer runs at the lowest CPU priority: on a machine with few cores its
/// encoding then waits for the connections' work instead of preempting it (measured with
/// bench tier 6's lookups during a CHECKPOINT).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn lower_priority_of_this_thread() {
    // SAFETY: setpriority reads and writes no memory of ours; on Linux, PRIO_PROCESS with
    // who = 0 sets the nice value of the calling thread only. Failing leaves it as it was.
    let _ = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, 19) };
}

#[cfg(not(target_os = "linux"))]
fn lower_priority_of_this_thread() {}
