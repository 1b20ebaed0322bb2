"""Tier 7: bulk load with COPY, KestrelDB against PostgreSQL.

`--copy-rows` rows (default 10,000,000) of a pgbench_accounts-like table (`aid int, bid int,
abalance int, filler char(84)`, every filler written out in full, ~100 bytes a line) are
generated once into a text file and a CSV file; each is loaded with `psql -c "COPY t FROM
STDIN ..." < file` — the client streams the file in CopyData messages, as loaders do — into
a freshly created table, and the text file also with a server-side `COPY t FROM 'file'`
(no client in the way), the systems alternated, `--reps` rounds. Rows/s = rows / wall time
of the psql run. KestrelDB is restarted before each of its loads, so that its server's RSS
before and after the load (VmRSS of `kestrel serve`) measures what the loaded rows cost;
the ratio to the data's own size (4 + 4 + 4 + 84 bytes a row, with no per-value overhead) is
in the notes and the JSON. PostgreSQL's table size on disk is given for comparison.
"""

from __future__ import annotations

import statistics
import subprocess
import time
from pathlib import Path

from .report import Measurement, Row, Tier
from .systems import HOST, Kestrel, PsqlSystem, describe_durability

SYSTEMS = ("kestrel", "postgres")
MB = 1 << 20
ROW_BYTES = 4 + 4 + 4 + 84
CREATE = "CREATE TABLE copy_accounts (aid int NOT NULL, bid int, abalance int, filler char(84))"
FORMATS = {"text": ("txt", ""), "csv": ("csv", " WITH (FORMAT csv)")}
# Rows: (name, label, format, the server reads the file itself).
LOADS = (("copy_text", "COPY FROM STDIN, text", "text", False),
         ("copy_csv", "COPY FROM STDIN, CSV", "csv", False),
         ("copy_text_file", "COPY FROM 'file' (server-side), text", "text", True))


def write_data(workdir: Path, rows: int) -> dict[str, Path]:
    """The rows as a text file and a CSV file (the same values; awk writes them fast)."""
    paths = {}
    for name, (ext, _) in FORMATS.items():
        path = workdir / f"copy_accounts.{ext}"  # readable by PostgreSQL's OS user too
        sep = "\\t" if name == "text" else ","
        program = (f'BEGIN {{ f = sprintf("%84s", ""); gsub(/ /, "x", f) }} '
                   f'{{ printf "%d{sep}%d{sep}%d{sep}%s%07d\\n", $1, int(($1 - 1) / 100000) + 1, '
                   f'$1 % 1000, substr(f, 1, 77), $1 % 10000000 }}')
        with open(path, "w") as out:
            seq = subprocess.Popen(["seq", "1", str(rows)], stdout=subprocess.PIPE)
            subprocess.run(["awk", program], stdin=seq.stdout, stdout=out, check=True)
            seq.wait()
        path.chmod(0o644)
        paths[name] = path
    return paths


def psql(system: PsqlSystem, sql: str, stdin_path: Path | None = None, timeout_s: float = 3600) -> str:
    """Runs `sql` with psql (the file as its standard input); returns stdout, raises on error."""
    cmd = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", HOST, "-p", str(system.port),
           "-U", system.user, "-d", system.database, "-c", sql]
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    try:
        proc = subprocess.run(cmd, stdin=stdin, capture_output=True, text=True, timeout=timeout_s)
    finally:
        if stdin_path:
            stdin.close()
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "psql failed")
    return proc.stdout.strip()


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def load_once(system: PsqlSystem, path: Path, options: str, rows: int, server_side: bool) -> tuple[float, dict]:
    """Recreates the table and loads `path` into it (the client sending it, or the server
    reading it); returns (seconds, facts)."""
    psql(system, "DROP TABLE IF EXISTS copy_accounts")
    if isinstance(system, Kestrel):
        # A fresh process, so that its RSS growth is the loaded rows.
        system.kill()
        system.start()
    psql(system, CREATE)
    facts: dict = {}
    before = rss_bytes(system.proc.pid) if isinstance(system, Kestrel) else 0
    started = time.perf_counter()
    if server_side:
        psql(system, f"COPY copy_accounts FROM '{path}'{options}")
    else:
        psql(system, f"COPY copy_accounts FROM STDIN{options}", stdin_path=path)
    seconds = time.perf_counter() - started
    count = int(psql(system, "SELECT count(*) FROM copy_accounts"))
    if count != rows:
        raise RuntimeError(f"loaded {count} rows, expected {rows}")
    if isinstance(system, Kestrel):
        facts["rss_delta_mb"] = (rss_bytes(system.proc.pid) - before) / MB
    else:
        facts["table_mb"] = int(psql(system, "SELECT pg_total_relation_size('copy_accounts')")) / MB
    return seconds, facts


def run(args, log, systems: list[PsqlSystem], workdir: Path) -> Tier:
    rows = args.copy_rows
    tier = Tier("tier7", f"bulk load (COPY FROM STDIN through psql, {rows:,} rows), durability {args.durability}",
                SYSTEMS, unit="qps")
    tier.notes.append(f"Durability {describe_durability(args.durability)}.")
    started = time.perf_counter()
    paths = write_data(workdir, rows)
    data_mb = rows * ROW_BYTES / MB
    log(f"tier7: wrote {rows:,} rows ({paths['text'].stat().st_size / MB:,.0f} MB of text) "
        f"in {time.perf_counter() - started:.0f} s")
    tier.notes.append(f"Rows/s = {rows:,} rows / wall time of `psql -c 'COPY ... FROM STDIN' < file` (a "
                      f"{paths['text'].stat().st_size / MB:,.0f} MB file); the data itself is "
                      f"{data_mb:,.0f} MB ({ROW_BYTES} bytes a row).")
    for row_name, label, name, server_side in LOADS:
        options = FORMATS[name][1]
        samples: dict[str, list[float]] = {s.name: [] for s in systems}
        facts: dict[str, list[dict]] = {s.name: [] for s in systems}
        errors: dict[str, str] = {}
        for rep in range(args.reps):
            for system in systems if rep % 2 == 0 else systems[::-1]:
                if system.name in errors:
                    continue
                try:
                    seconds, fact = load_once(system, paths[name], options, rows, server_side)
                except Exception as error:  # noqa: BLE001 — reported as the row's failure
                    errors[system.name] = str(error)
                    continue
                samples[system.name].append(rows / seconds)
                facts[system.name].append(fact)
                log(f"tier7 {row_name} {system.name}: {rows / seconds:,.0f} rows/s {fact}")
        results = {s: (Measurement.failed(errors[s]) if s in errors else Measurement.of(samples[s]))
                   for s in SYSTEMS if s in samples}
        row = Row(row_name, label, "throughput", results=results)
        failed = [f"{s}: {m.error}" for s, m in results.items() if m.error]
        if failed:
            row.failure = "; ".join(failed)
        tier.rows.append(row)
        if facts["kestrel"] and facts["postgres"]:
            rss = statistics.median(f["rss_delta_mb"] for f in facts["kestrel"])
            table = statistics.median(f["table_mb"] for f in facts["postgres"])
            tier.figures[row_name] = {"kestrel_rss_delta_mb": rss, "data_mb": data_mb,
                                  "rss_over_data": rss / data_mb, "postgres_table_mb": table}
            tier.notes.append(f"{label}: KestrelDB's RSS grew {rss:,.0f} MB = {rss / data_mb:.2f}× the data; "
                              f"PostgreSQL's table takes {table:,.0f} MB on disk.")
        log(f"tier7 {row.name}: {row.summary()}")
    for path in paths.values():
        path.unlink()
    return tier
