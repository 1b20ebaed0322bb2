//! The deterministic crash test: thousands of random transactions (inserts, updates,
//! deletes, DDL, sequences, rollbacks) against a durable database on the simulated disk,
//! with crashes, torn writes, failed fsyncs and a full disk at random points. After each
//! recovery the database must hold exactly the acknowledged commits: it is compared with an
//! in-memory database that ran only those. The seed is printed; `KESTREL_SIM_SEED` replays
//! a run and `KESTREL_SIM_TRANSACTIONS` lengthens it.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use super::sim_disk::{Rng, SimDisk};
use super::DurableOptions;
use crate::api::{Database, Session, TransactionStatus};
use crate::catalog::{QualifiedName, PUBLIC_OID};
use crate::error::Result;

/// `sx.t0` is another table than `t0`, in a schema that comes and goes.
const TABLES: [&str; 4] = ["t0", "t1", "t2", "sx.t0"];

fn options() -> DurableOptions {
    // Checkpoints only where the test asks for them, so a seed replays exactly.
    DurableOptions {
        checkpoint_timeout: std::time::Duration::from_secs(1 << 30),
        max_wal_size: u64::MAX,
    }
}

fn open(disk: &SimDisk) -> Result<Database> {
    Database::open_on(
        Arc::new(disk.current()),
        Path::new("/data"),
        options(),
        None,
    )
}

/// One random statement.
fn statement(rng: &mut Rng, in_block: bool) -> String {
    let t = TABLES[rng.below(TABLES.len() as u64) as usize];
    let k = rng.below(300);
    // Indexes take no schema: they live in their table's.
    let index = t.replace('.', "_");
    match rng.below(if in_block { 17 } else { 18 }) {
        0..=3 => format!(
            "INSERT INTO {t} (id, v, n) VALUES ({k}, 'v{k}', {}) ON CONFLICT (id) DO UPDATE SET n = {t}.n + 1",
            rng.below(1000)
        ),
        4 => format!(
            "INSERT INTO {t} (id, v, n) SELECT g, 'bulk' || g, g * 2 FROM generate_series({}, {}) g ON CONFLICT DO NOTHING",
            1000 + k * 10,
            1000 + k * 10 + rng.below(2500)
        ),
        5 | 6 => format!(
            "UPDATE {t} SET v = v || 'u', n = n + {} WHERE id % {} = {}",
            rng.below(5),
            2 + rng.below(9),
            rng.below(2)
        ),
        7 | 8 => format!("DELETE FROM {t} WHERE id % {} = {}", 2 + rng.below(13), rng.below(3)),
        9 => format!("CREATE TABLE IF NOT EXISTS {t} (id int PRIMARY KEY, v text, n bigint)"),
        10 => format!("DROP TABLE IF EXISTS {t} CASCADE"),
        11 => format!("TRUNCATE {t}"),
        12 => format!("ALTER TABLE {t} RENAME COLUMN n TO n"),
        13 => "INSERT INTO seqs VALUES (nextval('s'))".to_string(),
        14 => format!("CREATE INDEX IF NOT EXISTS {index}_n ON {t} (n)"),
        15 => "CREATE SCHEMA IF NOT EXISTS sx".to_string(),
        16 => "DROP SCHEMA IF EXISTS sx CASCADE".to_string(),
        _ => format!("VACUUM {t}"),
    }
}

/// One random transaction: its statements, and whether it ends in COMMIT (`None`: a
/// single autocommitted statement).
fn transaction(rng: &mut Rng) -> (Vec<String>, Option<bool>) {
    if rng.chance(60) {
        return (vec![statement(rng, false)], None);
    }
    let n = 1 + rng.below(5);
    let statements = (0..n).map(|_| statement(rng, true)).collect();
    (statements, Some(!rng.chance(15)))
}

/// What became of a transaction.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Outcome {
    Acknowledged,
    NotCommitted,
    /// Its commit failed writing or syncing the log: as with a crash during COMMIT, the
    /// record may or may not have reached the disk (a failed fsync says nothing about
    /// which pages were written), so a recovery may or may not hold it.
    InDoubt,
}

