"""Tier 8: Parquet files queried in place — KestrelDB's read_parquet over the wire (psql -f)
against DuckDB's native Parquet reader (its CLI), on the same files.

The 12 Parquet workloads of the published mskql comparison (seeds §4: 50K–200K rows; full
scans, filters, aggregates, sorts, joins of several files, a file joined with an in-memory
table), the same SQL text on both sides. The files are written once by DuckDB (Snappy, its
default row groups) into the work dir. PostgreSQL cannot read Parquet, so it is not in this
tier. Each workload is timed cached (KestrelDB keeps decoded columns while the file is
unchanged; no result cache applies to plans reading files) and `_nc` (a unique comment per
statement and the result cache off), interleaved, through tier 2's runner.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from . import tier2
from .report import Tier
from .systems import WireSystem
from .workloads import Workload

SYSTEMS = ("kestrel", "duckdb")

# The files, as DuckDB SQL writing them: sales (50K) with products (2K) and customers (5K),
# and lineitem (200K) with the orders it belongs to (50K).
FILES = {
    "sales": """SELECT i AS id, (i * 7) % 2000 + 1 AS product_id, (i * 13) % 5000 + 1 AS customer_id,
  (i % 20) + 1 AS qty, ((i * 37) % 100000) / 100.0 AS amount, DATE '2024-01-01' + CAST(i % 365 AS INTEGER) AS day,
  ['north', 'south', 'east', 'west'][i % 4 + 1] AS region FROM range(1, 50001) t(i)""",
    "products": """SELECT i AS id, 'product ' || i AS name, ['a', 'b', 'c', 'd', 'e'][i % 5 + 1] AS category,
  ((i * 17) % 10000) / 100.0 AS price FROM range(1, 2001) t(i)""",
    "customers": """SELECT i AS id, 'customer ' || i AS name, ['north', 'south', 'east', 'west'][i % 4 + 1] AS region,
  (i % 80) + 18 AS age FROM range(1, 5001) t(i)""",
    "lineitem": """SELECT i AS id, (i * 7) % 50000 + 1 AS order_id, (i * 11) % 2000 + 1 AS product_id,
  (i % 50) + 1 AS quantity, ((i * 31) % 100000) / 100.0 AS price, ((i % 10) / 100.0) AS discount,
  ['A', 'N', 'R'][i % 3 + 1] AS returnflag FROM range(1, 200001) t(i)""",
    "orders": """SELECT i AS id, (i * 13) % 5000 + 1 AS customer_id, DATE '2023-01-01' + CAST(i % 700 AS INTEGER) AS orderdate,
  ['1-URGENT', '2-HIGH', '3-MEDIUM', '4-LOW'][i % 4 + 1] AS priority FROM range(1, 50001) t(i)""",
}

# The in-memory table of the mixed workloads, created on each system.
MEMORY_TABLE = """CREATE TABLE IF NOT EXISTS region_targets (region text PRIMARY KEY, target double precision);
DELETE FROM region_targets;
INSERT INTO region_targets VALUES ('north', 1000000), ('south', 900000), ('east', 800000), ('west', 700000)"""


def _pq(name: str) -> str:
    return f"read_parquet('@DIR@/{name}.parquet')"


def _w(name, label, query, iterations, setup="", ordered=False) -> Workload:
    return Workload(name, label, "parquet", (), query, iterations, setup=setup, ordered=ordered)


WORKLOADS: list[Workload] = [
    _w("pq_full_scan", "Full scan (50K rows)", f"SELECT * FROM {_pq('sales')}", 5),
    _w("pq_where", "Filtered scan (50K rows)",
       f"SELECT id, amount, region FROM {_pq('sales')} WHERE amount > 900 AND qty < 5", 20),
    _w("pq_aggregate", "GROUP BY (50K rows)",
       f"SELECT region, COUNT(*), SUM(amount), AVG(qty) FROM {_pq('sales')} GROUP BY region ORDER BY region",
       20, ordered=True),
    _w("pq_order_by", "Sort (50K rows)",
       f"SELECT id, amount FROM {_pq('sales')} ORDER BY amount DESC, id", 5, ordered=True),
    _w("pq_wide_agg", "Wide aggregate (7 columns, 50K rows)",
       f"""SELECT COUNT(*), SUM(qty), MIN(amount), MAX(amount), AVG(amount), MIN(day), MAX(customer_id)
