#!/usr/bin/env python3
"""Parallel scaling curve: the same analytical queries at 1, 2, 4, ... workers per query.

Runs against a running `kestrel serve` (any host and port) through `psql`, so it needs
nothing but PostgreSQL's client. It creates two generated tables (`scaling_fact`, 1M rows
by default, and `scaling_dim`, 100K rows), then times every query at
`max_parallel_workers_per_gather` = 0, 1, 3, 7, ... (1, 2, 4, 8, ... workers, the caller
being one) up to the machine's cores, with the result cache off, and prints one row per
query: the median time per worker count and the speed-up over one worker. Queries return a
handful of rows, so the time is the query's and not the transfer's (groups_100k_out excepted).

    target/release/kestrel serve --memory --port 27500 &
    python3 bench/scaling.py --port 27500 [--rows 1000000] [--reps 3] [--max-workers 8]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys

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


def time_query(args, sql, workers):
    """Median milliseconds of `sql` at `workers` workers (after one warm-up run)."""
    script = ["SET kestrel.result_cache = off;",
              f"SET max_parallel_workers_per_gather = {workers - 1};",
              sql + ";", "\\timing on"]
    script += [sql + ";"] * args.reps
    times = [float(t) for t in TIME_LINE.findall(psql(args, "\n".join(script) + "\n"))]
    if len(times) != args.reps:
        sys.exit(f"expected {args.reps} timings for {sql!r}, got {times}")
    return statistics.median(times)


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
    args = parser.parse_args()
    if not args.no_load:
        load(args)
    counts = worker_counts(args.max_workers)
    names = args.only or list(QUERIES)
    print(f"{args.rows} rows, median of {args.reps}, ms (speed-up vs 1 worker)")
    print("query".ljust(12) + "".join(f"{n} workers".rjust(20) for n in counts))
    for name in names:
        sql = QUERIES[name].format(last=max(args.rows - 5, 0))
        times = [time_query(args, sql, n) for n in counts]
        cells = [f"{t:9.1f} ({times[0] / t:4.2f}x)".rjust(20) for t in times]
        print(name.ljust(12) + "".join(cells), flush=True)


if __name__ == "__main__":
    main()
