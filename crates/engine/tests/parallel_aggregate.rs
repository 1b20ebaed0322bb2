//! Parallel hash aggregation gives the serial result row for row, in the same order, even
//! where SQL leaves the order open (GROUP BY without ORDER BY): the merged groups are put
//! back in the order serial execution creates them. slt files cannot pin that order, as
//! PostgreSQL's differs.

use kestrel::Session;

fn run(session: &mut Session, sql: &str) {
    if let Err(e) = session.execute(sql) {
        panic!("{sql}: {e}");
    }
}

/// Every row of `sql`, its values as text, in the order they came.
fn rows(session: &mut Session, sql: &str) -> Vec<Vec<String>> {
    let results = match session.execute(sql) {
        Ok(results) => results,
        Err(e) => panic!("{sql}: {e}"),
    };
    let mut out = Vec::new();
    for batch in results.iter().flat_map(|r| &r.batches) {
        for row in 0..batch.len() {
            let values = batch.columns.iter().map(|column| {
                let mut text = Vec::new();
                match column.write_text(row, &mut text) {
                    true => String::from_utf8_lossy(&text).into_owned(),
                    false => "NULL".to_owned(),
                }
            });
            out.push(values.collect());
        }
    }
    out
}

#[test]
fn parallel_groups_come_out_in_serial_order() {
    let mut session = kestrel::Database::new().connect();
    run(
        &mut session,
        "CREATE TABLE t (g int, k text, v bigint, d date)",
    );
    // Keys in a scrambled order, so the first appearance of a group is not its sort order.
    run(
        &mut session,
        "INSERT INTO t SELECT (x * 7919) % 1000, 'k' || ((x * 31) % 17), \
         CASE WHEN x % 9 = 0 THEN NULL ELSE x END, date '2020-01-01' + (x * 13) % 400 \
         FROM generate_series(1, 5000) x",
    );
    let queries = [
        "SELECT g, count(*), sum(v), min(k), max(d) FROM t GROUP BY g",
        "SELECT k, avg(v), bool_or(v > 4000) FROM t WHERE g % 3 = 1 GROUP BY k",
        "SELECT g % 50, k, count(v) FROM t GROUP BY g % 50, k",
        "SELECT d, sum(g) FROM t GROUP BY d HAVING count(*) > 10",
        "SELECT count(*), sum(v), max(k) FROM t",
    ];
    run(&mut session, "SET max_parallel_workers_per_gather = 0");
    let serial: Vec<_> = queries.iter().map(|q| rows(&mut session, q)).collect();
    run(&mut session, "SET max_parallel_workers_per_gather = 3");
    run(&mut session, "SET force_parallel_mode = on");
    for (query, serial) in queries.iter().zip(&serial) {
        assert!(!serial.is_empty(), "{query}");
        // Several runs: the workers interleave differently each time.
        for _ in 0..3 {
            assert_eq!(&rows(&mut session, query), serial, "{query}");
        }
    }
}

/// The lines of EXPLAIN `sql`.
fn explain(session: &mut Session, sql: &str) -> Vec<String> {
    rows(session, &format!("EXPLAIN {sql}"))
        .into_iter()
        .map(|mut row| row.remove(0))
        .collect()
}

#[test]
fn explain_shows_where_an_aggregate_runs_on_the_workers() {
    let mut session = kestrel::Database::new().connect();
    run(&mut session, "CREATE TABLE t (g int, v bigint, f float8)");
    run(&mut session, "INSERT INTO t VALUES (1, 2, 3.5)");
    run(&mut session, "SET max_parallel_workers_per_gather = 1");
    run(&mut session, "SET force_parallel_mode = on");
    let query = "SELECT g, count(*), sum(v) FROM t WHERE v > 0 GROUP BY g";
    let plan = explain(&mut session, query);
    assert!(
        plan[0].starts_with("Parallel HashAggregate") && plan[0].ends_with("(workers planned: 1)"),
        "{plan:?}"
    );
    // The workers run the pipeline themselves: no Gather under the aggregate.
    assert!(plan[1].contains("Filter"), "{plan:?}");
    // A float sum is aggregated serially over the ordered Gather.
    let plan = explain(
        &mut session,
        "SELECT g, sum(f) FROM t WHERE v > 0 GROUP BY g",
    );
    assert!(plan[0].starts_with("HashAggregate"), "{plan:?}");
    assert!(plan[1].contains("Gather"), "{plan:?}");
    run(&mut session, "SET force_parallel_mode = regress");
    let plan = explain(&mut session, query);
    assert!(plan[0].starts_with("HashAggregate"), "{plan:?}");
    run(&mut session, "SET force_parallel_mode = off");
    run(&mut session, "SET max_parallel_workers_per_gather = 0");
    let plan = explain(&mut session, query);
    assert!(plan[0].starts_with("HashAggregate"), "{plan:?}");
}
