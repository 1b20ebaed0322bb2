//! Window frames through the paths the sqllogictest corpus does not take: a prepared
//! statement keeps its EXCLUDE clauses and takes its frame offsets as parameters, and a view
//! or SQL PREPARE (both kept as text printed from the AST) refuses an EXCLUDE it could not
//! keep.

fn column(result: &kestrel::StatementResult) -> Vec<kestrel::types::ScalarValue> {
    let mut out = Vec::new();
    for batch in &result.batches {
        for row in 0..batch.len() {
            out.push(batch.columns[0].get_scalar(row));
        }
    }
    out
}

#[test]
fn prepared_statements_keep_exclusions_and_take_offsets() {
    use kestrel::types::ScalarValue::Int64;
    let db = kestrel::Database::new();
    let mut s = db.connect();
    s.execute("CREATE TABLE t (k integer)")
        .unwrap_or_else(|e| panic!("{e}"));
    s.execute("INSERT INTO t VALUES (1), (2), (4), (7)")
        .unwrap_or_else(|e| panic!("{e}"));
    let prepared = s
        .prepare(
            "SELECT sum(k) OVER (ORDER BY k RANGE BETWEEN $1 PRECEDING AND $1 FOLLOWING \
             EXCLUDE CURRENT ROW) FROM t ORDER BY k",
            &[],
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let sums = |s: &mut kestrel::Session, offset: i32| {
        let result = s
            .execute_prepared(&prepared, &[kestrel::types::ScalarValue::Int32(offset)])
            .unwrap_or_else(|e| panic!("{e}"));
        column(&result)
    };
    assert_eq!(
        sums(&mut s, 1),
        [
            Int64(2),
            Int64(1),
            kestrel::types::ScalarValue::Null,
            kestrel::types::ScalarValue::Null
        ]
    );
    assert_eq!(sums(&mut s, 3), [Int64(6), Int64(5), Int64(10), Int64(4)]);
    let error = s
        .execute_prepared(&prepared, &[kestrel::types::ScalarValue::Int32(-1)])
        .err()
        .map(|e| e.state.code());
    assert_eq!(error, Some("22013"));
}

#[test]
fn a_view_refuses_an_exclusion_it_cannot_keep() {
    let db = kestrel::Database::new();
    let mut s = db.connect();
    s.execute("CREATE TABLE t (k integer)")
        .unwrap_or_else(|e| panic!("{e}"));
    let error = s
        .execute(
            "CREATE VIEW v AS SELECT sum(k) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND \
             UNBOUNDED FOLLOWING EXCLUDE TIES) FROM t",
        )
        .err()
        .map(|e| e.state.code());
    assert_eq!(error, Some("0A000"));
}

#[test]
fn sql_prepare_refuses_an_exclusion_it_cannot_keep() {
    let db = kestrel::Database::new();
    let mut s = db.connect();
    let error = s
        .execute("PREPARE p AS SELECT count(*) OVER (ROWS CURRENT ROW EXCLUDE CURRENT ROW)")
        .err()
        .map(|e| e.state.code());
    assert_eq!(error, Some("0A000"));
}
