//! `kestrel serve`: binds the address and runs the wire server until Ctrl-C.
//!
//! The tokio runtime is single-threaded: it only accepts connections and runs their
//! handshakes, while each established connection runs on a thread of its own (see
//! kestrel_server's `connection` module). On the 2-core machine DESIGN.md §6 describes, a
//! protocol-only server gave twice the single-client throughput with one tokio worker as
//! with two; cores are better left to the connection threads.

use std::process::ExitCode;

use kestrel::Database;

const DEFAULT_HOST: &str = "127.0.0.1";
/// 5432 is usually taken by a local PostgreSQL.
const DEFAULT_PORT: u16 = 5433;

pub(crate) struct Options {
    host: String,
    port: u16,
}

impl Options {
    /// `--host H`, `--port P`, also as `--host=H` and `--port=P`.
    pub(crate) fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options {
            host: DEFAULT_HOST.to_owned(),
            port: DEFAULT_PORT,
        };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let (name, inline_value) = match arg.split_once('=') {
                Some((name, value)) => (name, Some(value.to_owned())),
                None => (arg.as_str(), None),
            };
            let mut value = || {
                inline_value
                    .clone()
                    .or_else(|| args.next().cloned())
                    .ok_or_else(|| format!("{name} needs a value"))
            };
            match name {
                "--host" => options.host = value()?,
                "--port" => {
                    let text = value()?;
                    options.port = text.parse().map_err(|_| format!("invalid port `{text}`"))?;
                }
                other => return Err(format!("unknown option `{other}` for serve")),
            }
        }
        Ok(options)
    }
}

pub(crate) fn run(options: &Options) -> ExitCode {
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
        let address = (options.host.as_str(), options.port);
        let listener = match tokio::net::TcpListener::bind(address).await {
            Ok(listener) => listener,
            Err(error) => {
                eprintln!(
                    "kestrel: cannot listen on {}:{}: {error}",
                    options.host, options.port
                );
                return ExitCode::FAILURE;
            }
        };
        eprintln!(
            "kestrel: listening on {}:{} (in memory)",
            options.host, options.port
        );
        tokio::select! {
            result = kestrel_server::serve(listener, Database::new()) => match result {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => {
                    eprintln!("kestrel: server failed: {error}");
                    ExitCode::FAILURE
                }
            },
            _ = tokio::signal::ctrl_c() => {
                eprintln!("kestrel: shutting down");
                ExitCode::SUCCESS
            }
        }
    })
}
