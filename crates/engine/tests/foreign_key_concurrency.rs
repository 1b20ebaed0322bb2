//! Foreign keys under concurrent writers: a reference never sees another transaction's
//! uncommitted parent rows, and no concurrent delete of a parent slips past a reference
//! (the check locks the referenced table; see `exec/foreign_key.rs`).

mod common;

use common::{race_sessions, race_with_holder, rows, run};

fn setup() -> kestrel::Database {
    let db = kestrel::Database::new();
    let mut s = db.connect();
    run(&mut s, "CREATE TABLE p (id integer PRIMARY KEY)");
    run(
        &mut s,
        "CREATE TABLE c (id integer, pid integer REFERENCES p)",
    );
    run(&mut s, "INSERT INTO p VALUES (1)");
    db
}

#[test]
fn a_reference_waits_for_an_uncommitted_delete_of_its_parent() {
    let db = setup();
    let mut a = db.connect();
    run(&mut a, "BEGIN; DELETE FROM p WHERE id = 1");
    assert_eq!(
        race_with_holder(
            &db,
            &mut a,
            "INSERT INTO c VALUES (1, 1)",
            "COMMIT",
            "the statement"
        ),
        "23503"
    );

    run(&mut a, "INSERT INTO p VALUES (1)");
    run(&mut a, "BEGIN; DELETE FROM p WHERE id = 1");
    assert_eq!(
        race_with_holder(
            &db,
            &mut a,
            "INSERT INTO c VALUES (2, 1)",
            "ROLLBACK",
            "the statement"
        ),
        "ok"
    );
    assert_eq!(rows(&mut a, "SELECT count(*) FROM c"), ["1"]);
}

#[test]
fn an_uncommitted_parent_is_not_referenced() {
    let db = setup();
    let mut a = db.connect();
    run(&mut a, "BEGIN; INSERT INTO p VALUES (2)");
    assert_eq!(
        race_with_holder(
            &db,
            &mut a,
            "INSERT INTO c VALUES (1, 2)",
            "ROLLBACK",
            "the statement"
        ),
        "23503"
    );
}

#[test]
fn a_delete_waits_for_an_uncommitted_reference() {
    let db = setup();
    let mut a = db.connect();
    run(&mut a, "BEGIN; INSERT INTO c VALUES (1, 1)");
    assert_eq!(
        race_with_holder(
            &db,
            &mut a,
            "DELETE FROM p WHERE id = 1",
            "COMMIT",
            "the statement"
        ),
        "23503"
    );
}

/// Sessions insert references and delete parents at random; afterwards no row references
/// a missing parent and no statement failed with an internal error.
#[test]
fn racing_references_and_deletes_leave_no_orphan() {
    let db = kestrel::Database::new();
    let mut setup = db.connect();
    run(&mut setup, "CREATE TABLE p (id integer PRIMARY KEY)");
    run(
        &mut setup,
        "CREATE TABLE c (pid integer REFERENCES p ON DELETE NO ACTION)",
    );
    run(
        &mut setup,
        "CREATE TABLE d (pid integer REFERENCES p ON DELETE CASCADE)",
    );
    run(
        &mut setup,
        "INSERT INTO p SELECT g FROM generate_series(1, 50) g",
    );
    race_sessions(&db, 4, 150, 0, |rng, _, _| {
        let id = rng.below(60) + 1;
        match rng.below(5) {
            0 => format!("INSERT INTO p VALUES ({id})"),
            1 => format!("DELETE FROM p WHERE id = {id}"),
            2 => format!("INSERT INTO c VALUES ({id})"),
            3 => format!(
                "BEGIN; INSERT INTO d VALUES ({id}); DELETE FROM c WHERE pid = {id}; COMMIT"
            ),
            _ => {
                format!("BEGIN; DELETE FROM p WHERE id = {id}; INSERT INTO p VALUES ({id}); COMMIT")
            }
        }
    });
    for table in ["c", "d"] {
        let orphans = format!("SELECT count(*) FROM {table} WHERE pid NOT IN (SELECT id FROM p)");
        assert_eq!(rows(&mut setup, &orphans), ["0"], "{table}");
    }
}
