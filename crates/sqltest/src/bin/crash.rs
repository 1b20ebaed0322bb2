//! `crash`: a crash test of a durable `kestrel serve`. Clients run bank transfers (and now and
//! then scratch-table DDL) while the server is killed with SIGKILL at a random moment; after
//! each restart on the same data directory, every acknowledged commit must be there, nothing
//! rolled back or half-done may be, and the balances must add up. `scripts/crash_test.sh`
//! builds and runs it; see the usage text for options and environment variables.

use std::collections::{HashMap, HashSet};
use std::error::Error;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, Config, NoTls, SimpleQueryMessage};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const USAGE: &str = "\
usage: crash [--no-kill] [--clients N] CRASHES [SECONDS_PER_ROUND]

  CRASHES             rounds of load; each ends with kill -9, a restart and a check
  SECONDS_PER_ROUND   a round lasts uniform(0, this) seconds (default 1.0)
  --no-kill           end each round by stopping the clients and check without a restart
  --clients N         concurrent clients (default 4)
  --allow-lost        acknowledged commits may be lost (not partially); the default when
                      KESTREL_ARGS has synchronous_commit=off

environment: KESTREL_BIN (server binary, default: `kestrel` next to this one),
KESTREL_ARGS (extra server arguments, e.g. `-c synchronous_commit=off`),
KESTREL_DATA_ARGS (default `--data-dir {dir}`; empty runs in memory), CRASH_SEED (replay)";

const ACCOUNTS: u64 = 32;
/// Generous for a debug build replaying a long log on a busy 2-core machine.
const READY_TIMEOUT: Duration = Duration::from_secs(60);
/// A client waiting longer than this on a live server means the server hangs.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(60);

struct Options {
    crashes: u32,
    seconds: f64,
    clients: i64,
    no_kill: bool,
    allow_lost: bool,
}

fn parse_options() -> Result<Options> {
    let mut options = Options {
        crashes: 0,
        seconds: 1.0,
        clients: 4,
        no_kill: false,
        allow_lost: std::env::var("KESTREL_ARGS")
            .is_ok_and(|args| args.contains("synchronous_commit=off")),
    };
    let mut positional = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--no-kill" => options.no_kill = true,
            "--allow-lost" => options.allow_lost = true,
            "--clients" => options.clients = args.next().ok_or(USAGE)?.parse()?,
            "-h" | "--help" => return Err(USAGE.into()),
            _ => positional.push(arg),
        }
    }
    match positional.as_slice() {
        [crashes] => options.crashes = crashes.parse()?,
        [crashes, seconds] => {
            options.crashes = crashes.parse()?;
            options.seconds = seconds.parse()?;
        }
        _ => return Err(USAGE.into()),
    }
    if options.clients < 1 || !options.seconds.is_finite() || options.seconds < 0.0 {
        return Err(USAGE.into());
    }
    Ok(options)
}

/// splitmix64: seeded and dependency-free; only picks delays, accounts and amounts.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A client's scratch table as its last committed DDL left it: `rows` rows, all with `g = gen`.
#[derive(Clone, Copy, PartialEq, Debug)]
struct Scratch {
    gen: i64,
    rows: i64,
}

/// What one client knows about its own transactions; kept across rounds by the harness.
#[derive(Default)]
struct ClientLog {
    id: i64,
    next_seq: i64,
    acked: HashSet<i64>,
    /// Rolled back, aborted, or never sent COMMIT: these seqs must never be in the ledger.
    absent: HashSet<i64>,
    /// COMMIT sent, no answer: either outcome is allowed, decided at the next check.
    in_flight: Option<i64>,
    scratch: Option<Scratch>,
    scratch_in_flight: Option<Option<Scratch>>,
    /// Every state the scratch table was committed in since the last check (the state
    /// found then first): with lost commits allowed, a crash may leave any of them.
    scratch_since_check: Vec<Option<Scratch>>,
    commits: u64,
    ddl_commits: u64,
    retries: u64,
    errors: Vec<String>,
    connection_lost: Option<String>,
}

enum Done {
    Committed,
    NotCommitted,
}

