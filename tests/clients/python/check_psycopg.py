"""psycopg 3: connection, parameters, binary results, pipeline mode, COPY, executemany,
transactions and savepoints (nested conn.transaction())."""

import datetime
from decimal import Decimal

import psycopg

from harness import Checks, expect, settings

checks = Checks("psycopg")


def connect(**kwargs):
    host, port, user, database = settings()
    return psycopg.connect(host=host, port=port, user=user, dbname=database, **kwargs)


def fresh_table(conn, name, columns):
    conn.execute(f"DROP TABLE IF EXISTS {name}")
    conn.execute(f"CREATE TABLE {name} ({columns})")


@checks.check
def connect_and_select():
    with connect() as conn:
        expect(conn.execute("SELECT 1").fetchone(), (1,))
        expect(conn.info.server_version >= 150000, True, "server_version >= 15")


@checks.check
def params():
    with connect() as conn:
        row = conn.execute(
            "SELECT %s::int + 1, %s || 'x', %s::text IS NULL, %s::float8 * 2, %s::numeric",
            (41, "a", None, 1.25, Decimal("3.10")),
        ).fetchone()
        expect(row, (42, "ax", True, 2.5, Decimal("3.10")))


@checks.check
def binary_results():
    with connect() as conn:
        cur = conn.cursor(binary=True)
        cur.execute(
            "SELECT 7::int2, 70000::int4, 5000000000::int8, 'kestrel'::text, true, 1.5::float8,"
            " 12.345::numeric, DATE '2024-02-29', TIMESTAMPTZ '2024-02-29 12:34:56+00',"
            " TIMESTAMP '2024-02-29 12:34:56', ARRAY[1, 2, 3]::int4[]"
        )
        expect(
            cur.fetchone(),
            (
                7,
                70000,
                5000000000,
                "kestrel",
                True,
                1.5,
                Decimal("12.345"),
                datetime.date(2024, 2, 29),
                datetime.datetime(2024, 2, 29, 12, 34, 56, tzinfo=datetime.timezone.utc),
                datetime.datetime(2024, 2, 29, 12, 34, 56),
                [1, 2, 3],
            ),
        )


@checks.check
def pipeline():
    with connect() as conn:
        fresh_table(conn, "psycopg_pipeline", "id int PRIMARY KEY, v text")
        with conn.pipeline():
            conn.execute("INSERT INTO psycopg_pipeline VALUES (%s, %s)", (1, "a"))
            conn.execute("INSERT INTO psycopg_pipeline VALUES (%s, %s)", (2, "b"))
            cur = conn.execute("SELECT count(*) FROM psycopg_pipeline")
        expect(cur.fetchone(), (2,))


@checks.check
def copy_from():
    with connect() as conn:
        fresh_table(conn, "psycopg_copy_from", "id int, v text, d date")
        with conn.cursor() as cur:
            with cur.copy("COPY psycopg_copy_from (id, v, d) FROM STDIN") as copy:
                copy.write_row((1, "one", datetime.date(2024, 1, 1)))
                copy.write_row((2, None, None))
                copy.write_row((3, "tab\there", datetime.date(2024, 12, 31)))
            rows = cur.execute("SELECT id, v, d FROM psycopg_copy_from ORDER BY id").fetchall()
        expect(
            rows,
            [
                (1, "one", datetime.date(2024, 1, 1)),
                (2, None, None),
                (3, "tab\there", datetime.date(2024, 12, 31)),
            ],
        )


@checks.check
def copy_to():
    with connect() as conn:
        fresh_table(conn, "psycopg_copy_to", "id int, v text")
        conn.execute("INSERT INTO psycopg_copy_to VALUES (1, 'one'), (2, NULL)")
        with conn.cursor() as cur:
            with cur.copy("COPY (SELECT id, v FROM psycopg_copy_to ORDER BY id) TO STDOUT") as copy:
                data = b"".join(bytes(block) for block in copy)
        expect(data, b"1\tone\n2\t\\N\n")


@checks.check
def executemany():
    with connect() as conn:
        fresh_table(conn, "psycopg_many", "id int, v text")
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO psycopg_many VALUES (%s, %s)", [(i, f"v{i}") for i in range(50)]
            )
            expect(cur.execute("SELECT count(*), sum(id) FROM psycopg_many").fetchone(), (50, 1225))


@checks.check
def returning():
    with connect() as conn:
        fresh_table(conn, "psycopg_returning", "id serial PRIMARY KEY, v text")
        inserted = conn.execute(
            "INSERT INTO psycopg_returning (v) VALUES (%s), (%s) RETURNING id, v", ("a", "b")
        ).fetchall()
        expect(inserted, [(1, "a"), (2, "b")], "INSERT")
        updated = conn.execute(
            "UPDATE psycopg_returning SET v = upper(v) WHERE id = %s RETURNING *", (1,)
        ).fetchall()
        expect(updated, [(1, "A")], "UPDATE")
        deleted = conn.execute("DELETE FROM psycopg_returning WHERE id = %s RETURNING id", (2,))
        expect(deleted.fetchall(), [(2,)], "DELETE")


@checks.check
def server_side_cursor():
    with connect() as conn:
        with conn.cursor(name="psycopg_named") as cur:  # DECLARE ... CURSOR, then FETCH
            cur.itersize = 7
            cur.execute("SELECT x FROM generate_series(1, 20) AS x ORDER BY x")
            expect(cur.fetchmany(3), [(1,), (2,), (3,)], "first rows")
            expect(sum(row[0] for row in cur), 204, "the rest")


@checks.check
def transaction():
    with connect() as conn:
        fresh_table(conn, "psycopg_txn", "id int")
        conn.commit()
        with conn.transaction():
            conn.execute("INSERT INTO psycopg_txn VALUES (1)")
        try:
            with conn.transaction():
                conn.execute("INSERT INTO psycopg_txn VALUES (2)")
                raise LookupError("roll back")
        except LookupError:
            pass
        expect(conn.execute("SELECT array_agg(id) FROM psycopg_txn").fetchone(), ([1],))


@checks.check
def savepoints():
    with connect(autocommit=True) as conn:
        fresh_table(conn, "psycopg_savepoint", "id int")
        with conn.transaction():
            conn.execute("INSERT INTO psycopg_savepoint VALUES (1)")
            try:
                with conn.transaction():  # a savepoint inside the outer transaction
                    conn.execute("INSERT INTO psycopg_savepoint VALUES (2)")
                    conn.execute("SELECT 1 / 0")
            except psycopg.errors.DivisionByZero:
                pass
            with conn.transaction():
                conn.execute("INSERT INTO psycopg_savepoint VALUES (3)")
        rows = conn.execute("SELECT id FROM psycopg_savepoint ORDER BY id").fetchall()
        expect(rows, [(1,), (3,)])


@checks.check
def server_error():
    with connect() as conn:
        try:
            conn.execute("SELECT 1 / 0")
        except psycopg.errors.DivisionByZero as error:
            expect(error.sqlstate, "22012", "sqlstate")
        else:
            raise AssertionError("division by zero did not fail")
        conn.rollback()
        expect(conn.execute("SELECT 2").fetchone(), (2,), "after the error")


if __name__ == "__main__":
    checks.run()
