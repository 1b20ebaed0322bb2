#!/usr/bin/env bash
# COPY through psql against `kestrel serve` and a scratch PostgreSQL 15, whose outputs must
# be identical: COPY FROM STDIN with inline data (psql -f), \copy from and to client files,
# COPY TO STDOUT in text and CSV, a bad line (error and CONTEXT), a COPY failing inside a
# transaction block, a load of 200,000 rows, binary COPY of every type (bit strings and timetz too) (the files written
# must be byte-identical) loaded back, and binary format errors. CopyFail and a client that disconnects
# mid-COPY are in crates/server/tests/copy.rs.
# Usage: tests/protocol/copy.sh [path/to/kestrel]   (default: target/debug/kestrel, built first)
set -euo pipefail

source "$(dirname "$0")/scratch_servers.sh"
scratch_servers copy "$@"

"$KESTREL" serve --memory --port "$KESTREL_PORT" 2>"$WORK/server.log" &
SERVER_PID=$!
(cd "$WORK/pg" && "${as_pg[@]}" "$PGBIN/initdb" -D "$WORK/pg/data" -A trust -U postgres -E UTF8 \
    --locale=C.UTF-8 --no-sync >"$WORK/initdb.log" 2>&1)
(cd "$WORK/pg" && "${as_pg[@]}" "$PGBIN/pg_ctl" -D "$WORK/pg/data" -l "$WORK/pg/log" -w \
    -o "-p $PG_PORT -k $WORK/pg -c listen_addresses=127.0.0.1 -c fsync=off -c timezone=UTC" \
    start >/dev/null)

seq 1 200000 | awk '{ printf "%d\tname %d\t%d.5\n", $1, $1, $1 % 1000 }' >"$WORK/big.txt"
printf 'id,name\n5,"five, quoted"\n6,"six\nlines"\n' >"$WORK/in.csv"

cat >"$WORK/script.sql" <<SQL
CREATE TABLE t (id int PRIMARY KEY, name text, n numeric DEFAULT 2.5);
COPY t (id, name) FROM STDIN;
1	one
2	\N
3	tab\there
\.
\copy t (id, name) from '$WORK/in.csv' with (format csv, header)
\copy t to '$WORK/out.txt'
COPY (SELECT * FROM t ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER, FORCE_QUOTE (name));
COPY t FROM STDIN;
9	nine	x
\.
BEGIN;
COPY t FROM STDIN;
100	hundred	1
101	hundred and one	1e
\.
SELECT 1;
ROLLBACK;
SELECT count(*) FROM t;
CREATE TABLE big (id int PRIMARY KEY, name text, n numeric);
\copy big from '$WORK/big.txt'
SELECT count(*), sum(id), sum(n), max(name) FROM big;
\copy (select * from big where id % 50000 = 0 order by id) to stdout
CREATE TABLE every (b bool, i2 int2, i4 int, i8 bigint, f4 real, f8 float8, n numeric,
    n2 numeric(10,2), t text, v varchar(5), c char(3), d date, ts timestamp, tz timestamptz,
    iv interval, by bytea, u uuid, j json, jb jsonb, ai int[], at varchar[],
    bt bit(10), vb varbit, tt timetz);
INSERT INTO every VALUES (true, -2, 40000, 9000000000, 1.5, -2.25, 123456.789, -3.5, 'héllo',
    'ab', 'x', '2024-02-29', '2024-01-02 03:04:05.678', '2024-01-02 03:04:05+00',
    '1 year 2 mons 3 days 04:05:06.5', '\xdeadbeef', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    '{"a": [1, 2]}', '{"b": null, "a": 1}', '{1,NULL,3}', '{x,"y z"}', B'1010000011', B'101',
    '04:05:06.5+02'),
    (false, 0, 0, 0, 0, 0, 0, 0, '', '', '', '1999-12-31', '1970-01-01', '1970-01-01 00:00:00+00',
    '0', '', '00000000-0000-0000-0000-000000000000', '[]', '{}', '{}', '{}', B'0000000000', B'',
    '00:00:00-15:59'),
    (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
\copy every to '$WORK/every.bin' with (format binary)
CREATE TABLE every2 (b bool, i2 int2, i4 int, i8 bigint, f4 real, f8 float8, n numeric,
    n2 numeric(10,2), t text, v varchar(5), c char(3), d date, ts timestamp, tz timestamptz,
    iv interval, by bytea, u uuid, j json, jb jsonb, ai int[], at varchar[],
    bt bit(10), vb varbit, tt timetz);
\copy every2 from '$WORK/every.bin' with (format binary)
SELECT * FROM every2;
\copy every2 (i4, t) from '$WORK/every.bin' with (format binary)
\copy every2 from '$WORK/big.txt' with (format binary)
CREATE TABLE two (a int, b text);
\copy two from '$WORK/two.bin' with (format binary)
\copy two from '$WORK/two-bad.bin' with (format binary)
\copy two from '$WORK/two-short.bin' with (format binary)
SELECT * FROM two;
SQL
# Hand-made binary files: two rows then the trailer; a 5-byte int4 on line 2; a row cut
# short after its first field.
header='PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0'
row1='\0\2\0\0\0\4\0\0\0\1\0\0\0\2hi'
row2='\0\2\0\0\0\4\0\0\0\2\377\377\377\377'
printf "$header$row1$row2\377\377" >"$WORK/two.bin"
printf "$header$row1\0\2\0\0\0\5\0\0\0\0\1\377\377\377\377\377\377" >"$WORK/two-bad.bin"
printf "$header$row1\0\2\0\0\0\4\0\0\0\3" >"$WORK/two-short.bin"

run() { # name, port, user
    "${@:4}" psql -X -h 127.0.0.1 -p "$2" -U "$3" -d postgres -f "$WORK/script.sql" >"$WORK/$1.out" 2>&1 || true
    mv "$WORK/out.txt" "$WORK/$1.out.txt"
    mv "$WORK/every.bin" "$WORK/$1.every.bin"
}
kestrel_wait "$KESTREL_PORT" postgres
run postgres "$PG_PORT" postgres
run kestrel "$KESTREL_PORT" postgres

failures=0
for file in out out.txt; do
    if diff -u "$WORK/postgres.$file" "$WORK/kestrel.$file" >"$WORK/diff"; then
        echo "ok   psql output ($file) identical to PostgreSQL's"
    else
        echo "FAIL psql output ($file) differs from PostgreSQL's:"; cat "$WORK/diff"
        failures=$((failures + 1))
    fi
done
if cmp "$WORK/postgres.every.bin" "$WORK/kestrel.every.bin"; then
    echo "ok   binary COPY TO file identical to PostgreSQL's"
else
    echo "FAIL binary COPY TO file differs from PostgreSQL's:"
    diff <(od -An -c "$WORK/postgres.every.bin") <(od -An -c "$WORK/kestrel.every.bin") || true
    failures=$((failures + 1))
fi
if [ "$failures" -ne 0 ]; then
    echo "server log:"; cat "$WORK/server.log"
    exit 1
fi
echo "all COPY checks passed"
