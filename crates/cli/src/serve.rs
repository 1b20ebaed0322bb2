//! `kestrel serve`: binds the address and runs the wire server until Ctrl-C or SIGTERM,
//! then writes the shutdown checkpoint.
//!
//! The tokio runtime is single-threaded: it only accepts connections and runs their
//! handshakes, while each established connection runs on a thread of its own (see
//! kestrel_server's `connection` module). On the 2-core machine DESIGN.md §6 describes, a
//! protocol-only server gave twice the single-client throughput with one tokio worker as
//! with two; cores are better left to the connection threads.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::location;
use crate::settings::{self, ServerSettings};

#[derive(clap::Args)]
pub(crate) struct Args {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// The port to listen on (5432 is usually taken by a local PostgreSQL).
    #[arg(long, default_value_t = 5433)]
    port: u16,
    /// Keep the data in DIR, created on first start.
    #[arg(long, value_name = "DIR", default_value = "kestrel-data")]
    data_dir: PathBuf,
    /// Keep nothing on disk: the data is gone when the server stops.
    #[arg(long, conflicts_with = "data_dir")]
    memory: bool,
    /// How many clients may be connected at once (PostgreSQL's max_connections); one
    /// more gets 53300.
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: u32,
    /// The working memory all running statements may hold together (e.g. 8GB); a
    /// statement that would pass it fails with 53200. Default: three quarters of the
    /// machine's memory or of its cgroup's limit.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_bytes)]
    memory_limit: Option<u64>,
    /// Threads one query may run on at most, shared by all queries (a query gets only
    /// those free, so concurrent clients keep their cores). Default: the machine's cores.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Set a setting (see the list below); repeatable.
    #[arg(
        short = 'c',
        long = "set",
        value_name = "NAME=VALUE",
        value_parser = settings::parse_assignment
    )]
    settings: Vec<(String, String)>,
}

pub(crate) fn run(args: Args) -> ExitCode {
    // Before any database exists: max_parallel_workers_per_gather defaults to the size.
    if let Some(threads) = args.threads {
        kestrel::exec::parallel::configure_threads(threads as usize);
    }
    let mut assignments = vec![(
        "max_connections".to_string(),
        args.max_connections.to_string(),
    )];
    assignments.extend(args.settings);
    let settings = match ServerSettings::new(assignments) {
        Ok(settings) => settings,
        Err(error) => {
            eprintln!("kestrel: {}", error.message);
            if let Some(hint) = &error.hint {
                eprintln!("HINT:  {hint}");
            }
            return ExitCode::from(2);
        }
    };
    let directory = (!args.memory).then_some(args.data_dir.as_path());
    let mut opened = match location::open(directory, settings.durable.clone()) {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    // Checked by ServerSettings::new already; an error here would be the engine's.
    if let Err(error) = settings.apply(&mut opened.database) {
        eprintln!("kestrel: {}", error.message);
        return ExitCode::FAILURE;
    }
    if let Some(bytes) = args.memory_limit {
        opened.database.set_memory_limit(bytes);
    }
    let kept = match &opened.directory {
        Some(directory) => format!("data directory {}", directory.display()),
        None => "in memory".to_string(),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("kestrel: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        let address = (args.host.as_str(), args.port);
        let listener = match tokio::net::TcpListener::bind(address).await {
            Ok(listener) => listener,
            Err(error) => {
                eprintln!(
                    "kestrel: cannot listen on {}:{}: {error}",
                    args.host, args.port
                );
                return ExitCode::FAILURE;
            }
        };
        if let Some(report) = opened.database.startup_report() {
            eprintln!("kestrel: {report}");
        }
        eprintln!(
            "kestrel: listening on {}:{} ({kept}, working memory limit {} MB)",
            args.host,
            args.port,
            opened.database.memory_limit() / (1024 * 1024)
        );
        let served = kestrel_server::serve(listener, opened.database.clone());
        tokio::select! {
            result = served => match result {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => {
                    eprintln!("kestrel: server failed: {error}");
                    ExitCode::FAILURE
                }
            },
            () = stop_requested() => {
                eprintln!("kestrel: shutting down");
                // The shutdown checkpoint: a restart keeps unlogged tables and sequence
                // counters, as after PostgreSQL's smart or fast shutdown.
                match opened.database.close() {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(error) => {
                        eprintln!("kestrel: the shutdown checkpoint failed: {error}");
                        ExitCode::FAILURE
                    }
                }
            }
        }
    })
}

/// A size in bytes: a number with an optional unit, B, kB, MB, GB or TB (PostgreSQL's).
fn parse_size_bytes(text: &str) -> Result<u64, String> {
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let number: u64 = text[..digits]
        .parse()
        .map_err(|_| format!("invalid size {text:?}"))?;
    let unit: u64 = match text[digits..].trim() {
        "" | "B" => 1,
        "kB" => 1 << 10,
        "MB" => 1 << 20,
        "GB" => 1 << 30,
        "TB" => 1 << 40,
        other => return Err(format!("invalid unit {other:?}: use B, kB, MB, GB or TB")),
    };
    number
        .checked_mul(unit)
        .filter(|&bytes| bytes > 0)
        .ok_or_else(|| format!("invalid size {text:?}"))
}

/// Ctrl-C (SIGINT) or SIGTERM, what `kill` and service managers send.
async fn stop_requested() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            // Without a SIGTERM handler the default action (exit) applies, as before.
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminate => {}
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::Args;

    #[derive(Parser)]
    struct Serve {
        #[command(flatten)]
        args: Args,
    }

    fn parse(args: &[&str]) -> Result<Args, clap::Error> {
        Serve::try_parse_from(std::iter::once("serve").chain(args.iter().copied())).map(|s| s.args)
    }

    #[test]
    fn defaults_are_local_port_5433_and_kestrel_data() {
        let Ok(args) = parse(&[]) else {
            panic!("no arguments must parse");
        };
        assert_eq!((args.host.as_str(), args.port), ("127.0.0.1", 5433));
        assert_eq!(args.data_dir, std::path::Path::new("kestrel-data"));
        assert!(!args.memory && args.settings.is_empty());
    }

    #[test]
    fn options_and_repeated_settings_are_read() {
        let given = [
            "--host=0.0.0.0",
            "--port",
            "6543",
            "--memory",
            "-c",
            "synchronous_commit=off",
            "--set",
            "max_wal_size=2GB",
            "--memory-limit",
            "3GB",
            "--max-connections",
            "1100",
            "--threads",
            "4",
        ];
        let Ok(args) = parse(&given) else {
            panic!("valid arguments must parse");
        };
        assert_eq!((args.host.as_str(), args.port), ("0.0.0.0", 6543));
        assert!(args.memory);
        let names: Vec<&str> = args.settings.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["synchronous_commit", "max_wal_size"]);
        assert_eq!(args.memory_limit, Some(3 << 30));
        assert_eq!(args.max_connections, 1100);
        assert_eq!(args.threads, Some(4));
    }

    #[test]
    fn memory_and_data_dir_conflict_and_bad_values_are_usage_errors() {
        for given in [
            &["--memory", "--data-dir", "d"][..],
            &["--port", "http"],
            &["-c", "synchronous_commit"],
            &["--memory-limit", "0"],
            &["--memory-limit", "12XB"],
            &["--max-connections", "0"],
            &["--threads", "0"],
            &["--verbose"],
        ] {
            let code = parse(given).err().map(|e| e.exit_code());
            assert_eq!(code, Some(2), "{given:?}");
        }
    }
}
