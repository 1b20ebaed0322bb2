//! DROP TYPE against a transaction that is creating a column of the type: the drop waits
//! for it (CREATE and ALTER TABLE lock the names of the enum types their columns use, see
//! `exec/enum_type.rs`), then finds the column and refuses; a column never outlives its type.

mod common;

use common::{race_with_holder, rows, run};

#[test]
fn drop_type_waits_for_a_table_being_created_with_it() {
    let db = kestrel::Database::new();
    let mut a = db.connect();
    run(&mut a, "CREATE TYPE mood AS ENUM ('sad', 'happy')");
    run(&mut a, "BEGIN; CREATE TABLE t (m mood)");
    assert_eq!(
        race_with_holder(&db, &mut a, "DROP TYPE mood", "COMMIT", "DROP TYPE"),
        "2BP01"
    );

    run(&mut a, "BEGIN; ALTER TABLE t ADD COLUMN n mood");
    run(&mut a, "DROP TABLE t");
    assert_eq!(
        race_with_holder(&db, &mut a, "DROP TYPE mood", "ROLLBACK", "DROP TYPE"),
        "2BP01"
    );
    run(&mut a, "DROP TABLE t");
    run(&mut a, "BEGIN; CREATE TABLE u (m mood)");
    assert_eq!(
        race_with_holder(&db, &mut a, "DROP TYPE mood", "ROLLBACK", "DROP TYPE"),
        "ok"
    );
    assert_eq!(
        rows(
            &mut a,
            "SELECT count(*) FROM pg_type WHERE typname = 'mood'"
        ),
        ["0"]
    );
}
