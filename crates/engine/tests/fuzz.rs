//! Randomized fuzzing of everything a client's text reaches: SQL from parse through bind,
//! optimize and execute (grammar-aware: the statements of the slt corpus, replayed file by
//! file so their tables exist, each mutated token by token before it runs), every type's
//! text input function, and COPY FROM's text, CSV and binary parsers.
//!
//! A crash is a panic (the session catches it and reports XX000) or any other XX000 but the
//! few PostgreSQL itself reports as internal errors: the engine must answer every input with
//! a result or a classified error. `cargo test` runs a few seconds of each target (CI) from
//! a fixed seed; `KESTREL_FUZZ_SEED=S` runs from another (or replays the one a failing run
//! printed), and `KESTREL_FUZZ_ROUNDS=N` runs N times as long.

mod common;

use std::path::{Path, PathBuf};

use common::Random;
use kestrel::{Database, Session};

fn seeded() -> (Random, u64, u64) {
    let seed = std::env::var("KESTREL_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        // A fixed default, so CI checks the same inputs on every run; set the variable to
        // explore others.
        .unwrap_or(0x5EED)
        | 1;
    let rounds = std::env::var("KESTREL_FUZZ_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    (Random(seed), seed, rounds)
}

/// A session whose statements cannot run away: mutants easily ask for a billion rows.
fn bounded_session(db: &Database) -> Session {
    let mut session = db.connect();
    for setting in [
        "SET statement_timeout = '250ms'",
        "SET kestrel.query_memory_limit = '64MB'",
        "SET lock_timeout = '50ms'",
    ] {
        assert!(session.execute(setting).is_ok(), "{setting}");
    }
    session
}

/// Internal errors that PostgreSQL raises itself (elog(ERROR) in its C code, SQLSTATE
/// XX000), which KestrelDB reports the same way on purpose.
const POSTGRES_INTERNAL_ERRORS: &[&str] = &[
    // acldefault() with an object type letter it does not know.
    "unrecognized objtype abbreviation",
];

/// Runs `sql`; a crash (XX000) fails the test with the statement and how to replay it.
fn run_checked(session: &mut Session, sql: &str, seed: u64, executions: &mut u64) {
    *executions += 1;
    if let Err(error) = session.execute(sql) {
        let as_postgres = POSTGRES_INTERNAL_ERRORS
            .iter()
            .any(|known| error.message.starts_with(known));
        assert!(
            error.sqlstate() != "XX000" || as_postgres,
            "crash (KESTREL_FUZZ_SEED={seed}): {} on\n{sql}",
            error.message
        );
    }
}

/// The SQL of every `statement` and `query` record of an slt file, in order.
fn slt_statements(path: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let mut statements = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if !(line.starts_with("statement ") || line.starts_with("query ")) {
            continue;
        }
        let sql: Vec<&str> = lines
            .by_ref()
            .take_while(|l| !l.trim().is_empty() && *l != "----")
            .collect();
        let sql = sql.join("\n");
        // Records the runner interprets rather than sends.
        if !matches!(sql.as_str(), "RESTART" | "AWAIT" | "CHECKPOINT") {
            statements.push(sql);
        }
    }
    statements
}

fn slt_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            slt_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "slt") {
            out.push(path);
        }
    }
}

/// Tokens that reach edge cases of the binder, the casts and the kernels.
const INTERESTING: &[&str] = &[
    "NULL",
    "0",
    "-1",
    "2147483648",
    "-2147483649",
    "9223372036854775807",
    "-9223372036854775808",
    "1e308",
    "'NaN'",
    "'infinity'",
    "''",
    "'x'",
    "(",
    ")",
    ",",
    "*",
    "::int2",
    "::int8",
    "::numeric(1000,2)",
    "::text",
    "::date",
    "::interval",
    "::jsonb",
    "ARRAY[1,NULL]",
    "'{}'",
    "-",
    "||",
    "/",
    "%",
    "'2024-13-45'",
    "E'\\\\x'",
    "(SELECT 1)",
    "DISTINCT",
    "ORDER BY 1",
    "GROUP BY 1",
    "LIMIT -1",
    "OFFSET 9223372036854775807",
    "WHERE",
    "AND",
    "OR",
    "NOT",
    "IN ()",
    "CASE WHEN",
    "END",
    "OVER ()",
    "$1",
    "::regclass",
    "generate_series(1, 1000000000)",
    "repeat('x', 1000000000)",
    "lpad('', 2147483647)",
];

/// The statement with one to three token-level changes.
fn mutate(sql: &str, donors: &[String], rng: &mut Random) -> String {
    let mut tokens: Vec<String> = sql.split_whitespace().map(str::to_string).collect();
    if tokens.is_empty() {
        return sql.to_string();
    }
    for _ in 0..1 + rng.index(3) {
        let at = rng.index(tokens.len());
        match rng.index(5) {
            0 if tokens.len() > 1 => {
                tokens.remove(at);
            }
            1 => tokens.insert(at, tokens[at].clone()),
            2 => {
                let other = rng.index(tokens.len());
                tokens.swap(at, other);
            }
            3 => {
                let donor = rng.pick(donors);
                let words: Vec<&str> = donor.split_whitespace().collect();
                if !words.is_empty() {
                    tokens[at] = rng.pick(&words).to_string();
                }
            }
            _ => tokens.insert(at, rng.pick(INTERESTING).to_string()),
        }
    }
    tokens.join(" ")
}

