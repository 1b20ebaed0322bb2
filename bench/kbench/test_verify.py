"""Self-test of --verify: `cd bench && python3 -m unittest kbench.test_verify`.

Checks that the comparison can fail where it must (values that run together, NULL against
'', rows out of order where the query fixes the order), still accepts what differs only in
spelling or in an order no query asked for, and that the workloads' `ordered` flags match
their SQL. The DuckDB CLI case runs when the pinned `duckdb-cli` package is installed
(bench/.venv); psql needs a server and is exercised by `bench/run.sh --verify`.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
import unittest
from decimal import Decimal
from pathlib import Path

from . import verify
from .verify import FIELD_SEP, NULL_MARKER, PSQL_RECORD_END, difference, normalise, parse_text_rows
from .tier8 import WORKLOADS as TIER8
from .workloads import TIER1, TIER2, TIER3


def _differ(expected, actual, ordered=False) -> str:
    return difference(normalise(expected, ordered), normalise(actual, ordered), ordered)


def _psql_output(rows) -> str:
    """What psql -A -t -0 -F FIELD_SEP -P null=NULL_MARKER prints for these rows."""
    return "".join(FIELD_SEP.join(NULL_MARKER if v is None else v for v in row) + PSQL_RECORD_END
                   for row in rows)


def outermost_order_by(sql: str) -> bool:
    """Whether the statement's own ORDER BY (outside every parenthesis: subqueries, CTE
    bodies, window definitions) is there."""
    depth, outer = 0, []
    for ch in sql:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0:
            outer.append(ch)
    return re.search(r"\bORDER\s+BY\b", "".join(outer), re.IGNORECASE) is not None


class Values(unittest.TestCase):
    def test_values_do_not_run_together(self):
        self.assertTrue(_differ([("a b", "c")], [("a", "b c")]))
        self.assertTrue(_differ([("a|b", "c")], [("a", "b|c")]))

    def test_text_values_do_not_run_together(self):
        one = parse_text_rows(_psql_output([("a b", "c")]))
        other = parse_text_rows(_psql_output([("a", "b c")]))
        self.assertEqual(one, [["a b", "c"]])
        self.assertTrue(difference(normalise(one), normalise(other)))
        # A '|' or a newline inside a value is part of the value.
        self.assertEqual(parse_text_rows(_psql_output([("a|b", "x\ny")])), [["a|b", "x\ny"]])

    def test_null_is_not_empty(self):
        self.assertTrue(_differ([(None, "x")], [("", "x")]))
        self.assertTrue(_differ([("",)], [(None,)]))
        self.assertFalse(_differ([(None, "")], [(None, "")]))

    def test_text_null_is_not_empty(self):
        rows = parse_text_rows(_psql_output([(None, ""), ("", None)]))
        self.assertEqual(rows, [[None, ""], ["", None]])
        self.assertTrue(difference(normalise(rows), normalise(parse_text_rows(_psql_output([("", ""), ("", "")])))))

    def test_one_empty_value_is_a_row(self):
        self.assertEqual(parse_text_rows(_psql_output([("",), ("x",), ("",)])), [[""], ["x"], [""]])
        self.assertEqual(parse_text_rows(""), [])

    def test_spelling_is_not_a_difference(self):
        self.assertFalse(_differ([("t", "3.0", "2.5000000000000000")], [("true", "3.000", "2.5")]))
        self.assertFalse(_differ([(True, 3, Decimal("2.50"))], [("t", "3", 2.5)]))
        self.assertFalse(_differ([("0.30000000000000004",)], [(0.3,)]))  # float sums in another order
        self.assertTrue(_differ([("1.5",)], [("1.6",)]))
        self.assertTrue(_differ([("1",)], [("one",)]))


class Order(unittest.TestCase):
    expected = [(1, "a"), (2, "b"), (3, "c")]
    swapped = [(2, "b"), (1, "a"), (3, "c")]

    def test_wrong_order_fails_when_ordered(self):
        diff = _differ(self.expected, self.swapped, ordered=True)
        self.assertIn("another order", diff)

    def test_other_order_passes_when_unordered(self):
        self.assertEqual(_differ(self.expected, self.swapped, ordered=False), "")

    def test_same_order_passes(self):
        self.assertEqual(_differ(self.expected, list(self.expected), ordered=True), "")

    def test_multiset_counts_duplicates(self):
        self.assertTrue(_differ([(1,), (1,), (2,)], [(1,), (2,), (2,)]))
        self.assertTrue(_differ([(1,), (2,)], [(1,), (2,), (2,)]))


class WorkloadFlags(unittest.TestCase):
    def test_ordered_matches_sql(self):
        for tier, workloads in (("tier1", TIER1), ("tier2", TIER2), ("tier8", TIER8)):
            for w in workloads:
                with self.subTest(f"{tier}/{w.name}"):
                    expected = not w.mutating and outermost_order_by(w.sql(0))
                    self.assertEqual(w.ordered, expected)
        for t in TIER3:
            with self.subTest(f"tier3/{t.name}"):
                # The verify queries' rows are compared as one list: ordered when a query fixes its
                # order and every other one is a lookup of one row by a unique key.
                self.assertEqual(t.ordered, any(outermost_order_by(q) for q in t.verify))
                if t.ordered:
                    for q in t.verify:
                        self.assertTrue(outermost_order_by(q) or re.search(r"WHERE (id|slot) = [0-9 %]+$", q), q)

    def test_detector(self):
        self.assertFalse(outermost_order_by("SELECT id, RANK() OVER (PARTITION BY a ORDER BY d) FROM t"))
        self.assertFalse(outermost_order_by("SELECT * FROM (SELECT * FROM t ORDER BY id LIMIT 5) s"))
        self.assertTrue(outermost_order_by("WITH s AS (SELECT 1 AS x) SELECT x FROM s ORDER BY x"))


def _duck_binary() -> Path | None:
    try:
        import duckdb_cli
    except ImportError:
        return None
    return Path(duckdb_cli.__file__).parent / "duckdb"


@unittest.skipUnless(_duck_binary(), "the duckdb-cli package is not installed (bench/.venv has it)")
class DuckCliOutput(unittest.TestCase):
    def test_cli_prints_what_parse_reads(self):
        from .systems import DuckCli

        with tempfile.TemporaryDirectory() as workdir:
            duck = DuckCli(Path(workdir))
            try:
                script = Path(workdir) / "q.sql"
                script.write_text("SELECT NULL, '', 'a|b', 'x' || chr(10) || 'y', 1.5::DOUBLE, true;\n"
                                  "SELECT ''; SELECT 'a b', 'c' UNION ALL SELECT 'a', 'b c' ORDER BY 1;\n")
                out = subprocess.run(duck.command(script), capture_output=True, text=True, check=True).stdout
            finally:
                duck.stop()
        self.assertEqual(parse_text_rows(out), [
            [None, "", "a|b", "x\ny", "1.5", "true"],
            [""],
            ["a", "b c"],
            ["a b", "c"],
        ])


if __name__ == "__main__":
    unittest.main()
