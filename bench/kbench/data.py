"""Deterministic data: every table of every tier, generated as multi-row INSERT scripts.

The same rows reach every system because each value is a pure function of (row id, column)
through a fixed integer hash — no random module, no clock. `scale` shrinks every table for
`--quick` runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

ROWS_PER_INSERT = 1000

REGIONS = ["north", "south", "east", "west", "central", "northeast", "southwest", "pacific"]
CATEGORIES = [f"category_{k:02d}" for k in range(20)]
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
         "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo",
         "sierra", "tango", "uniform", "victor", "whiskey", "xray", "yankee", "zulu"]


def h(row: int, column: int) -> int:
    """A 32-bit mix of (row, column): stable across Python versions and platforms."""
    x = (row * 0x9E3779B1 + column * 0x85EBCA77 + 0x165667B1) & 0xFFFFFFFF
    x ^= x >> 15
    x = (x * 0x2C1B3C6D) & 0xFFFFFFFF
    x ^= x >> 12
    x = (x * 0x297A2D39) & 0xFFFFFFFF
    x ^= x >> 15
    return x


def money(row: int, column: int, max_cents: int = 100_000) -> str:
    cents = h(row, column) % max_cents
    return f"{cents // 100}.{cents % 100:02d}"


def real(row: int, column: int) -> str:
    # Three decimals: every system prints these doubles the same way.
    milli = h(row, column) % 1_000_000
    return f"{milli // 1000}.{milli % 1000:03d}"


def word(row: int, column: int) -> str:
    return WORDS[h(row, column) % len(WORDS)]


def quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@dataclass(frozen=True)
class Column:
    name: str
    sql_type: str
    value: Callable[[int], str]  # row id (1-based) -> SQL literal


def _items(n: int) -> list[Column]:
    return [
        Column("id", "integer PRIMARY KEY", str),
        Column("name", "text", lambda i: quoted(f"{word(i, 1)}_{h(i, 2) % 1000}")),
        Column("cat", "integer", lambda i: str(h(i, 3) % 100)),
        Column("price", "numeric(10,2)", lambda i: money(i, 4)),
        Column("qty", "integer", lambda i: str(h(i, 5) % 100)),
        Column("score", "double precision", lambda i: real(i, 6)),
    ]


def _wide(n: int) -> list[Column]:
    return [
        Column("id", "integer PRIMARY KEY", str),
        Column("a", "integer", lambda i: str(h(i, 1) % 50)),
        Column("b", "integer", lambda i: str(h(i, 2) % 10_000)),
        Column("c", "numeric(12,2)", lambda i: money(i, 3, 10_000_000)),
        Column("d", "double precision", lambda i: real(i, 4)),
        Column("e", "integer", lambda i: str(h(i, 5) % 1000 - 500)),
        Column("f", "bigint", lambda i: str(h(i, 6) * 1000)),
        Column("g", "text", lambda i: quoted(word(i, 7))),
        Column("hh", "text", lambda i: quoted(f"{word(i, 8)}-{word(i, 9)}")),
        Column("k", "integer", lambda i: str(h(i, 10) % 7)),
    ]


def _customers(n: int) -> list[Column]:
    return [
        Column("id", "integer PRIMARY KEY", str),
        Column("name", "text", lambda i: quoted(f"customer_{i}")),
        Column("region", "text", lambda i: quoted(REGIONS[h(i, 1) % len(REGIONS)])),
    ]


def _products(n: int) -> list[Column]:
    return [
        Column("id", "integer PRIMARY KEY", str),
        Column("name", "text", lambda i: quoted(f"product_{i}")),
        Column("price", "numeric(10,2)", lambda i: money(i, 1, 50_000)),
        Column("category", "text", lambda i: quoted(CATEGORIES[h(i, 2) % len(CATEGORIES)])),
    ]


def _orders(customers: int, products: int) -> Callable[[int], list[Column]]:
    def columns(n: int) -> list[Column]:
        return [
            Column("id", "integer PRIMARY KEY", str),
            Column("customer_id", "integer", lambda i: str(h(i, 1) % customers + 1)),
            Column("product_id", "integer", lambda i: str(h(i, 2) % products + 1)),
            Column("quantity", "integer", lambda i: str(h(i, 3) % 10 + 1)),
            Column("amount", "numeric(10,2)", lambda i: money(i, 4)),
        ]
    return columns


def _churn_items(n: int) -> list[Column]:
    # Items looked up by `slot` (0..n-1), which has no index: every lookup scans the table.
    return [Column("slot", "integer", lambda i: str(i - 1))] + [c for c in _items(n) if c.name != "id"]


def _kv(n: int) -> list[Column]:
    return [Column("id", "integer PRIMARY KEY", str), Column("val", "integer", lambda i: str(h(i, 1) % 1000))]


def _dept(n: int) -> list[Column]:
    return [
        Column("id", "integer PRIMARY KEY", str),
        Column("name", "text", lambda i: quoted(f"dept_{i}")),
        Column("budget", "integer", lambda i: str(h(i, 1) % 100_000)),
    ]


def _emp(depts: int) -> Callable[[int], list[Column]]:
    def columns(n: int) -> list[Column]:
        return [
            Column("id", "integer PRIMARY KEY", str),
            Column("dept_id", "integer", lambda i: str(h(i, 1) % depts + 1)),
            Column("name", "text", lambda i: quoted(f"emp_{i}")),
            Column("salary", "numeric(10,2)", lambda i: money(i, 2, 20_000_000)),
        ]
    return columns


def _named(n: int) -> list[Column]:
    return [Column("id", "integer", str), Column("name", "text", lambda i: quoted(word(i, 1)))]


def _texts(n: int) -> list[Column]:
    return [
        Column("id", "integer PRIMARY KEY", str),
        Column("first", "text", lambda i: quoted(word(i, 1))),
        Column("last", "text", lambda i: quoted(f"{word(i, 2)}{h(i, 3) % 100}")),
        Column("code", "integer", lambda i: str(h(i, 4) % 1000)),
    ]


def _big(n: int) -> list[Column]:
    return [
        Column("id", "integer PRIMARY KEY", str),
        Column("cat", "integer", lambda i: str(h(i, 1) % 1000)),
        Column("grp", "integer", lambda i: str(h(i, 2) % 100_000)),
        Column("val", "integer", lambda i: str(h(i, 3) % 10_000)),
        Column("price", "numeric(10,2)", lambda i: money(i, 4)),
        Column("score", "double precision", lambda i: real(i, 5)),
        Column("name", "text", lambda i: quoted(word(i, 6))),
    ]


@dataclass(frozen=True)
class Table:
    """A table: its name, row count at full size, and how each column's values are made."""

    name: str
    rows: int
    columns_of: Callable[[int], list[Column]]
    # The same row count at every scale (--quick included).
    fixed: bool = False

    def sized(self, scale: float) -> "Table":
        if self.fixed:
            return self
        return Table(self.name, max(10, int(self.rows * scale)), self.columns_of)

    def create_sql(self) -> str:
        cols = ", ".join(f"{c.name} {c.sql_type}" for c in self.columns_of(self.rows))
        return f"DROP TABLE IF EXISTS {self.name};\nCREATE TABLE {self.name} ({cols});\n"

    def insert_statements(self) -> Iterator[str]:
        columns = self.columns_of(self.rows)
        for start in range(1, self.rows + 1, ROWS_PER_INSERT):
            end = min(start + ROWS_PER_INSERT, self.rows + 1)
            values = ",".join(
                "(" + ",".join(c.value(i) for c in columns) + ")" for i in range(start, end)
            )
            yield f"INSERT INTO {self.name} VALUES {values};"

    def load_sql(self) -> str:
        return self.create_sql() + "\n".join(self.insert_statements()) + "\n"


