"""Writes the small fixture files of tests/slt/files/ (run from anywhere; needs pyarrow).

    python3 tests/data/files/make_fixtures.py

The files are committed; this script says exactly how they were made, so they can be made
again (and their expectations checked with DuckDB by tests/files/cross_check.py).
"""
import datetime
import decimal
import os

import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, table, **kwargs):
    pq.write_table(table, os.path.join(HERE, name), **kwargs)


def main():
    utc = datetime.timezone.utc
    write(
        "types.parquet",
        pa.table(
            {
                "i32": pa.array([1, -2, None, 2147483647, 0], pa.int32()),
                "i64": pa.array([10, None, -9223372036854775808, 7, 0], pa.int64()),
                "i16": pa.array([1, 2, 3, None, -32768], pa.int16()),
                "f32": pa.array([1.5, None, -0.25, 3.0, 0.0], pa.float32()),
                "f64": pa.array([2.5, 1e100, None, -0.125, 0.0], pa.float64()),
                "s": pa.array(["a", "", None, "héllo", "x y"], pa.string()),
                "d": pa.array(
                    [datetime.date(2024, 1, 2), None, datetime.date(1970, 1, 1),
                     datetime.date(1999, 12, 31), datetime.date(2000, 2, 29)],
                    pa.date32(),
                ),
                "ts": pa.array(
                    [datetime.datetime(2024, 1, 2, 3, 4, 5, 678901), None,
                     datetime.datetime(1969, 12, 31, 23, 59, 59),
                     datetime.datetime(2000, 1, 1), datetime.datetime(2038, 1, 19, 3, 14, 8)],
                    pa.timestamp("us"),
                ),
                "tstz": pa.array(
                    [datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=utc), None, None,
                     datetime.datetime(2000, 1, 1, tzinfo=utc),
                     datetime.datetime(1990, 6, 1, 12, 0, tzinfo=utc)],
                    pa.timestamp("us", tz="UTC"),
                ),
                "b": pa.array([True, False, None, True, False], pa.bool_()),
                "dec": pa.array(
                    [decimal.Decimal("1.50"), decimal.Decimal("-12345678.99"), None,
                     decimal.Decimal("0.01"), decimal.Decimal("0.00")],
                    pa.decimal128(10, 2),
                ),
                "arr": pa.array([[1, 2], [], None, [None, 3], [4]], pa.list_(pa.int32())),
            }
        ),
    )
    # 10,000 rows in row groups of 1,000: filters on id skip row groups by statistics.
    write(
        "rowgroups.parquet",
        pa.table(
            {
                "id": pa.array(range(10000), pa.int64()),
                "grp": pa.array([f"g{i % 7}" for i in range(10000)], pa.string()),
                "qty": pa.array([i % 100 for i in range(10000)], pa.int32()),
            }
        ),
        row_group_size=1000,
    )
    for part in (1, 2):
        write(
            f"part-{part}.parquet",
            pa.table(
                {
                    "id": pa.array([part * 10 + i for i in range(3)], pa.int64()),
                    "name": pa.array([f"p{part}-{i}" for i in range(3)], pa.string()),
                }
            ),
        )
    # Same column names, another type: reading both together is a schema mismatch.
    write(
        "other-schema.parquet",
        pa.table({"id": pa.array(["x"], pa.string()), "name": pa.array(["y"], pa.string())}),
    )
    with open(os.path.join(HERE, "people.csv"), "w") as f:
        f.write(
            "name,age,score,joined,active,note\n"
            "ann,34,1.5,2024-01-02,true,\"hello, world\"\n"
            "bob,,2,2023-12-31,false,\n"
            "\"c \"\"q\"\"\",7,-0.25,,true,plain\n"
        )
    with open(os.path.join(HERE, "semicolon.csv"), "w") as f:
        f.write("# exported by a tool\n" "a;b;c\n" "1;NA;2024-05-06 07:08:09\n" "2;x;NA\n")
    with open(os.path.join(HERE, "corrupt.parquet"), "wb") as f:
        f.write(b"PAR1" + bytes(range(200)) + b"not a footer")


if __name__ == "__main__":
    main()
