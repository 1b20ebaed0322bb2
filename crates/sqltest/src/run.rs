//! Running .slt files against a [`Target`], each file in a fresh database, collecting every
//! failing record of every file (up to a limit per file) instead of stopping at the first.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use kestrel::Database;
use sqllogictest::{
    default_normalizer, AsyncDB, DefaultColumnType, MakeConnection, Normalizer, Record, Runner,
};
use tokio_postgres::Config;

use crate::durable::DurableDatabase;
use crate::engine::EngineDb;
use crate::format::SqlError;
use crate::server::ServerProcess;
use crate::steps::{OnTask, OnThread, Steps};
use crate::wire::WireDb;

/// A directory of one file's run that the statements name as `__SCRATCH__` (COPY to and from
/// server files): its own per run, so targets running at once never share a file, and
/// writable by everyone, as the PostgreSQL server of `pg_diff.sh` runs as another user.
struct ScratchDir(tempfile::TempDir);

impl ScratchDir {
    const TOKEN: &'static str = "__SCRATCH__";

    fn create() -> std::io::Result<ScratchDir> {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::Builder::new()
            .prefix("kestrel-slt-scratch-")
            .tempdir()?;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777))?;
        Ok(ScratchDir(dir))
    }

    fn substitute(
        &self,
        records: Vec<Record<DefaultColumnType>>,
    ) -> Vec<Record<DefaultColumnType>> {
        let path = self.0.path().display().to_string();
        records
            .into_iter()
            .map(|mut record| {
                if let Record::Statement { sql, .. } | Record::Query { sql, .. } = &mut record {
                    if sql.contains(Self::TOKEN) {
                        *sql = sql.replace(Self::TOKEN, &path);
                    }
                    if sql.contains(DATA_TOKEN) {
                        *sql = sql.replace(DATA_TOKEN, DATA_DIR);
                    }
                }
                record
            })
            .collect()
    }
}

/// The committed fixture files (`tests/data`), named `__DATA__` in statements.
const DATA_TOKEN: &str = "__DATA__";
const DATA_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data");

/// Failures listed per file; after that many the rest of the file would mostly repeat them.
const ERRORS_PER_FILE_MAX: usize = 10;

/// Where the statements run.
pub enum Target {
    /// The engine in this process, a new [`Database`] per file.
    Engine,
    /// The same with every optimizer rule switched off: rules must not change results.
    EngineOptimizerOff,
    /// The same with `force_parallel_mode = regress` the database's default: every
    /// parallel-safe pipeline runs on the worker pool with one-row morsels, and must give
    /// the serial results in the serial order.
    EngineParallel,
    /// The engine in this process on a new data directory per file, removed afterwards. A
    /// file restarts the database with the statement `RESTART` (see [`crate::durable`]).
    Durable,
    /// A new `kestrel serve` process per file, over the wire.
    KestrelServer { binary: PathBuf },
    /// A PostgreSQL server: each file runs in a database created for it through `admin`
    /// (a connection to an existing database) and dropped afterwards.
    Postgres { admin: Config },
    /// Any server as it is: all files share the database of `config`.
    Wire { config: Config },
}

/// The outcome of one file: no errors means it passed.
pub struct FileReport {
    pub path: PathBuf,
    pub errors: Vec<String>,
}

impl FileReport {
    pub fn passed(&self) -> bool {
        self.errors.is_empty()
    }

    fn failed(path: &Path, error: impl fmt::Display) -> FileReport {
        FileReport {
            path: path.to_path_buf(),
            errors: vec![error.to_string()],
        }
    }
}

impl fmt::Display for FileReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.passed() {
            return write!(f, "ok   {}", self.path.display());
        }
        writeln!(f, "FAIL {}", self.path.display())?;
        for error in &self.errors {
            writeln!(f, "{}", error.trim_end())?;
            writeln!(f)?;
        }
        Ok(())
    }
}

