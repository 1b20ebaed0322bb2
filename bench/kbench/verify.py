"""Row-for-row result comparison across systems.

Rows are compared in order when the workload's query fixes the order (`ordered`: its
outermost ORDER BY, which the workloads make total with an id tie-breaker), and as multisets
otherwise (no ORDER BY: any order is correct). Values are compared by meaning, not spelling:
`t`/`true`, `3.0`/`3.000`, and numbers equal within a relative 1e-9 (PostgreSQL's numeric
AVG against DuckDB's double AVG, float sums added in a different order). NULL is never equal
to anything but NULL: the text clients print it as `NULL_MARKER`, not as an empty string.

Text output (psql and the DuckDB CLI, set up in systems.py) separates values with
`FIELD_SEP` and ends every row with a `RECORD_ENDS` character, neither of which occurs in the
data, so a value containing `|`, a space or a newline cannot be mistaken for two values or
two rows, and a one-column row holding '' is still a row.

Self-test: `cd bench && python3 -m unittest kbench.test_verify`.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from typing import Any, Iterable, Sequence

REL_TOLERANCE = 1e-9
MAX_SHOWN = 3

# What psql (`-P null=...`) and the DuckDB CLI (`-nullvalue ...`) print for NULL.
NULL_MARKER = "<kbench:NULL>"
# Between values: psql `-F`, DuckDB `-separator` (ASCII unit separator).
FIELD_SEP = "\x1f"
# After every row: psql `-0` ends each row with NUL; DuckDB `-newline` with the ASCII record
# separator (a NUL cannot be passed as a command-line argument).
PSQL_RECORD_END = "\x00"
DUCK_RECORD_END = "\x1e"
RECORD_ENDS = (PSQL_RECORD_END, DUCK_RECORD_END)
_RECORD_END = re.compile("[" + "".join(RECORD_ENDS) + "]")


def _value(field: Any) -> Any:
    """A comparable form of one value: None, a float for anything numeric, else a string."""
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
    try:
        return float(Decimal(text))
    except (InvalidOperation, ValueError):
        return text


def normalise(rows: Iterable[Sequence[Any]], ordered: bool = False) -> list[tuple]:
    """Comparable rows: in the order given when `ordered`, else sorted (a multiset)."""
    out = [tuple(_value(f) for f in row) for row in rows]
    if not ordered:
        out.sort(key=_row_key)
    return out


def _row_key(row: tuple) -> tuple:
    return tuple(_sort_key(v) for v in row)


def _sort_key(v: Any) -> tuple:
    if v is None:
        return (0, 0.0, "")
    if isinstance(v, float):
        # Rounded so that values equal within the tolerance sort together.
        return (1, float(f"{v:.9g}") if math.isfinite(v) else v, "")
    return (2, 0.0, v)


def parse_text_rows(output: str) -> list[list[Any]]:
    """Rows as the text clients print them (see the module doc): values split on FIELD_SEP,
    rows ended by one of RECORD_ENDS, NULL_MARKER read back as None."""
    records = _RECORD_END.split(output)
    # The text after the last row's end is empty; anything else is kept, so it shows up as
    # an unexpected row rather than being dropped.
    if records[-1] == "":
        records.pop()
    return [[None if f == NULL_MARKER else f for f in record.split(FIELD_SEP)] for record in records]


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        if a == b or (math.isnan(a) and math.isnan(b)):
            return True
        return abs(a - b) <= REL_TOLERANCE * max(abs(a), abs(b))
    return type(a) is type(b) and a == b


def _row_equal(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))


def difference(expected: list[tuple], actual: list[tuple], ordered: bool = False) -> str:
    """Empty if equal, else a short description of the first differences. Both lists come
    from `normalise` with the same `ordered`."""
    if len(expected) != len(actual):
        return f"{len(actual)} rows instead of {len(expected)}" + _sample(expected, actual)
    for i, (e, a) in enumerate(zip(expected, actual)):
        if not _row_equal(e, a):
            if ordered and difference(sorted(expected, key=_row_key), sorted(actual, key=_row_key)) == "":
                return f"the same rows in another order: row {i} is {a!r}, expected {e!r}"
            return f"row {i} ({'in order' if ordered else 'sorted'}) is {a!r}, expected {e!r}"
    return ""


def _sample(expected: list[tuple], actual: list[tuple]) -> str:
    expected_set, actual_set = set(expected), set(actual)
    missing = [r for r in expected if r not in actual_set][:MAX_SHOWN]
    extra = [r for r in actual if r not in expected_set][:MAX_SHOWN]
    return f"; e.g. missing {missing}, unexpected {extra}"
