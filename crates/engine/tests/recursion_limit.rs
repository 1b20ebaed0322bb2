//! A runaway WITH RECURSIVE stops at `kestrel.max_recursive_iterations` with 54000 instead of
//! running forever (PostgreSQL has no such limit, so this is not in the differential corpus).

#[test]
fn runaway_recursion_stops_at_the_limit() {
    let mut session = kestrel::Database::new().connect();
    assert!(session
        .execute("SET kestrel.max_recursive_iterations = 50")
        .is_ok());
    let error = session
        .execute("WITH RECURSIVE inf(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM inf) SELECT count(*) FROM inf")
        .err()
        .map(|e| e.sqlstate());
    assert_eq!(error, Some("54000"));
    // A terminating recursion deeper than nothing but within the limit still works.
    let ok = session.execute(
        "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 40) SELECT count(*) FROM t",
    );
    assert!(ok.is_ok_and(|r| r[0].row_count() == 1));
    assert!(session
        .execute("SET kestrel.max_recursive_iterations = 0")
        .is_err_and(|e| e.sqlstate() == "22023"));
}