FROM {_pq('sales')}""", 20),
    _w("pq_join_two", "Join (50K + 2K rows)",
       f"""SELECT p.category, COUNT(*), SUM(s.amount) FROM {_pq('sales')} s
JOIN {_pq('products')} p ON s.product_id = p.id GROUP BY p.category ORDER BY p.category""", 10, ordered=True),
    _w("pq_join_three", "Three-way join (3 files)",
       f"""SELECT c.region, p.category, COUNT(*) FROM {_pq('sales')} s
JOIN {_pq('products')} p ON s.product_id = p.id JOIN {_pq('customers')} c ON s.customer_id = c.id
GROUP BY c.region, p.category ORDER BY c.region, p.category""", 10, ordered=True),
    _w("pq_subquery", "IN subquery (2 files)",
       f"""SELECT COUNT(*), SUM(amount) FROM {_pq('sales')}
WHERE product_id IN (SELECT id FROM {_pq('products')} WHERE category = 'a')""", 10),
    _w("pq_lineitem_agg", "Join + aggregate (200K rows)",
       f"""SELECT o.priority, l.returnflag, COUNT(*), SUM(l.quantity * l.price * (1 - l.discount))
FROM {_pq('lineitem')} l JOIN {_pq('orders')} o ON l.order_id = o.id
GROUP BY o.priority, l.returnflag ORDER BY o.priority, l.returnflag""", 5, ordered=True),
    _w("pq_analytical", "CTE + join + aggregate (3 files)",
       f"""WITH per_customer AS (
  SELECT s.customer_id, SUM(s.qty * p.price) AS total
  FROM {_pq('sales')} s JOIN {_pq('products')} p ON s.product_id = p.id GROUP BY s.customer_id)
SELECT c.region, COUNT(*), SUM(pc.total) AS revenue
FROM per_customer pc JOIN {_pq('customers')} c ON pc.customer_id = c.id
GROUP BY c.region ORDER BY c.region""", 10, ordered=True),
    _w("analytics_stress", "Mixed Parquet + in-memory analytics",
       f"""WITH by_region AS (
  SELECT c.region, SUM(s.amount) AS revenue, COUNT(DISTINCT s.customer_id) AS buyers
  FROM {_pq('sales')} s JOIN {_pq('customers')} c ON s.customer_id = c.id GROUP BY c.region)
SELECT b.region, b.revenue, b.buyers, t.target, b.revenue - t.target AS gap
FROM by_region b JOIN region_targets t ON t.region = b.region ORDER BY b.region""",
       10, setup=MEMORY_TABLE, ordered=True),
    _w("pq_mixed_join", "Parquet joined with an in-memory table",
       f"""SELECT s.region, COUNT(*), SUM(s.amount) / MAX(t.target) FROM {_pq('sales')} s
JOIN region_targets t ON t.region = s.region GROUP BY s.region ORDER BY s.region""",
       10, setup=MEMORY_TABLE, ordered=True),
]


def write_files(duck: WireSystem, workdir: Path, log) -> str:
    """Writes the Parquet files with DuckDB; returns its error, if any."""
    sql = "\n".join(f"COPY ({query}) TO '{workdir}/{name}.parquet' (FORMAT parquet);"
                    for name, query in FILES.items())
    result = duck.run_sql(sql, workdir, capture=False)
    log(f"tier8 wrote {len(FILES)} Parquet files" + (f" ERROR {result.error}" if result.error else ""))
    return result.error


def run(args, log, systems: list[WireSystem], workdir: Path) -> Tier:
    """`systems` is [kestrel, duckdb]: KestrelDB first, as tier 2's runner expects."""
    tier = Tier("tier8", "Parquet files in place (read_parquet over the wire / DuckDB CLI)", SYSTEMS, unit="ms")
    tier.notes.append("PostgreSQL reads no Parquet; KestrelDB's side is psql over loopback, DuckDB's in-process.")
    error = write_files(systems[1], workdir, log)
    if error:
        tier.notes.append(f"writing the files failed: {error}")
        return tier
    runner = tier2._Runner(args, log, systems, workdir)
    for workload in WORKLOADS:
        if args.selected(workload.name, "tier8"):
            query = workload.query.replace("@DIR@", str(workdir))
            tier.rows.extend(runner.run(dataclasses.replace(workload, query=query)))
    return tier
