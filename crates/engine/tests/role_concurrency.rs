//! Role changes of concurrent transactions: each stages a whole new role catalog, so two must
//! never be built on the same one. A change waits for a transaction already changing roles,
//! and builds on the newest committed catalog even under REPEATABLE READ, whose snapshot is
//! older; no created role is lost.

mod common;

use common::{race_with_holder, rows, run};

fn roles(session: &mut kestrel::Session) -> Vec<String> {
    rows(
        session,
        "SELECT rolname FROM pg_roles WHERE rolname LIKE 'rc_%' ORDER BY 1",
    )
}

#[test]
fn a_role_change_waits_for_another_and_keeps_its_roles() {
    let db = kestrel::Database::new();
    let mut a = db.connect();
    run(&mut a, "BEGIN; CREATE ROLE rc_first");
    assert_eq!(
        race_with_holder(
            &db,
            &mut a,
            "CREATE ROLE rc_second",
            "COMMIT",
            "CREATE ROLE"
        ),
        "ok"
    );
    assert_eq!(roles(&mut a), ["rc_first", "rc_second"]);
}

#[test]
fn repeatable_read_builds_on_the_newest_roles() {
    let db = kestrel::Database::new();
    let mut a = db.connect();
    let mut b = db.connect();
    run(&mut a, "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1");
    run(&mut b, "CREATE ROLE rc_committed_meanwhile");
    run(&mut a, "CREATE ROLE rc_in_snapshot; COMMIT");
    assert_eq!(roles(&mut b), ["rc_committed_meanwhile", "rc_in_snapshot"]);
}
