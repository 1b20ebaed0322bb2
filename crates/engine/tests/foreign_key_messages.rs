//! The DETAIL and HINT lines of foreign key errors, which sqllogictest files cannot check:
//! each expectation is what PostgreSQL 15 prints for the same statements.

mod common;

use common::run;

/// (SQLSTATE, message, DETAIL, HINT) of `sql`'s error.
fn error_of(session: &mut kestrel::Session, sql: &str) -> (String, String, String, String) {
    match session.execute(sql) {
        Ok(_) => panic!("{sql} succeeded"),
        Err(e) => (
            e.sqlstate().to_string(),
            e.message,
            e.detail.unwrap_or_default(),
            e.hint.unwrap_or_default(),
        ),
    }
}

fn expect(session: &mut kestrel::Session, sql: &str, expected: [&str; 4]) {
    let (state, message, detail, hint) = error_of(session, sql);
    assert_eq!(
        [state.as_str(), &message, &detail, &hint],
        expected,
        "{sql}"
    );
}

#[test]
fn violations_name_the_key_and_its_values() {
    let db = kestrel::Database::new();
    let mut s = db.connect();
    run(&mut s, "CREATE TABLE p (a int, b text, PRIMARY KEY (a, b))");
    run(
        &mut s,
        "CREATE TABLE c (x int, y text, FOREIGN KEY (x, y) REFERENCES p MATCH FULL)",
    );
    run(&mut s, "INSERT INTO p VALUES (1, 'one')");
    let violates = r#"insert or update on table "c" violates foreign key constraint "c_x_y_fkey""#;
    expect(
        &mut s,
        "INSERT INTO c VALUES (5, 'five')",
        [
            "23503",
            violates,
            r#"Key (x, y)=(5, five) is not present in table "p"."#,
            "",
        ],
    );
    expect(
        &mut s,
        "INSERT INTO c VALUES (5, NULL)",
        [
            "23503",
            violates,
            "MATCH FULL does not allow mixing of null and nonnull key values.",
            "",
        ],
    );
    run(&mut s, "INSERT INTO c VALUES (1, 'one')");
    expect(
        &mut s,
        "DELETE FROM p",
        [
            "23503",
            r#"update or delete on table "p" violates foreign key constraint "c_x_y_fkey" on table "c""#,
            r#"Key (a, b)=(1, one) is still referenced from table "c"."#,
            "",
        ],
    );
    expect(
        &mut s,
        "TRUNCATE p",
        [
            "0A000",
            "cannot truncate a table referenced in a foreign key constraint",
            r#"Table "c" references "p"."#,
            r#"Truncate table "c" at the same time, or use TRUNCATE ... CASCADE."#,
        ],
    );
    expect(
        &mut s,
        "DROP TABLE p",
        [
            "2BP01",
            "cannot drop table p because other objects depend on it",
            "constraint c_x_y_fkey on table c depends on table p",
            "Use DROP ... CASCADE to drop the dependent objects too.",
        ],
    );
    expect(
        &mut s,
        "CREATE TABLE c2 (a text REFERENCES p (a))",
        [
            "42830",
            r#"there is no unique constraint matching given keys for referenced table "p""#,
            "",
            "",
        ],
    );
    run(&mut s, "CREATE TABLE p2 (a int PRIMARY KEY)");
    expect(
        &mut s,
        "CREATE TABLE c2 (a text REFERENCES p2)",
        [
            "42804",
            r#"foreign key constraint "c2_a_fkey" cannot be implemented"#,
            r#"Key columns "a" and "a" are of incompatible types: text and integer."#,
            "",
        ],
    );
}
