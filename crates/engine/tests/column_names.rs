//! Result column names of unaliased select-list expressions (PostgreSQL's FigureColname).
//! slt files do not check column names, so the expectations here are PostgreSQL 15's,
//! read from psql.

#[test]
fn unaliased_expressions_are_named_as_postgresql_names_them() {
    let mut session = kestrel::Database::new().connect();
    session
        .execute("CREATE TABLE nt (a integer[], b integer, s text)")
        .expect("create table");
    let cases = [
        ("ARRAY[1]", "array"),
        ("a[1]", "a"),
        ("a[1:2]", "a"),
        ("(a)[2]", "a"),
        ("a[1]::text", "a"),
        ("coalesce(b, 1)", "coalesce"),
        ("substring(s from 1 for 1)", "substring"),
        ("substring(s, 1, 1)", "substring"),
        ("substr(s, 1, 1)", "substr"),
        ("uuid_generate_v4()", "uuid_generate_v4"),
        ("position('x' in s)", "position"),
        ("trim(s)", "btrim"),
        ("trim(leading 'x' from s)", "ltrim"),
        ("extract(year from date '2024-01-01')", "extract"),
        ("overlay(s placing 'y' from 1)", "overlay"),
        ("ceil(1.5)", "ceil"),
        ("floor(1.5)", "floor"),
        ("s COLLATE \"C\"", "s"),
        ("interval '1 day'", "interval"),
        ("date '2024-01-01'", "date"),
        ("'x'::text", "text"),
        ("1 + b", "?column?"),
    ];
    for (expr, expected) in cases {
        let results = session
            .execute(&format!("SELECT {expr} FROM nt"))
            .unwrap_or_else(|e| panic!("{expr}: {e}"));
        let columns = results[0].columns.as_ref().expect("a query has columns");
        assert_eq!(columns[0].name, expected, "the column of {expr}");
    }
}