def orders_table(name: str, rows: int, customers: int, products: int) -> Table:
    return Table(name, rows, _orders(customers, products))


# Every table any tier uses, by name. Row counts follow the published mskql comparison (docs/BENCHMARKING.md).
TABLES: dict[str, Table] = {t.name: t for t in [
    # Tier 2 and 3 (wire).
    Table("items", 5_000, _items),
    Table("wide", 50_000, _wide),
    Table("customers", 2_000, _customers),
    Table("products", 1_000, _products),
    orders_table("orders", 50_000, 2_000, 1_000),
    Table("kv", 5_000, _kv),
    # Tier 3 cache_churn. 2,048 rows at every scale: each of its queries scans them all, so
    # KestrelDB keeps each result (it keeps none computed from under 1,024 rows).
    Table("churn_items", 2_048, _churn_items, fixed=True),
    Table("dept", 500, _dept),
    Table("emp", 2_000, _emp(500)),
    Table("union_a", 2_000, _named),
    Table("union_b", 2_000, _named),
    Table("texts", 10_000, _texts),
    Table("big", 200_000, _big),
    Table("m100k", 100_000, _big),
    Table("s_customers", 10_000, _customers),
    Table("s_products", 1_000, _products),
    orders_table("s_orders", 500_000, 10_000, 1_000),
    Table("s_items", 500_000, _big),
    # Tier 1 (in-process).
    Table("t10k", 10_000, _items),
    Table("t50k", 50_000, _items),
    Table("t100k", 100_000, _items),
    Table("p1k", 1_000, _products),
    orders_table("o10k", 10_000, 2_000, 1_000),
    orders_table("o100k", 100_000, 2_000, 1_000),
]}
