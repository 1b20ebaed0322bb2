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
use crate::api::{Database, Session};
use crate::error::Result;

const TABLES: [&str; 3] = ["t0", "t1", "t2"];

fn options() -> DurableOptions {
    // Checkpoints only where the test asks for them, so a seed replays exactly.
    DurableOptions {
        checkpoint_timeout: std::time::Duration::from_secs(1 << 30),
        max_wal_size: u64::MAX,
    }
}

fn open(disk: &SimDisk) -> Result<Database> {
    Database::open_on(Arc::new(disk.clone()), Path::new("/data"), options(), None)
}

/// One random statement.
fn statement(rng: &mut Rng, in_block: bool) -> String {
    let t = TABLES[rng.below(TABLES.len() as u64) as usize];
    let k = rng.below(300);
    match rng.below(if in_block { 15 } else { 16 }) {
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
        14 => format!("CREATE INDEX IF NOT EXISTS {t}_n ON {t} (n)"),
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

/// Runs a transaction; true when its commit was acknowledged.
fn run(session: &mut Session, statements: &[String], commit: Option<bool>) -> bool {
    let Some(commit) = commit else {
        return session.execute(&statements[0]).is_ok();
    };
    if session.execute("BEGIN").is_err() {
        return false;
    }
    for sql in statements {
        if session.execute(sql).is_err() {
            let _ = session.execute("ROLLBACK");
            return false;
        }
    }
    let end = if commit { "COMMIT" } else { "ROLLBACK" };
    match session.execute(end) {
        Ok(results) => commit && results.iter().all(|r| r.tag == "COMMIT"),
        Err(_) => false,
    }
}

/// Every table's columns and sorted rows, the views and the sequences, as text.
fn dump(db: &Database) -> BTreeMap<String, Vec<String>> {
    let state = db.store().snapshot();
    let mut session = db.connect();
    let mut out = BTreeMap::new();
    for entry in state.tables.values() {
        let schema = &entry.schema;
        let mut rows = vec![format!(
            "{:?} {:?} {:?}",
            schema.columns, schema.unique_keys, schema.indexes
        )];
        let mut body = Vec::new();
        let results = session.execute(&format!("SELECT * FROM {}", schema.name));
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
        out.insert(format!("table {}", schema.name), rows);
    }
    for name in state.views.keys() {
        out.insert(format!("view {name}"), Vec::new());
    }
    for name in state.sequences.keys() {
        out.insert(format!("sequence {name}"), Vec::new());
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
    let disk = SimDisk::default();
    let reference = Database::in_memory();
    let mut expected = reference.connect();
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
            disk.fail_syncs_after(rng.below(3));
            faults += 1;
        } else if rng.chance(1) {
            disk.fill_after(rng.below(40_000));
            faults += 1;
        }
        if rng.chance(3) {
            // A failed checkpoint loses nothing: the log it would have replaced stays.
            let _ = db.checkpoint();
        }
        let (statements, commit) = transaction(&mut rng);
        let acked = run(&mut session, &statements, commit);
        if acked {
            acknowledged += 1;
            assert!(
                run(&mut expected, &statements, commit),
                "seed {seed}, step {step}: the reference refused {statements:?}"
            );
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
            db = match open(&disk) {
                Ok(db) => db,
                Err(e) => panic!("seed {seed}, step {step}: recovery failed: {e}"),
            };
            session = db.connect();
            let (got, want) = (dump(&db), dump(&reference));
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
                .get("s")
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
