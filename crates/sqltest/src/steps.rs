//! Step-interleaved connections, after PostgreSQL's isolationtester: every `connection` of a
//! file runs its statements on a task of its own, so a statement that waits for a lock held
//! by another connection does not stop the file.
//!
//! A statement that has not finished within [`block_timeout`] is *blocked*: its record
//! gets the error `blocked` and the file goes on with the next record. Only a file with
//! several connections has blocked statements, and where the connection can tell (the
//! engine in-process: [`kestrel::LockWaitProbe`]) only one waiting for a lock is blocked;
//! a merely slow statement is waited for. After every later
//! step, each blocked statement is given the same time to finish (so one that the step
//! released completes before the next step starts, whatever the machine's speed), and its
//! outcome is kept for the record `AWAIT` on its connection, whose expectation is the
//! blocked statement's (rows, `ok` or an error). Blocking is told by time alone, which needs
//! nothing of the server (no pg_locks), so the same file runs against KestrelDB in-process,
//! over the wire and against PostgreSQL.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use sqllogictest::{AsyncDB, DBOutput, DefaultColumnType, DB};
use tokio::task::JoinHandle;
use tokio::time::{timeout, Instant};

use crate::format::SqlError;

/// The record that collects a connection's blocked statement.
const AWAIT: &str = "AWAIT";

/// How long `AWAIT` waits for a statement still blocked before it reports so.
const AWAIT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a statement that is not waiting for a lock may run before the file gives up.
const STATEMENT_TIMEOUT: Duration = Duration::from_secs(300);

type Outcome = Result<DBOutput<DefaultColumnType>, SqlError>;

/// How long a statement may run before it counts as blocked: `SLT_BLOCK_MS`, else 500 ms,
/// far above what any statement of a step test takes and far below a lock timeout.
fn block_timeout() -> Duration {
    let millis = std::env::var("SLT_BLOCK_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500);
    Duration::from_millis(millis)
}

fn blocked() -> SqlError {
    SqlError {
        message: "blocked".to_string(),
        sqlstate: None,
    }
}

/// Starts one statement on a connection and hands back its running task.
pub trait StartStatement: Send + 'static {
    fn start(&self, sql: String) -> JoinHandle<Outcome>;
    fn stop(&self) -> JoinHandle<()>;
    /// Tells whether the connection's running statement waits for a lock, if it can.
    fn probe(&self) -> Option<Probe> {
        None
    }
}

/// Whether a connection's running statement waits for a lock.
pub type Probe = Arc<dyn Fn() -> bool + Send + Sync>;

/// A synchronous connection (the engine in-process): each statement on a blocking thread.
pub struct OnThread<D> {
    db: Arc<Mutex<D>>,
    probe: Option<Probe>,
}

impl<D> OnThread<D> {
    pub fn new(db: D) -> OnThread<D> {
        OnThread {
            db: Arc::new(Mutex::new(db)),
            probe: None,
        }
    }

    /// The same, for a session `probe` tells lock waits of.
    pub fn with_probe(db: D, probe: kestrel::LockWaitProbe) -> OnThread<D> {
        OnThread {
            db: Arc::new(Mutex::new(db)),
            probe: Some(Arc::new(move || probe.is_waiting())),
        }
    }
}

impl<D: DB<Error = SqlError, ColumnType = DefaultColumnType> + Send + 'static> StartStatement
    for OnThread<D>
{
    fn start(&self, sql: String) -> JoinHandle<Outcome> {
        let db = self.db.clone();
        tokio::task::spawn_blocking(move || {
            db.lock().unwrap_or_else(PoisonError::into_inner).run(&sql)
        })
    }

    fn stop(&self) -> JoinHandle<()> {
        let db = self.db.clone();
        tokio::task::spawn_blocking(move || {
            db.lock().unwrap_or_else(PoisonError::into_inner).shutdown()
        })
    }

    fn probe(&self) -> Option<Probe> {
        self.probe.clone()
    }
}

/// An asynchronous connection (a client over the wire): each statement on a task.
pub struct OnTask<D>(Arc<tokio::sync::Mutex<D>>);

impl<D> OnTask<D> {
    pub fn new(db: D) -> OnTask<D> {
        OnTask(Arc::new(tokio::sync::Mutex::new(db)))
    }
}

impl<D: AsyncDB<Error = SqlError, ColumnType = DefaultColumnType> + Send + 'static> StartStatement
    for OnTask<D>
{
    fn start(&self, sql: String) -> JoinHandle<Outcome> {
        let db = self.0.clone();
        tokio::spawn(async move { db.lock().await.run(&sql).await })
    }

    fn stop(&self) -> JoinHandle<()> {
        let db = self.0.clone();
        tokio::spawn(async move { db.lock().await.shutdown().await })
    }
}

/// What one file's connections share: the statements still blocked, by connection.
#[derive(Default)]
pub struct Steps {
    next_id: AtomicUsize,
    pending: Mutex<HashMap<usize, Pending>>,
}

