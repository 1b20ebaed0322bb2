"""Tier 3: concurrent throughput with pgbench custom scripts, KestrelDB against PostgreSQL.

Each test runs `pgbench -n -c 8 -j 2 -T 5 -f script` in simple and in prepared mode,
alternating the systems. QPS is pgbench's tps (one statement per transaction); p50 and p99
come from its per-transaction log (`-l`). DuckDB has no server and is not in this tier.

A test with a `churn` script (cache_churn) first runs it on KestrelDB, `-M simple -t`, one
distinct literal key per transaction: KestrelDB's result cache is then full of small entries
when the test's own script is timed, cached and with the cache off, against PostgreSQL. In a full run its cached
rows fail if they are clearly slower than its no-cache rows (`CACHED_MIN_RATIO`): a cache must
not make the server slower. A --quick run only notes the ratio: its churn is too small to fill
the cache, and 1 s runs on a shared machine are noise (CI times nothing).
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
from dataclasses import dataclass
from pathlib import Path

from . import verify
from .report import Measurement, Row, Tier
from .systems import PsqlSystem, describe_durability
from .workloads import TIER3, ThroughputTest

SYSTEMS = ("kestrel", "postgres")
MODES = ("simple", "prepared")
# The `_nc` variant: every KestrelDB connection starts with the result cache off, through the
# startup packet's options (pgbench has no per-connection script; a SET per transaction would
# double the statements).
NO_CACHE_ENV = {"PGOPTIONS": "-c kestrel.result_cache=off"}
TPS_LINE = re.compile(r"tps = ([0-9.]+) \(without initial connection time\)")
# The churn is bounded. KestrelDB ran 100,000 of its lookups in 15 s with the machine's load
# average at 12, and faster on a quiet machine. A server whose cache degrades with its size
# does not finish: one whose eviction scanned every entry did not finish 300,000 in 120 s.
CHURN_TIMEOUT_S = 240
# A cached row of a `cached_not_slower` test fails below this fraction of its no-cache QPS:
# lenient enough for the run-to-run noise of one pgbench run on a shared machine (PostgreSQL
# alone varies by up to ~20 % between two 1 s runs during a compile), far above the 1/20 to
# 1/50 an O(n) eviction scan cost once the cache was full.
CACHED_MIN_RATIO = 0.8


def _percentile(sorted_values: list[float], q: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[index]


@dataclass
class Transaction:
    """One line of pgbench's per-transaction log (`-l`): `client_id transaction_no time
    script_no time_epoch time_us ...`, where `time` is the latency in µs and the epoch
    seconds + µs are when the transaction finished."""
    end_s: float
    latency_ms: float

    @property
    def start_s(self) -> float:
        return self.end_s - self.latency_ms / 1000


def read_pgbench_log(logdir: Path) -> list[Transaction]:
    transactions = []
    for log in logdir.iterdir():
        for line in log.read_text().splitlines():
            fields = line.split()
            if len(fields) >= 6 and fields[2].isdigit():
                transactions.append(Transaction(int(fields[4]) + int(fields[5]) / 1e6, int(fields[2]) / 1000))
    return transactions


def latency_measurement(tps: float, latencies_ms: list[float]) -> Measurement:
    m = Measurement.of([tps])
    if latencies_ms:
        latencies_ms = sorted(latencies_ms)
        m.p50_ms = statistics.median(latencies_ms)
        m.p99_ms = _percentile(latencies_ms, 0.99)
    return m


def run_pgbench(system: PsqlSystem, options: list[str], logdir: Path, timeout_s: float,
                env: dict | None = None) -> tuple[Measurement, list[Transaction]]:
    """Runs `pgbench -n -l OPTIONS` against `system`, logging each transaction to `logdir`.
    Returns its tps with p50/p99 latency, and the logged transactions; a run with a failed or
    aborted transaction, or none reported, is a failed measurement."""
    logdir.mkdir(exist_ok=True)
    for old in logdir.iterdir():
        old.unlink()
    cmd = ["pgbench", "-n", "-l", f"--log-prefix={logdir}/log", *options, *system.pgbench_args()]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s,
                              env={**os.environ, **(env or {})})
    except subprocess.TimeoutExpired:
        return Measurement.failed(f"did not finish within {timeout_s:.0f} s"), []
    match = TPS_LINE.search(proc.stdout)
    aborted = re.search(r"number of failed transactions: ([1-9][0-9]*)", proc.stdout)
    if proc.returncode != 0 or not match or aborted:
        lines = [line for line in (proc.stderr + proc.stdout).splitlines()
                 if "ERROR" in line or "abort" in line or "failed transactions" in line]
        return Measurement.failed((lines[0] if lines else f"pgbench exit {proc.returncode}").strip()), []
    transactions = read_pgbench_log(logdir)
    return latency_measurement(float(match.group(1)), [t.latency_ms for t in transactions]), transactions


def pgbench(system: PsqlSystem, test: ThroughputTest, mode: str, scripts: list[tuple[Path, int]], args,
            workdir: Path, env: dict | None = None, transactions: int = 0, variables: dict | None = None,
            timeout_s: float = 0, tag: str = "") -> Measurement:
    """One pgbench run of `scripts` ((path, weight) pairs): `-T duration_s`, or `-t transactions`
    per client when given; `variables` are `-D` definitions."""
    logdir = workdir / f"pgbench_{system.name}_{test.name}_{mode}{tag}{'_nc' if env else ''}"
    length = ["-t", str(transactions)] if transactions else ["-T", str(args.duration_s)]
    options = ["-c", str(args.clients), "-j", str(args.threads), *length, "-M", mode]
    for name, value in (variables or {}).items():
        options += ["-D", f"{name}={value}"]
    for path, weight in scripts:
        options.append(f"--file={path}@{weight}")
    return run_pgbench(system, options, logdir, timeout_s or args.duration_s + 120, env)[0]


def _verify(systems: list[PsqlSystem], test: ThroughputTest, workdir: Path) -> str:
    outputs = []
    for system in systems:
        result = system.run_sql("\n".join(q + ";" for q in test.verify), workdir)
        if result.error:
            return f"{system.name}: {result.error}"
        outputs.append(verify.normalise(verify.parse_text_rows(result.stdout), test.ordered))
    return verify.difference(outputs[1], outputs[0], test.ordered)


def no_cache_error(kestrel: PsqlSystem) -> str:
    """Empty if a connection made with NO_CACHE_ENV really has the result cache off."""
    proc = subprocess.run(["psql", "-X", "-A", "-t", "-c", 'SHOW "kestrel.result_cache"', *kestrel.pgbench_args()],
                          capture_output=True, text=True, env={**os.environ, **NO_CACHE_ENV})
    value = proc.stdout.strip()
    if value == "off":
        return ""
    return (f"PGOPTIONS='{NO_CACHE_ENV['PGOPTIONS']}' left kestrel.result_cache at '{value or proc.stderr.strip()}': "
            "the server does not apply the startup options parameter")


def merge(samples: list[Measurement]) -> Measurement:
    if any(m.error for m in samples):
        return next(m for m in samples if m.error)
    merged = Measurement.of([m.median for m in samples])
    merged.p50_ms = statistics.median(m.p50_ms for m in samples if m.p50_ms is not None)
    merged.p99_ms = statistics.median(m.p99_ms for m in samples if m.p99_ms is not None)
    return merged


def churn(kestrel: PsqlSystem, test: ThroughputTest, args, workdir: Path, log, verified) -> Row:
    """Runs the test's churn script on KestrelDB, one distinct key per transaction; the row
    reports its lookups per second. PostgreSQL has no result cache to fill, so it has none."""
    per_client = max(1, int(test.churn_keys * args.iteration_scale) // args.clients)
    path = workdir / f"tp_{test.name}_churn.sql"
    path.write_text(test.churn)
    label = f"Result-cache churn: {per_client * args.clients:,} distinct one-row lookups (simple, KestrelDB only)"
    results = {"kestrel": pgbench(kestrel, test, "simple", [(path, 1)], args, workdir,
                                  transactions=per_client, timeout_s=CHURN_TIMEOUT_S, tag="_churn",
                                  variables={"n": 0, "clients": args.clients})}
    row = Row(f"{test.name}_fill", label, "throughput", results=results, verified=verified)
    if results["kestrel"].error:
        row.failure = f"KestrelDB churn: {results['kestrel'].error}"
    log(f"tier3 {row.name}: {row.summary()}")
    return row


def cache_ratio(cached: Row, uncached: Row) -> float | None:
    """KestrelDB's QPS with the result cache on over its QPS with it off."""
    on, off = cached.results.get("kestrel"), uncached.results.get("kestrel")
    if not on or not off or on.error or off.error or not off.median:
        return None
    return on.median / off.median


def run(args, log, systems: list[PsqlSystem], workdir: Path) -> Tier:
    tier = Tier("tier3", f"Concurrent throughput (pgbench -n -c {args.clients} -j {args.threads} "
                f"-T {args.duration_s}), durability {args.durability}", SYSTEMS, unit="qps")
    tier.notes.append(f"Durability {describe_durability(args.durability)}.")
    tier.notes.append("QPS = pgbench tps, one statement per transaction; latency percentiles from pgbench -l.")
    tier.notes.append("No-cache rows: KestrelDB connections with PGOPTIONS='-c kestrel.result_cache=off'; "
                      "the PostgreSQL column repeats the cached row's runs.")
    nc_error = no_cache_error(systems[0])
    for test in TIER3:
        if not args.selected(test.name, "tier3"):
            continue
        kestrel = systems[0]
        verified = None
        error = kestrel.run_sql(test.setup, workdir).error if test.setup else ""
        if not error and test.verify:
            error = kestrel.run_sql("\n".join(q + ";" for q in test.verify), workdir).error
        if error:
            tier.rows.append(Row(test.name, test.label, "throughput", unsupported=error))
            log(f"tier3 {test.name}: unsupported: {error}")
            continue
        for system in systems[1:]:
            if test.setup:
                system.run_sql(test.setup, workdir, capture=False)
        if args.verify and test.verify:
            diff = _verify(systems, test, workdir)
            if diff:
                tier.rows.append(Row(test.name, test.label, "throughput", failure=f"results differ: {diff}"))
                log(f"tier3 {test.name}: MISMATCH {diff}")
                continue
            verified = True
        scripts = []
        for k, (body, weight) in enumerate(test.scripts):
            path = workdir / f"tp_{test.name}_{k}.sql"
            path.write_text(body)
            scripts.append((path, weight))
        if test.churn:
            tier.rows.append(churn(kestrel, test, args, workdir, log, verified))
        for mode in MODES:
            samples: dict[str, list[Measurement]] = {s.name: [] for s in systems}
            for rep in range(args.tp_reps):
                order = systems if rep % 2 == 0 else systems[::-1]
                for system in order:
                    if test.setup:
                        system.run_sql(test.setup, workdir, capture=False)
                    samples[system.name].append(pgbench(system, test, mode, scripts, args, workdir))
            row = Row(f"{test.name}_{mode}", f"{test.label} ({mode})", "throughput", verified=verified,
                      results={name: merge(ms) for name, ms in samples.items()})
            tier.rows.append(row)
            log(f"tier3 {row.name}: {row.summary()}")
            if test.setup or not test.verify:
                continue  # writes: no cached variant to compare with
            # Uncached: KestrelDB again with its cache off, against the same PostgreSQL runs
            # (PostgreSQL has no result cache, so its column is the same workload).
            label = f"{test.label} ({mode}, no cache)"
            if nc_error:
                tier.rows.append(Row(f"{row.name}_nc", label, "throughput", unsupported=nc_error))
                continue
            nc = [pgbench(kestrel, test, mode, scripts, args, workdir, NO_CACHE_ENV) for _ in range(args.tp_reps)]
            nc_row = Row(f"{row.name}_nc", label, "throughput", verified=verified,
                         results={"kestrel": merge(nc), "postgres": row.results["postgres"]})
            tier.rows.append(nc_row)
            log(f"tier3 {nc_row.name}: {nc_row.summary()}")
            if test.cached_not_slower and (ratio := cache_ratio(row, nc_row)) is not None:
                enforced = not args.quick
                rule = f"the row fails below {CACHED_MIN_RATIO}×" if enforced else "not enforced in a --quick run"
                tier.notes.append(f"{row.name}: KestrelDB with its result cache on runs {ratio:.2f}× the QPS "
                                  f"it runs with it off ({rule}).")
                if enforced and ratio < CACHED_MIN_RATIO:
                    row.failure = (f"with the result cache on, KestrelDB ran {row.results['kestrel'].median:,.0f} "
                                   f"QPS, {ratio:.2f}× the {nc_row.results['kestrel'].median:,.0f} QPS it runs "
                                   "with it off")
                    log(f"tier3 {row.name}: FAILED: {row.failure}")
    return tier
