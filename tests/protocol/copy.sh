#!/usr/bin/env bash
# COPY through psql against `kestrel serve` and a scratch PostgreSQL 15, whose outputs must
# be identical: COPY FROM STDIN with inline data (psql -f), \copy from and to client files,
# COPY TO STDOUT in text and CSV, a bad line (error and CONTEXT), a COPY failing inside a
# transaction block, a load of 200,000 rows. CopyFail and a client that disconnects
# mid-COPY are in crates/server/tests/copy.rs.
# Usage: tests/protocol/copy.sh [path/to/kestrel]   (default: target/debug/kestrel, built first)
set -euo pipefail

cd "$(dirname "$0")/../.."
KESTREL=${1:-}
if [ -z "$KESTREL" ]; then
    cargo build -q -p kestrel-cli
    KESTREL=${CARGO_TARGET_DIR:-target}/debug/kestrel
fi
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
[[ -x $PGBIN/initdb ]] || { echo "copy.sh: no PostgreSQL 15 at $PGBIN (set PGBIN)" >&2; exit 2; }

WORK=$(mktemp -d /tmp/kestrel-copy-test.XXXXXX)
chmod 755 "$WORK"
KESTREL_PORT=$((27000 + RANDOM % 3000))
PG_PORT=$((26000 + RANDOM % 1000))
as_pg=()
if [[ $(id -u) -eq 0 ]]; then
    id kestrel_pg >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin kestrel_pg
    mkdir "$WORK/pg" && chown kestrel_pg "$WORK/pg"
    as_pg=(runuser -u kestrel_pg --)
else
    mkdir "$WORK/pg"
fi
cleanup() {
    [[ -n ${SERVER_PID:-} ]] && kill "$SERVER_PID" 2>/dev/null
    if [[ -f $WORK/pg/data/postmaster.pid ]]; then
        "${as_pg[@]}" "$PGBIN/pg_ctl" -D "$WORK/pg/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

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
SQL

run() { # name, port, user
    "${@:4}" psql -X -h 127.0.0.1 -p "$2" -U "$3" -d postgres -f "$WORK/script.sql" >"$WORK/$1.out" 2>&1 || true
    mv "$WORK/out.txt" "$WORK/$1.out.txt"
}
for _ in $(seq 50); do
    psql -X -h 127.0.0.1 -p "$KESTREL_PORT" -U postgres -d postgres -c '' >/dev/null 2>&1 && break
    sleep 0.1
done
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
if [ "$failures" -ne 0 ]; then
    echo "server log:"; cat "$WORK/server.log"
    exit 1
fi
echo "all COPY checks passed"
