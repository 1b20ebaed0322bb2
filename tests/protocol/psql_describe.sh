#!/usr/bin/env bash
# psql's \d family against KestrelDB and PostgreSQL 15: the same schema is created in a
# scratch PostgreSQL and in `kestrel serve --memory`, each describe command is run with
# `psql -X` against both, and the outputs must be identical byte for byte.
# Usage: tests/protocol/psql_describe.sh [path/to/kestrel]   (default: target/debug/kestrel)
# As root, PostgreSQL runs as the user kestrel_pg (created if missing), like pg_diff.sh.
# KEEP_WORK=1 keeps the scratch directory (logs, schema) for a look after a failure.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
[[ -x $PGBIN/initdb ]] || { echo "psql_describe: no PostgreSQL 15 at $PGBIN" >&2; exit 2; }
KESTREL=${1:-}
if [[ -z $KESTREL ]]; then
    cargo build -q --bin kestrel --manifest-path "$ROOT/Cargo.toml"
    KESTREL=${CARGO_TARGET_DIR:-$ROOT/target}/debug/kestrel
fi
KESTREL=$(realpath "$KESTREL")

WORK=$(mktemp -d /tmp/kestrel-psql-describe.XXXXXX)
as_pg=()
if [[ $(id -u) -eq 0 ]]; then
    id kestrel_pg >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin kestrel_pg
    chown kestrel_pg "$WORK"
    as_pg=(runuser -u kestrel_pg --)
fi
SERVER_PID=
cleanup() {
    [[ -n $SERVER_PID ]] && kill "$SERVER_PID" 2>/dev/null
    if [[ -f $WORK/data/postmaster.pid ]]; then
        "${as_pg[@]}" "$PGBIN/pg_ctl" -D "$WORK/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    [[ -n ${KEEP_WORK:-} ]] || rm -rf "$WORK"
}
trap cleanup EXIT
cd "$WORK"

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() {
    local port
    while :; do
        port=$((20000 + RANDOM % 30000))
        port_in_use "$port" || { echo "$port"; return; }
    done
}

# The role and database are named kestrel on both sides, so owners and titles agree.
"${as_pg[@]}" "$PGBIN/initdb" -D "$WORK/data" -A trust -U kestrel -E UTF8 --locale=C.UTF-8 \
    --no-sync >"$WORK/initdb.log" 2>&1 || { cat "$WORK/initdb.log" >&2; exit 1; }
PG_PORT=$(free_port)
"${as_pg[@]}" "$PGBIN/pg_ctl" -D "$WORK/data" -l "$WORK/pg.log" -w -t 30 \
    -o "-p $PG_PORT -k $WORK -c listen_addresses=127.0.0.1 -c fsync=off -c timezone=UTC" \
    start >/dev/null
psql -X -q -h 127.0.0.1 -p "$PG_PORT" -U kestrel -d postgres -c 'CREATE DATABASE kestrel'

K_PORT=$(free_port)
"$KESTREL" serve --memory --port "$K_PORT" 2>"$WORK/kestrel.log" &
SERVER_PID=$!
for _ in $(seq 300); do  # up to 30 s: CI machines can be slow to start a debug build
    psql -X -h 127.0.0.1 -p "$K_PORT" -U kestrel -d kestrel -c '' >/dev/null 2>&1 && break
    sleep 0.1
done

cat >"$WORK/schema.sql" <<'SQL'
CREATE TABLE customers (
    id serial PRIMARY KEY,
    email varchar(120) NOT NULL UNIQUE,
    name text NOT NULL,
    balance numeric(12,2) NOT NULL DEFAULT 0,
    country char(2) DEFAULT 'NL',
    created date,
    note text
);
CREATE INDEX customers_name_idx ON customers (name);
CREATE INDEX customers_country_idx ON customers USING hash (country);
CREATE TABLE orders (
    order_id bigint GENERATED ALWAYS AS IDENTITY,
    customer_id integer NOT NULL,
    amount double precision,
    placed timestamp,
    PRIMARY KEY (order_id)
);
CREATE UNIQUE INDEX orders_customer_placed ON orders (customer_id, placed);
CREATE TABLE "Mixed Case" ("Key" int, value text);
CREATE VIEW big_customers AS SELECT id, name FROM customers WHERE balance > 1000;
CREATE SEQUENCE invoice_numbers INCREMENT BY 10 START WITH 100;
CREATE SCHEMA sales;
CREATE TABLE sales.invoices (id int PRIMARY KEY, customer_id int NOT NULL, total numeric(10,2));
CREATE INDEX invoices_customer_idx ON sales.invoices (customer_id);
CREATE VIEW sales.open_invoices AS SELECT id, total FROM sales.invoices WHERE total > 0;
CREATE TABLE sales.customers (id int);
COMMENT ON TABLE customers IS 'people who buy';
COMMENT ON COLUMN customers.email IS 'where invoices go';
COMMENT ON VIEW big_customers IS 'balance over 1000';
COMMENT ON SEQUENCE invoice_numbers IS 'invoice numbers';
COMMENT ON SCHEMA sales IS 'the sales department';
COMMENT ON INDEX customers_name_idx IS 'by name';
COMMENT ON CONSTRAINT customers_pkey ON customers IS 'one per customer';
SQL
for port in "$PG_PORT" "$K_PORT"; do
    psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U kestrel -d kestrel -f "$WORK/schema.sql"
done

COMMANDS=(
    '\d'
    '\dt'
    '\di'
    '\dv'
    '\ds'
    '\dn'
    '\du kestrel'
    '\l kestrel'
    '\d customers'
    '\d orders'
    '\d "Mixed Case"'
    '\d big_customers'
    '\d invoice_numbers'
    '\d customers_id_seq'
    '\d customers_pkey'
    '\d orders_customer_placed'
    '\dt+ nothing_matches'
    '\d+ customers'
    '\d+ orders'
    '\dn+'
    '\df'
    '\dT'
    '\dv+'
    '\d no_such_relation'
    '\dn'
    '\dt sales.*'
    '\d sales.invoices'
    '\d sales.customers'
    '\di sales.*'
    '\dv sales.*'
    '\d sales.open_invoices'
    '\dt *.customers'
)
# Not compared: \dt+, \di+ and \ds+ print the sizes of PostgreSQL's pages, which KestrelDB
# does not have (its sizes are 0); \d+ VIEW prints the query as PostgreSQL's deparser
# rewrites it, where KestrelDB keeps the text as written; \dd reads system columns
# (tableoid) that the catalog relations do not have.
failures=0
for command in "${COMMANDS[@]}"; do
    expected=$(psql -X -h 127.0.0.1 -p "$PG_PORT" -U kestrel -d kestrel -c "$command" 2>&1 || true)
    actual=$(psql -X -h 127.0.0.1 -p "$K_PORT" -U kestrel -d kestrel -c "$command" 2>&1 || true)
    if [[ $expected == "$actual" ]]; then
        echo "ok   $command"
    else
        echo "FAIL $command"
        diff <(echo "$expected") <(echo "$actual") | sed 's/^/  /' || true
        failures=$((failures + 1))
    fi
done
if [[ $failures -ne 0 ]]; then
    echo "$failures describe command(s) differ from PostgreSQL"
    exit 1
fi
echo "all describe commands match PostgreSQL"
