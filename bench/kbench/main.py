"""The benchmark suite's entry point: starts every system, runs the tiers, writes the results.

Run it through bench/run.sh, which builds KestrelDB and the kestreldb module and installs the
pinned competitors first. See bench/README.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from . import report, systems, tier2, tier3, tier4, tier5, tier6, tier7, tier8
from .workloads import TIER2, TIER3

ROOT = Path(__file__).resolve().parents[2]


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="bench/run.sh", description=__doc__)
    p.add_argument("--tiers", default="1,2,3", help="comma-separated tiers to run (default 1,2,3; also 4, 5, 6, 7, 8)")
    p.add_argument("--filter", default="", help="regex on 'tierN/workload' (e.g. 'join', 'tier2/', 'tier1/top_n')")
    p.add_argument("--quick", action="store_true", help="tiny sizes and one repetition: proves the suite runs")
    p.add_argument("--verify", action="store_true", help="check every query returns the same rows on every system first")
    p.add_argument("--reps", type=int, help="interleaved repetitions per timing (default 3, quick 1)")
    p.add_argument("--rep-budget-s", type=float, default=8.0,
                   help="no further round once a workload's rounds took this long (default 8)")
    p.add_argument("--tp-reps", type=int, help="pgbench runs per system and mode (default 1)")
    p.add_argument("--duration-s", type=int, help="pgbench -T (default 5, quick 1)")
    p.add_argument("--clients", type=int, default=8, help="pgbench -c (default 8)")
    p.add_argument("--threads", type=int, default=2, help="pgbench -j (default 2)")
    p.add_argument("--durability", choices=sorted(systems.DURABILITY), default="memory",
                   help="memory (default): KestrelDB in memory, PostgreSQL synchronous_commit=off; "
                        "sync: both durable, synchronous_commit=on; async: both durable, synchronous_commit=off")
    p.add_argument("--driver-duration-s", type=float,
                   help="tier 4: seconds per driver-matrix cell (default 2, quick 0.5)")
    p.add_argument("--tpcb-scale", type=int, help="tier 5: TPC-B scale (default 10, quick 1)")
    p.add_argument("--tpcb-clients", default="1,8,32", help="tier 5: pgbench -c values (default 1,8,32)")
    p.add_argument("--tpcb-duration-s", type=int, help="tier 5: pgbench -T per run (default 30, quick 2)")
    p.add_argument("--startup-rows", type=int, help="tier 6: rows loaded for the start-up, replay and "
                                                    "checkpoint tests (default 10,000,000, quick 100,000)")
    p.add_argument("--startup-reps", type=int, help="tier 6: timed restarts each (default 3, quick 1)")
    p.add_argument("--stall-duration-s", type=int, help="tier 6: pgbench -T of the checkpoint-stall test "
                                                        "(default 20, quick 4)")
    p.add_argument("--copy-rows", type=int, help="tier 7: rows loaded by COPY (default 10,000,000, quick 200,000)")
    p.add_argument("--kestrel", default=str(ROOT / "target/release/kestrel"), help="the kestrel binary")
    p.add_argument("--kestrel-setting", action="append", default=[], metavar="NAME=VALUE",
                   help="a KestrelDB setting for every tier (server -c, SET in process), e.g. "
                        "max_parallel_workers_per_gather=0; repeatable")
    p.add_argument("--pg-user", default=os.environ.get("KESTREL_BENCH_PG_USER", "pgtest"),
                   help="unprivileged OS user for PostgreSQL when run as root (created if missing)")
    p.add_argument("--results-dir", default=str(ROOT / "bench/results"))
    args = p.parse_args(argv)
    args.tiers = {int(t) for t in args.tiers.split(",") if t.strip()}
    try:
        args.kestrel_settings = dict(s.split("=", 1) for s in args.kestrel_setting)
    except ValueError:
        p.error("--kestrel-setting wants NAME=VALUE")
    args.size_scale = 0.02 if args.quick else 1.0
    args.iteration_scale = 0.02 if args.quick else 1.0
    args.reps = args.reps or (1 if args.quick else 3)
    args.tp_reps = args.tp_reps or 1
    args.duration_s = args.duration_s or (1 if args.quick else 5)
    args.driver_duration_s = args.driver_duration_s or (0.5 if args.quick else 2.0)
    args.tpcb_scale = args.tpcb_scale or (1 if args.quick else 10)
    args.tpcb_clients = [int(c) for c in args.tpcb_clients.split(",") if c.strip()]
    args.tpcb_duration_s = args.tpcb_duration_s or (2 if args.quick else 30)
    args.startup_rows = args.startup_rows or (100_000 if args.quick else 10_000_000)
    args.startup_reps = args.startup_reps or (1 if args.quick else 3)
    args.stall_duration_s = args.stall_duration_s or (4 if args.quick else 20)
    args.copy_rows = args.copy_rows or (200_000 if args.quick else 10_000_000)
    pattern = re.compile(args.filter) if args.filter else None
    args.selected = lambda name, tier: pattern is None or bool(pattern.search(f"{tier}/{name}"))
    return args


def _git(*cmd: str) -> str:
    out = subprocess.run(["git", *cmd], cwd=ROOT, capture_output=True, text=True)
    return out.stdout.strip()


def _stop_on_sigterm(signum, frame) -> None:
    raise SystemExit(128 + signum)  # runs the finally blocks that stop the servers


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    started = time.monotonic()

    def log(message: str) -> None:
        print(f"[{time.monotonic() - started:6.1f}s] {message}", flush=True)

    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    meta = {
        "started": stamp,
        "commit": _git("rev-parse", "--short", "HEAD") + (" (dirty)" if _git("status", "--porcelain") else ""),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}",
        "python": platform.python_version(),
        # Other work on a shared machine skews every system alike; a high load means wider ranges.
        "load_average_at_start": " ".join(f"{x:.1f}" for x in os.getloadavg()),
        "mode": "quick" if args.quick else "full",
        "verify": args.verify,
        "repetitions": f"up to {args.reps} interleaved rounds (fewer past {args.rep_budget_s:g} s per workload)",
        "filter": args.filter or "none",
        # Tiers 2 to 5 and 7; tier 1 is in-process and in memory, tier 6 sets up its own servers.
        "durability": (systems.describe_durability(args.durability) if args.tiers & {2, 3, 4, 5, 7}
                       else "not applicable (tier 1 runs in memory, tier 6 starts its own servers)"),
    }
    tiers: list[report.Tier] = []
    if 1 in args.tiers:
        # Imported only here: it needs the embedded engines (duckdb, kestreldb), the others do not.
        from . import tier1

        log("tier 1: in-process")
        tiers.append(tier1.run(args, log))
    if args.tiers & {2, 3, 4, 5, 7, 8}:
        workdir = systems.make_workdir()
        running: list[systems.WireSystem] = []
        try:
            pg = systems.Postgres(workdir, systems.ensure_os_user(args.pg_user), args.durability)
            running.append(pg)
            kestrel = systems.Kestrel.for_durability(Path(args.kestrel), workdir, args.durability,
                                                     args.kestrel_settings)
            running.append(kestrel)
            meta["postgres"] = ", ".join(f"{k}={v}" for k, v in pg.settings.items())
            meta["kestrel"] = " ".join(kestrel.command_line()[1:])
            log(f"started PostgreSQL on {pg.port}, KestrelDB on {kestrel.port} ({args.durability})")
            # Tiers 4, 5 and 7 make their own tables and use neither DuckDB nor tier 2's tables.
            if args.tiers & {2, 3, 8}:
                duck = systems.DuckCli(workdir)
                running.append(duck)
                meta["duckdb_cli"] = duck.version
                log(f"started DuckDB CLI {duck.version}")
                needed = set()
                if 2 in args.tiers:
                    needed |= {t for w in TIER2 if args.selected(w.name, "tier2") for t in w.tables}
                if 3 in args.tiers:
                    needed |= {t for w in TIER3 if args.selected(w.name, "tier3") for t in w.tables}
                load_errors = tier2.load_tables([kestrel, pg, duck], needed, args.size_scale, workdir, log)
            if 2 in args.tiers:
                tier = tier2.run(args, log, [kestrel, pg, duck], workdir)
                tier.notes += [f"loading into {s} failed: {e}" for s, e in load_errors.items()]
                tiers.append(tier)
            if 3 in args.tiers:
                tiers.append(tier3.run(args, log, [kestrel, pg], workdir))
            if 4 in args.tiers:
                log(f"tier 4: driver matrix, {args.driver_duration_s:g} s per cell")
                tiers.append(tier4.run(args, log, [kestrel, pg], workdir))
            if 5 in args.tiers:
                log(f"tier 5: TPC-B, scale {args.tpcb_scale}, clients {args.tpcb_clients}")
                tiers.append(tier5.run(args, log, [kestrel, pg], workdir))
            if 7 in args.tiers:
                log(f"tier 7: bulk load, {args.copy_rows:,} rows")
                tiers.append(tier7.run(args, log, [kestrel, pg], workdir))
            if 8 in args.tiers:
                log("tier 8: Parquet files in place")
                tiers.append(tier8.run(args, log, [kestrel, duck], workdir))
        finally:
            for system in reversed(running):
                system.stop()
            systems.remove_workdir(workdir)
    if 6 in args.tiers:
        log("tier 6: persistence")
        workdir = systems.make_workdir()
        try:
            tiers.extend(tier6.run(args, log, workdir))
        finally:
            systems.remove_workdir(workdir)
    meta["duration_s"] = round(time.monotonic() - started)
    meta["load_average_at_end"] = " ".join(f"{x:.1f}" for x in os.getloadavg())
    results_dir = Path(args.results_dir)
    # Only a run of tiers 1-3 at full size in the default durability mode replaces latest.md;
    # every other run is kept in tmp/.
    partial = args.quick or args.filter or args.tiers != {1, 2, 3} or args.durability != "memory"
    if partial:
        results_dir = results_dir / "tmp"
    json_path, md_path = report.write(results_dir, stamp, meta, tiers)
    if not partial:
        shutil.copyfile(md_path, results_dir / "latest.md")
    log(f"wrote {json_path} and {md_path}")
    failed = [row.name for t in tiers for row in t.rows if row.failure]
    for t in tiers:
        print(report.summary_markdown(t))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
