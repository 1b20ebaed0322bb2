"""The systems under comparison, started and stopped by the suite itself.

- KestrelDB: the release `kestrel serve` binary on a free port: in memory, or with a data
  directory in the work dir (`--durability sync|async`, see `DURABILITY`).
- PostgreSQL 15: a scratch cluster (initdb in a temp dir, free port, run as a non-root user,
  the settings of `pg_settings(durability)`), stopped and deleted at the end.
- DuckDB: the CLI binary of the pinned `duckdb-cli` package, on a database file in the temp
  dir (it has no server; each script is one CLI process).

Every wire script runs through `run_script`, which returns the wall time of the client
process, its output and its error text. Both clients print rows the way verify.py reads them:
NULL as `NULL_MARKER` (not as an empty string, which is a value of its own), values separated
by `FIELD_SEP`, every row ended by psql's NUL (`-0`) or `DUCK_RECORD_END`. Timed runs use the
same commands, so what is verified is what is timed.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .verify import DUCK_RECORD_END, FIELD_SEP, NULL_MARKER

PG_BIN = Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))
PG_SETTINGS = {
    "shared_buffers": "512MB",
    "work_mem": "64MB",
    "synchronous_commit": "off",
    "max_connections": "100",
    "listen_addresses": "127.0.0.1",
}
# What `--durability` means for each side. `memory` (the default, and the mode every published
# comparison so far used): KestrelDB keeps nothing on disk, so PostgreSQL does not wait for its
# commits' WAL flush either (fsync stays on). `sync`: both durable, every commit waits for its
# log flush (PostgreSQL's defaults, synchronous_commit=on, fsync=on). `async`: both durable,
# commits return before the flush (synchronous_commit=off on both).
DURABILITY = {
    "memory": {"kestrel": "in memory (--memory)",
               "postgres": "fsync=on, synchronous_commit=off"},
    "sync": {"kestrel": "durable (--data-dir), synchronous_commit=on",
             "postgres": "fsync=on, synchronous_commit=on"},
    "async": {"kestrel": "durable (--data-dir), synchronous_commit=off",
              "postgres": "fsync=on, synchronous_commit=off"},
}


def pg_settings(durability: str) -> dict[str, str]:
    return {**PG_SETTINGS, "synchronous_commit": "on" if durability == "sync" else "off"}


def describe_durability(durability: str) -> str:
    sides = DURABILITY[durability]
    return f"{durability}: KestrelDB {sides['kestrel']}; PostgreSQL {sides['postgres']}"
# Loopback TCP for both wire systems (no Unix socket for PostgreSQL), so both pay the same.
HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def wait_for_port(port: int, timeout_s: float, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with code {proc.returncode} before listening")
        try:
            with socket.create_connection((HOST, port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} after {timeout_s}s")


@dataclass
class RunResult:
    seconds: float
    stdout: str
    error: str  # empty on success

    @property
    def ok(self) -> bool:
        return not self.error


def _run(cmd: list[str], script: Path, capture: bool, timeout_s: float) -> RunResult:
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            cmd, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
            stderr=subprocess.PIPE, timeout=timeout_s,
        )
    except subprocess.TimeoutExpired:
        return RunResult(time.perf_counter() - start, "", f"timed out after {timeout_s:.0f}s")
    seconds = time.perf_counter() - start
    stderr = proc.stderr.decode(errors="replace").strip()
    error = ""
    if proc.returncode != 0 or "ERROR" in stderr or "Error:" in stderr:
        error = _first_error_line(stderr) or f"exit code {proc.returncode}"
    stdout = proc.stdout.decode(errors="replace") if capture else ""
    return RunResult(seconds, stdout, error)


def _first_error_line(stderr: str) -> str:
    # psql prefixes each message with "psql:FILE:LINE: ", which says nothing useful here.
    lines = [re.sub(r"^psql:[^:]*:\d+: ", "", line) for line in stderr.splitlines() if line.strip()]
    for i, line in enumerate(lines):
        if "ERROR" in line or "Error" in line:
            # DuckDB prints the message on the line after "... Error:".
            if line.rstrip().endswith(":") and i + 1 < len(lines):
                return f"{line.strip()} {lines[i + 1].strip()}"
            return line.strip()
    return lines[0].strip() if lines else ""


class WireSystem:
    """A system reached by a command-line client that runs a SQL file."""

    name: str

    def command(self, script: Path) -> list[str]:
        raise NotImplementedError

    def nc_preamble(self) -> str:
        """What the `_nc` variant puts at the top of its script."""
        return ""

    def run_script(self, script: Path, capture: bool = False, timeout_s: float = 600) -> RunResult:
        return _run(self.command(script), script, capture, timeout_s)

    def run_sql(self, sql: str, workdir: Path, capture: bool = True) -> RunResult:
        path = workdir / f"{self.name}_adhoc.sql"
        path.write_text(sql if sql.rstrip().endswith(";") else sql + ";\n")
        return self.run_script(path, capture=capture)

    def stop(self) -> None:
        pass


class PsqlSystem(WireSystem):
    """A pgwire server driven with `psql -q -A -t -f` (every row printed, unaligned; `-0`
    ends each row with a NUL byte)."""

    def __init__(self, name: str, port: int, user: str, database: str):
        self.name = name
        self.port = port
        self.user = user
        self.database = database

    def command(self, script: Path) -> list[str]:
        return ["psql", "-X", "-q", "-A", "-t", "-0", "-F", FIELD_SEP, "-P", f"null={NULL_MARKER}",
                "-v", "ON_ERROR_STOP=1", "-h", HOST,
                "-p", str(self.port), "-U", self.user, "-d", self.database, "-f", str(script)]

    def pgbench_args(self) -> list[str]:
        return ["-h", HOST, "-p", str(self.port), "-U", self.user, self.database]


class Kestrel(PsqlSystem):
    """`kestrel serve` in memory (`data_dir` None) or on a data directory; `settings` go to
    `-c NAME=VALUE`. `restart` stops it (SIGTERM: shutdown checkpoint; or SIGKILL) and starts
    it again on the same directory and port."""

    def __init__(self, binary: Path, workdir: Path, data_dir: Path | None = None,
                 settings: dict[str, str] | None = None, name: str = "kestrel", start_timeout_s: float = 30):
        super().__init__(name, free_port(), "bench", "bench")
        self.binary, self.data_dir, self.settings = binary, data_dir, dict(settings or {})
        self.log_path = workdir / f"{name}.log"
        self.log = open(self.log_path, "ab")
        self.proc: subprocess.Popen | None = None
        self.start(start_timeout_s)

    @staticmethod
    def for_durability(binary: Path, workdir: Path, durability: str,
                       settings: dict[str, str] | None = None) -> "Kestrel":
        settings = dict(settings or {})
        if durability == "memory":
            return Kestrel(binary, workdir, settings=settings)
        settings["synchronous_commit"] = "on" if durability == "sync" else "off"
        return Kestrel(binary, workdir, workdir / "kestrel-data", settings)

    def command_line(self) -> list[str]:
        where = ["--memory"] if self.data_dir is None else ["--data-dir", str(self.data_dir)]
        options = [arg for k, v in self.settings.items() for arg in ("-c", f"{k}={v}")]
        return [str(self.binary), "serve", *where, "--port", str(self.port), *options]

    def start(self, timeout_s: float = 30) -> float:
        """Starts the server; returns the seconds until it accepted a connection."""
        started = time.perf_counter()
        self.proc = subprocess.Popen(self.command_line(), stdout=self.log, stderr=subprocess.STDOUT)
        wait_for_port(self.port, timeout_s, self.proc)
        return time.perf_counter() - started

    def kill(self, sig: int = signal.SIGTERM, timeout_s: float = 600) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def nc_preamble(self) -> str:
        return "SET kestrel.result_cache = off;\n"

    def stop(self) -> None:
        self.kill(signal.SIGTERM, 60)
        self.log.close()


class Postgres(PsqlSystem):
    """A scratch PostgreSQL 15 cluster owned by a non-root user."""

    def __init__(self, workdir: Path, os_user: str, durability: str = "memory"):
        port = free_port()
        super().__init__("postgres", port, "postgres", "postgres")
        self.os_user = os_user
        self.datadir = workdir / "pgdata"
        self._as_user([str(PG_BIN / "initdb"), "-D", str(self.datadir), "-A", "trust",
                       "-U", "postgres", "--no-sync"], workdir)
        settings = pg_settings(durability)
        options = " ".join(f"-c {k}={v}" for k, v in settings.items())
        self._as_user([str(PG_BIN / "pg_ctl"), "-D", str(self.datadir), "-w", "-l",
                       str(workdir / "postgres.log"), "-o", f"-p {port} -k {workdir} {options}",
                       "start"], workdir)
        wait_for_port(port, 30)
        self.settings = {k: self.show(k) for k in list(settings) + ["fsync", "server_version"]}

    def _as_user(self, cmd: list[str], workdir: Path) -> None:
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", self.os_user, "--"] + cmd
        subprocess.run(cmd, check=True, cwd=workdir, stdout=subprocess.DEVNULL)

    def show(self, setting: str) -> str:
        out = subprocess.run(["psql", "-X", "-A", "-t", "-h", HOST, "-p", str(self.port), "-U", "postgres",
                              "-c", f"SHOW {setting}"], capture_output=True, text=True)
        return out.stdout.strip()

    def stop(self) -> None:
        if self.datadir.exists():
            self._as_user([str(PG_BIN / "pg_ctl"), "-D", str(self.datadir), "-m", "fast", "stop"],
                          self.datadir.parent)


class DuckCli(WireSystem):
    """The DuckDB CLI in list mode, on a database file in the work dir."""

    def __init__(self, workdir: Path):
        import duckdb_cli  # the pinned package's own binary, without its Python launcher
        self.name = "duckdb"
        self.binary = Path(duckdb_cli.__file__).parent / "duckdb"
        # On tmpfs where there is one: DuckDB has no synchronous_commit=off, and a commit's
        # fsync there costs nothing, as PostgreSQL's commits here do not wait for one.
        shm = Path("/dev/shm")
        self.dbdir = Path(tempfile.mkdtemp(prefix="kestrel-bench-duck-", dir=shm if shm.is_dir() else workdir))
        self.dbfile = self.dbdir / "bench.duckdb"
        out = subprocess.run([str(self.binary), "--version"], capture_output=True, text=True)
        self.version = out.stdout.strip()

    def stop(self) -> None:
        shutil.rmtree(self.dbdir, ignore_errors=True)

    def command(self, script: Path) -> list[str]:
        return [str(self.binary), "-list", "-noheader", "-bail", "-nullvalue", NULL_MARKER,
                "-separator", FIELD_SEP, "-newline", DUCK_RECORD_END, "-f", str(script), str(self.dbfile)]


def ensure_os_user(name: str) -> str:
    """PostgreSQL refuses to run as root: use (and if needed create) an unprivileged user."""
    if os.geteuid() != 0:
        return pwd.getpwuid(os.geteuid()).pw_name
    try:
        pwd.getpwnam(name)
    except KeyError:
        subprocess.run(["useradd", "-m", name], check=True)
    return name


def make_workdir() -> Path:
    workdir = Path(tempfile.mkdtemp(prefix="kestrel-bench-"))
    os.chmod(workdir, 0o777)
    return workdir


def remove_workdir(workdir: Path) -> None:
    shutil.rmtree(workdir, ignore_errors=True)