#[test]
fn mutated_corpus_statements_never_crash() {
    let (mut rng, seed, rounds) = seeded();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/slt");
    let mut files = Vec::new();
    slt_files(&corpus, &mut files);
    files.sort();
    assert!(!files.is_empty(), "no slt corpus at {}", corpus.display());
    let mut executions = 0;
    let started = std::time::Instant::now();
    for _ in 0..rounds * 12 {
        let file = rng.pick(&files).clone();
        let statements = slt_statements(&file);
        let db = Database::new();
        let mut session = bounded_session(&db);
        for sql in &statements {
            if rng.index(2) == 0 {
                let mutant = mutate(sql, &statements, &mut rng);
                run_checked(&mut session, &mutant, seed, &mut executions);
                // A mutant may leave a transaction block open or failed.
                let _ = session.execute("ROLLBACK");
            }
            run_checked(&mut session, sql, seed, &mut executions);
        }
    }
    eprintln!(
        "fuzz sql: {executions} statements in {:.1}s, seed {seed}",
        started.elapsed().as_secs_f64()
    );
}

/// Text for an input function: edge cases, random characters, and mixes of both.
fn random_text(rng: &mut Random) -> String {
    const PIECES: &[&str] = &[
        "",
        " ",
        "-",
        "+",
        "0",
        "1",
        "9",
        ".",
        "e",
        "E",
        "x",
        "NaN",
        "inf",
        "Infinity",
        "-",
        ":",
        "/",
        "T",
        "Z",
        "BC",
        "AD",
        "epoch",
        "allballs",
        "{",
        "}",
        "[",
        "]",
        ",",
        "\"",
        "\\",
        "'",
        "null",
        "true",
        "f",
        "t",
        "99999999999999999999",
        "2024",
        "12",
        "31",
        "00:00:00",
        "24:00",
        "+14:59",
        "@",
        "year",
        "mon",
        "ago",
        "\u{e9}",
        "\u{1F600}",
        "0x",
        "ff",
        "\n",
        "\t",
    ];
    let mut text = String::new();
    for _ in 0..rng.index(12) {
        if rng.index(4) == 0 {
            text.push(char::from(32 + rng.index(95) as u8));
        } else {
            let piece: &&str = rng.pick(PIECES);
            text.push_str(piece);
        }
    }
    text
}

const TYPES: &[&str] = &[
    "bool",
    "int2",
    "int4",
    "int8",
    "float4",
    "float8",
    "numeric",
    "numeric(5,2)",
    "text",
    "varchar(3)",
    "char(2)",
    "date",
    "time",
    "timestamp",
    "timestamptz",
    "interval",
    "bytea",
    "uuid",
    "json",
    "jsonb",
    "int4[]",
    "text[]",
    "numeric[]",
    "regclass",
    "oid",
    "name",
];

#[test]
fn type_input_functions_never_crash() {
    let (mut rng, seed, rounds) = seeded();
    let db = Database::new();
    let mut session = bounded_session(&db);
    let mut executions = 0;
    for _ in 0..rounds * 3000 {
        let text = random_text(&mut rng).replace('\'', "''");
        let ty = rng.pick(TYPES);
        run_checked(
            &mut session,
            &format!("SELECT '{text}'::{ty}"),
            seed,
            &mut executions,
        );
    }
    eprintln!("fuzz type input: {executions} casts, seed {seed}");
}

#[test]
fn copy_parsers_never_crash() {
    let (mut rng, seed, rounds) = seeded();
    let db = Database::new();
    let mut session = bounded_session(&db);
    let create = "CREATE TABLE t (a int4, b text, c numeric, d date, e jsonb, f int8[])";
    assert!(session.execute(create).is_ok());
    let valid = "1\tx\t1.5\t2024-01-01\t{}\t{1,2}\n";
    let mut executions = 0;
    for _ in 0..rounds * 600 {
        let format = *rng.pick(&["text", "csv", "binary"]);
        let mut input: Vec<u8> = match format {
            "binary" => b"PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0".to_vec(),
            _ => valid.as_bytes().to_vec(),
        };
        for _ in 0..1 + rng.index(8) {
            match rng.index(3) {
                0 => input.extend(random_text(&mut rng).bytes()),
                1 => input.push(rng.next() as u8),
                _ if !input.is_empty() => {
                    let at = rng.index(input.len());
                    input[at] = rng.next() as u8;
                }
                _ => {}
            }
        }
        let sql = format!("COPY t FROM STDIN (FORMAT {format})");
        executions += 1;
        if let Err(error) = session.copy_from(&sql, &mut input.as_slice()) {
            assert!(
                error.sqlstate() != "XX000",
                "crash (KESTREL_FUZZ_SEED={seed}): {} on {format} input {input:?}",
                error.message
            );
        }
    }
    eprintln!("fuzz copy: {executions} inputs, seed {seed}");
}

/// Found by `mutated_corpus_statements_never_crash`: a parameter in a simple query, which
/// carries no values, was an internal error.
#[test]
fn a_parameter_without_a_value_is_42p02() {
    let mut session = Database::new().connect();
    let error = session.execute("SELECT $1").err();
    let error = error.map(|e| (e.sqlstate(), e.message));
    assert_eq!(
        error,
        Some(("42P02", "there is no parameter $1".to_string()))
    );
}