/// Runs BEGIN, `body`, then COMMIT (or ROLLBACK). `Err` means the connection is gone; the
/// seq is then in `absent` unless COMMIT was already sent, in which case it is `in_flight`.
async fn transaction(
    client: &Client,
    log: &mut ClientLog,
    seq: i64,
    body: &[String],
    commit: bool,
) -> std::result::Result<Done, tokio_postgres::Error> {
    for sql in std::iter::once("BEGIN").chain(body.iter().map(String::as_str)) {
        if let Err(error) = client.batch_execute(sql).await {
            log.absent.insert(seq);
            return failed(client, log, seq, error).await;
        }
    }
    if !commit {
        log.absent.insert(seq);
        client.batch_execute("ROLLBACK").await?;
        return Ok(Done::NotCommitted);
    }
    log.in_flight = Some(seq);
    match client.batch_execute("COMMIT").await {
        Ok(()) => {
            log.in_flight = None;
            Ok(Done::Committed)
        }
        Err(error) if refused(&error) => {
            log.in_flight = None;
            log.absent.insert(seq);
            failed(client, log, seq, error).await
        }
        Err(error) => Err(error),
    }
}

/// The server answered with an error and the session lives on; a FATAL error (as from a
/// PostgreSQL backend whose postmaster was killed) means the connection is gone.
fn refused(error: &tokio_postgres::Error) -> bool {
    error
        .as_db_error()
        .is_some_and(|db| !matches!(db.severity(), "FATAL" | "PANIC"))
}

/// A statement failed: the server's refusal ends the transaction; anything else is a lost link.
async fn failed(
    client: &Client,
    log: &mut ClientLog,
    seq: i64,
    error: tokio_postgres::Error,
) -> std::result::Result<Done, tokio_postgres::Error> {
    let Some(code) = error.code().filter(|_| refused(&error)) else {
        return Err(error);
    };
    if *code == SqlState::T_R_SERIALIZATION_FAILURE || *code == SqlState::T_R_DEADLOCK_DETECTED {
        log.retries += 1;
    } else {
        log.errors
            .push(format!("client {} seq {seq}: {error:?}", log.id));
    }
    client.batch_execute("ROLLBACK").await?;
    Ok(Done::NotCommitted)
}

async fn transfer(client: &Client, log: &mut ClientLog, seq: i64, rng: &mut Rng) -> Lost {
    let from = 1 + rng.below(ACCOUNTS);
    let mut to = 1 + rng.below(ACCOUNTS - 1);
    if to >= from {
        to += 1;
    }
    let amount = 1 + rng.below(100);
    let body = [
        format!(
            "INSERT INTO ledger(client, seq, from_id, to_id, amount) \
             VALUES ({}, {seq}, {from}, {to}, {amount})",
            log.id
        ),
        format!("UPDATE accounts SET balance = balance - {amount} WHERE id = {from}"),
        format!("UPDATE accounts SET balance = balance + {amount} WHERE id = {to}"),
    ];
    // One in eight is rolled back on purpose: its seq must never show up.
    if let Done::Committed = transaction(client, log, seq, &body, rng.below(8) != 0).await? {
        log.acked.insert(seq);
        log.commits += 1;
    }
    Ok(())
}

/// Drops the client's scratch table, or replaces it with a new one with an index and rows.
async fn ddl(client: &Client, log: &mut ClientLog, seq: i64, rng: &mut Rng) -> Lost {
    let table = format!("crash_scratch_{}", log.id);
    let (body, new) = if log.scratch.is_some() && rng.below(2) == 0 {
        (vec![format!("DROP TABLE {table}")], None)
    } else {
        let rows = 1 + rng.below(50) as i64;
        let body = vec![
            format!("DROP TABLE IF EXISTS {table}"),
            format!("CREATE TABLE {table}(k int PRIMARY KEY, g bigint NOT NULL)"),
            format!("CREATE INDEX {table}_g ON {table}(g)"),
            format!("INSERT INTO {table} SELECT i, {seq} FROM generate_series(1, {rows}) i"),
        ];
        (body, Some(Scratch { gen: seq, rows }))
    };
    match transaction(client, log, seq, &body, true).await {
        Ok(Done::Committed) => {
            log.scratch = new;
            log.scratch_since_check.push(new);
            log.ddl_commits += 1;
        }
        Ok(Done::NotCommitted) => {}
        Err(error) => {
            // The ledger never holds DDL seqs: move the in-flight mark to the table state.
            if log.in_flight.take().is_some() {
                log.scratch_in_flight = Some(new);
            }
            return Err(error);
        }
    }
    Ok(())
}