fn ended(result: Result<Vec<crate::api::StatementResult>>, commit: bool) -> Outcome {
    match result {
        Ok(results) if commit && results.iter().all(|r| r.tag != "ROLLBACK") => {
            Outcome::Acknowledged
        }
        Ok(_) => Outcome::NotCommitted,
        Err(e) if matches!(e.sqlstate(), "58030" | "53100") => Outcome::InDoubt,
        Err(_) => Outcome::NotCommitted,
    }
}

/// Runs a transaction (a single statement when `commit` is `None`).
fn run(session: &mut Session, statements: &[String], commit: Option<bool>) -> Outcome {
    let Some(commit) = commit else {
        return ended(session.execute(&statements[0]), true);
    };
    if session.execute("BEGIN").is_err() {
        return Outcome::NotCommitted;
    }
    for sql in statements {
        if session.execute(sql).is_err() {
            let _ = session.execute("ROLLBACK");
            return Outcome::NotCommitted;
        }
    }
    ended(
        session.execute(if commit { "COMMIT" } else { "ROLLBACK" }),
        commit,
    )
}

/// Runs `statements` in a transaction block left open, to be committed or rolled back
/// once a recovery shows whether the in-doubt transaction they mirror survived.
fn run_open(session: &mut Session, statements: &[String]) {
    if session.execute("BEGIN").is_err() {
        return;
    }
    for sql in statements {
        if session.execute(sql).is_err() {
            let _ = session.execute("ROLLBACK");
            return;
        }
    }
}

/// The schemas, every table's columns and sorted rows, the views and the sequences, as
/// text; relations by schema-qualified name.
fn dump(db: &Database) -> BTreeMap<String, Vec<String>> {
    let state = db.store().snapshot();
    let mut session = db.connect();
    let mut out = BTreeMap::new();
    let qualified = |name: &QualifiedName| match state.schemas.get(&name.schema) {
        Some(schema) => format!("{}.{}", schema.name, name.name),
        None => format!("(schema {}).{}", name.schema, name.name),
    };
    for schema in state.schema_list() {
        out.insert(format!("schema {}", schema.name), Vec::new());
    }
    for entry in state.tables.values() {
        let schema = &entry.schema;
        let name = qualified(&schema.qualified_name());
        let mut rows = vec![format!(
            "{:?} {:?} {:?}",
            schema.columns, schema.unique_keys, schema.indexes
        )];
        let mut body = Vec::new();
        let results = session.execute(&format!("SELECT * FROM {name}"));
        for result in results.iter().flatten() {
            for batch in &result.batches {
                for row in 0..batch.len() {
                    let mut text = Vec::new();
                    for column in &batch.columns {
                        if !column.write_text(row, &mut text) {
                            text.extend_from_slice(b"NULL");
                        }
                        text.push(b'|');
                    }
                    body.push(String::from_utf8_lossy(&text).into_owned());
                }
            }
        }
        body.sort();
        rows.extend(body);
        out.insert(format!("table {name}"), rows);
    }
    for name in state.views.keys() {
        out.insert(format!("view {}", qualified(name)), Vec::new());
    }
    for name in state.sequences.keys() {
        out.insert(format!("sequence {}", qualified(name)), Vec::new());
    }
    out
}

fn setup(session: &mut Session) {
    for sql in [
        "CREATE SEQUENCE s",
        "CREATE TABLE seqs (v bigint PRIMARY KEY)",
        "CREATE TABLE t0 (id int PRIMARY KEY, v text, n bigint)",
    ] {
        assert!(session.execute(sql).is_ok(), "{sql}");
    }
}

