#!/usr/bin/env bash
# Error positions against PostgreSQL 15: tests/protocol/error_positions.sql runs with `psql -X
# -a` against a scratch PostgreSQL and against `kestrel serve --memory`, and where each error
# points (the ErrorResponse's P field, which psql prints as `LINE n:` and a caret) must be
# the same, as must each error's SQLSTATE; messages, details and hints are left out. Then
# tests/protocol/constraint_details.sql runs the same way, and its errors' messages and DETAIL
# lines (the values of a violated constraint's key or row) must be PostgreSQL's.
# Usage: tests/protocol/error_positions.sh [path/to/kestrel]   (default: target/debug/kestrel)
# As root, PostgreSQL runs as the user kestrel_pg (created if missing), like pg_diff.sh.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CASES=$ROOT/tests/protocol/error_positions.sql
DETAILS=$ROOT/tests/protocol/constraint_details.sql
KESTREL=${1:-}
if [[ -z $KESTREL ]]; then
    cargo build -q --bin kestrel --manifest-path "$ROOT/Cargo.toml"
    KESTREL=${CARGO_TARGET_DIR:-$ROOT/target}/debug/kestrel
fi
KESTREL=$(realpath "$KESTREL")

# shellcheck source=../../scripts/lib/pg_scratch.sh
source "$ROOT/scripts/lib/pg_scratch.sh"
# shellcheck source=../../scripts/lib/kestrel_server.sh
source "$ROOT/scripts/lib/kestrel_server.sh"
WORK=$(mktemp -d /tmp/kestrel-error-positions.XXXXXX)
chmod 755 "$WORK"
SERVER_PID=
cleanup() {
    [[ -n $SERVER_PID ]] && kill "$SERVER_PID" 2>/dev/null
    pg_scratch_stop "$WORK"
    rm -rf "$WORK"
}
trap cleanup EXIT
pg_scratch_start "$WORK" 20000 10000 || { echo "error_positions: no scratch PostgreSQL" >&2; exit 1; }

K_PORT=
for _ in $(seq 20); do
    K_PORT=$((30000 + RANDOM % 10000))
    port_in_use "$K_PORT" || break
done
kestrel_start "$KESTREL" "$K_PORT" "$WORK/kestrel.log"

# Each error as its SQLSTATE, then psql's LINE and caret lines if it had a position.
positions() { # port, user, database
    psql -X -a -h 127.0.0.1 -p "$1" -U "$2" -d "$3" -v VERBOSITY=verbose -f "$CASES" 2>&1 |
        grep -v '^\(LOCATION\|HINT\|DETAIL\|CONTEXT\):' |
        sed 's/^\(psql:[^ ]* ERROR\):  \([0-9A-Z]\{5\}\): .*/\1 \2/'
}
positions "$PG_PORT" postgres postgres >"$WORK/postgres.out"
positions "$K_PORT" kestrel kestrel >"$WORK/kestrel.out"

if diff -u "$WORK/postgres.out" "$WORK/kestrel.out"; then
    echo "ok   error positions: $(grep -c '^LINE ' "$WORK/postgres.out") placed errors as PostgreSQL's"
else
    echo "FAIL error positions differ from PostgreSQL's (- PostgreSQL, + KestrelDB)"
    echo "the server's log ends with:"
    tail -n 20 "$WORK/kestrel.log"
    exit 1
fi

# Each error's message and DETAIL line.
details() { # port, user, database
    psql -X -h 127.0.0.1 -p "$1" -U "$2" -d "$3" -f "$DETAILS" 2>&1 | grep '^\(psql:.* ERROR\|DETAIL\):'
}
details "$PG_PORT" postgres postgres >"$WORK/postgres_details.out"
details "$K_PORT" kestrel kestrel >"$WORK/kestrel_details.out"
if diff -u "$WORK/postgres_details.out" "$WORK/kestrel_details.out"; then
    echo "ok   constraint details: $(grep -c '^DETAIL' "$WORK/postgres_details.out") DETAIL lines as PostgreSQL's"
else
    echo "FAIL constraint details differ from PostgreSQL's (- PostgreSQL, + KestrelDB)"
    exit 1
fi
