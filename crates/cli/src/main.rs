//! The `kestrel` binary: `kestrel serve` runs the PostgreSQL wire server, `kestrel sql`
//! runs statements on an embedded database and prints them like `psql -A`.

mod access;
mod location;
mod print;
mod serve;
mod settings;

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

// Measured ~2× glibc malloc on allocation-heavy work; set here only, never forced on an
// embedder of the engine.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// KestrelDB: a PostgreSQL-compatible columnar SQL database.
#[derive(Parser)]
#[command(name = "kestrel", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve PostgreSQL clients (keeps its data in ./kestrel-data unless told otherwise).
    #[command(after_help = settings::help())]
    Serve(serve::Args),
    /// Run SQL (the argument, or standard input) and print the results like `psql -A`.
    ///
    /// A one-shot tool: in memory by default, so nothing is kept after it exits; with
    /// --data-dir it works on a durable database (not while a server has it open).
    Sql(SqlArgs),
}

#[derive(clap::Args)]
struct SqlArgs {
    /// Work on the durable database in DIR (created if missing).
    #[arg(long, value_name = "DIR", conflicts_with = "memory")]
    data_dir: Option<PathBuf>,
    /// Keep nothing on disk (the default).
    #[arg(long)]
    memory: bool,
    /// The statements to run; standard input when absent.
    sql: Option<String>,
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Serve(args) => serve::run(args),
        Command::Sql(args) => run_sql(args),
    }
}

fn run_sql(args: SqlArgs) -> ExitCode {
    let sql = match args.sql {
        Some(sql) => sql,
        None => {
            let mut sql = String::new();
            if let Err(error) = std::io::stdin().read_to_string(&mut sql) {
                eprintln!("kestrel: cannot read standard input: {error}");
                return ExitCode::from(2);
            }
            sql
        }
    };
    let directory = args.data_dir.filter(|_| !args.memory);
    let opened = match location::open(directory.as_deref(), Default::default()) {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    let code = print::run_sql(&opened.database, &sql);
    // A clean shutdown, so unlogged tables and sequence counters carry over to the next run.
    if let Err(error) = opened.database.close() {
        eprintln!("kestrel: the shutdown checkpoint failed: {error}");
        return ExitCode::FAILURE;
    }
    code
}
