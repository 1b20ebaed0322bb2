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

# shellcheck source=lib/pg_scratch.sh
source "$ROOT/scripts/lib/pg_scratch.sh"

# The whole workspace, as scripts/test.sh builds it: one package alone resolves other
# dependency features and rebuilds much of the dependency tree.
cargo build --quiet --workspace --manifest-path "$ROOT/Cargo.toml"
SLT=${CARGO_TARGET_DIR:-$ROOT/target}/debug/slt

tmp=$(mktemp -d /tmp/kestrel-pg-diff.XXXXXX)
cleanup() {
    pg_scratch_stop "$tmp"
    rm -rf "$tmp"
}
trap cleanup EXIT
pg_scratch_start "$tmp" 20000 30000 || { echo "pg_diff: no scratch PostgreSQL" >&2; exit 1; }
port=$PG_PORT

"$SLT" --pg "postgresql://postgres@127.0.0.1:$port/postgres" "${complete[@]}" "${paths[@]}"