#[test]
fn recovery_holds_exactly_the_acknowledged_commits() {
    let seed = std::env::var("KESTREL_SIM_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        });
    let transactions: u64 = std::env::var("KESTREL_SIM_TRANSACTIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    eprintln!("crash simulation: KESTREL_SIM_SEED={seed} KESTREL_SIM_TRANSACTIONS={transactions}");
    let mut rng = Rng::new(seed);
    // KESTREL_SIM_TRACE=1 prints every transaction, checkpoint and crash.
    let trace = std::env::var_os("KESTREL_SIM_TRACE").is_some();
    let disk = SimDisk::default();
    let reference = Database::in_memory();
    let mut expected = reference.connect();
    let mut in_doubt = reference.connect();
    let db = open(&disk);
    let Ok(mut db) = db else {
        panic!("seed {seed}: the first open failed: {:?}", db.err());
    };
    let mut session = db.connect();
    setup(&mut session);
    setup(&mut expected);
    let (mut crashes, mut acknowledged, mut faults) = (0, 0, 0);
    for step in 0..transactions {
        if rng.chance(2) {
            let n = rng.below(3);
            disk.fail_syncs_after(n);
            faults += 1;
            if trace {
                eprintln!("step {step}: fsync {n} from now fails");
            }
        } else if rng.chance(1) {
            let n = rng.below(40_000);
            disk.fill_after(n);
            faults += 1;
            if trace {
                eprintln!("step {step}: disk full after {n} bytes");
            }
        }
        if rng.chance(3) {
            // A failed checkpoint loses nothing: the log it would have replaced stays.
            let checkpointed = db.checkpoint();
            if trace {
                eprintln!("step {step}: checkpoint {checkpointed:?}");
            }
        }
        let (statements, commit) = transaction(&mut rng);
        let outcome = run(&mut session, &statements, commit);
        if trace {
            eprintln!("step {step}: {statements:?} {commit:?} {outcome:?}");
        }
        if outcome == Outcome::Acknowledged {
            acknowledged += 1;
            assert_eq!(
                run(&mut expected, &statements, commit),
                Outcome::Acknowledged,
                "seed {seed}, step {step}: the reference refused {statements:?}"
            );
        } else if outcome == Outcome::InDoubt {
            // A failed log write or sync: the database refuses writes now and crashes
            // below, before anything else could commit after it.
            run_open(&mut in_doubt, &statements);
        } else {
            // Consume the same sequence values, then roll back.
            let _ = run(
                &mut expected,
                &statements,
                commit.map(|_| false).or(Some(false)),
            );
        }
        // A failed log refuses every write until a restart: crash then.
        if db.store().writable().is_err() || rng.chance(4) {
            drop(session);
            drop(db);
            disk.crash(&mut rng);
            crashes += 1;
            if trace {
                eprintln!("step {step}: crash");
            }
            db = match open(&disk) {
                Ok(db) => db,
                Err(e) => panic!("seed {seed}, step {step}: recovery failed: {e}"),
            };
            session = db.connect();
            let got = dump(&db);
            let mut want = dump(&reference);
            if got != want && in_doubt.transaction_status() != TransactionStatus::Idle {
                // The in-doubt commit survived: so must it in the reference.
                let _ = in_doubt.execute("COMMIT");
                want = dump(&reference);
            }
            let _ = in_doubt.execute("ROLLBACK");
            if got != want {
                for key in want.keys().chain(got.keys()) {
                    if got.get(key) != want.get(key) {
                        eprintln!(
                            "{key}:\n  recovered {:?}\n  expected  {:?}",
                            got.get(key),
                            want.get(key)
                        );
                    }
                }
                panic!("seed {seed}, step {step}: the recovered state differs");
            }
            // The recovered counter never hands out a value a committed row used; the
            // reference continues from it so that both insert the same values.
            let sequence = db
                .store()
                .snapshot()
                .sequences
                .get(&QualifiedName::new(PUBLIC_OID, "s"))
                .map(|s| s.counter());
            if let Some((last, is_called)) = sequence {
                let sql = format!("SELECT setval('s', {last}, {is_called})");
                assert!(expected.execute(&sql).is_ok());
                let max = session.execute("SELECT coalesce(max(v), 0) FROM seqs");
                let max = max.ok().and_then(|r| {
                    r.first()
                        .and_then(|r| r.batches.first().map(|b| b.columns[0].get_scalar(0)))
                });
                if let Some(crate::types::ScalarValue::Int64(max)) = max {
                    assert!(
                        last >= max,
                        "seed {seed}: sequence at {last} below used {max}"
                    );
                }
            }
        }
    }
    eprintln!(
        "crash simulation: {transactions} transactions, {acknowledged} acknowledged, {crashes} crashes, {faults} faults, {} fsyncs",
        disk.syncs()
    );
    assert!(crashes > 0 && acknowledged > 0);
}
