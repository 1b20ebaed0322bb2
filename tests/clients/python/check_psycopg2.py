"""psycopg2: connection, execute/executemany, copy_expert, extras.execute_values, dates,
decimals and json, commit and rollback, named (server-side) cursors."""

import datetime
import io
from decimal import Decimal

import psycopg2
import psycopg2.extras

from harness import Checks, expect, settings

checks = Checks("psycopg2")


def connect():
    host, port, user, database = settings()
    return psycopg2.connect(host=host, port=port, user=user, dbname=database)


def fresh_table(cur, name, columns):
    cur.execute(f"DROP TABLE IF EXISTS {name}")
    cur.execute(f"CREATE TABLE {name} ({columns})")


@checks.check
def connect_and_select():
    with connect() as conn, conn.cursor() as cur:
        cur.execute("SELECT 1, current_user")
        expect(cur.fetchone(), (1, settings()[2]))


@checks.check
def execute_params():
    with connect() as conn, conn.cursor() as cur:
        cur.execute(
            "SELECT %s + 1, %s || 'x', %s IS NULL",
            (41, "it's", None),
        )
        expect(cur.fetchone(), (42, "it'sx", True))
        cur.execute("SELECT %(a)s * 2, %(b)s", {"a": 21, "b": "named"})
        expect(cur.fetchone(), (42, "named"))


@checks.check
def executemany():
    with connect() as conn, conn.cursor() as cur:
        fresh_table(cur, "psycopg2_many", "id int, v text")
        cur.executemany(
            "INSERT INTO psycopg2_many VALUES (%s, %s)", [(i, f"v{i}") for i in range(20)]
        )
        cur.execute("SELECT count(*), max(v) FROM psycopg2_many")
        expect(cur.fetchone(), (20, "v9"))


@checks.check
def copy_expert_from():
    with connect() as conn, conn.cursor() as cur:
        fresh_table(cur, "psycopg2_copy_from", "id int, v text")
        data = io.StringIO("1\tone\n2\t\\N\n3\tthree\n")
        cur.copy_expert("COPY psycopg2_copy_from FROM STDIN", data)
        cur.execute("SELECT id, v FROM psycopg2_copy_from ORDER BY id")
        expect(cur.fetchall(), [(1, "one"), (2, None), (3, "three")])


@checks.check
def copy_expert_csv():
    with connect() as conn, conn.cursor() as cur:
        fresh_table(cur, "psycopg2_copy_csv", "id int, v text")
        cur.copy_expert(
            "COPY psycopg2_copy_csv FROM STDIN WITH (FORMAT csv, HEADER true)",
            io.StringIO('id,v\n1,"a,b"\n2,\n'),
        )
        out = io.StringIO()
        cur.copy_expert("COPY psycopg2_copy_csv TO STDOUT WITH (FORMAT csv)", out)
        expect(out.getvalue(), '1,"a,b"\n2,\n')


@checks.check
def execute_values():
    with connect() as conn, conn.cursor() as cur:
        fresh_table(cur, "psycopg2_values", "id int, v text")
        psycopg2.extras.execute_values(
            cur, "INSERT INTO psycopg2_values (id, v) VALUES %s", [(i, str(i)) for i in range(300)]
        )
        cur.execute("SELECT count(*), sum(id) FROM psycopg2_values")
        expect(cur.fetchone(), (300, 44850))


@checks.check
def dates_and_decimals():
    moment = datetime.datetime(2024, 3, 10, 8, 30, 15, 250000, tzinfo=datetime.timezone.utc)
    with connect() as conn, conn.cursor() as cur:
        fresh_table(cur, "psycopg2_types", "d date, ts timestamptz, n numeric(12,3)")
        cur.execute(
            "INSERT INTO psycopg2_types VALUES (%s, %s, %s)",
            (datetime.date(2024, 2, 29), moment, Decimal("1234.5")),
        )
        cur.execute("SELECT d, ts, n FROM psycopg2_types")
        expect(
            cur.fetchone(),
            (datetime.date(2024, 2, 29), moment, Decimal("1234.500")),
        )


@checks.check
def json():
    with connect() as conn, conn.cursor() as cur:
        fresh_table(cur, "psycopg2_json", "j json, jb jsonb")
        document = {"a": [1, 2, {"b": None}], "c": "d"}
        cur.execute(
            "INSERT INTO psycopg2_json VALUES (%s, %s)",
            (psycopg2.extras.Json(document), psycopg2.extras.Json(document)),
        )
        cur.execute("SELECT j, jb FROM psycopg2_json")
        expect(cur.fetchone(), (document, document))


@checks.check
def commit_and_rollback():
    conn = connect()
    try:
        cur = conn.cursor()
        fresh_table(cur, "psycopg2_txn", "id int")
        conn.commit()
        cur.execute("INSERT INTO psycopg2_txn VALUES (1)")
        conn.commit()
        cur.execute("INSERT INTO psycopg2_txn VALUES (2)")
        conn.rollback()
        cur.execute("SELECT array_agg(id) FROM psycopg2_txn")
        expect(cur.fetchone(), ([1],))
    finally:
        conn.close()


@checks.check
def named_cursor():
    # DECLARE ... CURSOR WITHOUT HOLD, then FETCH FORWARD itersize, MOVE for scroll().
    with connect() as conn:
        with conn.cursor(name="psycopg2_named", scrollable=True) as cur:
            cur.itersize = 4
            cur.execute("SELECT x, 'v' || x FROM generate_series(1, 10) AS x ORDER BY x")
            expect(cur.fetchmany(3), [(1, "v1"), (2, "v2"), (3, "v3")], "first rows")
            cur.scroll(-2)
            expect(cur.fetchone(), (2, "v2"), "after scrolling back")
            expect(sum(row[0] for row in cur), 52, "the rest")


if __name__ == "__main__":
    checks.run()
