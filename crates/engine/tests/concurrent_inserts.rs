//! Inserters into one table run together (ROW EXCLUSIVE, with `kestrel.concurrent_inserts`
//! on): every committed row is kept once, unique keys stay unique, and a restart replays the
//! rebased commits exactly.

mod common;

use std::path::PathBuf;

use common::{race_sessions, rows, run};
use kestrel::Database;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kestrel-inserts-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn open(dir: &std::path::Path) -> Database {
    Database::open(dir).unwrap_or_else(|e| panic!("open {}: {e}", dir.display()))
}

const SHARE_INSERTS: &str = "SET kestrel.concurrent_inserts = on";

/// What the table holds: its row count, distinct ids and the sum of the notes' lengths.
const SUMMARY: &str = "SELECT count(*), count(DISTINCT id), sum(length(note)) FROM t";

#[test]
fn interleaved_transactions_keep_both_sides_rows_across_a_restart() {
    let dir = scratch("interleaved");
    let before = {
        let db = open(&dir);
        let mut s1 = db.connect();
        let mut s2 = db.connect();
        run(&mut s1, SHARE_INSERTS);
        run(&mut s2, SHARE_INSERTS);
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
        race_sessions(&db, 6, 150, 13, |rng, session, step| {
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
            format!("{SHARE_INSERTS}; {statements}")
        });
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
