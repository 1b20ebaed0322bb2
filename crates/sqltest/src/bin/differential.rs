//! `differential [--seed N] [--queries N] [--known FILE] [--print-setup] POSTGRES_URL`: the random-query
//! tester (see `kestrel_sqltest::differential`). Creates the tables in a fresh in-process
//! database and in the PostgreSQL database the URL names (dropping them first), runs the
//! queries on both, prints each difference with its query number, and exits non-zero on
//! any difference that the `--known` file (one `N  # why` a line) does not list, or on a
//! listed one that no longer differs, so the list only shrinks. `--print-setup` prints the
//! tables' statements first, for reproducing a difference by hand.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Instant;

use kestrel::Database;
use kestrel_sqltest::differential::compare::{compare, describe, Answer};
use kestrel_sqltest::differential::{query, schema, Random};
use kestrel_sqltest::engine::EngineDb;
use kestrel_sqltest::format::last_output;
use kestrel_sqltest::wire::WireDb;
use sqllogictest::{DBOutput, DB};

struct Options {
    seed: u64,
    queries: usize,
    known: Option<String>,
    print_setup: bool,
    url: String,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        seed: 1,
        queries: 1500,
        known: None,
        print_setup: false,
        url: String::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--seed" => {
                options.seed = value("--seed")?
                    .parse()
                    .map_err(|e| format!("--seed: {e}"))?
            }
            "--queries" => {
                options.queries = value("--queries")?
                    .parse()
                    .map_err(|e| format!("--queries: {e}"))?
            }
            "--known" => options.known = Some(value("--known")?),
            "--print-setup" => options.print_setup = true,
            url if !url.starts_with("--") && options.url.is_empty() => {
                options.url = url.to_string()
            }
            other => return Err(format!("unexpected argument {other}")),
        }
    }
    if options.url.is_empty() {
        return Err(
            "usage: differential [--seed N] [--queries N] [--known FILE] [--print-setup] POSTGRES_URL".into(),
        );
    }
    Ok(options)
}

/// The query numbers listed in the known-differences file.
fn known_differences(path: Option<&str>) -> Result<BTreeMap<usize, String>, String> {
    let Some(path) = path else {
        return Ok(BTreeMap::new());
    };
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut known = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (number, why) = line.split_once('#').unwrap_or((line, ""));
        let number = number
            .trim()
            .parse()
            .map_err(|e| format!("{path}: {line}: {e}"))?;
        known.insert(number, why.trim().to_string());
    }
    Ok(known)
}

fn rows(output: DBOutput<sqllogictest::DefaultColumnType>) -> Vec<Vec<String>> {
    match output {
        DBOutput::Rows { rows, .. } => rows,
        _ => Vec::new(),
    }
}

async fn run(options: Options) -> Result<bool, String> {
    let known = known_differences(options.known.as_deref())?;
    let config: tokio_postgres::Config = options.url.parse().map_err(|e| format!("{e}"))?;
    let postgres = WireDb::connect(&config).await.map_err(|e| e.to_string())?;
    let mut kestrel = EngineDb::new(Database::new().connect());
    let mut rng = Random::new(options.seed);
    let drop = "DROP TABLE IF EXISTS t1, t2, t3";
    postgres
        .simple_query(drop)
        .await
        .map_err(|e| e.to_string())?;
    for statement in schema::setup_sql(&mut rng) {
        if options.print_setup {
            println!("{statement};");
        }
        kestrel
            .run(&statement)
            .map_err(|e| format!("{statement}: {e}"))?;
        postgres
            .simple_query(&statement)
            .await
            .map_err(|e| format!("{statement}: {e}"))?;
    }
    let started = Instant::now();
    let (mut differences, mut unexpected, mut fixed) = (0, 0, Vec::new());
    for number in 1..=options.queries {
        let query = query::generate(&mut rng);
        let ours: Answer = kestrel.run(&query.sql).map(rows);
        let theirs: Answer = postgres
            .simple_query(&query.sql)
            .await
            .map(|outputs| rows(last_output(outputs)));
        let listed = known.get(&number);
        match compare(&ours, &theirs, query.ordered) {
            Some(difference) => {
                differences += 1;
                let status = match listed {
                    Some(why) => format!("known: {why}"),
                    None => {
                        unexpected += 1;
                        "NEW".to_string()
                    }
                };
                println!("query {number} ({status}): {difference}\n  {}", query.sql);
                println!("  kestrel:    {}", describe(&ours));
                println!("  postgresql: {}", describe(&theirs));
            }
            None if listed.is_some() => fixed.push(number),
            None => {}
        }
    }
    for number in &fixed {
        println!("query {number} is listed as known but both engines agree now: remove it");
    }
    println!(
        "differential: seed {}, {} queries in {:.1}s, {differences} differences ({unexpected} new, {} known fixed)",
        options.seed,
        options.queries,
        started.elapsed().as_secs_f64(),
        fixed.len()
    );
    Ok(unexpected == 0 && fixed.is_empty())
}

fn main() -> ExitCode {
    let options = match options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("differential: {message}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("differential: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(options)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("differential: {message}");
            ExitCode::FAILURE
        }
    }
}
