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
        "CREATE TABLE mid (id integer, label text, extra text)",
        "INSERT INTO mid SELECT g, 'l' || g, 'e' FROM generate_series(0, 99) g",
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
            "            ->  Seq Scan on big (2 columns)",
            "      ->  Filter",
            "            ->  Seq Scan on small (2 columns)",
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
    assert!(plan[0].starts_with("Aggregate"), "{plan:?}");
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

#[test]
fn primary_key_equality_is_an_index_lookup() {
    let mut s = kestrel::Database::new().connect();
    for sql in [
        "CREATE TABLE acc (id integer PRIMARY KEY, bal integer)",
        "INSERT INTO acc SELECT g, g * 2 FROM generate_series(1, 5000) g",
    ] {
        s.execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let plan = explain(&mut s, "SELECT bal FROM acc WHERE id = 4321");
    assert!(
        plan.iter().any(|l| l.contains("Index Lookup on acc")),
        "{plan:?}"
    );
    let plan = explain(
        &mut s,
        "ANALYZE SELECT bal FROM acc WHERE id = 4321 AND bal > 0",
    );
    assert!(
        plan.iter()
            .any(|l| l.contains("Index Lookup on acc") && l.contains("actual rows=1")),
        "{plan:?}"
    );
    // Not on a non-key column.
    let plan = explain(&mut s, "SELECT id FROM acc WHERE bal = 10");
    assert!(
        plan.iter().any(|l| l.contains("Seq Scan on acc")),
        "{plan:?}"
    );
}

#[test]
fn equality_on_an_indexed_column_is_an_index_lookup() {
    let mut s = kestrel::Database::new().connect();
    for sql in [
        "CREATE TABLE ev (id integer, kind integer, day integer)",
        "INSERT INTO ev SELECT g, g % 10, g % 500 FROM generate_series(1, 10000) g",
        "CREATE INDEX ev_kind ON ev (kind)",
        "CREATE INDEX ev_day ON ev (day)",
    ] {
        s.execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    // Two indexes can answer; the rows are those of the whole conjunction.
    let plan = explain(
        &mut s,
        "ANALYZE SELECT id FROM ev WHERE kind = 3 AND day = 13",
    );
    assert!(
        plan.iter()
            .any(|l| l.contains("Index Lookup on ev") && l.contains("actual rows=20")),
        "{plan:?}"
    );
    // A range is not an equality: a scan.
    let plan = explain(&mut s, "SELECT id FROM ev WHERE kind > 3");
    assert!(
        plan.iter().any(|l| l.contains("Seq Scan on ev")),
        "{plan:?}"
    );
}

#[test]
fn an_in_list_on_an_indexed_column_is_an_index_lookup() {
    let mut s = kestrel::Database::new().connect();
    for sql in [
        "CREATE TABLE items (id integer PRIMARY KEY, grp integer, amount integer)",
        "INSERT INTO items SELECT g, g % 100, g FROM generate_series(1, 10000) g",
        "CREATE INDEX items_grp ON items (grp)",
    ] {
        s.execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    // One lookup per distinct value; NULL finds nothing.
    let plan = explain(
        &mut s,
        "ANALYZE SELECT amount FROM items WHERE id IN (5, 9000, 5, NULL, 20000)",
    );
    assert!(
        plan.iter()
            .any(|l| l.contains("Index Lookup on items") && l.contains("actual rows=2")),
        "{plan:?}"
    );
    let plan = explain(
        &mut s,
        "ANALYZE SELECT id FROM items WHERE grp IN (3, 4) AND amount > 5000",
    );
    assert!(
        plan.iter()
            .any(|l| l.contains("Index Lookup on items") && l.contains("actual rows=100")),
        "{plan:?}"
    );
    // Not through NOT IN, nor where the column is cast to the items' type.
    for sql in [
        "SELECT id FROM items WHERE id NOT IN (1, 2)",
        "SELECT id FROM items WHERE id IN (1, 2.5)",
    ] {
        let plan = explain(&mut s, sql);
        assert!(
            plan.iter().any(|l| l.contains("Seq Scan on items")),
            "{sql}: {plan:?}"
        );
    }
}

#[test]
fn join_order_follows_table_sizes_not_the_written_order() {
    let mut s = session();
    // Written smallest first; the big table probes the tables built from the small ones,
    // the most selective join first, and a projection restores the written columns.
    let sql = "SELECT * FROM small s, mid m, big b WHERE b.id = s.id AND b.grp = m.id";
    assert_eq!(
        explain(&mut s, sql),
        [
            "Project (8 columns)",
            "->  Hash Inner Join (keys: 1)",
            "      ->  Hash Inner Join (keys: 1)",
            "            ->  Seq Scan on big (3 columns)",
            "            ->  Seq Scan on small (2 columns)",
            "      ->  Seq Scan on mid (3 columns)",
        ]
    );
    s.execute("SET kestrel.disabled_optimizer_rules = 'reorder_joins'")
        .expect("SET");
    assert_eq!(
        explain(&mut s, sql),
        [
            "Hash Inner Join (keys: 2)",
            "->  Nested Loop Inner Join",
            "      ->  Seq Scan on small (2 columns)",
            "      ->  Seq Scan on mid (3 columns)",
            "->  Seq Scan on big (3 columns)",
        ]
    );
}

#[test]
fn a_filtered_dimension_joins_the_fact_table_first() {
    let mut s = session();
    let plan = explain(
        &mut s,
        "SELECT count(*) FROM mid m JOIN big b ON b.grp = m.id JOIN small s ON s.id = b.id WHERE m.label = 'l1'",
    );
    // mid is filtered to an estimated quarter: its join with big is the smaller, so it
    // comes first (written second), and big probes both hash tables.
    assert_eq!(
        plan[2..],
        [
            "      ->  Hash Inner Join (keys: 1)",
            "            ->  Hash Inner Join (keys: 1)",
            "                  ->  Seq Scan on big (2 columns)",
            "                  ->  Filter",
            "                        ->  Seq Scan on mid (2 columns)",
            "            ->  Seq Scan on small (1 columns)",
        ],
        "{plan:?}"
    );
}

#[test]
fn a_cross_product_comes_last_when_edges_exist() {
    let mut s = session();
    let plan = explain(
        &mut s,
        "SELECT count(*) FROM small s, big b, mid m WHERE b.grp = m.id",
    );
    assert!(plan[2].contains("Nested Loop Inner Join"), "{plan:?}");
    assert!(plan[3].contains("Hash Inner Join"), "{plan:?}");
}

#[test]
fn outer_joins_are_not_reordered_across() {
    let mut s = session();
    let plan = explain(
        &mut s,
        "SELECT count(*) FROM small s LEFT JOIN big b ON b.id = s.id JOIN mid m ON m.id = b.grp",
    );
    let left = plan
        .iter()
        .position(|l| l.contains("Hash Left Join") || l.contains("Hash Right Join"))
        .unwrap_or_else(|| panic!("{plan:?}"));
    assert!(plan[left + 1].contains("Seq Scan on small"), "{plan:?}");
    assert!(plan[left + 2].contains("Seq Scan on big"), "{plan:?}");
}

#[test]
fn scans_read_only_the_columns_used_above() {
    let mut s = session();
    let plan = explain(
        &mut s,
        "SELECT m.label FROM big b JOIN mid m ON b.grp = m.id ORDER BY b.v",
    );
    assert!(
        plan.iter()
            .any(|l| l.ends_with("Seq Scan on big (2 columns)")),
        "{plan:?}"
    );
    assert!(
        plan.iter()
            .any(|l| l.ends_with("Seq Scan on mid (2 columns)")),
        "{plan:?}"
    );
    s.execute("SET kestrel.disabled_optimizer_rules = 'prune_columns'")
        .expect("SET");
    let plan = explain(&mut s, "SELECT count(*) FROM big");
    assert!(plan[plan.len() - 1].ends_with("->  Seq Scan on big (3 columns)"));
}

#[test]
fn grouping_by_dimension_columns_aggregates_the_fact_input_first() {
    let mut s = kestrel::Database::new().connect();
    for sql in [
        "CREATE TABLE cust (id integer PRIMARY KEY, region text)",
        "INSERT INTO cust SELECT g, 'r' || g % 3 FROM generate_series(1, 100) g",
        "CREATE TABLE ord (id integer, cust_id integer, amount numeric(10,2))",
        "INSERT INTO ord SELECT g, g % 100 + 1, g FROM generate_series(1, 5000) g",
    ] {
        s.execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let sql = "SELECT c.region, count(*), sum(o.amount) FROM ord o JOIN cust c \
               ON o.cust_id = c.id GROUP BY c.region";
    let plan = explain(&mut s, sql);
    let aggregates: Vec<usize> = plan
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains("HashAggregate"))
        .map(|(i, _)| i)
        .collect();
    let join = plan.iter().position(|l| l.contains("Hash Inner Join"));
    assert!(
        aggregates.len() == 2 && join.is_some_and(|j| aggregates[0] < j && j < aggregates[1]),
        "{plan:?}"
    );
    // Not when the other side's key is not unique: the dimension could repeat fact rows.
    let plan = explain(
        &mut s,
        "SELECT o.cust_id, count(*) FROM cust c JOIN ord o ON o.id = c.id GROUP BY o.cust_id",
    );
    assert_eq!(
        plan.iter().filter(|l| l.contains("HashAggregate")).count(),
        1,
        "{plan:?}"
    );
}

#[test]
fn a_cte_read_once_is_inlined_and_one_read_twice_is_shared() {
    let mut s = session();
    let once = explain(
        &mut s,
        "WITH a AS (SELECT grp, v FROM big WHERE v > 10) SELECT grp, sum(v) FROM a GROUP BY grp",
    );
    assert!(!once.iter().any(|l| l.contains("CTE Scan")), "{once:?}");
    let twice = explain(
        &mut s,
        "WITH a AS (SELECT grp, v FROM big WHERE v > 10) SELECT x.grp FROM a x JOIN a y ON x.v = y.v",
    );
    assert_eq!(
        twice.iter().filter(|l| l.contains("CTE Scan")).count(),
        2,
        "{twice:?}"
    );
    let volatile = explain(&mut s, "WITH a AS (SELECT random() AS r) SELECT r FROM a");
    assert!(
        volatile.iter().any(|l| l.contains("CTE Scan")),
        "{volatile:?}"
    );
}

#[test]
fn a_small_pipeline_runs_serially_and_a_forced_one_under_a_gather() {
    let mut s = session();
    let sql = "SELECT v + 1 FROM big WHERE v > 10";
    assert_eq!(explain(&mut s, sql)[0], "Project (1 columns)");
    s.execute("SET force_parallel_mode = on")
        .unwrap_or_else(|e| panic!("{e}"));
    s.execute("SET max_parallel_workers_per_gather = 0")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        explain(&mut s, sql),
        [
            "Gather (workers planned: 0)",
            "->  Project (1 columns)",
            "      ->  Filter",
            "            ->  Seq Scan on big (1 columns)",
        ]
    );
    // regress: parallel all the same, but EXPLAIN prints the serial plan.
    s.execute("SET force_parallel_mode = regress")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(explain(&mut s, sql)[0], "Project (1 columns)");
}

#[test]
fn a_gather_covers_the_pipeline_under_an_aggregate_and_never_an_index_lookup() {
    let mut s = session();
    for sql in [
        "SET force_parallel_mode = on",
        "CREATE UNIQUE INDEX small_id ON small (id)",
    ] {
        s.execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let plan = explain(
        &mut s,
        // DISTINCT: not one of the aggregates the workers merge themselves.
        "SELECT grp, count(DISTINCT v) FROM big WHERE v > 3 GROUP BY grp",
    );
    assert!(
        plan[1].starts_with("->  Gather (workers planned: "),
        "{plan:?}"
    );
    assert_eq!(plan[2], "      ->  Filter", "{plan:?}");
    let lookup = explain(&mut s, "SELECT name FROM small WHERE id = 2");
    assert!(lookup.iter().all(|l| !l.contains("Gather")), "{lookup:?}");
}

#[test]
fn explain_analyze_sums_rows_over_workers_and_counts_the_helpers_launched() {
    let mut s = session();
    s.execute("SET force_parallel_mode = on")
        .unwrap_or_else(|e| panic!("{e}"));
    let results = s
        .execute("EXPLAIN ANALYZE SELECT v FROM big WHERE v % 2 = 0")
        .unwrap_or_else(|e| panic!("{e}"));
    let mut lines = Vec::new();
    for row in 0..results[0].batches[0].len() {
        let mut text = Vec::new();
        results[0].batches[0].columns[0].write_text(row, &mut text);
        lines.push(String::from_utf8_lossy(&text).into_owned());
    }
    assert!(
        lines[0].starts_with("Gather (workers planned: "),
        "{lines:?}"
    );
    assert!(lines[0].contains("launched: "), "{lines:?}");
    assert!(lines[0].contains("actual rows=2500 "), "{lines:?}");
    let scan = lines.iter().find(|l| l.contains("Seq Scan on big"));
    assert!(
        scan.is_some_and(|l| l.contains("actual rows=5000 ")),
        "{lines:?}"
    );
}

/// The lines of EXPLAIN ANALYZE `sql`.
fn explain_analyze(s: &mut kestrel::Session, sql: &str) -> Vec<String> {
    let results = s
        .execute(&format!("EXPLAIN ANALYZE {sql}"))
        .unwrap_or_else(|e| panic!("{e}"));
    let batch = &results[0].batches[0];
    (0..batch.len())
        .map(|row| {
            let mut text = Vec::new();
            batch.columns[0].write_text(row, &mut text);
            String::from_utf8_lossy(&text).into_owned()
        })
        .collect()
}

#[test]
fn explain_analyze_counts_the_pipeline_rows_of_a_parallel_aggregate_and_distinct() {
    let mut s = session();
    s.execute("SET force_parallel_mode = on")
        .unwrap_or_else(|e| panic!("{e}"));
    let grouped = explain_analyze(
        &mut s,
        "SELECT grp, count(*) FROM big WHERE v > 1000 GROUP BY grp",
    );
    assert!(
        grouped[0].starts_with("Parallel HashAggregate (keys: 1; count) (workers planned: "),
        "{grouped:?}"
    );
    assert!(grouped[0].contains("launched: "), "{grouped:?}");
    assert!(grouped[0].contains("actual rows=10 "), "{grouped:?}");
    assert!(
        grouped
            .iter()
            .any(|l| l.contains("Filter") && l.contains("actual rows=4000 ")),
        "{grouped:?}"
    );
    assert!(
        grouped
            .iter()
            .any(|l| l.contains("Seq Scan on big") && l.contains("actual rows=5000 ")),
        "{grouped:?}"
    );
    let distinct = explain_analyze(&mut s, "SELECT DISTINCT grp FROM big WHERE v > 1000");
    assert!(
        distinct[0].starts_with("Parallel HashDistinct (workers planned: "),
        "{distinct:?}"
    );
    assert!(distinct[0].contains("actual rows=10 "), "{distinct:?}");
    assert!(
        distinct
            .iter()
            .any(|l| l.contains("Seq Scan on big") && l.contains("actual rows=5000 ")),
        "{distinct:?}"
    );
}

/// A top-N and a hash join's build run their input pipeline on the workers themselves:
/// the pipeline's rows are still counted over every worker, and its Gather shows them.
#[test]
fn explain_analyze_counts_the_pipelines_that_top_n_and_hash_builds_run_on_the_workers() {
    let mut s = session();
    s.execute("SET force_parallel_mode = on")
        .unwrap_or_else(|e| panic!("{e}"));
    let top_n = explain_analyze(
        &mut s,
        "SELECT v FROM big WHERE v % 2 = 0 ORDER BY v DESC LIMIT 3",
    );
    let line = |lines: &[String], node: &str| {
        lines
            .iter()
            .find(|l| l.contains(node))
            .cloned()
            .unwrap_or_else(|| panic!("no {node} in {lines:?}"))
    };
    let gather = line(&top_n, "Gather");
    assert!(gather.contains("actual rows=2500 "), "{top_n:?}");
    assert!(gather.contains("launched: "), "{top_n:?}");
    assert!(
        line(&top_n, "Seq Scan on big").contains("actual rows=5000 "),
        "{top_n:?}"
    );
    // The filtered `big` is the build side of a FULL join (no pipeline itself) with a
    // larger table.
    s.execute("CREATE TABLE bigger AS SELECT g % 6000 AS id FROM generate_series(1, 20000) g")
        .unwrap_or_else(|e| panic!("{e}"));
    let join = explain_analyze(
        &mut s,
        "SELECT count(*) FROM (SELECT id FROM big WHERE v % 2 = 0) a FULL JOIN bigger ON a.id = bigger.id",
    );
    assert!(
        line(&join, "Gather").contains("actual rows=2500 "),
        "{join:?}"
    );
    assert!(
        line(&join, "Filter").contains("actual rows=2500 "),
        "{join:?}"
    );
    assert!(
        line(&join, "Seq Scan on big (").contains("actual rows=5000 "),
        "{join:?}"
    );
}

#[test]
fn a_hash_join_probed_by_a_pipeline_is_gathered_whole_unless_it_pads_build_rows() {
    let mut s = session();
    s.execute("SET force_parallel_mode = on")
        .unwrap_or_else(|e| panic!("{e}"));
    let inner = explain(
        &mut s,
        "SELECT big.v, small.name FROM big JOIN small ON big.id = small.id WHERE big.v > 1",
    );
    assert!(
        inner[0].starts_with("Gather (workers planned: "),
        "{inner:?}"
    );
    assert_eq!(inner[2], "      ->  Hash Inner Join (keys: 1)", "{inner:?}");
    // A RIGHT join of the large side pads the small side's unmatched rows, which only
    // the whole probe knows: the Gather stops below the join.
    let right = explain(
        &mut s,
        "SELECT big.v, small.name FROM big RIGHT JOIN small ON big.id = small.id",
    );
    let join = right.iter().position(|l| l.contains("Hash Right Join"));
    let gather = right.iter().position(|l| l.contains("Gather"));
    assert!(
        join.is_some() && gather.is_none_or(|g| g > join.unwrap_or(0)),
        "{right:?}"
    );
}

#[test]
fn order_by_limit_under_a_projection_is_still_a_top_n() {
    let mut s = session();
    let plan = explain(&mut s, "SELECT id FROM big ORDER BY v - id, grp LIMIT 3");
    assert_eq!(
        plan,
        [
            "Limit",
            "->  Project (1 columns)",
            "      ->  Top-N Sort (keys: 2)",
            "            ->  Project (3 columns)",
            "                  ->  Seq Scan on big (3 columns)",
        ]
    );
}

#[test]
fn nearest_neighbours_by_the_distance_of_an_hnsw_index_are_an_index_scan() {
    let mut s = session();
    for sql in [
        "CREATE TABLE items (id integer, embedding vector(2))",
        "INSERT INTO items SELECT g, ARRAY[g, g % 7]::real[]::vector FROM generate_series(1, 100) g",
        "CREATE INDEX items_l2 ON items USING hnsw (embedding vector_l2_ops)",
    ] {
        s.execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let plan = explain(
        &mut s,
        "SELECT id FROM items WHERE id > 5 ORDER BY embedding <-> '[3,1]' LIMIT 5",
    );
    assert_eq!(
        plan,
        [
            "Limit",
            "->  Project (1 columns)",
            "      ->  Top-N Sort (keys: 1)",
            "            ->  Project (2 columns)",
            "                  ->  Filter",
            "                        ->  Index Scan using items_l2 on items (2 columns)",
        ]
    );
    // Another distance than the index's, a descending order, or no LIMIT: a seq scan.
    for sql in [
        "SELECT id FROM items ORDER BY embedding <=> '[3,1]' LIMIT 5",
        "SELECT id FROM items ORDER BY embedding <-> '[3,1]' DESC LIMIT 5",
        "SELECT id FROM items ORDER BY embedding <-> '[3,1]'",
    ] {
        let plan = explain(&mut s, sql);
        assert!(
            plan.iter().any(|line| line.contains("Seq Scan on items")),
            "{sql}: {plan:?}"
        );
    }
}
