//! `differential [--seed N] [--queries N] [--known FILE] [--print-setup] POSTGRES_URL`: the random-query
//! tester (see `kestrel_sqltest::differential`). Creates the tables in a fresh in-process
//! database and in the PostgreSQL database the URL names (dropping them first), runs the
//! queries on both, prints each difference with its query number, and exits non-zero on
//! any difference that the `--known` file (one `N  # why` a line) does not list, or on a
//! listed one that no longer differs, so the list only shrinks. `--print-setup` prints the
//! tables' statements first, for reproducing a difference by hand.
//!
//! `differential --oracles [--seed N] [--queries N] [--known FILE]` needs no PostgreSQL:
//! each number is a random query and an oracle's pair of queries
//! (`kestrel_sqltest::differential::oracle`), run in-process on three databases (serial,
//! with parallelism forced, with the optimizer off) that must agree, and the pair must
//! give the same rows.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Instant;

use kestrel::Database;
use kestrel_sqltest::differential::compare::{
    compare, data_exception, describe, Answer, Difference,
};
use kestrel_sqltest::differential::{oracle, query, schema, Random};
use kestrel_sqltest::engine::EngineDb;
use kestrel_sqltest::format::last_output;
use kestrel_sqltest::wire::WireDb;
use sqllogictest::{DBOutput, DB};