enum Pending {
    Running(JoinHandle<Outcome>, Option<Probe>),
    Finished(Outcome),
}

/// Waits for `handle` for the block timeout, and on as long as the statement is seen not
/// to wait for a lock (or the file has one connection only, where nothing can block it);
/// `None` if it is blocked.
async fn finish_unless_blocked(
    handle: &mut JoinHandle<Outcome>,
    probe: Option<&Probe>,
    alone: bool,
) -> Option<Outcome> {
    let started = Instant::now();
    loop {
        if let Ok(joined) = timeout(block_timeout(), &mut *handle).await {
            return Some(joined_outcome(joined));
        }
        let waiting = probe.is_none_or(|probe| probe());
        if (waiting && !alone) || started.elapsed() > STATEMENT_TIMEOUT {
            return None;
        }
    }
}

impl Steps {
    pub fn new() -> Arc<Steps> {
        Arc::default()
    }

    /// A connection of this file.
    pub fn connection<S: StartStatement>(self: &Arc<Steps>, statements: S) -> StepDb<S> {
        StepDb {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            steps: self.clone(),
            statements,
        }
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<usize, Pending>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Gives every running statement but `except`'s the time to finish unless it is
    /// blocked, and keeps the outcome of those that do.
    async fn settle(&self, except: usize) {
        let running: Vec<usize> = self
            .pending()
            .iter()
            .filter(|(id, p)| **id != except && matches!(p, Pending::Running(..)))
            .map(|(id, _)| *id)
            .collect();
        for id in running {
            let Some(Pending::Running(mut handle, probe)) = self.pending().remove(&id) else {
                continue;
            };
            let pending = match finish_unless_blocked(&mut handle, probe.as_ref(), false).await {
                Some(outcome) => Pending::Finished(outcome),
                None => Pending::Running(handle, probe),
            };
            self.pending().insert(id, pending);
        }
    }

    /// Whether the file has used one connection only so far.
    fn alone(&self) -> bool {
        self.next_id.load(Ordering::Relaxed) < 2
    }

    /// The outcome of connection `id`'s blocked statement, waiting for it if need be.
    async fn collect(&self, id: usize) -> Outcome {
        let pending = self.pending().remove(&id);
        match pending {
            None => Err(SqlError {
                message: "AWAIT: no statement of this connection is blocked".to_string(),
                sqlstate: None,
            }),
            Some(Pending::Finished(outcome)) => outcome,
            Some(Pending::Running(mut handle, probe)) => match timeout(AWAIT_TIMEOUT, &mut handle)
                .await
            {
                Ok(joined) => joined_outcome(joined),
                Err(_) => {
                    self.pending().insert(id, Pending::Running(handle, probe));
                    Err(SqlError {
                        message: format!("AWAIT: still blocked after {}s", AWAIT_TIMEOUT.as_secs()),
                        sqlstate: None,
                    })
                }
            },
        }
    }
}

fn joined_outcome(joined: Result<Outcome, tokio::task::JoinError>) -> Outcome {
    joined.unwrap_or_else(|e| {
        Err(SqlError {
            message: format!("the statement's task failed: {e}"),
            sqlstate: None,
        })
    })
}

/// One connection of a file (see the module doc).
pub struct StepDb<S> {
    id: usize,
    steps: Arc<Steps>,
    statements: S,
}

#[async_trait::async_trait]
impl<S: StartStatement> AsyncDB for StepDb<S> {
    type Error = SqlError;
    type ColumnType = DefaultColumnType;

    async fn run(&mut self, sql: &str) -> Outcome {
        if sql.trim().trim_end_matches(';').eq_ignore_ascii_case(AWAIT) {
            return self.steps.collect(self.id).await;
        }
        if self.steps.pending().contains_key(&self.id) {
            return Err(SqlError {
                message: "this connection's blocked statement must be AWAITed first".to_string(),
                sqlstate: None,
            });
        }
        let mut handle = self.statements.start(sql.to_string());
        let probe = self.statements.probe();
        let alone = self.steps.alone();
        let outcome = match finish_unless_blocked(&mut handle, probe.as_ref(), alone).await {
            Some(outcome) => outcome,
            None => {
                let pending = Pending::Running(handle, probe);
                self.steps.pending().insert(self.id, pending);
                Err(blocked())
            }
        };
        self.steps.settle(self.id).await;
        outcome
    }

    async fn shutdown(&mut self) {
        let pending = self.steps.pending().remove(&self.id);
        match pending {
            // A statement still blocked at the end of the file is abandoned.
            Some(Pending::Running(handle, _)) => handle.abort(),
            Some(Pending::Finished(_)) | None => {
                let _ = self.statements.stop().await;
            }
        }
    }

    async fn sleep(dur: Duration) {
        tokio::time::sleep(dur).await;
    }

    fn error_sql_state(err: &SqlError) -> Option<String> {
        err.sqlstate.clone()
    }
}
