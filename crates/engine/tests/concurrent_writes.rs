//! Writers of rows of one table run together (ROW EXCLUSIVE; updaters and deleters lock
//! the rows they change): every committed row is kept once, unique keys stay unique, and a restart replays the
//! rebased commits exactly.

mod common;

use std::path::PathBuf;

use common::{race_sessions, rows, run, Random};
use kestrel::Database;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kestrel-writes-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn open(dir: &std::path::Path) -> Database {
    Database::open(dir).unwrap_or_else(|e| panic!("open {}: {e}", dir.display()))
}

/// Writers share their tables only with this setting (off by default).
const SHARE: &str = "SET kestrel.concurrent_writes = on";

/// `statement` run with writers sharing their tables.
fn sharing(
    statement: impl Fn(&mut Random, u64, u64) -> String + Send + Sync + 'static,
) -> impl Fn(&mut Random, u64, u64) -> String + Send + Sync + 'static {
    move |rng, session, step| format!("{SHARE}; {}", statement(rng, session, step))
}

/// What the table holds: its row count, distinct ids and the sum of the notes' lengths.
const SUMMARY: &str = "SELECT count(*), count(DISTINCT id), sum(length(note)) FROM t";

#[test]
fn interleaved_transactions_keep_both_sides_rows_across_a_restart() {
    let dir = scratch("interleaved");
    let before = {
        let db = open(&dir);
        let mut s1 = db.connect();
        let mut s2 = db.connect();
        run(&mut s1, SHARE);
        run(&mut s2, SHARE);
        run(
            &mut s1,
            "CREATE TABLE t (id integer PRIMARY KEY, note text)",
        );
        run(&mut s1, "INSERT INTO t VALUES (1, 'a')");
        run(&mut s1, "BEGIN");
        run(&mut s1, "INSERT INTO t VALUES (2, 'bb'), (3, 'ccc')");
        run(&mut s2, "BEGIN");
        run(&mut s2, "INSERT INTO t VALUES (4, 'dddd')");
        run(&mut s2, "COMMIT");
        run(&mut s2, "INSERT INTO t VALUES (5, 'eeeee')");
        // s1's next statement sees s2's rows with its own.
        assert_eq!(rows(&mut s1, "SELECT count(*) FROM t"), ["5"]);
        run(&mut s1, "INSERT INTO t VALUES (6, 'f')");
        run(&mut s1, "COMMIT");
        let err = s2.execute("INSERT INTO t VALUES (3, 'x')").err();
        assert_eq!(err.map(|e| e.sqlstate().to_string()), Some("23505".into()));
        let summary = rows(&mut s2, SUMMARY);
        assert_eq!(summary, ["6|6|16"]);
        drop((s1, s2));
        db.close().unwrap_or_else(|e| panic!("close: {e}"));
        summary
    };
    let db = open(&dir);
    let mut s = db.connect();
    assert_eq!(rows(&mut s, SUMMARY), before);
    let err = s.execute("INSERT INTO t VALUES (6, 'again')").err();
    assert_eq!(err.map(|e| e.sqlstate().to_string()), Some("23505".into()));
    drop(s);
    let _ = db.close();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn racing_inserters_of_overlapping_keys_keep_each_key_once() {
    let dir = scratch("race");
    let before = {
        let db = open(&dir);
        let mut s = db.connect();
        run(&mut s, "CREATE TABLE t (id integer PRIMARY KEY, note text)");
        drop(s);
        // Ids from a small range, so that inserters often want the same key; some
        // transactions insert two rows, some roll back, some skip a key that is taken.
        race_sessions(
            &db,
            6,
            150,
            13,
            sharing(|rng, session, step| {
                let id = rng.below(400);
                let note = format!("s{session}-{step}");
                let statements = match rng.below(5) {
                    0 => format!(
                        "BEGIN; INSERT INTO t VALUES ({id}, '{note}'); \
                     INSERT INTO t VALUES ({}, '{note}'); COMMIT",
                        id + 400
                    ),
                    1 => format!("BEGIN; INSERT INTO t VALUES ({id}, '{note}'); ROLLBACK"),
                    2 => format!("INSERT INTO t VALUES ({id}, '{note}') ON CONFLICT DO NOTHING"),
                    _ => format!("INSERT INTO t VALUES ({id}, '{note}')"),
                };
                statements
            }),
        );
        let mut s = db.connect();
        let summary = rows(&mut s, "SELECT count(*), count(DISTINCT id) FROM t");
        let Some((count, distinct)) = summary[0].split_once('|') else {
            panic!("summary {summary:?}");
        };
        assert_eq!(count, distinct, "a key was inserted twice");
        assert_ne!(count, "0");
        drop(s);
        db.close().unwrap_or_else(|e| panic!("close: {e}"));
        summary
    };
    let db = open(&dir);
    let mut s = db.connect();
    assert_eq!(
        rows(&mut s, "SELECT count(*), count(DISTINCT id) FROM t"),
        before
    );
    drop(s);
    let _ = db.close();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Updaters of random rows of one table (some in pairs, which may deadlock; some after an
/// insert into it; some rolled back) and deleters of rows of another: every committed change
/// is applied once, as a journal written in the same transactions tells, and a restart
/// replays the rebased commits exactly.
#[test]
fn racing_updaters_and_deleters_apply_every_committed_change_once() {
    let dir = scratch("updates");
    let tally = "SELECT c.id, c.n, (SELECT count(*) FROM journal j WHERE j.id = c.id) \
                 FROM counters c ORDER BY c.id";
    let left = "SELECT count(*), sum(id) FROM doomed";
    let before = {
        let db = open(&dir);
        let mut s = db.connect();
        run(
            &mut s,
            "CREATE TABLE counters (id integer PRIMARY KEY, n integer NOT NULL); \
             INSERT INTO counters SELECT g, 0 FROM generate_series(0, 19) g; \
             CREATE TABLE journal (id integer, note text); \
             CREATE TABLE doomed (id integer, note text); \
             INSERT INTO doomed SELECT g, 'x' FROM generate_series(0, 399) g",
        );
        drop(s);
        race_sessions(
            &db,
            6,
            120,
            29,
            sharing(|rng, session, step| {
                let (a, b) = (rng.below(20), rng.below(20));
                let note = format!("s{session}-{step}");
                let bump = |id| {
                    format!(
                        "UPDATE counters SET n = n + 1 WHERE id = {id}; \
                     INSERT INTO journal VALUES ({id}, '{note}');"
                    )
                };
                match rng.below(6) {
                    0 => format!("BEGIN; {} {} COMMIT", bump(a), bump(b)),
                    1 => format!("BEGIN; {} ROLLBACK", bump(a)),
                    2 => format!(
                        "BEGIN; INSERT INTO doomed VALUES ({}, '{note}'); {} COMMIT",
                        1000 + session * 1000 + step,
                        bump(a)
                    ),
                    3 => format!("DELETE FROM doomed WHERE id = {}", rng.below(400)),
                    4 => format!(
                        "UPDATE doomed SET note = note || '+' WHERE id = {}",
                        rng.below(400)
                    ),
                    _ => format!("BEGIN; {} COMMIT", bump(a)),
                }
            }),
        );
        let mut s = db.connect();
        let counted = rows(&mut s, tally);
        for row in &counted {
            let fields: Vec<&str> = row.split('|').collect();
            assert_eq!(fields[1], fields[2], "counter and journal differ: {row}");
        }
        let summary = (counted, rows(&mut s, left));
        drop(s);
        db.close().unwrap_or_else(|e| panic!("close: {e}"));
        summary
    };
    let db = open(&dir);
    let mut s = db.connect();
    assert_eq!((rows(&mut s, tally), rows(&mut s, left)), before);
    drop(s);
    let _ = db.close();
    let _ = std::fs::remove_dir_all(&dir);
}
