//! CREATE INDEX indexes against the table they index: after a long pseudo-random series of
//! writes, in an open transaction and in a concurrent reader's snapshot, an equality answered
//! through the index must equal the same equality written so that no index can answer it.

mod common;

use common::{rows, run, Random};

/// Every key value and NULL, through the index and around it.
fn check(session: &mut kestrel::Session, label: &str) {
    let explained = rows(session, "EXPLAIN SELECT id FROM t WHERE k = 1");
    assert!(
        explained.iter().any(|l| l.contains("Index Lookup on t")),
        "{label}: {explained:?}"
    );
    for k in 0..12 {
        let indexed = rows(
            session,
            &format!("SELECT id, k, s FROM t WHERE k = {k} ORDER BY id, s"),
        );
        let scanned = rows(
            session,
            &format!("SELECT id, k, s FROM t WHERE k + 0 = {k} ORDER BY id, s"),
        );
        assert_eq!(indexed, scanned, "{label}: k = {k}");
        let composite = rows(
            session,
            &format!("SELECT count(*), sum(id) FROM t WHERE k = {k} AND s = 's{k}'"),
        );
        let around = rows(
            session,
            &format!("SELECT count(*), sum(id) FROM t WHERE k + 0 = {k} AND s || '' = 's{k}'"),
        );
        assert_eq!(composite, around, "{label}: k = {k}, s = 's{k}'");
    }
}

#[test]
fn index_lookups_equal_scans_through_random_writes() {
    let db = kestrel::Database::new();
    let mut writer = db.connect();
    let mut reader = db.connect();
    for sql in [
        "SET kestrel.result_cache = off",
        "CREATE TABLE t (id integer, k integer, s text)",
        "INSERT INTO t SELECT g, g % 11, 's' || (g % 13) FROM generate_series(1, 6000) g",
        "CREATE INDEX t_k ON t (k)",
        "CREATE INDEX t_k_s ON t (k, s)",
    ] {
        run(&mut writer, sql);
    }
    run(&mut reader, "SET kestrel.result_cache = off");
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let mut next_id = 10_000;
    for step in 0..40 {
        let in_transaction = random.below(3) == 0;
        if in_transaction {
            run(&mut writer, "BEGIN");
        }
        for _ in 0..1 + random.below(4) {
            let k = random.below(12);
            let sql = match random.below(6) {
                0 => {
                    let n = 1 + random.below(3000);
                    next_id += n;
                    format!(
                        "INSERT INTO t SELECT g, CASE WHEN g % 17 = 0 THEN NULL ELSE {k} END, \
                         's' || (g % 13) FROM generate_series({}, {}) g",
                        next_id - n,
                        next_id - 1
                    )
                }
                1 => format!("INSERT INTO t VALUES ({next_id}, {k}, 's{k}')"),
                2 => format!(
                    "UPDATE t SET k = {} WHERE id % 97 = {}",
                    random.below(12),
                    random.below(97)
                ),
                3 => format!("UPDATE t SET s = 's{k}' WHERE k = {}", random.below(12)),
                4 => format!("DELETE FROM t WHERE id % 89 = {}", random.below(89)),
                _ => format!("DELETE FROM t WHERE k = {k} AND id % 3 = 0"),
            };
            next_id += 1;
            run(&mut writer, &sql);
        }
        check(&mut writer, &format!("step {step}, writer"));
        check(&mut reader, &format!("step {step}, reader"));
        if in_transaction {
            let end = if random.below(2) == 0 {
                "ROLLBACK"
            } else {
                "COMMIT"
            };
            run(&mut writer, end);
            check(&mut writer, &format!("step {step}, after {end}"));
        }
    }
}
