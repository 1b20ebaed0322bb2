#!/usr/bin/env bash
# Files written and read by KestrelDB, checked by two other readers: a `kestrel serve`
# writes a table to Parquet with COPY ... (FORMAT parquet), and DuckDB and pyarrow must
# read back exactly the values inserted; KestrelDB's read_parquet of the committed fixture
# must give what pyarrow reads. Installs pyarrow and duckdb into tests/files/.venv.
# Usage: tests/files/cross_check.sh [path/to/kestrel]   (default: target/debug/kestrel)
set -euo pipefail

cd "$(dirname "$0")/../.."
KESTREL=${1:-}
if [ -z "$KESTREL" ]; then
    cargo build -q -p kestrel-cli
    KESTREL=${CARGO_TARGET_DIR:-target}/debug/kestrel
fi
PSQL=${PGBIN:-/usr/lib/postgresql/15/bin}/psql
VENV=tests/files/.venv
if [[ ! -x $VENV/bin/python ]]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/python" -c 'import pyarrow, duckdb' 2>/dev/null \
    || "$VENV/bin/pip" install -q -r tests/files/requirements.txt

WORK=$(mktemp -d /tmp/kestrel-files-check.XXXXXX)
PORT=$((27000 + RANDOM % 3000))
cleanup() {
    [[ -n ${SERVER_PID:-} ]] && kill "$SERVER_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
"$KESTREL" serve --memory --port "$PORT" 2>"$WORK/server.log" &
SERVER_PID=$!
for _ in $(seq 100); do
    "$PSQL" -h 127.0.0.1 -p "$PORT" -U kestrel -d kestrel -c 'SELECT 1' >/dev/null 2>&1 && break
    sleep 0.1
done
"$VENV/bin/python" tests/files/cross_check.py "$PSQL" "$PORT" "$WORK" "$PWD/tests/data/files"
