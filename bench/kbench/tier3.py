"""Tier 3: concurrent throughput with pgbench custom scripts, KestrelDB against PostgreSQL.

Each test runs `pgbench -n -c 8 -j 2 -T 5 -f script` in simple and in prepared mode,
alternating the systems. QPS is pgbench's tps (one statement per transaction); p50 and p99
come from its per-transaction log (`-l`). DuckDB has no server and is not in this tier.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
from pathlib import Path

from . import verify
from .report import Measurement, Row, Tier
from .systems import PsqlSystem
from .workloads import TIER3, ThroughputTest

SYSTEMS = ("kestrel", "postgres")
MODES = ("simple", "prepared")
# The `_nc` variant: every KestrelDB connection starts with the result cache off, through the
# startup packet's options (pgbench has no per-connection script; a SET per transaction would
# double the statements).
NO_CACHE_ENV = {"PGOPTIONS": "-c kestrel.result_cache=off"}
TPS_LINE = re.compile(r"tps = ([0-9.]+) \(without initial connection time\)")


def _percentile(sorted_values: list[float], q: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[index]


def pgbench(system: PsqlSystem, test: ThroughputTest, mode: str, scripts: list[Path], args,
            workdir: Path, env: dict | None = None) -> Measurement:
    logdir = workdir / f"pgbench_{system.name}_{test.name}_{mode}{'_nc' if env else ''}"
    logdir.mkdir(exist_ok=True)
    for old in logdir.iterdir():
        old.unlink()
    cmd = ["pgbench", "-n", "-c", str(args.clients), "-j", str(args.threads), "-T", str(args.duration_s),
           "-M", mode, "-l", f"--log-prefix={logdir}/log"]
    for path, (_, weight) in zip(scripts, test.scripts):
        cmd.append(f"--file={path}@{weight}")
    cmd += system.pgbench_args()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.duration_s + 120,
                          env={**os.environ, **(env or {})})
    match = TPS_LINE.search(proc.stdout)
    aborted = re.search(r"number of failed transactions: ([1-9][0-9]*)", proc.stdout)
    if proc.returncode != 0 or not match or aborted:
        lines = [line for line in (proc.stderr + proc.stdout).splitlines() if "ERROR" in line or "abort" in line]
        return Measurement.failed((lines[0] if lines else f"pgbench exit {proc.returncode}").strip())
    latencies_ms = []
    for log in logdir.iterdir():
        for line in log.read_text().splitlines():
            fields = line.split()
            if len(fields) >= 3:
                latencies_ms.append(int(fields[2]) / 1000)
    latencies_ms.sort()
    qps = float(match.group(1))
    m = Measurement.of([qps])
    if latencies_ms:
        m.p50_ms = statistics.median(latencies_ms)
        m.p99_ms = _percentile(latencies_ms, 0.99)
    return m


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


def _merge(samples: list[Measurement]) -> Measurement:
    if any(m.error for m in samples):
        return next(m for m in samples if m.error)
    merged = Measurement.of([m.median for m in samples])
    merged.p50_ms = statistics.median(m.p50_ms for m in samples if m.p50_ms is not None)
    merged.p99_ms = statistics.median(m.p99_ms for m in samples if m.p99_ms is not None)
    return merged


def run(args, log, systems: list[PsqlSystem], workdir: Path) -> Tier:
    tier = Tier("tier3", f"Concurrent throughput (pgbench -n -c {args.clients} -j {args.threads} "
                f"-T {args.duration_s})", SYSTEMS, unit="qps")
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
        for k, (body, _) in enumerate(test.scripts):
            path = workdir / f"tp_{test.name}_{k}.sql"
            path.write_text(body)
            scripts.append(path)
        for mode in MODES:
            samples: dict[str, list[Measurement]] = {s.name: [] for s in systems}
            for rep in range(args.tp_reps):
                order = systems if rep % 2 == 0 else systems[::-1]
                for system in order:
                    if test.setup:
                        system.run_sql(test.setup, workdir, capture=False)
                    samples[system.name].append(pgbench(system, test, mode, scripts, args, workdir))
            row = Row(f"{test.name}_{mode}", f"{test.label} ({mode})", "throughput", verified=verified,
                      results={name: _merge(ms) for name, ms in samples.items()})
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
                         results={"kestrel": _merge(nc), "postgres": row.results["postgres"]})
            tier.rows.append(nc_row)
            log(f"tier3 {nc_row.name}: {nc_row.summary()}")
    return tier
