"""Row-for-row result comparison across systems.

Rows are compared as multisets: ORDER BY ties may come out in any order, and every LIMIT in
the workloads has a total order, so a multiset is exact where it matters. Values are
compared by meaning, not spelling: `t`/`true`, `3.0`/`3.000`, and numbers equal within a
relative 1e-9 (PostgreSQL's numeric AVG against DuckDB's double AVG, float sums added in a
different order).
"""

from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation
from typing import Any, Iterable, Sequence

REL_TOLERANCE = 1e-9
MAX_SHOWN = 3


def _value(field: Any) -> Any:
    """A comparable form of one value: a float for anything numeric, else a string."""
    if field is None:
        return None
    if isinstance(field, bool):
        return "true" if field else "false"
    if isinstance(field, (int, float, Decimal)):
        return float(field)
    text = str(field)
    if text in ("t", "true"):
        return "true"
    if text in ("f", "false"):
        return "false"
    if text == "":
        return None  # psql and the DuckDB CLI (-nullvalue '') both print NULL as nothing
    try:
        return float(Decimal(text))
    except (InvalidOperation, ValueError):
        return text


def normalise(rows: Iterable[Sequence[Any]]) -> list[tuple]:
    out = [tuple(_value(f) for f in row) for row in rows]
    out.sort(key=lambda row: tuple(_sort_key(v) for v in row))
    return out


def _sort_key(v: Any) -> tuple:
    if v is None:
        return (0, 0.0, "")
    if isinstance(v, float):
        # Rounded so that values equal within the tolerance sort together.
        return (1, float(f"{v:.9g}") if math.isfinite(v) else v, "")
    return (2, 0.0, v)


def parse_text_rows(output: str) -> list[list[str]]:
    """Rows printed unaligned (`psql -A -t`, DuckDB `-list -noheader`): `|` between values."""
    return [line.split("|") for line in output.splitlines() if line != ""]


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        if a == b or (math.isnan(a) and math.isnan(b)):
            return True
        return abs(a - b) <= REL_TOLERANCE * max(abs(a), abs(b))
    return a == b


def difference(expected: list[tuple], actual: list[tuple]) -> str:
    """Empty if equal, else a short description of the first differences."""
    if len(expected) != len(actual):
        return f"{len(actual)} rows instead of {len(expected)}" + _sample(expected, actual)
    for i, (e, a) in enumerate(zip(expected, actual)):
        if len(e) != len(a) or not all(_equal(x, y) for x, y in zip(e, a)):
            return f"row {i} (sorted) is {a!r}, expected {e!r}"
    return ""


def _sample(expected: list[tuple], actual: list[tuple]) -> str:
    expected_set, actual_set = set(expected), set(actual)
    missing = [r for r in expected if r not in actual_set][:MAX_SHOWN]
    extra = [r for r in actual if r not in expected_set][:MAX_SHOWN]
    return f"; e.g. missing {missing}, unexpected {extra}"
