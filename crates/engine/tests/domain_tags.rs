//! What slt files cannot check of domains and materialized views: command tags and the type
//! a client is told a domain column has. The expectations are PostgreSQL 15's (psql's
//! command tags; printtup.c sends a domain's base type in RowDescription).

use kestrel::types::DataType;

fn tag(session: &mut kestrel::Session, sql: &str) -> String {
    let results = session
        .execute(sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    results[0].tag.clone()
}

#[test]
fn domain_statements_have_postgresql_command_tags() {
    let mut session = kestrel::Database::new().connect();
    let cases = [
        (
            "CREATE DOMAIN posint AS int CHECK (VALUE > 0)",
            "CREATE DOMAIN",
        ),
        ("ALTER DOMAIN posint SET DEFAULT 1", "ALTER DOMAIN"),
        ("ALTER DOMAIN posint RENAME TO positive", "ALTER DOMAIN"),
        ("DROP DOMAIN positive", "DROP DOMAIN"),
        ("CREATE MATERIALIZED VIEW mv AS SELECT 1 AS one", "SELECT 1"),
        (
            "ALTER MATERIALIZED VIEW mv RENAME COLUMN one TO uno",
            "ALTER MATERIALIZED VIEW",
        ),
        (
            "ALTER MATERIALIZED VIEW IF EXISTS nosuch RENAME TO other",
            "ALTER MATERIALIZED VIEW",
        ),
    ];
    for (sql, expected) in cases {
        assert_eq!(tag(&mut session, sql), expected, "the tag of {sql}");
    }
}

#[test]
fn a_domain_column_is_described_with_its_base_type() {
    let mut session = kestrel::Database::new().connect();
    for sql in [
        "CREATE DOMAIN code AS varchar(3)",
        "CREATE TABLE t (c code)",
        "INSERT INTO t VALUES ('abc')",
    ] {
        session
            .execute(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    for sql in ["SELECT c FROM t", "SELECT 'x'::code"] {
        let results = session
            .execute(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        let columns = results[0].columns.as_ref().expect("a query has columns");
        assert_eq!(columns[0].data_type, DataType::Varchar(Some(3)), "{sql}");
    }
}