type Lost = std::result::Result<(), tokio_postgres::Error>;

/// One client's load until `stop` is set or the connection dies (the server was killed).
async fn run_client(
    config: Config,
    mut log: ClientLog,
    seed: u64,
    stop: Arc<AtomicBool>,
) -> ClientLog {
    let mut rng = Rng(seed);
    let client = match connect(&config).await {
        Ok(client) => client,
        Err(error) => {
            log.connection_lost = Some(format!("connect: {error}"));
            return log;
        }
    };
    while !stop.load(Ordering::Relaxed) {
        let seq = log.next_seq;
        log.next_seq += 1;
        let result = if rng.below(40) == 0 {
            ddl(&client, &mut log, seq, &mut rng).await
        } else {
            transfer(&client, &mut log, seq, &mut rng).await
        };
        if let Err(error) = result {
            log.connection_lost = Some(error.to_string());
            break;
        }
    }
    log
}

async fn connect(config: &Config) -> std::result::Result<Client, tokio_postgres::Error> {
    let (client, connection) = config.connect(NoTls).await?;
    // A broken connection shows up as the error of the next statement.
    tokio::spawn(async move { connection.await.ok() });
    Ok(client)
}

/// Rows of a query as integers (NULL as None), over the simple protocol any server speaks.
async fn rows(client: &Client, sql: &str) -> Result<Vec<Vec<Option<i64>>>> {
    let mut rows = Vec::new();
    for message in client.simple_query(sql).await? {
        if let SimpleQueryMessage::Row(row) = message {
            let values = (0..row.len())
                .map(|i| row.get(i).map(str::parse).transpose())
                .collect::<std::result::Result<_, _>>()?;
            rows.push(values);
        }
    }
    Ok(rows)
}

/// Like `rows`, but a missing table is `None`.
async fn rows_if_exists(client: &Client, sql: &str) -> Result<Option<Vec<Vec<Option<i64>>>>> {
    match rows(client, sql).await {
        Err(error)
            if error
                .downcast_ref::<tokio_postgres::Error>()
                .and_then(|e| e.code())
                == Some(&SqlState::UNDEFINED_TABLE) =>
        {
            Ok(None)
        }
        other => other.map(Some),
    }
}

#[derive(Default)]
struct Check {
    lost: u64,
    partial: u64,
    rolled_back_seen: u64,
    other: u64,
    in_flight_present: u64,
    in_flight_absent: u64,
    messages: Vec<String>,
    allow_lost: bool,
}

#[derive(Clone, Copy)]
enum Kind {
    Lost,
    Partial,
    RolledBackSeen,
    Other,
}

impl Check {
    fn add(&mut self, kind: Kind, count: u64, message: String) {
        *match kind {
            Kind::Lost => &mut self.lost,
            Kind::Partial => &mut self.partial,
            Kind::RolledBackSeen => &mut self.rolled_back_seen,
            Kind::Other => &mut self.other,
        } += count;
        if self.messages.len() < 10 {
            self.messages.push(message);
        }
    }

    fn failed(&self) -> bool {
        let lost = if self.allow_lost { 0 } else { self.lost };
        lost + self.partial + self.rolled_back_seen + self.other > 0
    }
}

