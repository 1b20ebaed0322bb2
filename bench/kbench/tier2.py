"""Tier 2: wire batch latency — one SQL file per workload, timed as a client process.

KestrelDB and PostgreSQL run `psql -q -A -t -f workload.sql` over loopback TCP; DuckDB runs
the same file through its CLI in list mode (in-process, no network: this favours DuckDB, as
published comparison notes). Every row is printed by every client. The cached variant repeats the
statement text as is; the `_nc` variant adds a unique comment to each statement and, for
KestrelDB, starts with `SET kestrel.result_cache = off`. Writes have no `_nc` variant and
start from a freshly built table before every timed run.
"""

from __future__ import annotations

import time
from pathlib import Path

from . import verify
from .data import TABLES
from .report import Measurement, Row, Tier
from .systems import WireSystem, describe_durability
from .workloads import TIER2, Workload

SYSTEMS = ("kestrel", "postgres", "duckdb")


def _with_comment(sql: str, i: int) -> str:
    first, _, rest = sql.partition(" ")
    return f"{first} /* nc {i} */ {rest}"


def _script(workload: Workload, iterations: int, nc: bool, preamble: str) -> str:
    parts = [preamble] if nc else []
    for i in range(iterations):
        sql = workload.sql(i)
        parts.append((_with_comment(sql, i) if nc else sql) + ";")
    return "\n".join(parts) + "\n"


def load_tables(systems: list[WireSystem], names: set[str], scale: float, workdir: Path, log) -> dict[str, str]:
    """Loads each table into every system; returns {system: error} for systems that failed."""
    errors: dict[str, str] = {}
    for name in sorted(names):
        table = TABLES[name].sized(scale)
        path = workdir / f"load_{name}.sql"
        path.write_text("BEGIN;\n" + table.load_sql() + "COMMIT;\n")
        for system in systems:
            result = system.run_script(path, timeout_s=1800)
            log(f"tier2 load {name} ({table.rows} rows) into {system.name}: {result.seconds:.1f}s"
                + (f" ERROR {result.error}" if result.error else ""))
            if result.error:
                errors.setdefault(system.name, result.error)
    return errors


class _Runner:
    def __init__(self, args, log, systems: list[WireSystem], workdir: Path):
        self.args, self.log, self.systems, self.workdir = args, log, systems, workdir

    def setup(self, system: WireSystem, workload: Workload) -> str:
        if not workload.setup:
            return ""
        return system.run_sql(workload.setup, self.workdir, capture=False).error

    def outcome(self, system: WireSystem, workload: Workload, iterations: int) -> tuple[str, list[tuple]]:
        """Runs the workload once (writes: setup, all statements, check) and returns its rows."""
        if workload.mutating:
            error = self.setup(system, workload)
            if error:
                return error, []
            path = self.workdir / f"{system.name}_verify.sql"
            path.write_text(_script(workload, workload.verify_iterations(iterations), False, ""))
            result = system.run_script(path)
            if result.error:
                return result.error, []
            sql = workload.check
        else:
            sql = "\n".join(workload.sql(i) + ";" for i in sorted({0, iterations - 1}))
        result = system.run_sql(sql, self.workdir)
        return result.error, verify.normalise(verify.parse_text_rows(result.stdout), workload.ordered)

    def run(self, workload: Workload) -> list[Row]:
        iterations = workload.scaled_iterations(self.args.iteration_scale)
        label = f"{workload.label} x{iterations}"
        kestrel = self.systems[0]  # the system under test (tier 6: the durable server)
        # Setup of a read workload (an index) once; a write's setup runs before each run.
        setup_errors = {} if workload.mutating else {s.name: self.setup(s, workload) for s in self.systems}
        if setup_errors.get("kestrel"):
            return [Row(workload.name, label, workload.group, unsupported=setup_errors["kestrel"])]
        error, kestrel_rows = self.outcome(kestrel, workload, iterations)
        if error:
            return [Row(workload.name, label, workload.group, unsupported=error)]
        # Systems excluded from timing, with why (their own error or wrong rows).
        excluded = {name: e for name, e in setup_errors.items() if e}
        verified = None
        if self.args.verify:
            reference = None
            for system in self.systems:
                if system.name in excluded or system.name == "kestrel":
                    continue
                error, rows = self.outcome(system, workload, iterations)
                if error:
                    excluded[system.name] = error
                    continue
                if reference is None:
                    reference = rows  # PostgreSQL's rows when it ran: the project's reference
                    diff = verify.difference(reference, kestrel_rows, workload.ordered)
                    if diff:
                        return [Row(workload.name, label, workload.group,
                                    failure=f"KestrelDB's rows differ from {system.name}'s: {diff}")]
                elif diff := verify.difference(reference, rows, workload.ordered):
                    excluded[system.name] = f"rows differ from the reference: {diff}"
            verified = reference is not None
        variants = [("", False)] if workload.mutating else [("", False), ("_nc", True)]
        rows = []
        for suffix, nc in variants:
            rows.append(self.time(workload, iterations, suffix, nc, excluded, label, verified))
        return rows

    def time(self, workload, iterations, suffix, nc, excluded, label, verified) -> Row:
        scripts = {}
        for system in self.systems:
            path = self.workdir / f"{system.name}_{workload.name}{suffix}.sql"
            path.write_text(_script(workload, iterations, nc, system.nc_preamble()))
            scripts[system.name] = path
        samples: dict[str, list[float]] = {s.name: [] for s in self.systems}
        errors: dict[str, str] = dict(excluded)
        started = time.monotonic()
        for rep in range(self.args.reps):
            if rep and time.monotonic() - started > self.args.rep_budget_s:
                break  # a slow workload gets fewer rounds; the JSON keeps every sample
            shift = rep % len(self.systems)
            for system in self.systems[shift:] + self.systems[:shift]:
                if system.name in errors:
                    continue
                if workload.mutating and (error := self.setup(system, workload)):
                    errors[system.name] = error
                    continue
                result = system.run_script(scripts[system.name])
                if result.error:
                    errors[system.name] = result.error
                else:
                    samples[system.name].append(result.seconds * 1000)
        results = {}
        for system in self.systems:
            if system.name in errors:
                results[system.name] = Measurement.failed(errors[system.name])
            elif samples[system.name]:
                results[system.name] = Measurement.of(samples[system.name])
        row = Row(workload.name + suffix, label + (" (no cache)" if nc else ""), workload.group,
                  results=results, verified=verified)
        self.log(f"tier2 {row.name}: {row.summary()}")
        return row


def run(args, log, systems: list[WireSystem], workdir: Path) -> Tier:
    """Times every selected workload; the tables are already loaded (`load_tables`)."""
    tier = Tier("tier2", f"Wire batch latency (psql -f / DuckDB CLI), durability {args.durability}", SYSTEMS, unit="ms")
    tier.notes.append(f"Durability {describe_durability(args.durability)}; DuckDB on a file in /dev/shm.")
    runner = _Runner(args, log, systems, workdir)
    for workload in TIER2:
        if args.selected(workload.name, "tier2"):
            rows = runner.run(workload)
            for row in rows:
                if row.unsupported or row.failure:
                    log(f"tier2 {row.name}: {'unsupported: ' + row.unsupported if row.unsupported else 'FAILED: ' + row.failure}")
            tier.rows.extend(rows)
    return tier
