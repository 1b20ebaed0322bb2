"""Tier 1: the engines in-process — KestrelDB's Python module against DuckDB's, one process.

Both are driven through their Python packages, so both pay the same per-call cost (one
Python -> native call per statement) and DuckDB runs exactly the build its users install.
(Rust against DuckDB's C library would need DuckDB compiled from source here: no registry
reachable from these machines ships libduckdb, and building it takes longer than the whole
suite's budget on two cores.)

Each read result is fully materialised twice, as two lines of the table:
- python (`_py`, "fetchall"): `fetchall()` on both, a list of tuples of Python values. Both
  engines do the same work, so this is the line that is compared and counted.
- native: KestrelDB's `fetch_native()` returns the row count of the batches `execute()` left
  (crates/python: it converts and copies nothing, and the batches of a plain scan share the
  table's column chunks), DuckDB exports an Arrow table (`to_arrow_table()`, which copies
  every value). Not the same work, and the kestreldb module has no Arrow export to make it
  so: the line shows both times for what they are but draws no ratio from them
  (`compared=False`), and stays out of the wins and the geometric mean.
Writes have one line: `execute()` per statement.
"""

from __future__ import annotations

import time
from typing import Callable

import duckdb
import kestreldb

from . import verify
from .data import TABLES, Table
from .report import Measurement, Row, Tier
from .workloads import TIER1, Workload

SYSTEMS = ("kestrel", "duckdb")


class Engine:
    """One embedded engine behind the same four calls."""

    name: str

    def __init__(self, connect: Callable[[], object]):
        self.con = connect()

    def execute(self, sql: str) -> None:
        self.con.execute(sql)

    def fetchall(self, sql: str) -> list:
        return self.con.execute(sql).fetchall()

    def native(self, sql: str) -> int:
        raise NotImplementedError


class Kestrel(Engine):
    name = "kestrel"

    def __init__(self, settings: dict[str, str]):
        super().__init__(kestreldb.connect)
        for name, value in settings.items():
            self.execute(f"SET {name} = '{value}'")
        # Engine speed, as in the published in-process comparison (docs/BENCHMARKING.md): the result cache would answer repeated queries
        # without running them (Tier 2 publishes both variants).
        self.execute("SET kestrel.result_cache = off")

    def native(self, sql: str) -> int:
        return self.con.execute(sql).fetch_native()


class Duck(Engine):
    name = "duckdb"

    def __init__(self):
        super().__init__(duckdb.connect)

    def native(self, sql: str) -> int:
        return self.con.execute(sql).to_arrow_table().num_rows


def _load(engines: list[Engine], tables: list[Table], cache: dict[str, str]) -> None:
    for table in tables:
        sql = cache.setdefault(table.name, table.load_sql())
        for engine in engines:
            for statement in sql.split(";\n"):
                if statement.strip():
                    engine.execute(statement)


def _timed(engine: Engine, workload: Workload, iterations: int, mode: str) -> float:
    if workload.mutating:
        for statement in workload.setup.split(";"):
            engine.execute(statement)
    queries = [workload.sql(i) for i in range(iterations)]
    run = {"native": engine.native, "python": engine.fetchall, "execute": engine.execute}[mode]
    start = time.perf_counter()
    for sql in queries:
        run(sql)
    return (time.perf_counter() - start) * 1000


def _verify(engines: list[Engine], workload: Workload, iterations: int) -> str:
    results = []
    for engine in engines:
        if workload.mutating:
            _timed(engine, workload, iterations, "execute")
            rows = engine.fetchall(workload.check)
        else:
            rows = engine.fetchall(workload.sql(0))
        results.append(verify.normalise(rows, workload.ordered))
    return verify.difference(results[1], results[0], workload.ordered)


def run(args, log) -> Tier:
    tier = Tier("tier1", "In-process engine (KestrelDB vs DuckDB, both embedded in Python)",
                SYSTEMS, unit="ms")
    threads = duckdb.connect().execute("SELECT current_setting('threads')").fetchone()[0]
    tier.notes.append(f"DuckDB {duckdb.__version__} (Python package, its default threads={threads}); "
                      "KestrelDB through its kestreldb module (crates/python), release build, "
                      "with its result cache off (engine speed; Tier 2 shows both).")
    tier.notes.append("Compared: the fetchall lines (both engines return Python tuples). The native lines "
                      "are not: KestrelDB's fetch_native() only counts the rows it already holds (no copy), "
                      "while DuckDB's to_arrow_table() copies every value into Arrow.")
    load_cache: dict[str, str] = {}
    for workload in TIER1:
        if not args.selected(workload.name, "tier1"):
            continue
        iterations = workload.scaled_iterations(args.iteration_scale)
        tables = [TABLES[name].sized(args.size_scale) for name in workload.tables]
        log(f"tier1 {workload.name}: loading")
        kestrel, duck = Kestrel(args.kestrel_settings), Duck()
        engines: list[Engine] = [kestrel, duck]
        label = f"{workload.label} x{iterations}"
        try:
            _load(engines, tables, load_cache)
            if workload.setup:
                for statement in workload.setup.split(";"):
                    kestrel.execute(statement)
                    duck.execute(statement)
            kestrel.fetchall(workload.check if workload.mutating else workload.sql(0))
        except kestreldb.Error as error:
            tier.rows.append(Row(workload.name, label, workload.group, unsupported=str(error)))
            log(f"tier1 {workload.name}: unsupported: {error}")
            continue
        row_verified = None
        if args.verify:
            diff = _verify(engines, workload, workload.verify_iterations(iterations))
            if diff:
                tier.rows.append(Row(workload.name, label, workload.group, failure=f"results differ: {diff}"))
                log(f"tier1 {workload.name}: MISMATCH {diff}")
                continue
            row_verified = True
        modes = ["execute"] if workload.mutating else ["native", "python"]
        for mode in modes:
            samples: dict[str, list[float]] = {e.name: [] for e in engines}
            if not workload.mutating:
                for engine in engines:  # warm-up: first-call costs (imports, caches) are not timed
                    _timed(engine, workload, 1, mode)
            started = time.monotonic()
            for rep in range(args.reps):
                if rep and time.monotonic() - started > args.rep_budget_s:
                    break  # a slow workload gets fewer rounds; the JSON keeps every sample
                order = engines if rep % 2 == 0 else engines[::-1]
                for engine in order:
                    samples[engine.name].append(_timed(engine, workload, iterations, mode))
            name = workload.name if mode in ("native", "execute") else f"{workload.name}_py"
            row_label = {"native": f"{label} (native: not compared)", "python": f"{label} (fetchall)"}.get(mode, label)
            row = Row(name, row_label, workload.group, verified=row_verified, compared=mode != "native",
                      results={s: Measurement.of(v) for s, v in samples.items()})
            tier.rows.append(row)
            log(f"tier1 {name}: " + row.summary())
    return tier
