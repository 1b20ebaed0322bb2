#!/usr/bin/env python3
"""Parallel scaling curve: the same analytical queries at 1, 2, 4, ... workers per query.

Runs against a running `kestrel serve` (any host and port) through `psql`, so it needs
nothing but PostgreSQL's client. It creates two generated tables (`scaling_fact`, 1M rows
by default, and `scaling_dim`, 100K rows), then times every query at
`max_parallel_workers_per_gather` = 0, 1, 3, 7, ... (1, 2, 4, 8, ... workers, the caller
being one) up to the machine's cores, with the result cache off, and prints one line per
query and worker count: the wall time, the speed-up over one worker and, when the server
runs on this machine, its CPU time per thread during the query (from
/proc/<pid>/task/*/schedstat): the busiest thread's and the sum over threads. On a busy
machine the wall time says little; the busiest thread's CPU is what a free core per
worker would make the wall time, and the sum over one worker's is the parallel overhead.
Queries return a handful of rows, so the time is the query's and not the transfer's
(groups_100k_out excepted).

    target/release/kestrel serve --memory --port 27500 &
    python3 bench/scaling.py --port 27500 [--rows 1000000] [--reps 3] [--max-workers 8]
                             [--stat median|min] [--server-pid PID]
"""

import argparse
import glob
import os
import re
import statistics
import subprocess
import sys
import tempfile

# name -> query; each touches every row of scaling_fact and returns few rows (but
# groups_100k_out, which returns 100K).
QUERIES = {
    "scan_filter": "SELECT count(*) FROM scaling_fact WHERE v % 7 = 3 AND s LIKE 'x1%'",
    "group_by": "SELECT k, count(*), sum(v) FROM scaling_fact GROUP BY k ORDER BY k LIMIT 5",
    "join": "SELECT count(*), sum(d.w) FROM scaling_fact f JOIN scaling_dim d ON f.d = d.id "
            "WHERE f.v % 3 = 0",
    "sort": "SELECT id, v FROM scaling_fact ORDER BY v DESC, id OFFSET {last}",
    "top_n": "SELECT id, s FROM scaling_fact ORDER BY s, v LIMIT 10",
    # GROUP BY and DISTINCT by cardinality (issue 16): 10, 100K and (at 1M rows) 1M groups,
    # counted by an outer query so the groups do not cross the wire, except in *_out.
    "groups_10": "SELECT count(*), sum(n) FROM (SELECT id % 10, count(*) AS n "
                 "FROM scaling_fact GROUP BY 1) g",
    "groups_100k": "SELECT count(*), sum(n) FROM (SELECT id % 100000, count(*) AS n "
                   "FROM scaling_fact GROUP BY 1) g",
    "groups_all": "SELECT count(*), sum(n) FROM (SELECT id, count(*) AS n "
                  "FROM scaling_fact GROUP BY 1) g",
    "groups_100k_out": "SELECT id % 100000, count(*) FROM scaling_fact GROUP BY 1",
    "distinct_100k": "SELECT count(*) FROM (SELECT DISTINCT id % 100000 FROM scaling_fact) d",
}

TIME_LINE = re.compile(r"^Time: ([0-9.]+) ms", re.MULTILINE)


def psql(args, script):
    """Runs `script` through psql and returns its output; fails on any error."""
    cmd = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
           "-h", args.host, "-p", str(args.port), "-U", args.user, "-d", "kestrel"]
    out = subprocess.run(cmd, input=script, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"psql failed: {out.stderr.strip()}")
    return out.stdout