impl Target {
    /// Labels for `skipif` / `onlyif` records.
    fn labels(&self) -> &'static [&'static str] {
        match self {
            Target::Engine => &["kestrel", "in-process"],
            Target::EngineOptimizerOff => &["kestrel", "in-process", "optimizer-off"],
            Target::EngineParallel => &["kestrel", "in-process", "parallel"],
            Target::Durable => &["kestrel", "in-process", "durable"],
            Target::KestrelServer { .. } => &["kestrel", "wire"],
            Target::Postgres { .. } => &["postgres", "wire"],
            Target::Wire { .. } => &["wire"],
        }
    }

    /// Runs every record of `path`; must be called inside a tokio runtime.
    pub async fn run_file(&self, path: &Path) -> FileReport {
        let records = match sqllogictest::parse_file::<DefaultColumnType>(path) {
            Ok(records) => records,
            Err(e) => return FileReport::failed(path, format!("cannot parse: {e}")),
        };
        // Removed when dropped, after every record has run.
        let scratch = match ScratchDir::create() {
            Ok(scratch) => scratch,
            Err(e) => return FileReport::failed(path, format!("cannot create a scratch dir: {e}")),
        };
        let records = scratch.substitute(records);
        let steps = Steps::new();
        let errors = match self {
            Target::Engine | Target::EngineOptimizerOff | Target::EngineParallel => {
                let mut database = Database::new();
                if let Target::EngineParallel = self {
                    if let Err(e) = database.set_setting_default("force_parallel_mode", "regress") {
                        return FileReport::failed(path, e);
                    }
                }
                let optimizer_off = matches!(self, Target::EngineOptimizerOff);
                let connect = move || {
                    let mut session = database.connect();
                    let setup = match optimizer_off {
                        true => session
                            .execute("SET kestrel.disabled_optimizer_rules = 'all'")
                            .map(|_| ()),
                        false => Ok(()),
                    };
                    let probe = session.lock_wait_probe();
                    std::future::ready(
                        setup
                            .map(|()| {
                                steps
                                    .connection(OnThread::with_probe(EngineDb::new(session), probe))
                            })
                            .map_err(SqlError::from),
                    )
                };
                run_records(self.runner(connect), records).await
            }
            Target::Durable => {
                // Removed when dropped at the end of this arm, after `run_records` has
                // dropped the runner and with it every handle on the database.
                let dir = match tempfile::Builder::new().prefix("kestrel-slt-").tempdir() {
                    Ok(dir) => dir,
                    Err(e) => {
                        return FileReport::failed(
                            path,
                            format!("cannot create a data directory: {e}"),
                        )
                    }
                };
                let database = match DurableDatabase::open(dir.path()) {
                    Ok(database) => database,
                    Err(e) => {
                        let dir = dir.path().display();
                        return FileReport::failed(path, format!("cannot open {dir}: {e}"));
                    }
                };
                let connect = move || {
                    let connection = database.connect().map(|db| match db.lock_wait_probe() {
                        Some(probe) => OnThread::with_probe(db, probe),
                        None => OnThread::new(db),
                    });
                    std::future::ready(connection.map(|c| steps.connection(c)))
                };
                run_records(self.runner(connect), records).await
            }
            Target::KestrelServer { binary } => {
                let mut server = match ServerProcess::start(binary) {
                    Ok(server) => server,
                    Err(e) => return FileReport::failed(path, e),
                };
                let mut errors =
                    run_records(self.runner(wire_connect(server.config(), steps)), records).await;
                if let Some(status) = server.exited() {
                    errors.push(format!(
                        "the server exited ({status}); its log:\n{}",
                        server.log()
                    ));
                }
                errors
            }
            Target::Postgres { admin } => {
                let result = with_fresh_database(admin, |config| async move {
                    run_records(self.runner(wire_connect(config, steps)), records).await
                })
                .await;
                match result {
                    Ok(errors) => errors,
                    Err(e) => vec![e],
                }
            }
            Target::Wire { config } => {
                run_records(self.runner(wire_connect(config.clone(), steps)), records).await
            }
        };
        FileReport {
            path: path.to_path_buf(),
            errors,
        }
    }

    /// Rewrites the expected output of `path` with what this server answers. Only for
    /// [`Target::Postgres`]: expectations come from PostgreSQL, never from KestrelDB.
    pub async fn complete_file(&self, path: &Path) -> Result<(), String> {
        let Target::Postgres { admin } = self else {
            return Err("--complete takes expected output from PostgreSQL only".to_string());
        };
        // The statements run with `__SCRATCH__` and `__DATA__` replaced, from a copy in
        // the scratch directory, and the file keeps the tokens.
        let scratch =
            ScratchDir::create().map_err(|e| format!("cannot create a scratch dir: {e}"))?;
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let scratch_path = scratch.0.path().display().to_string();
        let copy = scratch.0.path().join("complete.slt");
        let substituted =
            (text.replace(ScratchDir::TOKEN, &scratch_path)).replace(DATA_TOKEN, DATA_DIR);
        std::fs::write(&copy, substituted).map_err(|e| format!("cannot write a copy: {e}"))?;
        let copy_path = copy.clone();
        with_fresh_database(admin, |config| async move {
            let mut runner = self.runner(wire_connect(config, Steps::new()));
            let result = runner
                .update_test_file(
                    &copy_path,
                    " ",
                    same_rows,
                    default_normalizer,
                    same_column_count,
                )
                .await
                .map_err(|e| format!("cannot complete {}: {e}", path.display()));
            runner.shutdown_async().await;
            result
        })
        .await??;
        let completed = std::fs::read_to_string(&copy)
            .map_err(|e| format!("cannot read the completed copy: {e}"))?;
        let restored =
            (completed.replace(&scratch_path, ScratchDir::TOKEN)).replace(DATA_DIR, DATA_TOKEN);
        std::fs::write(path, restored).map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    fn runner<D, M>(&self, connect: M) -> Runner<D, M>
    where
        D: AsyncDB<ColumnType = DefaultColumnType>,
        M: MakeConnection<Conn = D>,
    {
        let mut runner = Runner::new(connect);
        runner.with_validator(same_rows);
        runner.with_column_validator(same_column_count);
        for label in self.labels() {
            runner.add_label(label);
        }
        runner
    }
}

