"""The workloads of every tier: the SQL, the tables it reads, and how often it runs.

Names and sizes follow the published mskql comparison (its in-process, wire and throughput
suites and its mixed analytical CTE; see docs/BENCHMARKING.md). The SQL is plain
PostgreSQL that DuckDB also accepts with the same meaning (no `/` between integers, every
ORDER BY before a LIMIT or inside a window is made total with an id tie-breaker), so results
can be compared row for row. `ordered` marks every query whose outermost ORDER BY fixes the
order of its rows: --verify compares those rows in order, the others as multisets
(test_verify.py checks the flag against the SQL). A workload whose SQL KestrelDB cannot run
yet stays in the list and is reported as unsupported with the error it gives.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Union

Query = Union[str, Callable[[int], str]]

VERIFY_WRITES_MAX = 200

# The published mixed analytical CTE (CTE -> join -> aggregate -> sort). Its ORDER BY has no
# tie-breaker, but each region's revenue is a different sum in the data at both sizes, so the
# order is fixed and --verify compares it (ordered=True).
MIXED_ANALYTICAL = """WITH order_summary AS (
  SELECT o.customer_id, SUM(o.quantity * p.price) AS total
  FROM orders o JOIN products p ON o.product_id = p.id
  GROUP BY o.customer_id
)
SELECT c.region, COUNT(*), SUM(os.total) AS revenue
FROM order_summary os JOIN customers c ON os.customer_id = c.id
GROUP BY c.region
ORDER BY revenue DESC"""


@dataclass(frozen=True)
class Workload:
    name: str
    label: str
    group: str
    tables: tuple[str, ...]
    query: Query
    iterations: int
    # Run after the tables are loaded; for a mutating workload, before every timed run.
    setup: str = ""
    # Writes: no cached variant; the check query is what --verify compares afterwards.
    mutating: bool = False
    check: str = ""
    # The query ends with an ORDER BY that fixes the row order: --verify compares in order.
    # (Never set on writes: what they verify is `check`, an aggregate.)
    ordered: bool = False

    def sql(self, iteration: int) -> str:
        return self.query(iteration) if callable(self.query) else self.query

    def scaled_iterations(self, scale: float) -> int:
        return max(1, int(self.iterations * scale))

    def verify_iterations(self, iterations: int) -> int:
        """Writes are verified on their first statements only: the same SQL shape, a fraction of
        the time (10K single-row inserts take DuckDB ~14 s)."""
        return min(iterations, VERIFY_WRITES_MAX) if self.mutating else iterations


def _w(name, label, group, tables, query, iterations, **kw) -> Workload:
    return Workload(name, label, group, tuple(tables.split()), query, iterations, **kw)


def _point(table: str, rows: int) -> Callable[[int], str]:
    return lambda i: f"SELECT * FROM {table} WHERE id = {(i * 7919) % rows + 1}"


# ---------------------------------------------------------------- Tier 1 (in-process)

TIER1: list[Workload] = [
    _w("full_scan", "Full table scan (10K rows)", "reads & scans", "t10k",
       "SELECT * FROM t10k", 100),
    _w("filtered_scan", "Filtered scan (10K rows)", "reads & scans", "t10k",
       "SELECT id, name, price FROM t10k WHERE qty < 50", 200),
    _w("insert_bulk", "Single-row inserts (10K)", "writes", "",
       lambda i: f"INSERT INTO ins VALUES ({i}, 'row_{i}', {i % 100}, {i % 1000}.50)", 10_000,
       setup="DROP TABLE IF EXISTS ins; CREATE TABLE ins (id integer, name text, cat integer, price numeric(10,2))",
       mutating=True, check="SELECT COUNT(*), SUM(id), SUM(price), COUNT(DISTINCT name) FROM ins"),
    _w("aggregate", "Aggregate (COUNT/SUM/AVG, 10K rows)", "aggregation & analytics", "t10k",
       "SELECT COUNT(*), SUM(qty), AVG(price) FROM t10k", 200),
    _w("expression_agg", "Expression aggregate (SUM(qty*price), 10K rows)", "aggregation & analytics",
       "t10k", "SELECT SUM(qty * price) FROM t10k", 100),
    _w("group_by", "Group by (100 groups, 50K rows)", "aggregation & analytics", "t50k",
       "SELECT cat, COUNT(*), SUM(price) FROM t50k GROUP BY cat", 100),
    _w("distinct", "Distinct (100 groups, 100K rows)", "aggregation & analytics", "t100k",
       "SELECT DISTINCT cat FROM t100k", 200),
    _w("window", "Window function (ROW_NUMBER, 50K rows)", "aggregation & analytics", "t50k",
       "SELECT id, ROW_NUMBER() OVER (PARTITION BY cat ORDER BY price, id) FROM t50k", 10),
    _w("cte", "CTE (agg + filter + sort, 50K rows)", "aggregation & analytics", "t50k",
       "WITH s AS (SELECT cat, SUM(qty) AS total, COUNT(*) AS n FROM t50k GROUP BY cat) "
       "SELECT cat, total, n FROM s WHERE total > 20000 ORDER BY total DESC, cat", 50, ordered=True),
    _w("join", "Join (10K x 1K rows)", "joins", "o10k p1k",
       "SELECT o.id, o.quantity, p.name, p.price FROM o10k o JOIN p1k p ON o.product_id = p.id", 50),
    _w("large_join", "Large join (100K x 1K rows)", "joins", "o100k p1k",
       "SELECT o.id, o.quantity, p.name, p.price FROM o100k o JOIN p1k p ON o.product_id = p.id", 50),
    _w("order_by", "Order by (10K rows)", "sorts & functions", "t10k",
       "SELECT * FROM t10k ORDER BY price DESC, id", 50, ordered=True),
    _w("large_sort", "Large sort (100K rows)", "sorts & functions", "t100k",
       "SELECT id, name, price FROM t100k ORDER BY name, id", 20, ordered=True),
    _w("top_n", "Top-N (ORDER BY + LIMIT, 100K rows)", "sorts & functions", "t100k",
       "SELECT id, name, score FROM t100k ORDER BY score DESC, id LIMIT 10", 100, ordered=True),
    _w("generate_series", "Generate series (100K rows)", "sorts & functions", "",
       "SELECT * FROM generate_series(1, 100000)", 50),
    _w("scalar_functions", "Scalar functions (UPPER/LOWER/LENGTH/ABS, 10K rows)",
       "sorts & functions", "t10k",
       "SELECT UPPER(name), LOWER(name), LENGTH(name), ABS(qty - 50) FROM t10k", 100),
]

# ---------------------------------------------------------------- Tier 2 (wire batch)

_SCRATCH = "DROP TABLE IF EXISTS scratch; CREATE TABLE scratch (id integer, val integer, note text)"
_UPD = ("DROP TABLE IF EXISTS upd; CREATE TABLE upd (id integer PRIMARY KEY, price numeric(12,2), qty integer); "
        "INSERT INTO upd SELECT id, price, qty FROM items")


def _insert_delete(i: int) -> str:
    base = i * 2000
    inserts = "\n".join(f"INSERT INTO scratch VALUES ({base + k}, {k}, 'n{k}');" for k in range(2000))
    return f"{inserts}\nDELETE FROM scratch WHERE val % 2 = 0"


def _transaction(i: int) -> str:
    base = i * 50
    inserts = "\n".join(f"INSERT INTO scratch VALUES ({base + k}, {k}, 't{i}');" for k in range(50))
    return f"BEGIN;\n{inserts}\nCOMMIT"


def _vector_literal(i: int) -> str:
    return "'[" + ",".join(str((i * 31 + k * 7) % 100 / 10) for k in range(16)) + "]'"


_VEC = ("DROP TABLE IF EXISTS vecs; CREATE TABLE vecs (id integer, name text, vec VECTOR(16)); "
        "INSERT INTO vecs SELECT id, name, " + _vector_literal(0) + " FROM items")

TIER2: list[Workload] = [
    # reads & scans
    _w("full_scan", "Full table scan (5K rows)", "reads & scans", "items", "SELECT * FROM items", 200),
    _w("filtered_scan", "Filtered scan (5K rows)", "reads & scans", "items",
       "SELECT id, name, price FROM items WHERE cat < 20", 500),
    _w("index_lookup", "Indexed point lookup (PRIMARY KEY)", "reads & scans", "items",
       _point("items", 5000), 2000),
    _w("composite_index", "Composite index lookup", "reads & scans", "items",
       lambda i: f"SELECT id, name FROM items WHERE cat = {i % 100} AND qty = {(i * 7) % 100}", 2000,
       setup="CREATE INDEX IF NOT EXISTS items_cat_qty ON items (cat, qty)"),
    _w("sort", "Sort (5K rows)", "reads & scans", "items", "SELECT * FROM items ORDER BY price, id", 200, ordered=True),
    _w("multi_sort", "Multi-column sort (5K rows)", "reads & scans", "items",
       "SELECT * FROM items ORDER BY cat, price DESC, id", 200, ordered=True),
    _w("distinct", "Distinct (100 categories)", "reads & scans", "items", "SELECT DISTINCT cat FROM items", 500),
    # writes
    _w("insert_bulk", "Single-row inserts (10K)", "writes", "",
       lambda i: f"INSERT INTO scratch VALUES ({i}, {i % 97}, 'note_{i}')", 10_000,
       setup=_SCRATCH, mutating=True, check="SELECT COUNT(*), SUM(id), SUM(val) FROM scratch"),
    _w("bulk_update", "Bulk update (1K of 5K rows)", "writes", "items",
       "UPDATE upd SET price = price + 1, qty = qty + 1 WHERE id <= 1000", 200,
       setup=_UPD, mutating=True, check="SELECT COUNT(*), SUM(price), SUM(qty) FROM upd"),
    _w("insert_delete", "Insert + delete (2K rows, delete half)", "writes", "", _insert_delete, 50,
       setup=_SCRATCH, mutating=True, check="SELECT COUNT(*), SUM(id), SUM(val) FROM scratch"),
    _w("transactions", "Transactional inserts (100 txns, 50 each)", "writes", "", _transaction, 100,
       setup=_SCRATCH, mutating=True, check="SELECT COUNT(*), SUM(id), SUM(val) FROM scratch"),
    # aggregation & analytics
    _w("group_sum", "Group + sum (5K rows)", "aggregation & analytics", "items",
       "SELECT cat, SUM(price) FROM items GROUP BY cat", 500),
    _w("expression_agg", "Expression aggregate (SUM(price*qty))", "aggregation & analytics", "items",
       "SELECT SUM(price * qty) FROM items", 500),
    _w("wide_agg", "Wide aggregate (7 cols, 50K rows)", "aggregation & analytics", "wide",
       "SELECT COUNT(*), SUM(b), AVG(c), MIN(d), MAX(e), SUM(f), AVG(k) FROM wide", 20),
    _w("window_rownum", "Window function (ROW_NUMBER, 5K rows)", "aggregation & analytics", "items",
       "SELECT id, cat, ROW_NUMBER() OVER (PARTITION BY cat ORDER BY price, id) FROM items", 20),
    _w("window_rank", "Window function (RANK, 50K rows)", "aggregation & analytics", "wide",
       "SELECT id, a, RANK() OVER (PARTITION BY a ORDER BY d DESC) FROM wide", 5),
    _w("correlated_subquery", "Correlated subquery", "aggregation & analytics", "items",
       "SELECT i.id, i.qty FROM items i WHERE i.qty > (SELECT AVG(j.qty) FROM items j WHERE j.cat = i.cat) "
       "AND i.id <= 1000", 1),
    # joins, subqueries & complex queries
    _w("join_two", "Two-table join (500 + 2K rows)", "joins, subqueries & complex", "dept emp",
       "SELECT d.name, e.name, e.salary FROM emp e JOIN dept d ON e.dept_id = d.id", 50),
    _w("join_three_group", "Three-table join + group (50K rows)", "joins, subqueries & complex",
       "orders customers products",
       "SELECT c.region, p.category, COUNT(*), SUM(o.quantity) FROM orders o "
       "JOIN customers c ON o.customer_id = c.id JOIN products p ON o.product_id = p.id "
       "GROUP BY c.region, p.category", 5),
    _w("subquery_in", "Subquery filter (IN subquery)", "joins, subqueries & complex", "emp dept",
       "SELECT id, name FROM emp WHERE dept_id IN (SELECT id FROM dept WHERE budget > 50000)", 50),
    _w("subquery_pipeline", "Subquery pipeline (filter + sort + limit, 50K)", "joins, subqueries & complex",
       "orders",
       "SELECT * FROM (SELECT id, customer_id, quantity * amount AS total FROM orders WHERE quantity > 5) s "
       "ORDER BY total DESC, id LIMIT 100", 20, ordered=True),
    _w("cte_filter_chain", "CTE filter chain (5K rows)", "joins, subqueries & complex", "items",
       "WITH a AS (SELECT * FROM items WHERE qty > 10), b AS (SELECT * FROM a WHERE cat < 50) "
       "SELECT id, name, price FROM b WHERE price > 100", 200),
    _w("cte_pipeline", "CTE pipeline (agg -> sort -> limit, 50K)", "joins, subqueries & complex", "orders",
       "WITH totals AS (SELECT customer_id, SUM(quantity * amount) AS total FROM orders GROUP BY customer_id) "
       "SELECT customer_id, total FROM totals ORDER BY total DESC, customer_id LIMIT 10", 20, ordered=True),
    _w("analytical_cte", "Analytical CTE (join -> agg -> sort, 50K)", "joins, subqueries & complex",
       "orders customers products", MIXED_ANALYTICAL, 5, ordered=True),
    _w("union", "Union (two 2K-row tables)", "joins, subqueries & complex", "union_a union_b",
       "SELECT id, name FROM union_a UNION SELECT id, name FROM union_b", 50),
    # functions & generation
    _w("generate_series", "Generate series (10K rows)", "functions & generation", "",
       "SELECT * FROM generate_series(1, 10000)", 200),
    _w("scalar_functions", "Scalar functions (4 functions, 5K rows)", "functions & generation", "items",
       "SELECT UPPER(name), LENGTH(name), ABS(qty - 50), LOWER(name) FROM items", 200),
    # large dataset (50K rows)
    _w("large_sort", "Large sort (50K rows)", "large dataset (50K rows)", "wide",
       "SELECT id, b, d FROM wide ORDER BY d, id", 10, ordered=True),
    _w("wide_output_sort", "Wide output sort (10 cols, 50K rows)", "large dataset (50K rows)", "wide",
       "SELECT * FROM wide ORDER BY b, id", 1, ordered=True),
    # worst case & complex (200K rows)
    _w("large_agg", "Large dataset agg (200K rows)", "worst case & complex (200K rows)", "big",
       "SELECT cat, COUNT(*), SUM(val), AVG(price) FROM big GROUP BY cat", 1),
    _w("join_reorder", "Join reorder (3 tables, 50K orders)", "worst case & complex (200K rows)",
       "orders customers products",
       "SELECT c.region, SUM(o.quantity * p.price) FROM products p, orders o, customers c "
       "WHERE o.customer_id = c.id AND o.product_id = p.id AND p.category = 'category_03' GROUP BY c.region", 1),
    _w("string_heavy", "String-heavy (concat + UPPER + LIKE, 10K rows)", "worst case & complex (200K rows)",
       "texts", "SELECT id, UPPER(first || ' ' || last) FROM texts WHERE last LIKE '%a%' AND first LIKE 'e%'", 1),
    _w("nested_cte", "Nested CTE (3-level, 50K rows)", "worst case & complex (200K rows)", "orders",
       "WITH a AS (SELECT customer_id, product_id, quantity FROM orders WHERE quantity > 2), "
       "b AS (SELECT customer_id, SUM(quantity) AS q FROM a GROUP BY customer_id), "
       "c AS (SELECT customer_id, q FROM b WHERE q > 20) SELECT COUNT(*), SUM(q) FROM c", 1),
    _w("multi_index", "Multi-index lookup (100K rows)", "worst case & complex (200K rows)", "m100k",
       lambda i: f"SELECT id, val FROM m100k WHERE cat = {i % 1000} AND grp = {(i * 13) % 100000}", 100,
       setup="CREATE INDEX IF NOT EXISTS m100k_cat ON m100k (cat); "
             "CREATE INDEX IF NOT EXISTS m100k_grp ON m100k (grp)"),
    # stress tests (500K rows)
    _w("stress_full_agg", "Stress full agg (500K rows)", "stress tests (500K rows)", "s_items",
       "SELECT COUNT(*), SUM(val), AVG(price), MIN(score), MAX(score) FROM s_items", 1),
    _w("stress_high_card_gb", "Stress high-card GB (100K groups)", "stress tests (500K rows)", "s_items",
       "SELECT grp, COUNT(*), SUM(val) FROM s_items GROUP BY grp", 1),
    _w("stress_large_sort", "Stress large sort (500K rows)", "stress tests (500K rows)", "s_items",
       "SELECT id, score FROM s_items ORDER BY score, id", 1, ordered=True),
    _w("stress_join_2way", "Stress join 2-way (500K + 10K rows)", "stress tests (500K rows)",
       "s_orders s_customers",
       "SELECT c.region, COUNT(*), SUM(o.amount) FROM s_orders o JOIN s_customers c ON o.customer_id = c.id "
       "GROUP BY c.region", 1),
    _w("stress_join_3way", "Stress join 3-way (3 large tables)", "stress tests (500K rows)",
       "s_orders s_customers s_items",
       "SELECT c.region, COUNT(*), SUM(i.val) FROM s_orders o JOIN s_items i ON o.id = i.id "
       "JOIN s_customers c ON o.customer_id = c.id GROUP BY c.region", 1),
    _w("stress_filtered_expr", "Stress filtered expr (WHERE + computed cols)", "stress tests (500K rows)",
       "s_items",
       "SELECT id, val * 2 + 1, price * 1.1, score - val FROM s_items WHERE val < 1000 AND cat > 500", 1),
    _w("stress_window", "Stress window (RANK, 500K rows)", "stress tests (500K rows)", "s_items",
       "SELECT id, RANK() OVER (PARTITION BY cat ORDER BY val DESC) FROM s_items", 1),
    _w("stress_nested_cte", "Stress nested CTE (3-level, 500K rows)", "stress tests (500K rows)", "s_orders",
       "WITH a AS (SELECT customer_id, quantity, amount FROM s_orders WHERE quantity > 3), "
       "b AS (SELECT customer_id, SUM(quantity * amount) AS total FROM a GROUP BY customer_id), "
       "c AS (SELECT customer_id, total FROM b WHERE total > 1000) SELECT COUNT(*), SUM(total) FROM c", 1),
    # vectors (mskql against PostgreSQL + pgvector)
    _w("vector_insert", "Vector insert (5K rows, VECTOR(16))", "vector", "",
       lambda i: f"INSERT INTO vecs VALUES ({i}, 'v{i}', {_vector_literal(i)})", 5000,
       setup="DROP TABLE IF EXISTS vecs; CREATE TABLE vecs (id integer, name text, vec VECTOR(16))",
       mutating=True, check="SELECT COUNT(*), SUM(id) FROM vecs"),
    _w("vector_scan", "Vector scan (5K rows)", "vector", "items", "SELECT vec FROM vecs", 200, setup=_VEC),
    _w("vector_wide_scan", "Vector wide scan (id + name + vec)", "vector", "items",
       "SELECT id, name, vec FROM vecs", 200, setup=_VEC),
    _w("vector_filter", "Vector filter (WHERE + vec output)", "vector", "items",
       "SELECT id, vec FROM vecs WHERE id % 10 = 0", 200, setup=_VEC),
]

# ---------------------------------------------------------------- Tier 3 (concurrent throughput)


@dataclass(frozen=True)
class ThroughputTest:
    name: str
    label: str
    tables: tuple[str, ...]
    # pgbench scripts: (body, weight). Bodies may use pgbench's \set and :variables.
    scripts: tuple[tuple[str, int], ...]
    # The same queries with the variables fixed, for --verify.
    verify: tuple[str, ...] = field(default=())
    # Tables that the test writes, recreated before each run.
    setup: str = ""
    # The verify queries' rows come in a fixed order: each ends with an ORDER BY that fixes it,
    # or returns one row.
    ordered: bool = False
    # Run on KestrelDB before the timed runs (cache_churn): a pgbench script run `-M simple`
    # `churn_keys` times in all (scaled like iteration counts), each transaction on a key of
    # its own. The script gets :n (its client's transaction count, from 1) and :clients.
    churn: str = ""
    churn_keys: int = 0
    # Its cached rows fail when clearly slower than its no-cache rows (tier3.CACHED_MIN_RATIO).
    cached_not_slower: bool = False


def _tp(name, label, tables, sql, verify=None, ordered=False) -> ThroughputTest:
    return ThroughputTest(name, label, tuple(tables.split()), ((sql + ";\n", 1),),
                          (verify or sql,), ordered=ordered)


# One churn_items row, found by scanning all 2,048 (so KestrelDB keeps the result), and a
# 1,000-character constant. Key k is the literal in `slot = k % 2048`, so every key is a text and
# a cache entry of its own. Each takes about 2 KB of KestrelDB's 256 MB result cache
# (crates/engine/src/api/query_cache.rs counts results twice, for the encoded copy), so the
# full run's 300,000 keys fill it after ~120,000.
_CHURN_LOOKUP = "SELECT slot, name, repeat('x', 1000) AS pad FROM churn_items WHERE slot = {k} % 2048"

_KV = ("DROP TABLE IF EXISTS tp_kv; CREATE TABLE tp_kv (id integer PRIMARY KEY, val integer); "
       "INSERT INTO tp_kv SELECT id, val FROM kv")
_LOG = "DROP TABLE IF EXISTS tp_log; CREATE TABLE tp_log (id integer, val integer)"

TIER3: list[ThroughputTest] = [
    _tp("point_lookup", "Indexed point lookup", "items",
        "\\set id random(1, 5000)\nSELECT * FROM items WHERE id = :id",
        "SELECT * FROM items WHERE id = 1234"),
    _tp("full_scan", "Full table scan (5K rows)", "items", "SELECT * FROM items"),
    _tp("filtered_scan", "Filtered scan (5K rows)", "items",
        "SELECT id, name, price FROM items WHERE cat < 20"),
    ThroughputTest("single_insert", "Single-row insert", (),
                   (("\\set id random(1, 1000000)\nINSERT INTO tp_log VALUES (:id, :id % 100);\n", 1),),
                   (), setup=_LOG),
    ThroughputTest("mixed_rw", "Mixed read/write (80/20)", ("kv",),
                   (("\\set id random(1, 5000)\nSELECT val FROM tp_kv WHERE id = :id;\n", 80),
                    ("\\set id random(1, 5000)\nUPDATE tp_kv SET val = val + 1 WHERE id = :id;\n", 20)),
                   ("SELECT val FROM tp_kv WHERE id = 77",), setup=_KV),
    _tp("group_sum", "Group + sum (5K rows)", "items", "SELECT cat, SUM(price) FROM items GROUP BY cat"),
    _tp("wide_agg", "Wide aggregate (50K rows)", "wide",
        "SELECT COUNT(*), SUM(b), AVG(c), MIN(d), MAX(e), SUM(f), AVG(k) FROM wide"),
    _tp("window_rank", "Window function (RANK, 50K rows)", "wide",
        "SELECT id, a, RANK() OVER (PARTITION BY a ORDER BY d DESC) FROM wide"),
    _tp("join_two", "Two-table join (500 + 2K rows)", "dept emp",
        "SELECT d.name, e.name, e.salary FROM emp e JOIN dept d ON e.dept_id = d.id"),
    _tp("multi_join", "Multi-join (3 tables)", "orders customers products",
        "SELECT c.region, p.category, COUNT(*), SUM(o.quantity) FROM orders o "
        "JOIN customers c ON o.customer_id = c.id JOIN products p ON o.product_id = p.id "
        "GROUP BY c.region, p.category"),
    _tp("mixed_analytical", "Mixed analytical (CTE -> join -> agg -> sort)",
        "orders customers products", MIXED_ANALYTICAL, ordered=True),
    _tp("cte_pipeline", "CTE pipeline (agg -> sort -> limit)", "orders",
        "WITH totals AS (SELECT customer_id, SUM(quantity * amount) AS total FROM orders GROUP BY customer_id) "
        "SELECT customer_id, total FROM totals ORDER BY total DESC, customer_id LIMIT 10", ordered=True),
    _tp("subquery_pipeline", "Subquery pipeline (filter + sort + limit)", "orders",
        "SELECT * FROM (SELECT id, customer_id, quantity * amount AS total FROM orders WHERE quantity > 5) s "
        "ORDER BY total DESC, id LIMIT 100", ordered=True),
    _tp("large_sort", "Large sort (50K rows)", "wide", "SELECT id, b, d FROM wide ORDER BY d, id", ordered=True),
    # Last: it leaves KestrelDB's result cache full.
    ThroughputTest(
        "cache_churn", "300-row ranges after result-cache churn", ("churn_items",),
        (("\\set lo 8 * random(0, 199)\n\\set hi :lo + 300\n"
          "SELECT * FROM churn_items WHERE slot >= :lo AND slot < :hi ORDER BY slot;\n", 1),),
        ("SELECT * FROM churn_items WHERE slot >= 800 AND slot < 1100 ORDER BY slot", _CHURN_LOOKUP.format(k=4321)),
        ordered=True,
        churn="\\set n :n + 1\n\\set k (:n - 1) * :clients + :client_id + 1\n" + _CHURN_LOOKUP.format(k=":k") + ";\n",
        churn_keys=300_000, cached_not_slower=True),
]
