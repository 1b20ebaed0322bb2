"""asyncpg: connection, fetch, prepared statements and their introspection, binary COPY
(copy_records_to_table), executemany, transactions and nested savepoints, type round trips,
enum parameters, row types and composite parameters."""

import datetime
from decimal import Decimal

import asyncpg

from harness import Checks, expect, settings

checks = Checks("asyncpg")


async def connect():
    host, port, user, database = settings()
    return await asyncpg.connect(host=host, port=port, user=user, database=database, ssl=False)


async def fresh_table(conn, name, columns):
    await conn.execute(f"DROP TABLE IF EXISTS {name}")
    await conn.execute(f"CREATE TABLE {name} ({columns})")


@checks.check
async def connect_and_fetch():
    conn = await connect()
    try:
        rows = await conn.fetch("SELECT x, x * 2 AS double FROM generate_series(1, 3) AS x")
        expect([tuple(row) for row in rows], [(1, 2), (2, 4), (3, 6)])
        expect(rows[0]["double"], 2, "column by name")
        expect(await conn.fetchval("SELECT $1::text || '!'", "hi"), "hi!")
    finally:
        await conn.close()


@checks.check
async def prepared_introspection():
    conn = await connect()
    try:
        stmt = await conn.prepare("SELECT $1::int + $2::int8 AS total, $3::text AS label")
        expect([t.name for t in stmt.get_parameters()], ["int4", "int8", "text"], "parameters")
        expect(
            [(a.name, a.type.name) for a in stmt.get_attributes()],
            [("total", "int8"), ("label", "text")],
            "attributes",
        )
        expect(tuple(await stmt.fetchrow(1, 2, "x")), (3, "x"))
        expect(tuple(await stmt.fetchrow(10, 20, "y")), (30, "y"), "second execution")
    finally:
        await conn.close()


@checks.check
async def types_round_trip():
    moment = datetime.datetime(2024, 3, 10, 8, 30, 15, 250000, tzinfo=datetime.timezone.utc)
    values = (Decimal("-12345.678"), datetime.date(2024, 2, 29), moment, True, ["a", None, "c"], 2**40)
    conn = await connect()
    try:
        row = await conn.fetchrow(
            "SELECT $1::numeric, $2::date, $3::timestamptz, $4::bool, $5::text[], $6::int8",
            *values,
        )
        expect(tuple(row), values)
    finally:
        await conn.close()


@checks.check
async def copy_records_to_table():
    conn = await connect()
    try:
        await fresh_table(conn, "asyncpg_copy", "id int, v text, n numeric, d date")
        records = [(i, f"v{i}", Decimal(i) / 4, datetime.date(2024, 1, 1 + i)) for i in range(5)]
        await conn.copy_records_to_table("asyncpg_copy", records=records)
        rows = await conn.fetch("SELECT id, v, n, d FROM asyncpg_copy ORDER BY id")
        expect([tuple(row) for row in rows], records)
    finally:
        await conn.close()


@checks.check
async def enums_and_row_types():
    """asyncpg introspects user types through pg_type (typtype is a "char") and binds an
    enum parameter with the type the server infers for it."""
    conn = await connect()
    try:
        await conn.execute("DROP TABLE IF EXISTS asyncpg_moods")
        await conn.execute("DROP TYPE IF EXISTS asyncpg_mood")
        await conn.execute("CREATE TYPE asyncpg_mood AS ENUM ('sad', 'ok', 'happy')")
        await fresh_table(conn, "asyncpg_moods", "id int, m asyncpg_mood")
        await conn.execute("INSERT INTO asyncpg_moods VALUES ($1, $2)", 1, "ok")
        await conn.executemany("INSERT INTO asyncpg_moods VALUES ($1, $2)", [(2, "happy"), (3, "sad")])
        rows = await conn.fetch("SELECT id, m FROM asyncpg_moods WHERE m >= $1 ORDER BY id", "ok")
        expect([tuple(row) for row in rows], [(1, "ok"), (2, "happy")])
        await fresh_table(conn, "asyncpg_points", "x int, label text")
        await conn.execute("INSERT INTO asyncpg_points VALUES (1, 'a')")
        row = await conn.fetchval("SELECT p FROM asyncpg_points AS p")
        expect(tuple(row), (1, "a"), "a table's row type")
    finally:
        await conn.close()