/// Checks the database against what the clients saw, then settles in-flight outcomes.
async fn verify(config: &Config, logs: &mut [ClientLog], check: &mut Check) -> Result<()> {
    let client = connect(config).await?;
    let ledger_sql = "SELECT id, client, seq, from_id, to_id, amount FROM ledger";
    let Some(ledger) = rows_if_exists(&client, ledger_sql).await? else {
        let acked: usize = logs.iter().map(|log| log.acked.len()).sum();
        check.add(Kind::Lost, acked as u64, "table ledger is gone".to_owned());
        // Even a commit that may be lost cannot take the table with it.
        check.add(Kind::Other, 1, "the schema is gone".to_owned());
        return Ok(());
    };
    let accounts = rows_if_exists(&client, "SELECT id, balance FROM accounts").await?;
    let accounts = accounts.unwrap_or_default();
    let mut ids = HashSet::new();
    let mut present: HashMap<i64, HashSet<i64>> = HashMap::new();
    // Each account's balance as the ledger says it should be.
    let mut expected: HashMap<i64, i64> = HashMap::new();
    for row in &ledger {
        let &[Some(id), Some(client), Some(seq), Some(from), Some(to), Some(amount)] = &row[..]
        else {
            check.add(Kind::Partial, 1, format!("ledger row with NULLs: {row:?}"));
            continue;
        };
        if !ids.insert(id) {
            check.add(Kind::Other, 1, format!("ledger id {id} twice"));
        }
        if !present.entry(client).or_default().insert(seq) {
            check.add(Kind::Other, 1, format!("client {client} seq {seq} twice"));
        }
        *expected.entry(from).or_default() -= amount;
        *expected.entry(to).or_default() += amount;
    }
    let mut total = 0;
    for row in &accounts {
        let &[Some(id), Some(balance)] = &row[..] else {
            check.add(Kind::Partial, 1, format!("account row with NULLs: {row:?}"));
            continue;
        };
        total += balance;
        let want = expected.remove(&id).unwrap_or(0);
        if balance != want {
            let message = format!("account {id}: balance {balance}, ledger says {want}");
            check.add(Kind::Partial, 1, message);
        }
    }
    if accounts.len() as u64 != ACCOUNTS {
        let message = format!("{} accounts, not {ACCOUNTS}", accounts.len());
        check.add(Kind::Partial, 1, message);
    }
    if total != 0 || !expected.is_empty() {
        let message = format!("balances total {total}; unknown accounts in ledger {expected:?}");
        check.add(Kind::Partial, 1, message);
    }
    let none = HashSet::new();
    for log in logs.iter_mut() {
        let id = log.id;
        let seqs = present.get(&id).unwrap_or(&none);
        let lost: Vec<i64> = log.acked.difference(seqs).copied().collect();
        if check.allow_lost {
            // Lost now, so it must never come back.
            for seq in &lost {
                log.acked.remove(seq);
                log.absent.insert(*seq);
            }
        }
        let lost = lost.len() as u64;
        if lost > 0 {
            let message = format!("client {id}: {lost} acknowledged commits lost");
            check.add(Kind::Lost, lost, message);
        }
        for seq in seqs {
            if log.absent.contains(seq) {
                let message = format!("client {id} seq {seq}: not committed, yet present");
                check.add(Kind::RolledBackSeen, 1, message);
            } else if !log.acked.contains(seq) && log.in_flight != Some(*seq) {
                check.add(
                    Kind::Other,
                    1,
                    format!("client {id} seq {seq}: never issued"),
                );
            }
        }
        if let Some(seq) = log.in_flight.take() {
            if seqs.contains(&seq) {
                log.acked.insert(seq);
                log.commits += 1;
                check.in_flight_present += 1;
            } else {
                log.absent.insert(seq);
                check.in_flight_absent += 1;
            }
        }
        let table = format!("crash_scratch_{id}");
        let sql = format!("SELECT count(*), min(g), max(g) FROM {table}");
        let state = rows_if_exists(&client, &sql).await?.map(|rows| {
            match rows.first().map(Vec::as_slice) {
                Some(&[Some(rows), Some(gen), Some(max)]) if gen == max => Scratch { gen, rows },
                // Empty or mixed: no committed DDL transaction leaves it like this.
                _ => Scratch { gen: -1, rows: -1 },
            }
        });
        let earlier = check.allow_lost && log.scratch_since_check.contains(&state);
        if state != log.scratch && Some(state) != log.scratch_in_flight && !earlier {
            let message = format!("{table} is {state:?}, committed {:?}", log.scratch);
            check.add(Kind::Other, 1, message);
        }
        log.scratch = state;
        log.scratch_in_flight = None;
        log.scratch_since_check = vec![state];
    }
    Ok(())
}

/// How to start the server; the same for every restart.
struct Launch {
    binary: PathBuf,
    data_args: Vec<String>,
    extra: Vec<String>,
    log_path: PathBuf,
}

