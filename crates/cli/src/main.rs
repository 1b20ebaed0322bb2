//! The `kestrel` binary: `kestrel serve` runs the PostgreSQL wire server, `kestrel sql`
//! runs statements on an embedded in-memory database and prints them like `psql -A`.
//! Arguments are parsed by hand: there are a handful, and no dependency is worth it.

mod print;
mod serve;

use std::io::Read;
use std::process::ExitCode;

// Measured ~2× glibc malloc on allocation-heavy work; set here only, never forced on an
// embedder of the engine.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const USAGE: &str = "\
usage:
  kestrel serve [--host HOST] [--port PORT]   serve PostgreSQL clients (default 127.0.0.1:5433), in memory
  kestrel sql [SQL]                           run SQL (or standard input) in memory, print like psql -A
  kestrel --help                              this text";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    match args.first().map(String::as_str) {
        Some("serve") => match serve::Options::parse(&args[1..]) {
            Ok(options) => serve::run(&options),
            Err(message) => usage_error(&message),
        },
        Some("sql") => match &args[1..] {
            [sql] => print::run_sql(sql),
            [] => {
                let mut sql = String::new();
                match std::io::stdin().read_to_string(&mut sql) {
                    Ok(_) => print::run_sql(&sql),
                    Err(error) => usage_error(&format!("cannot read standard input: {error}")),
                }
            }
            _ => usage_error("`kestrel sql` takes one SQL string"),
        },
        Some("help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some(other) => usage_error(&format!("unknown command `{other}`")),
        None => usage_error("no command given"),
    }
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("kestrel: {message}\n{USAGE}");
    ExitCode::from(2)
}