@checks.check
async def composite_parameters():
    """A composite type's values as parameters and results, which asyncpg sends and reads
    in binary (record_send / record_recv: field count, then each field's type OID, length
    and value)."""
    conn = await connect()
    try:
        await conn.execute("DROP TABLE IF EXISTS asyncpg_pairs")
        await conn.execute("DROP TYPE IF EXISTS asyncpg_pair")
        await conn.execute("CREATE TYPE asyncpg_pair AS (a int, b text, d date)")
        await fresh_table(conn, "asyncpg_pairs", "id int, p asyncpg_pair")
        day = datetime.date(2024, 1, 2)
        await conn.execute("INSERT INTO asyncpg_pairs VALUES ($1, $2)", 1, (1, "x", day))
        await conn.execute("INSERT INTO asyncpg_pairs VALUES ($1, $2)", 2, (None, 'y "q"', None))
        rows = await conn.fetch("SELECT id, p FROM asyncpg_pairs ORDER BY id")
        expect([(row["id"], tuple(row["p"])) for row in rows], [(1, (1, "x", day)), (2, (None, 'y "q"', None))])
        expect(await conn.fetchval("SELECT ($1::asyncpg_pair).b", (5, "five", None)), "five", "a field of a parameter")
    finally:
        await conn.close()


@checks.check
async def enum_arrays_and_type_oids():
    """An enum column is described with the enum's OID and a mood[] one with its array
    type's, which asyncpg looks up in pg_type (typarray, typelem) to decode and encode."""
    conn = await connect()
    try:
        await conn.execute("DROP TABLE IF EXISTS asyncpg_mood_lists")
        await conn.execute("DROP TYPE IF EXISTS asyncpg_feeling")
        await conn.execute("CREATE TYPE asyncpg_feeling AS ENUM ('low', 'fine', 'high')")
        await fresh_table(conn, "asyncpg_mood_lists", "id int, f asyncpg_feeling, fs asyncpg_feeling[]")
        await conn.execute(
            "INSERT INTO asyncpg_mood_lists VALUES ($1, $2, $3)", 1, "high", ["low", None, "fine"]
        )
        stmt = await conn.prepare("SELECT f, fs, 'pg_class'::regclass AS c FROM asyncpg_mood_lists")
        expect(
            [a.type.name for a in stmt.get_attributes()],
            ["asyncpg_feeling", "asyncpg_feeling[]", "regclass"],
            "described types",
        )
        row = await stmt.fetchrow()
        expect(tuple(row), ("high", ["low", None, "fine"], "pg_class"))
        expect(
            await conn.fetchval("SELECT $1::asyncpg_feeling[] || 'high'::asyncpg_feeling", ["fine"]),
            ["fine", "high"],
            "an array parameter",
        )
    finally:
        await conn.close()


@checks.check
async def row_type_with_enum():
    conn = await connect()
    try:
        await conn.execute("DROP TABLE IF EXISTS asyncpg_tagged")
        await conn.execute("DROP TYPE IF EXISTS asyncpg_tag")
        await conn.execute("CREATE TYPE asyncpg_tag AS ENUM ('x', 'y')")
        await fresh_table(conn, "asyncpg_tagged", "id int, t asyncpg_tag")
        await conn.execute("INSERT INTO asyncpg_tagged VALUES (1, 'y')")
        row = await conn.fetchval("SELECT r FROM asyncpg_tagged AS r")
        expect(tuple(row), (1, "y"))
    finally:
        await conn.close()


@checks.check
async def executemany():
    conn = await connect()
    try:
        await fresh_table(conn, "asyncpg_many", "id int, v text")
        await conn.executemany(
            "INSERT INTO asyncpg_many VALUES ($1, $2)", [(i, str(i)) for i in range(100)]
        )
        expect(await conn.fetchval("SELECT sum(id) FROM asyncpg_many"), 4950)
    finally:
        await conn.close()


@checks.check
async def transactions():
    conn = await connect()
    try:
        await fresh_table(conn, "asyncpg_txn", "id int")
        async with conn.transaction():
            await conn.execute("INSERT INTO asyncpg_txn VALUES (1)")
        try:
            async with conn.transaction():
                await conn.execute("INSERT INTO asyncpg_txn VALUES (2)")
                raise LookupError("roll back")
        except LookupError:
            pass
        expect(await conn.fetchval("SELECT array_agg(id) FROM asyncpg_txn"), [1])
    finally:
        await conn.close()


@checks.check
async def nested_savepoints():
    conn = await connect()
    try:
        await fresh_table(conn, "asyncpg_savepoint", "id int")
        async with conn.transaction():
            await conn.execute("INSERT INTO asyncpg_savepoint VALUES (1)")
            try:
                async with conn.transaction():
                    await conn.execute("INSERT INTO asyncpg_savepoint VALUES (2)")
                    await conn.execute("SELECT 1 / 0")
            except asyncpg.DivisionByZeroError:
                pass
        expect(await conn.fetchval("SELECT array_agg(id) FROM asyncpg_savepoint"), [1])
    finally:
        await conn.close()


if __name__ == "__main__":
    checks.run()