impl Launch {
    fn new(dir: &Path) -> Result<Launch> {
        let binary = match std::env::var_os("KESTREL_BIN") {
            Some(path) => PathBuf::from(path),
            None => std::env::current_exe()?.with_file_name("kestrel"),
        };
        let data_dir = dir.join("data");
        let data_args = std::env::var("KESTREL_DATA_ARGS").unwrap_or("--data-dir {dir}".into());
        let data_args = data_args
            .split_whitespace()
            .map(|arg| arg.replace("{dir}", &data_dir.to_string_lossy()))
            .collect();
        let extra = std::env::var("KESTREL_ARGS").unwrap_or_default();
        let extra = extra.split_whitespace().map(str::to_owned).collect();
        let log_path = dir.join("server.log");
        Ok(Launch {
            binary,
            data_args,
            extra,
            log_path,
        })
    }
}

/// A running server, killed when dropped.
struct Server {
    child: Child,
    port: u16,
    log_path: PathBuf,
}

impl Server {
    /// Starts the server on a free port; returns once it answers a query, and how long that took.
    async fn start(launch: &Launch) -> Result<(Server, Duration)> {
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?
            .local_addr()?
            .port();
        let mut log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&launch.log_path)?;
        writeln!(log, "=== crash: starting the server on port {port}")?;
        let started = Instant::now();
        let child = Command::new(&launch.binary)
            .arg("serve")
            .args(&launch.data_args)
            .args(["--port", &port.to_string()])
            .args(&launch.extra)
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", launch.binary.display()))?;
        let mut server = Server {
            child,
            port,
            log_path: launch.log_path.clone(),
        };
        loop {
            if let Ok(client) = connect(&server.config()).await {
                if client.simple_query("SELECT 1").await.is_ok() {
                    return Ok((server, started.elapsed()));
                }
            }
            if let Some(status) = server.child.try_wait()? {
                let tail = server.tail();
                if tail.contains("unknown option `--data-dir`") {
                    return Err(format!(
                        "{} does not accept --data-dir: durability has not landed in this \
                         build. Set KESTREL_DATA_ARGS= (empty) to test against the in-memory \
                         server, with --no-kill.\n{tail}",
                        launch.binary.display()
                    )
                    .into());
                }
                return Err(format!("the server exited at start-up ({status}):\n{tail}").into());
            }
            if started.elapsed() > READY_TIMEOUT {
                let tail = server.tail();
                return Err(
                    format!("the server did not answer within {READY_TIMEOUT:?}:\n{tail}").into(),
                );
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    fn config(&self) -> Config {
        let mut config = kestrel_sqltest::server::local_config(self.port);
        config.connect_timeout(Duration::from_secs(5));
        config
    }

    /// The last lines the server printed, to explain a failure.
    fn tail(&self) -> String {
        let text = fs::read_to_string(&self.log_path).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Child::kill is SIGKILL on Unix: the crash itself. An error means it is already gone.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn setup(config: &Config) -> Result<()> {
    let client = connect(config).await?;
    client
        // The schema is committed durably even when the server runs with asynchronous
        // commit: the checks need it, and only the load's commits may be lost.
        .batch_execute(&format!(
            "SET synchronous_commit = on;
             CREATE TABLE accounts(id int PRIMARY KEY, balance bigint NOT NULL);
             INSERT INTO accounts SELECT i, 0 FROM generate_series(1, {ACCOUNTS}) i;
             CREATE TABLE ledger(id bigserial PRIMARY KEY, client int, seq bigint, from_id int,
                 to_id int, amount bigint, UNIQUE (client, seq));"
        ))
        .await?;
    Ok(())
}

fn millis(duration: Duration) -> String {
    format!("{:.0}", duration.as_secs_f64() * 1000.0)
}

/// Runs every round; `Ok(false)` when the check found a problem.
async fn harness(options: &Options, seed: u64, dir: &Path) -> Result<bool> {
    let launch = Launch::new(dir)?;
    let mut rng = Rng(seed);
    let (mut server, _) = Server::start(&launch).await?;
    setup(&server.config()).await?;
    let mut logs: Vec<ClientLog> = (0..options.clients)
        .map(|id| ClientLog {
            id,
            next_seq: 1,
            // Before the first check the scratch table does not exist, and with lost commits
            // allowed a crash may take its creation away again.
            scratch_since_check: vec![None],
            ..ClientLog::default()
        })
        .collect();
    let mut check = Check {
        allow_lost: options.allow_lost,
        ..Check::default()
    };
    if options.allow_lost {
        println!("crash: lost commits are allowed, partial ones are not");
    }
    let mut recoveries = Vec::new();
    let mut rounds = 0;
    while rounds < options.crashes && !check.failed() {
        rounds += 1;
        let stop = Arc::new(AtomicBool::new(false));
        let config = server.config();
        let clients: Vec<_> = logs
            .drain(..)
            .map(|log| tokio::spawn(run_client(config.clone(), log, rng.next(), stop.clone())))
            .collect();
        let delay = Duration::from_secs_f64(options.seconds * rng.unit());
        tokio::time::sleep(delay).await;
        if let Some(status) = server.child.try_wait()? {
            return Err(format!("the server died by itself ({status}):\n{}", server.tail()).into());
        }
        if !options.no_kill {
            server.child.kill()?;
            server.child.wait()?;
        }
        stop.store(true, Ordering::Relaxed);
        for client in clients {
            let log = tokio::time::timeout(CLIENT_TIMEOUT, client)
                .await
                .map_err(|_| "a client hung on a live server")??;
            if let (true, Some(error)) = (options.no_kill, &log.connection_lost) {
                let message = format!("client {} lost its connection: {error}", log.id);
                check.add(Kind::Other, 1, message);
            }
            for error in &log.errors {
                check.add(Kind::Other, 1, error.clone());
            }
            logs.push(log);
        }
        if !options.no_kill {
            let (restarted, took) = Server::start(&launch).await?;
            server = restarted;
            recoveries.push(took);
        }
        verify(&server.config(), &mut logs, &mut check).await?;
        let commits: u64 = logs.iter().map(|log| log.commits).sum();
        println!(
            "round {rounds}: {:.2}s of load, {commits} commits so far, recovery {} ms",
            delay.as_secs_f64(),
            recoveries.last().map_or("-".into(), |took| millis(*took)),
        );
    }
    let commits: u64 = logs.iter().map(|log| log.commits).sum();
    let retries: u64 = logs.iter().map(|log| log.retries).sum();
    let ddl: u64 = logs.iter().map(|log| log.ddl_commits).sum();
    recoveries.sort();
    let at = |q: f64| match recoveries.len() {
        0 => "-".to_owned(),
        n => millis(recoveries[((n as f64 * q).ceil() as usize).clamp(1, n) - 1]),
    };
    println!(
        "in flight at the kill: {} committed, {} not; DDL commits: {ddl}; \
         retried after deadlock/serialization: {retries}",
        check.in_flight_present, check.in_flight_absent
    );
    for message in &check.messages {
        println!("problem: {message}");
    }
    println!(
        "crashes: {}, acknowledged commits: {commits}, lost: {}, partial: {}, rolled back seen: {}, \
         other errors: {}, recovery time ms: median {} p99 {} max {}",
        recoveries.len(),
        check.lost,
        check.partial,
        check.rolled_back_seen,
        check.other,
        at(0.5),
        at(0.99),
        at(1.0)
    );
    if check.failed() {
        println!("server log tail:\n{}", server.tail());
    }
    Ok(!check.failed())
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            println!("crash: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<bool> {
    let options = parse_options()?;
    let seed = match std::env::var("CRASH_SEED") {
        Ok(text) => text
            .parse()
            .map_err(|_| format!("CRASH_SEED `{text}` is no u64"))?,
        // Any varying number will do; it is printed so the run can be replayed.
        Err(_) => std::time::UNIX_EPOCH.elapsed()?.as_nanos() as u64,
    };
    println!("crash: seed {seed} (replay with CRASH_SEED={seed})");
    let dir = std::env::temp_dir().join(format!("kestrel-crash-{}-{seed}", std::process::id()));
    fs::create_dir_all(&dir)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let result = runtime.block_on(harness(&options, seed, &dir));
    if let Ok(true) = result {
        fs::remove_dir_all(&dir)?;
    } else {
        // Kept for a look at the data directory and the server log.
        println!("crash: FAILED; files kept in {}", dir.display());
    }
    result
}
