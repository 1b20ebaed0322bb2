"""pgvector's Python package over psycopg 3: vector values sent and read in the binary
format (vector_send/vector_recv) and as text, as numpy arrays, and every distance operator
cross-checked against numpy on random vectors.

PostgreSQL 15 here has no pgvector extension: against a server that does not offer it
every check has nothing to test and passes at once, so the runner's PostgreSQL pass stays
green and the checks bite on KestrelDB, where it is built in. Each connection installs it
first, as an application does."""

import numpy as np
import psycopg
from pgvector.psycopg import register_vector

from harness import Checks, expect, settings

checks = Checks("pgvector")

DIMS = 16
ROWS = 200


def connect():
    host, port, user, database = settings()
    conn = psycopg.connect(host=host, port=port, user=user, dbname=database, autocommit=True)
    available = conn.execute(
        "SELECT count(*) FROM pg_available_extensions WHERE name = 'vector'"
    ).fetchone()
    if available[0] == 0:
        conn.close()
        return None
    conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    register_vector(conn)
    return conn


def random_rows(seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((ROWS, DIMS)).astype(np.float32)


def load(conn, name, vectors, binary):
    conn.execute(f"DROP TABLE IF EXISTS {name}")
    conn.execute(f"CREATE TABLE {name} (id int PRIMARY KEY, embedding vector({DIMS}))")
    with conn.cursor() as cur:
        with cur.copy(
            f"COPY {name} (id, embedding) FROM STDIN" + (" WITH (FORMAT binary)" if binary else "")
        ) as copy:
            if binary:
                copy.set_types(["int4", "vector"])
            for i, v in enumerate(vectors):
                copy.write_row((i, v))


@checks.check
def round_trip_binary_and_text():
    conn = connect()
    if conn is None:
        return
    with conn:
        value = np.array([1.5, -2.0, 3.25e-3], dtype=np.float32)
        for binary in (True, False):
            row = conn.cursor(binary=binary).execute("SELECT %s::vector", (value,)).fetchone()
            expect(row[0].dtype, np.dtype(np.float32), f"dtype (binary={binary})")
            expect(row[0].tolist(), value.tolist(), f"value (binary={binary})")
        text = conn.execute("SELECT %s::vector::text", (value,)).fetchone()[0]
        expect(text, "[1.5,-2,0.00325]", "vector_out")


@checks.check
def copy_binary_and_text():
    conn = connect()
    if conn is None:
        return
    with conn:
        vectors = random_rows(1)
        for binary in (True, False):
            load(conn, "pgv_copy", vectors, binary)
            rows = conn.cursor(binary=True).execute(
                "SELECT embedding FROM pgv_copy ORDER BY id"
            ).fetchall()
            got = np.stack([r[0] for r in rows])
            expect(bool(np.array_equal(got, vectors)), True, f"rows equal (binary={binary})")


@checks.check
def distances_match_numpy():
    conn = connect()
    if conn is None:
        return
    with conn:
        vectors = random_rows(2)
        load(conn, "pgv_dist", vectors, True)
        query = random_rows(3)[0]
        a = vectors.astype(np.float64)
        q = query.astype(np.float64)
        expected = {
            "<->": np.sqrt(((a - q) ** 2).sum(axis=1)),
            "<#>": -(a @ q),
            "<=>": 1 - (a @ q) / (np.linalg.norm(a, axis=1) * np.linalg.norm(q)),
            "<+>": np.abs(a - q).sum(axis=1),
        }
        for op, want in expected.items():
            rows = conn.execute(
                f"SELECT id, embedding {op} %s FROM pgv_dist ORDER BY id", (query,)
            ).fetchall()
            got = np.array([r[1] for r in rows])
            if not np.allclose(got, want, rtol=1e-5, atol=1e-5):
                worst = int(np.argmax(np.abs(got - want)))
                raise AssertionError(f"{op}: row {worst} got {got[worst]}, numpy {want[worst]}")
            top = conn.execute(
                f"SELECT id FROM pgv_dist ORDER BY embedding {op} %s LIMIT 10", (query,)
            ).fetchall()
            expect([r[0] for r in top], np.argsort(want, kind="stable")[:10].tolist(), f"{op} top 10")


@checks.check
def functions_match_numpy():
    conn = connect()
    if conn is None:
        return
    with conn:
        vectors = random_rows(4)
        load(conn, "pgv_fn", vectors, False)
        norms = conn.execute("SELECT vector_norm(embedding) FROM pgv_fn ORDER BY id").fetchall()
        want = np.linalg.norm(vectors.astype(np.float64), axis=1)
        expect(bool(np.allclose([r[0] for r in norms], want, rtol=1e-9)), True, "vector_norm")
        avg = conn.execute("SELECT avg(embedding), sum(embedding) FROM pgv_fn").fetchone()
        a = vectors.astype(np.float64)
        expect(bool(np.allclose(avg[0], a.mean(axis=0), rtol=1e-5, atol=1e-6)), True, "avg")
        expect(bool(np.allclose(avg[1], a.sum(axis=0), rtol=1e-4, atol=1e-4)), True, "sum")
        unit = conn.execute("SELECT l2_normalize(embedding) FROM pgv_fn WHERE id = 0").fetchone()
        expect(bool(np.allclose(unit[0], vectors[0] / np.linalg.norm(vectors[0]))), True, "l2_normalize")


if __name__ == "__main__":
    checks.run()