struct Options {
    seed: u64,
    queries: usize,
    known: Option<String>,
    print_setup: bool,
    oracles: bool,
    url: String,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        seed: 1,
        queries: 1500,
        known: None,
        print_setup: false,
        oracles: false,
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
            "--oracles" => options.oracles = true,
            url if !url.starts_with("--") && options.url.is_empty() => {
                options.url = url.to_string()
            }
            other => return Err(format!("unexpected argument {other}")),
        }
    }
    if options.url.is_empty() != options.oracles {
        return Err(
            "usage: differential [--seed N] [--queries N] [--known FILE] [--print-setup] POSTGRES_URL\n       differential --oracles [--seed N] [--queries N] [--known FILE]".into(),
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

/// Two answers that must agree: each named by where it comes from.
struct Check<'a> {
    sql: &'a str,
    ours: (&'a str, &'a Answer),
    theirs: (&'a str, &'a Answer),
    ordered: bool,
}

/// The differences a run found, checked against the known ones.
struct Tally {
    known: BTreeMap<usize, String>,
    differences: usize,
    unexpected: usize,
    fixed: Vec<usize>,
}

impl Tally {
    fn new(known: BTreeMap<usize, String>) -> Tally {
        Tally {
            known,
            differences: 0,
            unexpected: 0,
            fixed: Vec::new(),
        }
    }

    /// Records query `number`'s outcome: the differences between pairs of answers.
    fn record(&mut self, number: usize, checks: &[Check]) {
        let listed = self.known.get(&number);
        let differences: Vec<(&Check, Difference)> = checks
            .iter()
            .filter_map(|check| {
                compare(check.ours.1, check.theirs.1, check.ordered).map(|d| (check, d))
            })
            .collect();
        match (differences.is_empty(), listed) {
            (true, Some(_)) => self.fixed.push(number),
            (true, None) => return,
            (false, Some(_)) => self.differences += 1,
            (false, None) => {
                self.differences += 1;
                self.unexpected += 1;
            }
        }
        let status = match listed {
            Some(why) => format!("known: {why}"),
            None => "NEW".to_string(),
        };
        for (check, difference) in differences {
            println!("query {number} ({status}): {difference}\n  {}", check.sql);
            println!("  {}: {}", check.ours.0, describe(check.ours.1));
            println!("  {}: {}", check.theirs.0, describe(check.theirs.1));
        }
    }

    /// Prints the summary; true when every difference was known and every known one found.
    fn report(&self, what: &str, options: &Options, started: Instant) -> bool {
        for number in &self.fixed {
            println!("query {number} is listed as known but agrees now: remove it");
        }
        println!(
            "differential{what}: seed {}, {} queries in {:.1}s, {} differences ({} new, {} known fixed)",
            options.seed,
            options.queries,
            started.elapsed().as_secs_f64(),
            self.differences,
            self.unexpected,
            self.fixed.len()
        );
        self.unexpected == 0 && self.fixed.is_empty()
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
    let mut tally = Tally::new(known);
    for number in 1..=options.queries {
        let query = query::generate(&mut rng);
        let ours: Answer = kestrel.run(&query.sql).map(rows);
        let theirs: Answer = postgres
            .simple_query(&query.sql)
            .await
            .map(|outputs| rows(last_output(outputs)));
        let check = Check {
            sql: &query.sql,
            ours: ("kestrel   ", &ours),
            theirs: ("postgresql", &theirs),
            ordered: query.ordered,
        };
        tally.record(number, &[check]);
    }
    Ok(tally.report("", &options, started))
}

/// The three in-process databases of `--oracles`, with the tables made by `setup`.
fn oracle_databases(setup: &[String]) -> Result<[EngineDb; 3], String> {
    let serial = Database::new().connect();
    let mut forced = Database::new();
    forced
        .set_setting_default("force_parallel_mode", "regress")
        .map_err(|e| e.to_string())?;
    let parallel = forced.connect();
    let mut unoptimized = Database::new().connect();
    unoptimized
        .execute("SET kestrel.disabled_optimizer_rules = 'all'")
        .map_err(|e| e.to_string())?;
    let mut databases = [serial, parallel, unoptimized].map(EngineDb::new);
    for db in &mut databases {
        for statement in setup {
            db.run(statement).map_err(|e| format!("{statement}: {e}"))?;
        }
    }
    Ok(databases)
}

/// The checks that the serial database's answer to `sql` is the parallel one's and the
/// unoptimized one's. An error that one meets and another does not is a data exception of
/// a row the other never evaluates (a filter pushed below a join, a plan-time fold):
/// PostgreSQL's plans differ in the same way, so that is no difference.
fn same_everywhere<'a>(
    sql: &'a str,
    [serial, parallel, unoptimized]: [&'a Answer; 3],
    ordered: bool,
) -> Vec<Check<'a>> {
    [("parallel   ", parallel), ("unoptimized", unoptimized)]
        .into_iter()
        .filter(|(_, other)| {
            !(data_exception(serial) && other.is_ok() || data_exception(other) && serial.is_ok())
        })
        .map(|theirs| Check {
            sql,
            ours: ("serial     ", serial),
            theirs,
            ordered,
        })
        .collect()
}

fn run_oracles(options: &Options) -> Result<bool, String> {
    let known = known_differences(options.known.as_deref())?;
    let mut rng = Random::new(options.seed);
    let setup = schema::setup_sql(&mut rng);
    let [mut serial, mut parallel, mut unoptimized] = oracle_databases(&setup)?;
    let mut pairs_compared = 0;
    let started = Instant::now();
    let mut tally = Tally::new(known);
    for number in 1..=options.queries {
        let query = query::generate(&mut rng);
        let pair = oracle::generate(&mut rng);
        let mut run_everywhere = |sql: &str| {
            [&mut serial, &mut parallel, &mut unoptimized].map(|db| db.run(sql).map(rows))
        };
        let [q, q_parallel, q_unoptimized] = run_everywhere(&query.sql);
        let [a, a_parallel, a_unoptimized] = run_everywhere(&pair.original);
        let [b, b_parallel, b_unoptimized] = run_everywhere(&pair.rewritten);
        let mut checks = Vec::new();
        checks.extend(same_everywhere(
            &query.sql,
            [&q, &q_parallel, &q_unoptimized],
            query.ordered,
        ));
        checks.extend(same_everywhere(
            &pair.original,
            [&a, &a_parallel, &a_unoptimized],
            false,
        ));
        checks.extend(same_everywhere(
            &pair.rewritten,
            [&b, &b_parallel, &b_unoptimized],
            false,
        ));
        // An error of either query may come from rows the other never evaluates.
        let both = format!("{}: {}\n  {}", pair.oracle, pair.original, pair.rewritten);
        if a.is_ok() && b.is_ok() {
            pairs_compared += 1;
            checks.push(Check {
                sql: &both,
                ours: ("original   ", &a),
                theirs: ("rewritten  ", &b),
                ordered: false,
            });
        }
        tally.record(number, &checks);
    }
    println!(
        "differential --oracles: {pairs_compared} of {} oracle pairs compared (the others met an error)",
        options.queries
    );
    Ok(tally.report(" --oracles", options, started))
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
    let outcome = match options.oracles {
        true => run_oracles(&options),
        false => runtime.block_on(run(options)),
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("differential: {message}");
            ExitCode::FAILURE
        }
    }
}