/// Runs records in order, going on after a failure so that one run shows them all.
async fn run_records<D, M>(
    mut runner: Runner<D, M>,
    records: Vec<Record<DefaultColumnType>>,
) -> Vec<String>
where
    D: AsyncDB<ColumnType = DefaultColumnType>,
    M: MakeConnection<Conn = D>,
{
    let mut errors = Vec::new();
    for record in records {
        if let Record::Halt { .. } = record {
            break;
        }
        if let Err(e) = runner.run_async(record).await {
            errors.push(e.display(false).to_string());
            if errors.len() == ERRORS_PER_FILE_MAX {
                errors.push(format!(
                    "stopped after {ERRORS_PER_FILE_MAX} failures in this file"
                ));
                break;
            }
        }
    }
    runner.shutdown_async().await;
    errors
}

/// What a wire target's connection maker makes.
type WireStepDb = crate::steps::StepDb<OnTask<WireDb>>;

/// A connection maker for the wire targets: each `connection` name of a file gets its own
/// session against the same database, one of the file's `steps`.
fn wire_connect(
    config: Config,
    steps: std::sync::Arc<Steps>,
) -> impl FnMut() -> std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<WireStepDb, crate::SqlError>>>,
> {
    move || {
        let config = config.clone();
        let steps = steps.clone();
        Box::pin(async move {
            let db = WireDb::connect(&config).await?;
            Ok(steps.connection(OnTask::new(db)))
        })
    }
}

/// Runs `body` with the settings of a new, empty PostgreSQL database, dropped afterwards.
async fn with_fresh_database<F, Fut, T>(admin: &Config, body: F) -> Result<T, String>
where
    F: FnOnce(Config) -> Fut,
    Fut: std::future::Future<Output = T>,
{
    static DATABASES_CREATED: AtomicUsize = AtomicUsize::new(0);
    let name = format!(
        "slt_{}_{}",
        std::process::id(),
        DATABASES_CREATED.fetch_add(1, Ordering::Relaxed)
    );
    let admin_db = WireDb::connect(admin)
        .await
        .map_err(|e| format!("cannot connect to PostgreSQL: {e}"))?;
    admin_db
        .simple_query(&format!("CREATE DATABASE {name}"))
        .await
        .map_err(|e| format!("cannot create database {name}: {e}"))?;
    let mut config = admin.clone();
    config.dbname(&name);
    let result = body(config).await;
    admin_db
        .simple_query(&format!("DROP DATABASE {name} WITH (FORCE)"))
        .await
        .map_err(|e| format!("cannot drop database {name}: {e}"))?;
    Ok(result)
}

/// Rows match when their values, joined by a space, are the expected line exactly: values
/// are written so that a line splits back into them (see `format::cell`), so neither a value
/// boundary nor a space inside a value can differ unseen.
fn same_rows(_normalizer: Normalizer, actual: &[Vec<String>], expected: &[String]) -> bool {
    actual.len() == expected.len()
        && actual
            .iter()
            .zip(expected)
            .all(|(row, line)| row.join(" ") == *line)
}

/// Column type letters are not compared — the simple query protocol carries no types — but
/// their number must match the number of columns returned.
#[allow(clippy::ptr_arg)] // the signature sqllogictest asks for
fn same_column_count(actual: &Vec<DefaultColumnType>, expected: &Vec<DefaultColumnType>) -> bool {
    actual.len() == expected.len()
}

/// The corpus: `tests/slt` of the workspace.
pub fn corpus_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/slt");
    // Canonical, so that reports name files without `crates/sqltest/../..`.
    dir.canonicalize().unwrap_or(dir)
}

/// Every `.slt` file under `path` (or `path` itself if it is a file), sorted.
pub fn slt_files(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    if path.is_dir() {
        for entry in std::fs::read_dir(path)? {
            let entry_path = entry?.path();
            if entry_path.is_dir() {
                files.extend(slt_files(&entry_path)?);
            } else if entry_path.extension().is_some_and(|e| e == "slt") {
                files.push(entry_path);
            }
        }
    } else {
        files.push(path.to_path_buf());
    }
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(rows: &[&[&str]]) -> Vec<Vec<String>> {
        rows.iter()
            .map(|r| r.iter().map(|v| v.to_string()).collect())
            .collect()
    }

    #[test]
    fn rows_compare_exactly() {
        let expected = vec!["3 (empty)".to_string(), "a 'b c'".to_string()];
        let normalizer: Normalizer = default_normalizer;
        let same = |actual: &[&[&str]]| same_rows(normalizer, &rows(actual), &expected);
        assert!(same(&[&["3", "(empty)"], &["a", "'b c'"]]));
        assert!(!same(&[&["3", "(empty)"], &["a", "'b  c'"]]));
        assert!(!same(&[&["3", "(empty)", "''"], &["a", "'b c'"]]));
        assert!(!same(&[&["3", "(empty)"]]));
    }
}