def load(args):
    dim_rows = max(args.rows // 10, 1)
    psql(args, f"""
DROP TABLE IF EXISTS scaling_fact;
DROP TABLE IF EXISTS scaling_dim;
CREATE TABLE scaling_fact AS
  SELECT g AS id, (g::bigint * 7919) % 1000003 AS v, g % 1000 AS k, (g * 31) % {dim_rows} + 1 AS d,
         'x' || ((g * 13) % 50000) AS s
  FROM generate_series(1, {args.rows}) g;
CREATE TABLE scaling_dim AS
  SELECT g AS id, g % 100 AS w FROM generate_series(1, {dim_rows}) g;
""")


def worker_counts(max_workers):
    """1, 2, 4, ... up to max_workers, and max_workers itself."""
    counts, n = [], 1
    while n < max_workers:
        counts.append(n)
        n *= 2
    counts.append(max_workers)
    return counts


def find_server(port):
    """The pid of the `kestrel serve` listening on `port` on this machine, or None."""
    for cmdline in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            with open(cmdline, "rb") as f:
                argv = f.read().decode(errors="replace").split("\0")
        except OSError:
            continue
        if (argv and os.path.basename(argv[0]) == "kestrel" and "serve" in argv
                and ("--port=" + str(port) in argv
                     or any(a == "--port" and b == str(port) for a, b in zip(argv, argv[1:])))):
            return int(cmdline.split("/")[2])
    return None


def thread_cpu(path):
    """{thread id: CPU ns} from a file of `grep -H . /proc/PID/task/*/schedstat` lines."""
    cpu = {}
    with open(path) as f:
        for line in f:
            name, _, stats = line.partition(":")
            cpu[name.split("/")[-2]] = int(stats.split()[0])
    return cpu


def time_query(args, sql, workers):
    """Milliseconds of `sql` at `workers` workers, after one warm-up run: wall time and,
    when the server's pid is known, the busiest thread's and all threads' CPU, each the
    median (or min) over the runs."""
    with tempfile.TemporaryDirectory() as snapshots:
        def snapshot(i):
            if args.server_pid is None:
                return []
            return [f"\\! grep -H . /proc/{args.server_pid}/task/*/schedstat "
                    f"> {snapshots}/{i}"]
        script = ["SET kestrel.result_cache = off;",
                  f"SET max_parallel_workers_per_gather = {workers - 1};",
                  sql + ";", "\\timing on"]
        script += snapshot(0)
        for i in range(args.reps):
            script += [sql + ";"] + snapshot(i + 1)
        times = [float(t) for t in TIME_LINE.findall(psql(args, "\n".join(script) + "\n"))]
        if len(times) != args.reps:
            sys.exit(f"expected {args.reps} timings for {sql!r}, got {times}")
        busiest, total = [], []
        if args.server_pid is not None:
            cpu = [thread_cpu(f"{snapshots}/{i}") for i in range(args.reps + 1)]
            for before, after in zip(cpu, cpu[1:]):
                spent = [ns - before.get(tid, 0) for tid, ns in after.items()]
                busiest.append(max(spent) / 1e6)
                total.append(sum(spent) / 1e6)
    stat = min if args.stat == "min" else statistics.median
    return stat(times), (stat(busiest) if busiest else None), (stat(total) if total else None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5433)
    parser.add_argument("--user", default="kestrel")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--max-workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", action="append", choices=sorted(QUERIES),
                        help="run only this query (repeatable)")
    parser.add_argument("--no-load", action="store_true", help="reuse the tables already loaded")
    parser.add_argument("--stat", choices=["median", "min"], default="median",
                        help="which of the runs each figure is")
    parser.add_argument("--server-pid", type=int,
                        help="the server's pid for its CPU per thread (by default the "
                             "`kestrel serve --port PORT` running here, if any)")
    args = parser.parse_args()
    if args.server_pid is None:
        args.server_pid = find_server(args.port)
    if not args.no_load:
        load(args)
    counts = worker_counts(args.max_workers)
    names = args.only or list(QUERIES)
    print(f"{args.rows} rows, {args.stat} of {args.reps}, ms; CPU per query from the "
          + (f"server's threads (pid {args.server_pid})" if args.server_pid
             else "server: not measured (no local `kestrel serve` on that port)"))
    print(f"{'query':<16}{'workers':>8}{'wall':>10}{'speed-up':>10}"
          f"{'busiest thread':>16}{'all threads':>13}")
    for name in names:
        sql = QUERIES[name].format(last=max(args.rows - 5, 0))
        results = [(n, *time_query(args, sql, n)) for n in counts]
        for n, wall, busiest, total in results:
            cpu = "".join("-".rjust(w) if v is None else f"{v:{w}.1f}"
                          for v, w in ((busiest, 16), (total, 13)))
            print(f"{name:<16}{n:>8}{wall:>10.1f}{results[0][1] / wall:>9.2f}x{cpu}",
                  flush=True)


if __name__ == "__main__":
    main()
