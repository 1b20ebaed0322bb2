//! `slt`: runs .slt files against the engine in-process (in memory or durable), a PostgreSQL
//! server, or any server that speaks the protocol, and with `--complete` writes PostgreSQL's
//! answers into them as the expected output. `scripts/pg_diff.sh` drives it against a
//! scratch PostgreSQL.

use std::path::PathBuf;
use std::process::ExitCode;

use kestrel_sqltest::{slt_files, Target};
use tokio_postgres::Config;

const USAGE: &str = "\
usage: slt [--durable | --parallel | --pg URL [--complete] | --wire URL] FILE_OR_DIR...

  (no target)   the engine in-process, a fresh database per file
  --durable     the engine in-process on a fresh data directory per file, removed
                afterwards; `RESTART` statements (onlyif durable) reopen it
  --parallel    the engine in-process with force_parallel_mode = regress: every
                parallel-safe pipeline runs on the worker pool, one row per morsel
  --pg URL      a PostgreSQL server; each file runs in a database created for it
  --complete    with --pg: rewrite the files' expected output from that server
  --wire URL    any server as it is (e.g. a running `kestrel serve`), no per-file database

URL is a libpq connection string, e.g. postgresql://postgres@127.0.0.1:5432/postgres";

struct Args {
    target: Target,
    complete: bool,
    paths: Vec<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut target = Target::Engine;
    let mut complete = false;
    let mut paths = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--pg" | "--wire" => {
                let url = args.next().ok_or(format!("{arg} needs a URL"))?;
                let config: Config = url.parse().map_err(|e| format!("bad URL {url}: {e}"))?;
                target = if arg == "--pg" {
                    Target::Postgres { admin: config }
                } else {
                    Target::Wire { config }
                };
            }
            "--durable" => target = Target::Durable,
            "--parallel" => target = Target::EngineParallel,
            "--complete" => complete = true,
            "-h" | "--help" => return Err(String::new()),
            _ if arg.starts_with('-') => return Err(format!("unknown option {arg}")),
            _ => paths.push(PathBuf::from(arg)),
        }
    }
    if paths.is_empty() {
        return Err("no files given".to_string());
    }
    if complete && !matches!(target, Target::Postgres { .. }) {
        return Err("--complete needs --pg: expected output comes from PostgreSQL".to_string());
    }
    Ok(Args {
        target,
        complete,
        paths,
    })
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("slt: {message}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut files = Vec::new();
    for path in &args.paths {
        match slt_files(path) {
            Ok(found) => files.extend(found),
            Err(e) => {
                eprintln!("slt: cannot read {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("slt: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (mut passed, mut failed) = (0, 0);
    for file in &files {
        if args.complete {
            match runtime.block_on(args.target.complete_file(file)) {
                Ok(()) => {
                    println!("completed {}", file.display());
                    passed += 1;
                }
                Err(e) => {
                    println!("FAIL {}: {e}", file.display());
                    failed += 1;
                }
            }
            continue;
        }
        let report = runtime.block_on(args.target.run_file(file));
        println!("{report}");
        if report.passed() {
            passed += 1;
        } else {
            failed += 1;
        }
    }
    println!("slt: {passed} files passed, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
