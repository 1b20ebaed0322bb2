//! A durable database on the real file system: committed data survives closing and
//! reopening, a checkpoint, a torn log tail; a damaged checkpoint or a second opener is
//! refused with a clear error.

use std::path::{Path, PathBuf};

use kestrel::{Database, Session};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kestrel-durable-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn open(dir: &Path) -> Database {
    match Database::open(dir) {
        Ok(db) => db,
        Err(e) => panic!("open {}: {e}", dir.display()),
    }
}

fn run(session: &mut Session, sql: &str) {
    if let Err(e) = session.execute(sql) {
        panic!("{sql}: {e}");
    }
}

/// The first column of every row of `sql`, as text.
fn column(session: &mut Session, sql: &str) -> Vec<String> {
    let results = match session.execute(sql) {
        Ok(results) => results,
        Err(e) => panic!("{sql}: {e}"),
    };
    let mut out = Vec::new();
    for result in &results {
        for batch in &result.batches {
            for row in 0..batch.len() {
                let mut text = Vec::new();
                if !batch.columns[0].write_text(row, &mut text) {
                    text = b"NULL".to_vec();
                }
                out.push(String::from_utf8_lossy(&text).into_owned());
            }
        }
    }
    out
}

fn wal_segments(dir: &Path) -> Vec<PathBuf> {
    let mut segments: Vec<PathBuf> = std::fs::read_dir(dir.join("wal"))
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    segments.sort();
    segments
}

