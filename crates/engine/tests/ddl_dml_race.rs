//! DDL racing DML on shared tables: sessions add and drop columns while others insert,
//! update and delete, in and out of transaction blocks. Whatever interleaving happens, no
//! statement may fail with an internal error, and afterwards every row must still satisfy
//! the table's constraints (every column here is NOT NULL; `id` is the primary key).

mod common;

use common::{race_sessions, run, Random};

const SESSIONS: u64 = 4;
const STATEMENTS_PER_SESSION: u64 = 400;

fn statement(rng: &mut Random, session: u64, step: u64) -> String {
    let id = rng.below(200);
    let column = rng.below(6);
    match rng.below(8) {
        0 => format!("INSERT INTO t VALUES ({id}, {step}, 's{session}')"),
        1 => format!("INSERT INTO t (id, a, b) VALUES ({id}, {step}, 'n{session}')"),
        2 => format!("UPDATE t SET a = a + 1 WHERE id % 7 = {}", id % 7),
        3 => format!("DELETE FROM t WHERE id = {id}"),
        4 => format!("ALTER TABLE t ADD COLUMN c{column} integer NOT NULL DEFAULT {step}"),
        5 => format!("ALTER TABLE t DROP COLUMN IF EXISTS c{column}"),
        6 => format!("UPDATE t SET c{column} = {step} WHERE id < {id}"),
        _ => format!("INSERT INTO t SELECT id + 200, a, b FROM t WHERE id = {id}"),
    }
}

#[test]
fn ddl_racing_dml_keeps_every_constraint() {
    let seed = std::env::var("KESTREL_RACE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5EED_u64);
    println!("seed {seed} (set KESTREL_RACE_SEED to repeat)");
    let db = kestrel::Database::new();
    let mut setup = db.connect();
    run(
        &mut setup,
        "CREATE TABLE t (id integer PRIMARY KEY, a integer NOT NULL, b text NOT NULL)",
    );
    race_sessions(
        &db,
        SESSIONS,
        STATEMENTS_PER_SESSION,
        seed,
        |rng, session, step| {
            let sql = statement(rng, session, step);
            if rng.below(4) != 0 {
                return sql;
            }
            let end = if rng.below(3) == 0 {
                "ROLLBACK"
            } else {
                "COMMIT"
            };
            let second = statement(rng, session, step);
            format!("BEGIN; {sql}; {second}; {end}")
        },
    );

    let results = setup
        .execute("SELECT * FROM t")
        .unwrap_or_else(|e| panic!("the table is unreadable after the race: {e}"));
    let mut ids = std::collections::HashSet::new();
    for batch in &results[0].batches {
        for row in 0..batch.len() {
            for (i, column) in batch.columns.iter().enumerate() {
                let mut text = Vec::new();
                assert!(
                    column.write_text(row, &mut text),
                    "a NULL in NOT NULL column {i} of row {row}"
                );
                if i == 0 {
                    assert!(ids.insert(text), "a duplicate primary key");
                }
            }
        }
    }
    let counted = common::rows(&mut setup, "SELECT count(*), count(DISTINCT id) FROM t");
    assert_eq!(counted, [format!("{0}|{0}", ids.len())]);
}
