#!/usr/bin/env bash
# The differential random-query tester: random SELECTs over small tables with NULLs, run on
# the engine in-process and on a scratch PostgreSQL 15, every difference reported (see
# crates/sqltest/src/differential/). A fixed seed, so every run checks the same queries;
# differences that are known and not yet fixed are listed, with a reproduction, in
# tests/differential/known_differences.txt, and a listed one that is fixed fails the run
# until its line is removed.
#
# Then the engine against itself, with no reference (`differential --oracles`): query
# partitioning and NoREC, each query on a serial, a forced-parallel and an unoptimized
# database; 500 queries by default, or the seed and count given.
#
#   scripts/differential.sh [--seed N] [--queries N]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)

# shellcheck source=lib/pg_scratch.sh
source "$ROOT/scripts/lib/pg_scratch.sh"

# The whole workspace, as scripts/test.sh builds it (one package alone rebuilds dependencies).
cargo build --quiet --workspace --manifest-path "$ROOT/Cargo.toml"
DIFFERENTIAL=${CARGO_TARGET_DIR:-$ROOT/target}/debug/differential

tmp=$(mktemp -d /tmp/kestrel-differential.XXXXXX)
cleanup() {
    pg_scratch_stop "$tmp"
    rm -rf "$tmp"
}
trap cleanup EXIT
pg_scratch_start "$tmp" 26000 1000 || { echo "differential: no scratch PostgreSQL" >&2; exit 1; }

known=()
if [[ $# -eq 0 ]]; then
    # The known list belongs to the default seed and query count.
    known=(--known "$ROOT/tests/differential/known_differences.txt")
fi
"$DIFFERENTIAL" "${known[@]}" "$@" "postgresql://postgres@127.0.0.1:$PG_PORT/postgres"
oracle_args=("$@")
if [[ $# -eq 0 ]]; then
    oracle_args=(--queries 500)
fi
"$DIFFERENTIAL" --oracles "${oracle_args[@]}"
