//! Plan shapes: which operators the optimizer and the physical planner choose. EXPLAIN's
//! text is KestrelDB's own, so these are snapshots here rather than differential tests.

fn explain(session: &mut kestrel::Session, sql: &str) -> Vec<String> {
    let results = session
        .execute(&format!("EXPLAIN {sql}"))
        .unwrap_or_else(|e| panic!("EXPLAIN {sql}: {e}"));
    let mut lines = Vec::new();
    for batch in &results[0].batches {
        for row in 0..batch.len() {
            let mut text = Vec::new();
            batch.columns[0].write_text(row, &mut text);
            lines.push(String::from_utf8_lossy(&text).into_owned());
        }
    }
    lines
}

fn session() -> kestrel::Session {
    let mut session = kestrel::Database::new().connect();
    for sql in [
        "CREATE TABLE big (id integer, grp integer, v integer)",
        "INSERT INTO big SELECT g, g % 10, g FROM generate_series(1, 5000) g",
        "CREATE TABLE small (id integer, name text)",
        "INSERT INTO small VALUES (1, 'a'), (2, 'b')",
    ] {
        session
            .execute(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    session
}

#[test]
fn comma_join_with_where_equality_becomes_a_hash_join_with_filters_pushed_down() {
    let mut s = session();
    let plan = explain(
        &mut s,
        "SELECT big.v, small.name FROM big, small WHERE big.id = small.id AND big.v > 10 AND small.name <> 'x'",
    );
    assert_eq!(
        plan,
        [
            "Project (2 columns)",
            "->  Hash Inner Join (keys: 1)",
            "      ->  Filter",
            "            ->  Seq Scan on big",
            "      ->  Filter",
            "            ->  Seq Scan on small",
        ]
    );
}

#[test]
fn order_by_limit_is_a_top_n() {
    let mut s = session();
    let plan = explain(&mut s, "SELECT v FROM big ORDER BY v DESC LIMIT 5");
    assert_eq!(plan[0], "Limit");
    assert!(plan[1].contains("Top-N Sort"), "{plan:?}");
}

#[test]
fn a_join_without_an_equality_is_a_nested_loop() {
    let mut s = session();
    let plan = explain(&mut s, "SELECT 1 FROM big JOIN small ON big.id < small.id");
    assert!(
        plan.iter().any(|l| l.contains("Nested Loop Inner Join")),
        "{plan:?}"
    );
}

#[test]
fn outer_join_keeps_where_conditions_on_the_nullable_side_above_the_join() {
    let mut s = session();
    let plan = explain(
        &mut s,
        "SELECT 1 FROM big LEFT JOIN small ON big.id = small.id WHERE small.name IS NULL",
    );
    assert_eq!(plan[0], "Project (1 columns)");
    assert_eq!(plan[1], "->  Filter", "{plan:?}");
    assert!(
        plan[2].contains("Hash Left Join") || plan[2].contains("Hash Right Join"),
        "{plan:?}"
    );
}

#[test]
fn explain_analyze_reports_rows_per_operator() {
    let mut s = session();
    let plan = explain(&mut s, "ANALYZE SELECT count(*) FROM big WHERE grp = 3");
    assert!(plan[0].starts_with("Project"), "{plan:?}");
    assert!(
        plan.iter()
            .any(|l| l.contains("Seq Scan on big") && l.contains("actual rows=5000")),
        "{plan:?}"
    );
    assert!(
        plan.iter()
            .any(|l| l.contains("Filter") && l.contains("actual rows=500")),
        "{plan:?}"
    );
    assert!(
        plan.last().is_some_and(|l| l.starts_with("Execution Time")),
        "{plan:?}"
    );
}
