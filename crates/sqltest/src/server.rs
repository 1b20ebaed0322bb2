//! A `kestrel serve` process on a free port, for the wire target. Running the real binary
//! tests what users run (argument parsing, start-up, the listener), and a crash of the server
//! fails the file that caused it instead of the test process.

use std::fs;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tokio_postgres::Config;

/// How long a server may take to accept connections after it was started.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(20);

/// A running server, stopped when dropped.
pub struct ServerProcess {
    child: Child,
    port: u16,
    log_path: PathBuf,
}

impl ServerProcess {
    /// Starts `binary serve --memory --port N` on a free port and waits until it accepts
    /// connections.
    pub fn start(binary: &Path) -> Result<ServerProcess, String> {
        let port = free_port()?;
        let log_path =
            std::env::temp_dir().join(format!("kestrel-slt-{}-{port}.log", std::process::id()));
        let log = fs::File::create(&log_path)
            .map_err(|e| format!("cannot create {}: {e}", log_path.display()))?;
        let log_err = log
            .try_clone()
            .map_err(|e| format!("cannot share {}: {e}", log_path.display()))?;
        let child = Command::new(binary)
            .args(["serve", "--memory", "--port", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log_err)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        let mut server = ServerProcess {
            child,
            port,
            log_path,
        };
        server.wait_until_ready()?;
        Ok(server)
    }

    /// Client settings for this server.
    pub fn config(&self) -> Config {
        local_config(self.port)
    }

    fn wait_until_ready(&mut self) -> Result<(), String> {
        let started = Instant::now();
        loop {
            if TcpStream::connect((Ipv4Addr::LOCALHOST, self.port)).is_ok() {
                return Ok(());
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!(
                    "server exited at start-up ({status}):\n{}",
                    self.log()
                ));
            }
            if started.elapsed() > STARTUP_TIMEOUT {
                return Err(format!(
                    "server did not listen on port {} within {}s:\n{}",
                    self.port,
                    STARTUP_TIMEOUT.as_secs(),
                    self.log()
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The exit status if the server is no longer running.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// What the server printed so far, to explain a failure.
    pub fn log(&self) -> String {
        fs::read_to_string(&self.log_path).unwrap_or_default()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // Errors here mean the process is already gone: nothing left to clean up.
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = fs::remove_file(&self.log_path);
    }
}

/// A port nobody listens on right now. Another process could take it before the server
/// binds it; the server then fails at start-up with a clear error, which is rare enough.
fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .map_err(|e| format!("cannot find a free port: {e}"))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| format!("cannot find a free port: {e}"))
}

/// The `kestrel` binary: `$KESTREL_BIN`, else the one next to the running test binary,
/// built (or brought up to date) first with the same profile so the test never runs a stale
/// server.
pub fn kestrel_binary() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("KESTREL_BIN") {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot locate myself: {e}"))?;
    // target/<profile>/deps/<test binary> or target/<profile>/<binary>
    let mut profile_dir = exe
        .parent()
        .ok_or("test binary has no directory")?
        .to_path_buf();
    if profile_dir.ends_with("deps") {
        profile_dir.pop();
    }
    let target_dir = profile_dir
        .parent()
        .ok_or("test binary is not inside a target directory")?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .args(["build", "--quiet", "-p", "kestrel-cli", "--bin", "kestrel"])
        .arg("--target-dir")
        .arg(target_dir);
    if profile_dir.ends_with("release") {
        build.arg("--release");
    }
    let status = build
        .status()
        .map_err(|e| format!("cannot run cargo to build the kestrel binary: {e}"))?;
    if !status.success() {
        return Err(format!("building the kestrel binary failed ({status})"));
    }
    Ok(profile_dir.join("kestrel"))
}

/// Client settings for a server on this machine's loopback `port`.
pub fn local_config(port: u16) -> Config {
    let mut config = Config::new();
    config
        .host("127.0.0.1")
        .port(port)
        .user("postgres")
        .dbname("postgres");
    config
}
