//! The plan and result caches are exact: a repeated query sees every committed change, a
//! transaction sees its own writes, volatile results are never reused.

mod common;

use common::{rows, run};

#[test]
fn repeated_queries_see_other_sessions_commits() {
    let db = kestrel::Database::new();
    let (mut a, mut b) = (db.connect(), db.connect());
    run(&mut a, "CREATE TABLE t (x integer)");
    run(&mut a, "INSERT INTO t VALUES (1), (2)");
    let query = "SELECT sum(x), count(*) FROM t";
    assert_eq!(rows(&mut a, query), ["3|2"]);
    assert_eq!(rows(&mut a, query), ["3|2"]);
    run(&mut b, "INSERT INTO t VALUES (10)");
    assert_eq!(rows(&mut a, query), ["13|3"]);
    run(&mut b, "UPDATE t SET x = 0 WHERE x = 10");
    assert_eq!(rows(&mut a, query), ["3|3"]);
    run(&mut b, "DELETE FROM t WHERE x = 0");
    assert_eq!(rows(&mut a, query), ["3|2"]);
}

#[test]
fn a_transaction_sees_its_own_writes_and_others_do_not() {
    let db = kestrel::Database::new();
    let (mut a, mut b) = (db.connect(), db.connect());
    run(&mut a, "CREATE TABLE t (x integer)");
    run(&mut a, "INSERT INTO t VALUES (1)");
    let query = "SELECT count(*) FROM t";
    assert_eq!(rows(&mut b, query), ["1"]);
    run(&mut a, "BEGIN");
    run(&mut a, "INSERT INTO t VALUES (2)");
    assert_eq!(rows(&mut a, query), ["2"]);
    assert_eq!(rows(&mut b, query), ["1"]);
    run(&mut a, "ROLLBACK");
    assert_eq!(rows(&mut a, query), ["1"]);
}

#[test]
fn dropping_and_recreating_a_table_invalidates_plans_and_results() {
    let db = kestrel::Database::new();
    let mut s = db.connect();
    run(&mut s, "CREATE TABLE t (x integer)");
    run(&mut s, "INSERT INTO t VALUES (1)");
    let query = "SELECT * FROM t";
    assert_eq!(rows(&mut s, query), ["1"]);
    run(&mut s, "DROP TABLE t");
    assert!(s.execute(query).is_err_and(|e| e.sqlstate() == "42P01"));
    run(&mut s, "CREATE TABLE t (x text, y integer)");
    run(&mut s, "INSERT INTO t VALUES ('a', 2)");
    assert_eq!(rows(&mut s, query), ["a|2"]);
}

#[test]
fn volatile_results_are_not_reused() {
    let db = kestrel::Database::new();
    let mut s = db.connect();
    run(&mut s, "CREATE SEQUENCE seq");
    assert_eq!(rows(&mut s, "SELECT nextval('seq')"), ["1"]);
    assert_eq!(rows(&mut s, "SELECT nextval('seq')"), ["2"]);
}

#[test]
fn prepared_statements_are_cached_per_parameter_values() {
    let db = kestrel::Database::new();
    let mut s = db.connect();
    run(&mut s, "CREATE TABLE t (k integer, v text)");
    run(&mut s, "INSERT INTO t VALUES (1, 'one'), (2, 'two')");
    let prepared = s
        .prepare("SELECT v FROM t WHERE k = $1", &[])
        .unwrap_or_else(|e| panic!("{e}"));
    let value = |s: &mut kestrel::Session, k: i32| {
        let result = s
            .execute_prepared(&prepared, &[kestrel::types::ScalarValue::Int32(k)])
            .unwrap_or_else(|e| panic!("{e}"));
        result.batches.first().map(|b| b.columns[0].get_scalar(0))
    };
    let one = Some(kestrel::types::ScalarValue::Text("one".into()));
    let two = Some(kestrel::types::ScalarValue::Text("two".into()));
    assert_eq!(value(&mut s, 1), one);
    assert_eq!(value(&mut s, 2), two);
    assert_eq!(value(&mut s, 1), one);
    run(&mut s, "UPDATE t SET v = 'uno' WHERE k = 1");
    assert_eq!(
        value(&mut s, 1),
        Some(kestrel::types::ScalarValue::Text("uno".into()))
    );
}

/// Whether running `sql` twice served the second result from the result cache (a cached
/// result carries the slot its encoded rows are kept in).
fn served_from_cache(s: &mut kestrel::Session, sql: &str) -> bool {
    run(s, sql);
    let results = s.execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    results[0].encoded.is_some()
}

#[test]
fn the_cache_can_be_switched_off() {
    let db = kestrel::Database::new();
    let mut s = db.connect();
    run(&mut s, "CREATE TABLE t (x integer)");
    run(
        &mut s,
        "INSERT INTO t SELECT g FROM generate_series(1, 5000) g",
    );
    let query = "SELECT sum(x) FROM t";
    assert!(served_from_cache(&mut s, query), "on by default");
    run(&mut s, "SET kestrel.result_cache = off");
    assert!(!served_from_cache(&mut s, query), "off means off");
    assert_eq!(rows(&mut s, query), ["12502500"]);
    run(&mut s, "SET kestrel.result_cache = on");
    assert!(served_from_cache(&mut s, query), "on again");
}

#[test]
fn results_cheaper_to_compute_than_to_keep_are_not_cached() {
    let db = kestrel::Database::new();
    let mut s = db.connect();
    run(&mut s, "CREATE TABLE t (id integer PRIMARY KEY, v text)");
    run(
        &mut s,
        "INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 5000) g",
    );
    assert!(!served_from_cache(&mut s, "SELECT v FROM t WHERE id = 42"));
    assert!(!served_from_cache(&mut s, "SELECT 1 + 1"));
    assert!(served_from_cache(
        &mut s,
        "SELECT count(*) FROM t WHERE v LIKE '%7%'"
    ));
}

#[test]
fn join_build_sides_are_not_reused_across_changes_or_into_transactions() {
    let db = kestrel::Database::new();
    let (mut a, mut b) = (db.connect(), db.connect());
    run(&mut a, "SET kestrel.result_cache = off");
    run(&mut a, "CREATE TABLE big (k integer)");
    run(
        &mut a,
        "INSERT INTO big SELECT g FROM generate_series(1, 100) g",
    );
    run(&mut a, "CREATE TABLE dim (k integer, name text)");
    run(&mut a, "INSERT INTO dim VALUES (1, 'one'), (2, 'two')");
    let query = "SELECT count(*), min(name) FROM big JOIN dim ON big.k = dim.k";
    assert_eq!(rows(&mut a, query), ["2|one"]);
    assert_eq!(rows(&mut a, query), ["2|one"]);
    run(&mut b, "INSERT INTO dim VALUES (3, 'a three')");
    assert_eq!(rows(&mut a, query), ["3|a three"]);
    run(&mut a, "BEGIN");
    run(&mut a, "INSERT INTO dim VALUES (4, 'a four')");
    assert_eq!(rows(&mut a, query), ["4|a four"]);
    run(&mut a, "ROLLBACK");
    assert_eq!(rows(&mut a, query), ["3|a three"]);
}
