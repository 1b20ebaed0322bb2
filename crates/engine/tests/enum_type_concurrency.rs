//! DROP TYPE against a transaction that is creating a column of the type: the drop waits
//! for it (CREATE and ALTER TABLE lock the names of the enum types their columns use, see
//! `exec/enum_type.rs`), then finds the column and refuses; a column never outlives its type.

mod common;

use std::time::Duration;

use common::{rows, run};

/// Runs `sql` on a new session of `db` on another thread while `holder` keeps its
/// transaction open for a moment, then ends it with `end`; the other statement's SQLSTATE.
fn race(db: &kestrel::Database, holder: &mut kestrel::Session, sql: &str, end: &str) -> String {
    let mut other = db.connect();
    let sql = sql.to_string();
    let waiter = std::thread::spawn(move || match other.execute(&sql) {
        Ok(_) => "ok".to_string(),
        Err(e) => e.sqlstate().to_string(),
    });
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        !waiter.is_finished(),
        "DROP TYPE did not wait for the table's writer"
    );
    run(holder, end);
    waiter.join().unwrap_or_else(|_| "panicked".into())
}

#[test]
fn drop_type_waits_for_a_table_being_created_with_it() {
    let db = kestrel::Database::new();
    let mut a = db.connect();
    run(&mut a, "CREATE TYPE mood AS ENUM ('sad', 'happy')");
    run(&mut a, "BEGIN; CREATE TABLE t (m mood)");
    assert_eq!(race(&db, &mut a, "DROP TYPE mood", "COMMIT"), "2BP01");

    run(&mut a, "BEGIN; ALTER TABLE t ADD COLUMN n mood");
    run(&mut a, "DROP TABLE t");
    assert_eq!(race(&db, &mut a, "DROP TYPE mood", "ROLLBACK"), "2BP01");
    run(&mut a, "DROP TABLE t");
    run(&mut a, "BEGIN; CREATE TABLE u (m mood)");
    assert_eq!(race(&db, &mut a, "DROP TYPE mood", "ROLLBACK"), "ok");
    assert_eq!(
        rows(
            &mut a,
            "SELECT count(*) FROM pg_type WHERE typname = 'mood'"
        ),
        ["0"]
    );
}
