"""The checks of cross_check.sh: argv = psql, port, work dir, fixture dir."""
import datetime
import decimal
import subprocess
import sys
import uuid

import duckdb
import pyarrow.parquet as pq

PSQL, PORT, WORK, DATA = sys.argv[1:5]

# Every type COPY TO writes, NULLs in each column.
ROWS = [
    (1, 9000000000, 7, 1.25, -2.5, decimal.Decimal("12345.678"), "1.5", "one",
     datetime.date(2024, 2, 29), datetime.datetime(2024, 1, 2, 3, 4, 5, 500000),
     datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc), True,
     datetime.time(10, 11, 12), b"\x01\x02", uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")),
    (2,) + (None,) * 14,
    (3, -1, -32768, 0.0, 1e300, decimal.Decimal("-0.001"), "123456789012345678901234567890.5",
     "", datetime.date(1970, 1, 1), datetime.datetime(1900, 1, 1), None, False,
     datetime.time(0, 0), b"", uuid.UUID(int=0)),
]
SQL = """
SET TimeZone = 'UTC';
CREATE TABLE t (id int, big bigint, small smallint, r real, d double precision,
  n numeric(12,3), u numeric, s text, day date, ts timestamp, tz timestamptz, b boolean,
  tm time, by bytea, id2 uuid);
INSERT INTO t VALUES
  (1, 9000000000, 7, 1.25, -2.5, 12345.678, 1.5, 'one', '2024-02-29', '2024-01-02 03:04:05.5',
   '2024-01-02 03:04:05+00', true, '10:11:12', '\\x0102', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'),
  (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (3, -1, -32768, 0, 1e300, -0.001, 123456789012345678901234567890.5, '', '1970-01-01',
   '1900-01-01 00:00:00', NULL, false, '00:00:00', '\\x', '00000000-0000-0000-0000-000000000000');
COPY t TO '{work}/t.parquet' (FORMAT parquet);
"""


def psql(sql):
    return subprocess.run(
        [PSQL, "-h", "127.0.0.1", "-p", PORT, "-U", "kestrel", "-d", "kestrel", "-X", "-q",
         "-v", "ON_ERROR_STOP=1", "-A", "-t", "-F", "|", "-c", sql],
        check=True, capture_output=True, text=True,
    ).stdout


def normalize(row):
    out = []
    for v in row:
        if isinstance(v, datetime.datetime) and v.tzinfo is not None:
            v = v.astimezone(datetime.timezone.utc)
        if isinstance(v, (bytes, bytearray)):
            v = bytes(v)
        if isinstance(v, uuid.UUID):
            v = v.bytes
        out.append(v)
    return tuple(out)


def check(name, got, want):
    got = [normalize(r) for r in got]
    want = [normalize(r) for r in want]
    if got != want:
        print(f"FAIL {name}")
        for g, w in zip(got, want):
            if g != w:
                print(f"  got  {g}\n  want {w}")
        sys.exit(1)
    print(f"ok   {name}")


def main():
    psql(SQL.format(work=WORK))
    path = f"{WORK}/t.parquet"
    table = pq.read_table(path)
    check("pyarrow reads COPY TO parquet", sorted(zip(*[c.to_pylist() for c in table.columns]),
                                                  key=lambda r: r[0]), ROWS)
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    duck = con.execute(f"SELECT * FROM read_parquet('{path}') ORDER BY id").fetchall()
    want = [r[:14] + (r[14].bytes if r[14] else None,) for r in ROWS]
    duck = [r[:14] + (r[14].bytes if isinstance(r[14], uuid.UUID) else r[14],) for r in duck]
    check("duckdb reads COPY TO parquet", duck, want)

    # KestrelDB's read_parquet of the fixture, and a file_fdw foreign table over it: the
    # same text as pyarrow's values.
    fixture = f"{DATA}/types.parquet"
    psql(f"""CREATE EXTENSION file_fdw; CREATE SERVER files FOREIGN DATA WRAPPER file_fdw;
CREATE FOREIGN TABLE fixture_types (i32 int, i64 bigint, i16 smallint, f32 real,
  f64 double precision, s text, d date, ts timestamp, tstz timestamptz, b boolean,
  dec numeric(10,2), arr int[]) SERVER files OPTIONS (filename '{fixture}', format 'parquet');""")
    arrow = pq.read_table(fixture, columns=["i32", "i64", "s", "d", "b", "dec"])
    def pg_text(v):
        return "" if v is None else {True: "t", False: "f"}.get(v, str(v)) if isinstance(v, bool) else str(v)

    want = ["|".join(pg_text(v) for v in row)
            for row in zip(*[c.to_pylist() for c in arrow.columns])]
    for source in (f"read_parquet('{fixture}')", "fixture_types"):
        got = psql(f"SELECT i32, i64, s, d, b, dec FROM {source}").splitlines()
        if got != want:
            print(f"FAIL {source} of types.parquet\n  got  {got}\n  want {want}")
            sys.exit(1)
        print(f"ok   {source} of types.parquet agrees with pyarrow")

main()
