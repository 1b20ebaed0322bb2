#!/usr/bin/env bash
# TLS with psql (libpq) against `kestrel serve --ssl-cert --ssl-key`, with a CA and a server
# certificate for localhost made here by openssl: sslmode=require and verify-full connect and
# report an encrypted connection (\conninfo); verify-full refuses a host the certificate does
# not name and a CA that did not sign it; sslmode=disable still gets in; a server without a
# certificate answers sslmode=require with libpq's "server does not support SSL"; a
# certificate that cannot be loaded stops the server at start.
# The same checks through tokio-postgres are in crates/server/tests/tls.rs.
# Usage: tests/protocol/tls.sh [path/to/kestrel]   (default: target/debug/kestrel, built first)
set -euo pipefail

cd "$(dirname "$0")/../.."
KESTREL=${1:-}
if [ -z "$KESTREL" ]; then
    cargo build -q -p kestrel-cli
    KESTREL=${CARGO_TARGET_DIR:-target}/debug/kestrel
fi
PSQL=${PGBIN:-/usr/lib/postgresql/15/bin}/psql
command -v openssl >/dev/null || { echo "tls.sh: openssl is needed" >&2; exit 2; }

WORK=$(mktemp -d /tmp/kestrel-tls-test.XXXXXX)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]+"${PIDS[@]}"}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

# A CA, and a server certificate for localhost signed by it; a second CA signs nothing.
cd "$WORK"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=kestrel test CA" \
    -keyout ca.key -out ca.crt 2>/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=other CA" \
    -keyout other.key -out other.crt 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr 2>/dev/null
printf 'subjectAltName=DNS:localhost\n' >san.ext
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
    -extfile san.ext -out server.crt 2>/dev/null
cd - >/dev/null

start_server() { # PORT ARGS...
    local port=$1
    shift
    "$KESTREL" serve --memory --port "$port" "$@" 2>>"$WORK/server.log" &
    PIDS+=($!)
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
        sleep 0.05
    done
    echo "tls.sh: the server did not start" >&2
    cat "$WORK/server.log" >&2
    return 1
}

TLS_PORT=$((27000 + RANDOM % 3000))
PLAIN_PORT=$((TLS_PORT == 29999 ? 27000 : TLS_PORT + 1))
start_server "$TLS_PORT" --ssl-cert "$WORK/server.crt" --ssl-key "$WORK/server.key"
start_server "$PLAIN_PORT"

failures=0
check() { # NAME EXPECTED_PATTERN CONNINFO [SQL]
    local name=$1 expected=$2 conninfo=$3 sql=${4:-'SHOW ssl'}
    local output
    output=$("$PSQL" "$conninfo" -X -A -t -c "$sql" -c '\conninfo' 2>&1 || true)
    if grep -qE "$expected" <<<"$output"; then
        echo "ok $name"
    else
        echo "FAIL $name: expected /$expected/, got: $output"
        failures=$((failures + 1))
    fi
}

base="user=kestrel dbname=kestrel port=$TLS_PORT"
check require "SSL connection \(protocol: TLSv1\.3" "host=127.0.0.1 $base sslmode=require"
check require-shows-ssl-on "^on$" "host=127.0.0.1 $base sslmode=require"
check verify-full "SSL connection" "host=localhost $base sslmode=verify-full sslrootcert=$WORK/ca.crt"
check verify-full-query "^5050$" "host=localhost $base sslmode=verify-full sslrootcert=$WORK/ca.crt" \
    "SELECT sum(i) FROM generate_series(1, 100) AS i"
check verify-full-wrong-host "does not match host name" \
    "host=127.0.0.1 $base sslmode=verify-full sslrootcert=$WORK/ca.crt"
check verify-full-wrong-ca "certificate verify failed" \
    "host=localhost $base sslmode=verify-full sslrootcert=$WORK/other.crt"
check disable-still-connects "^on$" "host=127.0.0.1 $base sslmode=disable"
check no-tls-server "server does not support SSL" \
    "host=127.0.0.1 user=kestrel dbname=kestrel port=$PLAIN_PORT sslmode=require"
check no-tls-server-prefer "^off$" \
    "host=127.0.0.1 user=kestrel dbname=kestrel port=$PLAIN_PORT sslmode=prefer"

# A key that does not exist stops the server with PostgreSQL-like words.
if "$KESTREL" serve --memory --port 0 --ssl-cert "$WORK/server.crt" \
    --ssl-key "$WORK/missing.key" 2>"$WORK/bad.log"; then
    echo "FAIL missing-key: the server started"
    failures=$((failures + 1))
elif grep -q 'could not load private key file' "$WORK/bad.log"; then
    echo "ok missing-key"
else
    echo "FAIL missing-key: $(cat "$WORK/bad.log")"
    failures=$((failures + 1))
fi

if [[ $failures -gt 0 ]]; then
    echo "tls.sh: $failures failed"
    exit 1
fi
echo "tls.sh: all passed"
