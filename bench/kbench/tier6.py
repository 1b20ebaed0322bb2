"""Tier 6: what persistence costs KestrelDB. No other system: each part compares KestrelDB
with itself or with the disk.

(a) Reads: tier 2's read workloads (those `--filter` selects as `tier6/<name>`) on a durable
    server against an in-memory server, the same data loaded into both, interleaved, with
    tier 2's timing code. The durable server is checkpointed and restarted after the load, so
    it reads what recovery brought back. Aim: the durable server at ≥ 0.97× the speed of the
    in-memory one (time ratio ≤ 1.03).
(b) Start-up: `--startup-rows` rows of ~100 bytes (`t`: id bigint primary key, int, double,
    60-character text) loaded with INSERT ... SELECT generate_series, CHECKPOINT, SIGTERM;
    then the time from starting `kestrel serve` until it accepts a connection, over several
    restarts (median) → seconds and MB/s of the data directory. Log replay: the same load in
    a fresh directory with no checkpoint (`checkpoint_timeout=1d`, `max_wal_size=100GB`),
    SIGKILL, and the same restart timing on copies of that directory → MB/s of the log
    (the `wal/` directory's size). Against: the disk's sequential read, `dd bs=1M` of the
    largest file of the checkpointed directory. Every restart and the dd start with the page
    cache dropped when the suite may (`/proc/sys/vm/drop_caches`, root); the notes say which.
(c) Checkpoint stall: half of `t`'s rows updated, then `pgbench -c 4 -j 2 -T
    --stall-duration-s` point lookups (`SELECT a FROM t WHERE id = :id`, random id, result
    cache off through PGOPTIONS) with a CHECKPOINT run in the middle. p99 latency of the
    lookups that overlap the checkpoint against the others, from pgbench's per-transaction
    log (end time in epoch seconds + µs, latency in µs). Aim: ≤ 2×.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import threading
import time
from pathlib import Path

from . import tier2
from .report import Measurement, Row, Tier
from .systems import Kestrel
from .tier3 import NO_CACHE_ENV, _percentile, no_cache_error, run_pgbench
from .workloads import TIER2

MB = 1 << 20
# No checkpoint but the ones the tier asks for.
NO_CHECKPOINT = {"checkpoint_timeout": "1d", "max_wal_size": "100GB", "synchronous_commit": "on"}
RECOVERED = re.compile(r"recovered .* in ([0-9.]+) ?ms")


def drop_caches() -> bool:
    """Drops the page cache (clean pages only, after a sync); False when not permitted."""
    os.sync()
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _geomean(values: list[float]) -> float | None:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


# ---------------------------------------------------------------- (a) reads

def reads(args, log, workdir: Path) -> Tier:
    tier = Tier("tier6", "Persistence (a): tier-2 reads, durable KestrelDB against in-memory KestrelDB",
                ("durable", "memory"), unit="ms", against_others=False)
    tier.notes.append("durable = `kestrel serve --data-dir`, loaded, checkpointed and restarted before timing; "
                      "memory = `kestrel serve --memory`, the same data; psql -f as in tier 2; "
                      "ratio = durable time / memory time (≤ 1.03 is the aim: ≥ 0.97× the speed).")
    selected = [w for w in TIER2 if not w.mutating and args.selected(w.name, "tier6")]
    if not selected:
        tier.notes.append("no read workload selected")
        return tier
    durable = memory = None
    try:
        durable = Kestrel(Path(args.kestrel), workdir, workdir / "t6-reads-data", name="durable")
        memory = Kestrel(Path(args.kestrel), workdir, name="memory")
        needed = {t for w in selected for t in w.tables}
        errors = tier2.load_tables([durable, memory], needed, args.size_scale, workdir, log)
        tier.notes += [f"loading into {s} failed: {e}" for s, e in errors.items()]
        error = durable.run_sql("CHECKPOINT", workdir, capture=False).error
        if error:
            tier.notes.append(f"CHECKPOINT failed on the durable server: {error}")
        durable.kill(signal.SIGTERM)
        seconds = durable.start(600)
        log(f"tier6 reads: durable server restarted in {seconds:.2f}s")
        runner = tier2._Runner(args, log, [durable, memory], workdir)
        for workload in selected:
            tier.rows.extend(runner.run(workload))
    finally:
        for server in (durable, memory):
            if server is not None:
                server.stop()
    ratios = [r for row in tier.rows if (r := tier.ratio(row, "memory")) is not None]
    if ratios:
        speed = [1 / r for r in ratios]
        tier.figures = {"workloads": len(ratios), "geomean_time_ratio": _geomean(ratios),
                        "geomean_speed_ratio": _geomean(speed), "min_speed_ratio": min(speed),
                        "at_least_0.97": sum(s >= 0.97 for s in speed)}
        tier.notes.append(f"Durable speed / in-memory speed: geometric mean {tier.figures['geomean_speed_ratio']:.3f}×, "
                          f"lowest {min(speed):.2f}×; {tier.figures['at_least_0.97']} of {len(speed)} rows at ≥ 0.97×.")
    return tier


# ---------------------------------------------------------------- (b) start-up and replay

def load_rows(server: Kestrel, rows: int, workdir: Path, log) -> str:
    chunk = 1_000_000
    sql = ["DROP TABLE IF EXISTS t;",
           "CREATE TABLE t (id bigint NOT NULL PRIMARY KEY, a int, b double precision, t text);"]
    for lo in range(1, rows + 1, chunk):
        hi = min(rows, lo + chunk - 1)
        sql.append(f"INSERT INTO t SELECT g, (g * 7) % 1000003, g * 0.5, "
                   f"md5(g::text) || substr(md5((g + 1)::text), 1, 28) FROM generate_series({lo}, {hi}) g;")
    started = time.perf_counter()
    result = server.run_sql("\n".join(sql), workdir, capture=False)
    log(f"tier6 load {rows:,} rows into {server.data_dir}: {time.perf_counter() - started:.1f}s"
        + (f" ERROR {result.error}" if result.error else ""))
    return result.error


def _count(server: Kestrel, workdir: Path) -> str:
    result = server.run_sql("SELECT count(*) FROM t", workdir)
    return result.error or result.stdout.strip("\0\n ")


def _recovery_ms(server: Kestrel) -> float | None:
    server.log.flush()
    found = RECOVERED.findall(server.log_path.read_text(errors="replace"))
    return float(found[-1]) if found else None


def timed_restarts(server: Kestrel, reps: int, rows: int, workdir: Path, log, cold: bool,
                   before=None, stop_signal=signal.SIGTERM) -> tuple[list[float], list[float], str]:
    """Restarts the stopped `server` `reps` times; returns the seconds until it accepted a
    connection, the recovery times it printed, and an error (a wrong row count after restart)."""
    seconds, printed = [], []
    for rep in range(reps):
        if before:
            before()
        if cold:
            drop_caches()
        seconds.append(server.start(900))
        if (ms := _recovery_ms(server)) is not None:
            printed.append(ms / 1000)
        count = _count(server, workdir)
        server.kill(stop_signal)
        log(f"tier6 restart {server.data_dir.name} #{rep + 1}: {seconds[-1]:.2f}s, {count} rows")
        if count != str(rows):
            return seconds, printed, f"after restart, t has {count} rows, not {rows}"
    return seconds, printed, ""


def dd_read(path: Path, cold: bool) -> tuple[float, float]:
    """Seconds and MB/s of `dd if=path of=/dev/null bs=1M`."""
    if cold:
        drop_caches()
    started = time.perf_counter()
    subprocess.run(["dd", f"if={path}", "of=/dev/null", "bs=1M"], check=True, capture_output=True)
    seconds = time.perf_counter() - started
    return seconds, path.stat().st_size / MB / seconds


def startup(args, log, workdir: Path, cold: bool) -> tuple[Tier, Kestrel | None]:
    rows, reps = args.startup_rows, args.startup_reps
    cache = "page cache dropped before each" if cold else "warm page cache (drop_caches not permitted)"
    tier = Tier("tier6b", f"Persistence (b): start-up and log replay, {rows:,} rows of ~100 bytes "
                f"({cache})", ("kestrel",), unit="s", against_others=False)
    tier.notes.append("Start-up = from starting `kestrel serve` to its first accepted connection; "
                      "every restart checked to find all rows; the server's own 'recovered ... in X ms' is "
                      "in the JSON (`figures`).")
    binary = Path(args.kestrel)
    checkpointed = Kestrel(binary, workdir, workdir / "t6-startup-data", NO_CHECKPOINT, name="t6-startup")
    try:
        error = load_rows(checkpointed, rows, workdir, log) or checkpointed.run_sql(
            "CHECKPOINT", workdir, capture=False).error
    finally:
        checkpointed.kill(signal.SIGTERM)
    if error:
        tier.rows.append(Row("startup", "Start-up after CHECKPOINT", "persistence", failure=error))
        return tier, None
    size = dir_bytes(checkpointed.data_dir)
    seconds, printed, error = timed_restarts(checkpointed, reps, rows, workdir, log, cold)
    mbps = size / MB / statistics.median(seconds)
    row = Row("startup", f"Start-up after CHECKPOINT and SIGTERM: {size / MB:,.0f} MB data directory, "
              f"{mbps:,.0f} MB/s", "persistence", results={"kestrel": Measurement.of(seconds)}, failure=error)
    tier.rows.append(row)
    tier.figures["startup"] = {"rows": rows, "data_dir_mb": size / MB, "seconds": seconds,
                               "server_recovery_s": printed, "mb_per_s": mbps}

    # Log replay: the same rows in a fresh directory, no checkpoint, SIGKILL.
    replay = Kestrel(binary, workdir, workdir / "t6-replay-data", NO_CHECKPOINT, name="t6-replay")
    error = load_rows(replay, rows, workdir, log)
    replay.kill(signal.SIGKILL)
    pristine = workdir / "t6-replay-pristine"
    if not error:
        wal = dir_bytes(replay.data_dir / "wal")
        total = dir_bytes(replay.data_dir)
        shutil.copytree(replay.data_dir, pristine)

        def fresh_copy() -> None:
            shutil.rmtree(replay.data_dir)
            shutil.copytree(pristine, replay.data_dir)

        seconds, printed, error = timed_restarts(replay, reps, rows, workdir, log, cold, fresh_copy, signal.SIGKILL)
        mbps = wal / MB / statistics.median(seconds)
        tier.rows.append(Row("replay", f"Start-up after SIGKILL, no checkpoint (log replay): {wal / MB:,.0f} MB "
                             f"of log ({total / MB:,.0f} MB directory), {mbps:,.0f} MB/s", "persistence",
                             results={"kestrel": Measurement.of(seconds)}, failure=error))
        tier.figures["replay"] = {"wal_mb": wal / MB, "data_dir_mb": total / MB, "seconds": seconds,
                                  "server_recovery_s": printed, "mb_per_s": mbps}
        shutil.rmtree(pristine, ignore_errors=True)
    else:
        tier.rows.append(Row("replay", "Start-up after SIGKILL (log replay)", "persistence", failure=error))
    replay.log.close()
    shutil.rmtree(replay.data_dir, ignore_errors=True)

    # The disk: sequential read of the checkpointed directory's largest file.
    largest = max((p for p in checkpointed.data_dir.rglob("*") if p.is_file()), key=lambda p: p.stat().st_size)
    samples = [dd_read(largest, cold) for _ in range(reps)]
    dd_mbps = statistics.median(s[1] for s in samples)
    tier.rows.append(Row("disk_read", f"Disk sequential read, dd bs=1M of {largest.relative_to(workdir)} "
                         f"({largest.stat().st_size / MB:,.0f} MB): {dd_mbps:,.0f} MB/s", "persistence",
                         results={"kestrel": Measurement.of([s[0] for s in samples])}))
    tier.figures["disk_read"] = {"file_mb": largest.stat().st_size / MB, "mb_per_s": dd_mbps, "cold": cold}
    for key in ("startup", "replay"):
        if key in tier.figures:
            tier.figures[key]["fraction_of_disk_read"] = tier.figures[key]["mb_per_s"] / dd_mbps
    tier.notes.append("MB/s = directory (start-up) or log (replay) size / median start-up time; disk read "
                      f"{dd_mbps:,.0f} MB/s; start-up at "
                      + ", ".join(f"{key} {tier.figures[key]['fraction_of_disk_read']:.2f}×"
                                  for key in ("startup", "replay") if key in tier.figures) + " of it.")
    return tier, checkpointed


# ---------------------------------------------------------------- (c) checkpoint stall

def stall(args, log, workdir: Path, server: Kestrel) -> Tier:
    rows, duration = args.startup_rows, args.stall_duration_s
    tier = Tier("tier6c", f"Persistence (c): point lookups during a CHECKPOINT (pgbench -c 4 -j 2 -T {duration})",
                ("kestrel",), unit="ms", against_others=False)
    tier.notes.append("`SELECT a FROM t WHERE id = :id`, random id, result cache off; half of t's rows updated "
                      "just before; lookups overlapping the CHECKPOINT's run against all others.")
    server.start(900)
    try:
        if error := no_cache_error(server):
            tier.rows.append(Row("checkpoint_stall", "Checkpoint stall", "persistence", unsupported=error))
            return tier
        started = time.perf_counter()
        error = server.run_sql("UPDATE t SET a = a + 1 WHERE id % 2 = 0", workdir, capture=False).error
        log(f"tier6 stall: updated half of {rows:,} rows in {time.perf_counter() - started:.1f}s")
        if error:
            tier.rows.append(Row("checkpoint_stall", "Checkpoint stall", "persistence", failure=f"UPDATE: {error}"))
            return tier
        script = workdir / "t6_lookup.sql"
        script.write_text(f"\\set id random(1, {rows})\nSELECT a FROM t WHERE id = :id;\n")
        options = ["-c", "4", "-j", "2", "-T", str(duration), "-M", "simple", f"--file={script}"]
        outcome = {}
        thread = threading.Thread(target=lambda: outcome.update(
            result=run_pgbench(server, options, workdir / "t6_stall", duration + 300, NO_CACHE_ENV)))
        thread.start()
        time.sleep(duration * 0.4)
        window_start = time.time()
        checkpoint = server.run_sql("CHECKPOINT", workdir, capture=False)
        window_end = time.time()
        thread.join()
    finally:
        server.stop()
    measurement, transactions = outcome["result"]
    if checkpoint.error or measurement.error:
        tier.rows.append(Row("checkpoint_stall", "Checkpoint stall", "persistence",
                             failure=checkpoint.error or measurement.error))
        return tier
    during = sorted(t.latency_ms for t in transactions if t.start_s < window_end and t.end_s > window_start)
    outside = sorted(t.latency_ms for t in transactions if not (t.start_s < window_end and t.end_s > window_start))
    seconds = window_end - window_start
    for name, values in (("outside", outside), ("during", during)):
        if not values:
            tier.rows.append(Row(f"lookups_{name}", f"Lookups {name} the checkpoint", "persistence",
                                 failure="no lookup in this window"))
            continue
        m = Measurement.of(values)
        m.p50_ms, m.p99_ms = statistics.median(values), _percentile(values, 0.99)
        tier.rows.append(Row(f"lookups_{name}", f"Lookups {name} the checkpoint ({len(values):,})", "persistence",
                             results={"kestrel": m}))
    if during and outside:
        ratio = _percentile(during, 0.99) / _percentile(outside, 0.99)
        tier.figures = {"checkpoint_s": seconds, "lookups_during": len(during), "lookups_outside": len(outside),
                        "p99_during_ms": _percentile(during, 0.99), "p99_outside_ms": _percentile(outside, 0.99),
                        "p99_ratio": ratio, "tps": measurement.median}
        tier.notes.append(f"CHECKPOINT took {seconds:.2f} s; p99 during / p99 outside = {ratio:.2f}× "
                          f"(aim ≤ 2×); {measurement.median:,.0f} lookups/s overall.")
    return tier


def run(args, log, workdir: Path) -> list[Tier]:
    cold = drop_caches()
    log(f"tier6: page cache {'dropped before each restart' if cold else 'cannot be dropped: warm'}")
    tiers = [reads(args, log, workdir)]
    tier, server = startup(args, log, workdir, cold)
    tiers.append(tier)
    if server is not None:
        tiers.append(stall(args, log, workdir, server))
    return tiers
