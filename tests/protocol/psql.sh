#!/usr/bin/env bash
# psql against `kestrel serve`: -c, -f, -tA, and a failing script under ON_ERROR_STOP
# (exit code 3, statements before the error applied).
# Usage: tests/protocol/psql.sh [path/to/kestrel]   (default: target/debug/kestrel, built first)
set -euo pipefail

cd "$(dirname "$0")/../.."
# shellcheck source=../../scripts/lib/kestrel_server.sh
source scripts/lib/kestrel_server.sh
KESTREL=${1:-}
if [ -z "$KESTREL" ]; then
    cargo build -q -p kestrel-cli
    KESTREL=${CARGO_TARGET_DIR:-target}/debug/kestrel
fi
PORT=${KESTREL_TEST_PORT:-$((20000 + RANDOM % 20000))}
WORK=$(mktemp -d)
"$KESTREL" serve --memory --port "$PORT" 2>"$WORK/server.log" &
SERVER_PID=$!
trap 'kill $SERVER_PID 2>/dev/null; rm -rf "$WORK"' EXIT

PSQL=(psql -X -h 127.0.0.1 -p "$PORT" -U kestrel -d kestrel)
kestrel_wait "$PORT" kestrel

failures=0
check() { # name, expected, actual
    if [ "$2" == "$3" ]; then
        echo "ok   $1"
    else
        echo "FAIL $1"; echo "  expected: $(printf %q "$2")"; echo "  actual:   $(printf %q "$3")"
        failures=$((failures + 1))
    fi
}

check "-c select" " ?column? 
----------
        1
(1 row)" "$("${PSQL[@]}" -c 'SELECT 1')"

check "-tA select" "1|x" "$("${PSQL[@]}" -tA -c "SELECT 1, 'x'")"

cat >"$WORK/setup.sql" <<'SQL'
CREATE TABLE t (a int, b text);
INSERT INTO t VALUES (1, 'one'), (2, NULL);
SELECT a, b FROM t ORDER BY a;
SQL
check "-f script" "CREATE TABLE
INSERT 0 2
1|one
2|" "$("${PSQL[@]}" -tA -f "$WORK/setup.sql")"

cat >"$WORK/failing.sql" <<'SQL'
INSERT INTO t VALUES (3, 'three');
SELECT 1/0;
INSERT INTO t VALUES (4, 'four');
SQL
set +e
"${PSQL[@]}" -v ON_ERROR_STOP=1 -f "$WORK/failing.sql" >"$WORK/out" 2>"$WORK/err"
status=$?
set -e
check "ON_ERROR_STOP exit code" "3" "$status"
check "ON_ERROR_STOP error" "psql:$WORK/failing.sql:2: ERROR:  division by zero" "$(cat "$WORK/err")"
check "statements before the error applied" "1,2,3" "$("${PSQL[@]}" -tA -c 'SELECT a FROM t ORDER BY a' | paste -sd,)"

check "empty query" "" "$("${PSQL[@]}" -c '')"

if [ "$failures" -ne 0 ]; then
    echo "$failures psql check(s) failed; server log:"; cat "$WORK/server.log"
    exit 1
fi
echo "all psql checks passed"
