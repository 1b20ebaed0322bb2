#!/usr/bin/env bash
# Runs the sqllogictest corpus against a scratch PostgreSQL 15 and fails on any difference:
# every expected result in tests/slt is PostgreSQL's. With --complete, rewrites the expected
# output of the given files (or the whole corpus) from PostgreSQL instead.
#
#   scripts/pg_diff.sh [--complete] [FILE_OR_DIR...]
#
# The cluster lives in a temp dir (C.UTF-8 locale, so text sorts by byte like KestrelDB;
# fsync off; trust auth; unix socket in the temp dir) on a free port and is always stopped.
# As root, PostgreSQL runs as the user kestrel_pg, created if missing.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}

complete=()
if [[ ${1:-} == --complete ]]; then
    complete=(--complete)
    shift
fi
paths=()
for path in "$@"; do
    paths+=("$(realpath "$path")")
done
if [[ ${#paths[@]} -eq 0 ]]; then
    paths=("$ROOT/tests/slt")
fi

[[ -x $PGBIN/initdb ]] || { echo "pg_diff: no PostgreSQL 15 at $PGBIN (set PGBIN)" >&2; exit 2; }

cargo build --quiet -p kestrel-sqltest --bin slt --manifest-path "$ROOT/Cargo.toml"
SLT=${CARGO_TARGET_DIR:-$ROOT/target}/debug/slt

tmp=$(mktemp -d /tmp/kestrel-pg-diff.XXXXXX)
as_pg=()
if [[ $(id -u) -eq 0 ]]; then
    id kestrel_pg >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin kestrel_pg
    chown kestrel_pg "$tmp"
    as_pg=(runuser -u kestrel_pg --)
fi

cleanup() {
    if [[ -f $tmp/data/postmaster.pid ]]; then
        "${as_pg[@]}" "$PGBIN/pg_ctl" -D "$tmp/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
# PostgreSQL's tools refuse to start in a directory their user cannot read (e.g. /root/...).
cd "$tmp"

"${as_pg[@]}" "$PGBIN/initdb" -D "$tmp/data" -A trust -U postgres -E UTF8 --locale=C.UTF-8 \
    --no-sync >"$tmp/initdb.log" 2>&1 || { cat "$tmp/initdb.log" >&2; exit 1; }

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

started=
for _ in $(seq 20); do
    port=$((20000 + RANDOM % 30000))
    port_in_use "$port" && continue
    if "${as_pg[@]}" "$PGBIN/pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w -t 30 \
        -o "-p $port -k $tmp -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c timezone=UTC" \
        start >/dev/null; then
        started=1
        break
    fi
done
if [[ -z $started ]]; then
    echo "pg_diff: could not start PostgreSQL:" >&2
    cat "$tmp/server.log" >&2 || true
    exit 1
fi

"$SLT" --pg "postgresql://postgres@127.0.0.1:$port/postgres" "${complete[@]}" "${paths[@]}"
