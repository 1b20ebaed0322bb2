"""Tier 4: the driver matrix of seeds/002. One client program (`bench/driver`, Go with pgx
v5.12.0) runs each workload (point, wide_rows, large_rows, many_params, aggregate) in each
mode (single, pipeline, pool10) against KestrelDB and PostgreSQL, the systems alternated
(their order swapped each round). The single mode also gives the per-query p50/p99 latency
(seeds/002's latency mode). Each cell is a rate in queries per second; KestrelDB runs every
cell twice, with its result cache on and (the `_nc` rows) off for the whole connection.

The tables and queries are defined in `bench/driver/workloads.go` and described in
bench/README.md; the driver creates the tables itself (`-mode setup`), the same SQL on both
systems. With `--verify`, each workload's rows for a fixed set of parameters, as pgx decodes
them, must hash the same on both systems.
"""

from __future__ import annotations

import json
import statistics
import subprocess
from pathlib import Path

from .report import Measurement, Row, Tier
from .systems import HOST, PsqlSystem

SYSTEMS = ("kestrel", "postgres")
WORKLOADS = ("point", "wide_rows", "large_rows", "many_params", "aggregate")
MODES = ("single", "pipeline", "pool10")
DRIVER_DIR = Path(__file__).resolve().parents[1] / "driver"
# The driver's own limit is its run time; this only catches a server that stopped answering.
TIMEOUT_PAD_S = 120


def build_driver(workdir: Path) -> Path:
    binary = workdir / "tier4-driver"
    subprocess.run(["go", "build", "-o", str(binary), "."], cwd=DRIVER_DIR, check=True)
    return binary


def dsn(system: PsqlSystem, cache_off: bool = False) -> str:
    url = f"postgres://{system.user}@{HOST}:{system.port}/{system.database}?sslmode=disable"
    # The result cache off from the start-up packet on, as tier 3's no-cache rows.
    return url + ("&options=-c%20kestrel.result_cache%3Doff" if cache_off else "")


def run_driver(binary: Path, url: str, args: list[str], timeout_s: float) -> dict:
    """The driver's JSON line; `{"error": ...}` if it failed."""
    try:
        done = subprocess.run([str(binary), "-dsn", url, *args], capture_output=True, text=True,
                              timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return {"error": f"no answer within {timeout_s:.0f} s"}
    lines = done.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1]) if lines else {"error": done.stderr.strip()[-300:]}
    except json.JSONDecodeError:
        return {"error": done.stdout.strip()[-300:]}


def measurement(samples: list[dict]) -> Measurement:
    errors = [s["error"] for s in samples if "error" in s]
    if errors:
        return Measurement.failed(errors[0])
    m = Measurement.of([s["qps"] for s in samples])
    if all("p50_ms" in s for s in samples):
        m.p50_ms = statistics.median(s["p50_ms"] for s in samples)
        m.p99_ms = statistics.median(s["p99_ms"] for s in samples)
    return m


def run(args, log, systems: list[PsqlSystem], workdir: Path) -> Tier:
    duration, scale = args.driver_duration_s, args.size_scale
    tier = Tier("tier4", f"Driver matrix (Go pgx v5.12.0, {duration:g} s per cell, table scale {scale:g})",
                SYSTEMS, unit="qps")
    tier.notes.append("One client program for both servers (bench/driver). single: one connection, one query "
                      "at a time, with its per-query p50/p99 latency; pipeline: one connection, batches of 100 "
                      "queries (pgx.Batch); pool10: ten connections at once. pgx's default mode: each "
                      "statement prepared once per connection, binary results, every row decoded.")
    tier.notes.append("`_nc` rows: KestrelDB with its result cache off for the connection, against the same "
                      "PostgreSQL runs.")
    binary = build_driver(workdir)
    for system in systems:
        setup = run_driver(binary, dsn(system), ["-mode", "setup", "-scale", str(scale)], 600)
        if "error" in setup:
            raise RuntimeError(f"tier 4 setup on {system.name}: {setup['error']}")
    selected = [w for w in WORKLOADS if args.selected(w, "tier4")]
    verified: dict[str, bool] = {}
    if args.verify:
        for w in selected:
            digests = [run_driver(binary, dsn(s), ["-mode", "verify", "-workload", w, "-scale", str(scale)], 120)
                       for s in systems]
            verified[w] = all("digest" in d for d in digests) and len({d.get("digest") for d in digests}) == 1
            log(f"tier4 verify {w}: {'same rows' if verified[w] else f'DIFFERENT {digests}'}")
    # (name, workload, mode, cache off) -> system -> samples
    cells = [(w, mode, cache_off) for w in selected for mode in MODES for cache_off in (False, True)]
    samples: dict[tuple, dict[str, list[dict]]] = {cell: {s: [] for s in SYSTEMS} for cell in cells}
    for rep in range(args.reps):
        for w in selected:
            for mode in MODES:
                order = systems if rep % 2 == 0 else systems[::-1]
                runs = [(s, False) for s in order] + [(systems[0], True)]
                for system, cache_off in runs:
                    result = run_driver(binary, dsn(system, cache_off),
                                        ["-mode", mode, "-workload", w, "-duration", f"{duration}s",
                                         "-scale", str(scale)], duration + TIMEOUT_PAD_S)
                    if system.name == "postgres":
                        for off in (False, True):
                            samples[(w, mode, off)]["postgres"].append(result)
                    else:
                        samples[(w, mode, cache_off)]["kestrel"].append(result)
                    log(f"tier4 {w} {mode} {system.name}{'_nc' if cache_off else ''}: "
                        + (f"ERROR {result['error']}" if "error" in result else f"{result['qps']:,.0f} q/s"))
    for (w, mode, cache_off), by_system in samples.items():
        suffix = "_nc" if cache_off else ""
        row = Row(f"{w}_{mode}{suffix}", f"{w} {mode}{' (no cache)' if cache_off else ''}", mode,
                  results={name: measurement(by_system[name]) for name in SYSTEMS},
                  verified=verified.get(w))
        failed = [f"{name}: {m.error}" for name, m in row.results.items() if m.error]
        if failed:
            row.failure = "; ".join(failed)
        elif verified.get(w) is False:
            row.failure = "rows differ between the systems"
        tier.rows.append(row)
    return tier
