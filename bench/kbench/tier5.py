"""Tier 5: TPC-B (pgbench's built-in `tpcb-like` script), KestrelDB against PostgreSQL.

Both systems are initialised by `pgbench -i -s --tpcb-scale` itself (its default steps
`dtgvp`: tables, client-side generation through COPY, VACUUM ANALYZE, primary keys). The
tables are recreated and checkpointed before every run, so each run of each system starts
from the same state, with no checkpoint pending from the load. For each client count in `--tpcb-clients`:
`pgbench -n -b tpcb-like -c N -j 2 -T --tpcb-duration-s`, the systems alternated (their order
swapped each client count). TPS with p50/p99 latency from the per-transaction log, through
tier 3's runner; a run with a failed transaction fails its row.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from .report import Measurement, Row, Tier
from .systems import PsqlSystem, describe_durability
from .tier3 import run_pgbench

SYSTEMS = ("kestrel", "postgres")


def init(system: PsqlSystem, scale: int, workdir: Path, durable: bool) -> str:
    """Recreates the TPC-B tables with `pgbench -i`; returns the error, if any."""
    cmd = ["pgbench", "-i", "-q", "-s", str(scale), *system.pgbench_args()]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=workdir)
    except subprocess.TimeoutExpired:
        return "pgbench -i did not finish within 600 s"
    if proc.returncode != 0:
        lines = [line for line in proc.stderr.splitlines() if "error" in line.lower()]
        return (lines[0] if lines else f"pgbench -i exit {proc.returncode}").strip()
    if durable:
        # Neither system should start the timed run with the load's checkpoint still to do.
        return system.run_sql("CHECKPOINT", workdir, capture=False).error
    return ""


def run(args, log, systems: list[PsqlSystem], workdir: Path) -> Tier:
    scale, duration = args.tpcb_scale, args.tpcb_duration_s
    tier = Tier("tier5", f"TPC-B (pgbench -b tpcb-like, scale {scale}, -j {args.threads}, -T {duration}), "
                f"durability {args.durability}", SYSTEMS, unit="qps")
    tier.notes.append(f"Durability {describe_durability(args.durability)}.")
    tier.notes.append(f"Tables made by pgbench -i at scale {scale} ({100_000 * scale:,} accounts) on both "
                      "systems, recreated before every run; TPS = pgbench tps (5 statements per transaction, "
                      "in BEGIN/END); latency per transaction from pgbench -l.")
    for k, clients in enumerate(args.tpcb_clients):
        order = systems if k % 2 == 0 else systems[::-1]
        results: dict[str, Measurement] = {}
        for system in order:
            error = init(system, scale, workdir, args.durability != "memory")
            if error:
                results[system.name] = Measurement.failed(f"init: {error}")
                continue
            options = ["-b", "tpcb-like", "-c", str(clients), "-j", str(min(args.threads, clients)),
                       "-T", str(duration), "-M", "simple"]
            results[system.name], _ = run_pgbench(system, options, workdir / f"tpcb_{system.name}_c{clients}",
                                                  duration + 120)
            log(f"tier5 tpcb c{clients} {system.name}: "
                + (f"ERROR {results[system.name].error}" if results[system.name].error
                   else f"{results[system.name].median:,.0f} tps"))
        row = Row(f"tpcb_c{clients}", f"TPC-B, {clients} client{'s' if clients > 1 else ''}", "throughput",
                  results={name: results[name] for name in SYSTEMS if name in results})
        failed = [f"{name}: {m.error}" for name, m in row.results.items() if m.error]
        if failed:
            row.failure = "; ".join(failed)
        tier.rows.append(row)
        log(f"tier5 {row.name}: {row.summary()}")
    return tier