#[test]
fn committed_rows_survive_a_restart_and_a_checkpoint() {
    let dir = scratch("restart");
    {
        let db = open(&dir);
        let mut s = db.connect();
        run(
            &mut s,
            "CREATE TABLE t (id serial PRIMARY KEY, v text, n numeric)",
        );
        run(
            &mut s,
            "INSERT INTO t (v, n) SELECT 'row ' || g, g / 3.0 FROM generate_series(1, 2500) g",
        );
        run(&mut s, "UPDATE t SET v = NULL WHERE id % 100 = 0");
        run(&mut s, "DELETE FROM t WHERE id % 7 = 0");
        run(&mut s, "BEGIN");
        run(&mut s, "INSERT INTO t (v) VALUES ('rolled back')");
        run(&mut s, "ROLLBACK");
        run(
            &mut s,
            "CREATE VIEW big AS SELECT id FROM t WHERE id > 2490",
        );
        run(&mut s, "CREATE UNLOGGED TABLE scratch (id int PRIMARY KEY)");
        run(
            &mut s,
            "INSERT INTO scratch SELECT g FROM generate_series(1, 10) g",
        );
        run(&mut s, "CREATE SEQUENCE s");
        run(&mut s, "SELECT nextval('s')");
        run(&mut s, "SELECT nextval('s')");
    }
    let db = open(&dir);
    let mut s = db.connect();
    assert_eq!(column(&mut s, "SELECT count(*) FROM t"), ["2143"]);
    assert_eq!(
        column(&mut s, "SELECT count(*) FROM t WHERE v IS NULL"),
        ["22"]
    );
    assert_eq!(
        column(&mut s, "SELECT count(*) FROM t WHERE v = 'rolled back'"),
        ["0"]
    );
    assert_eq!(
        column(&mut s, "SELECT n FROM t WHERE id = 2"),
        ["0.66666666666666666667"]
    );
    assert_eq!(column(&mut s, "SELECT count(*) FROM big"), ["8"]);
    // A value nextval answered, even outside any write, is never handed out again.
    assert_eq!(column(&mut s, "SELECT nextval('s')"), ["3"]);
    // An unlogged table is back, empty.
    assert_eq!(column(&mut s, "SELECT count(*) FROM scratch"), ["0"]);
    run(&mut s, "INSERT INTO scratch VALUES (1)");
    assert!(
        s.execute("INSERT INTO t (id) VALUES (1)").is_err(),
        "the key is still unique"
    );
    // The serial goes on after the last value handed out.
    run(&mut s, "INSERT INTO t (v) VALUES ('next')");
    assert_eq!(
        column(&mut s, "SELECT id FROM t WHERE v = 'next'"),
        ["2502"]
    );
    run(&mut s, "CHECKPOINT");
    run(&mut s, "UPDATE t SET v = 'after' WHERE id = 1");
    drop(s);
    drop(db);
    let db = open(&dir);
    let mut s = db.connect();
    assert_eq!(column(&mut s, "SELECT v FROM t WHERE id = 1"), ["after"]);
    assert_eq!(column(&mut s, "SELECT count(*) FROM t"), ["2144"]);
    assert!(db
        .startup_report()
        .is_some_and(|r| r.contains("replayed 1 log records")));
    drop(s);
    drop(db);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_torn_log_tail_is_cut_and_reported() {
    let dir = scratch("torn");
    {
        let db = open(&dir);
        let mut s = db.connect();
        run(&mut s, "CREATE TABLE t (id int)");
        run(&mut s, "INSERT INTO t VALUES (1), (2)");
    }
    let segments = wal_segments(&dir);
    let Some(last) = segments.last() else {
        panic!("no log segment");
    };
    let mut bytes = std::fs::read(last).unwrap_or_default();
    bytes.extend_from_slice(&[40, 0, 0, 0, 1, 2, 3, 4, 5]);
    assert!(std::fs::write(last, &bytes).is_ok());
    let db = open(&dir);
    assert!(db
        .startup_report()
        .is_some_and(|r| r.contains("incomplete record")));
    let mut s = db.connect();
    assert_eq!(column(&mut s, "SELECT sum(id) FROM t"), ["3"]);
    run(&mut s, "INSERT INTO t VALUES (4)");
    drop(s);
    drop(db);
    let db = open(&dir);
    let mut s = db.connect();
    assert_eq!(column(&mut s, "SELECT sum(id) FROM t"), ["7"]);
    drop(s);
    drop(db);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn damage_and_a_second_server_are_refused() {
    let dir = scratch("damage");
    let db = open(&dir);
    let second = Database::open(&dir);
    assert_eq!(second.err().map(|e| e.sqlstate()), Some("55006"));
    let mut s = db.connect();
    run(&mut s, "CREATE TABLE t (id int)");
    run(&mut s, "INSERT INTO t VALUES (1)");
    run(&mut s, "CHECKPOINT");
    drop(s);
    drop(db);
    let table_file = std::fs::read_dir(dir.join("tables"))
        .ok()
        .and_then(|mut entries| entries.next())
        .and_then(|e| e.ok())
        .map(|e| e.path());
    let Some(table_file) = table_file else {
        panic!("the checkpoint wrote no table file");
    };
    let mut bytes = std::fs::read(&table_file).unwrap_or_default();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    assert!(std::fs::write(&table_file, &bytes).is_ok());
    let refused = Database::open(&dir).err();
    assert_eq!(refused.as_ref().map(|e| e.sqlstate()), Some("XX001"));
    let named = refused.is_some_and(|e| e.message.contains(&*table_file.to_string_lossy()));
    assert!(named, "the error names the damaged file");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_clean_shutdown_keeps_unlogged_rows_and_sequence_counters() {
    let dir = scratch("close");
    let db = open(&dir);
    let mut s = db.connect();
    run(&mut s, "CREATE UNLOGGED TABLE u (id int PRIMARY KEY)");
    run(&mut s, "INSERT INTO u VALUES (1), (2)");
    run(
        &mut s,
        "CREATE TABLE t (id serial PRIMARY KEY, v int UNIQUE)",
    );
    run(&mut s, "INSERT INTO t (v) VALUES (1)");
    // A failing insert still consumes a serial value, as in PostgreSQL.
    assert!(s.execute("INSERT INTO t (v) VALUES (1)").is_err());
    drop(s);
    assert!(db.close().is_ok());
    let db = open(&dir);
    let mut s = db.connect();
    assert_eq!(column(&mut s, "SELECT count(*) FROM u"), ["2"]);
    run(&mut s, "INSERT INTO t (v) VALUES (2)");
    assert_eq!(column(&mut s, "SELECT id FROM t WHERE v = 2"), ["3"]);
    // A crash (a drop without close) after that empties the unlogged table.
    run(&mut s, "INSERT INTO u VALUES (3)");
    drop(s);
    drop(db);
    let db = open(&dir);
    let mut s = db.connect();
    assert_eq!(column(&mut s, "SELECT count(*) FROM u"), ["0"]);
    drop(s);
    drop(db);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn foreign_servers_and_tables_survive_log_replay_and_a_checkpoint() {
    let dir = scratch("foreign");
    let db = open(&dir);
    let mut s = db.connect();
    run(&mut s, "CREATE EXTENSION file_fdw");
    run(&mut s, "CREATE SERVER files FOREIGN DATA WRAPPER file_fdw");
    run(&mut s, "CREATE SERVER spare FOREIGN DATA WRAPPER file_fdw");
    run(
        &mut s,
        "CREATE FOREIGN TABLE ft (a int) SERVER files \
         OPTIONS (filename '/tmp/none.csv', format 'csv')",
    );
    run(&mut s, "DROP SERVER spare");
    let servers = "SELECT srvname FROM pg_foreign_server ORDER BY 1";
    let options = "SELECT ftoptions::text FROM pg_foreign_table";
    // A crash (a drop without close): the log alone brings them back.
    drop(s);
    drop(db);
    let db = open(&dir);
    let mut s = db.connect();
    assert_eq!(column(&mut s, servers), ["files"]);
    assert_eq!(
        column(&mut s, options),
        ["{filename=/tmp/none.csv,format=csv}"]
    );
    // A clean shutdown: from the checkpoint.
    drop(s);
    assert!(db.close().is_ok());
    let db = open(&dir);
    let mut s = db.connect();
    assert_eq!(column(&mut s, servers), ["files"]);
    assert_eq!(
        column(&mut s, options),
        ["{filename=/tmp/none.csv,format=csv}"]
    );
    run(&mut s, "DROP SERVER files CASCADE");
    drop(s);
    drop(db);
    let db = open(&dir);
    let mut s = db.connect();
    assert!(column(&mut s, servers).is_empty());
    assert!(column(&mut s, options).is_empty());
    drop(s);
    drop(db);
    let _ = std::fs::remove_dir_all(&dir);
}
