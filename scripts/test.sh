#!/usr/bin/env bash
# The one test command: formatting, lints, build, unit and sqllogictest tests (in-process and
# over the wire, and against a durable database), the PostgreSQL differential run, a short
# kill -9 crash test, the protocol tests and the client suite. Runs every step
# even after a failure, so one run shows everything, and ends with `N passed, M failed`.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

passed=0
failed=0
failures=()
# Each step's output is also kept, so the end of the run can repeat what a failed step printed:
# a CI log is often read from its tail.
STEP_LOGS=$(mktemp -d /tmp/kestrel-test-steps.XXXXXX)
trap 'rm -rf "$STEP_LOGS"' EXIT
failure_logs=()

step() {
    local name=$1
    shift
    echo "==> $name"
    local start=$SECONDS
    local log
    log=$STEP_LOGS/$((passed + failed)).log
    if "$@" 2>&1 | tee "$log"; then
        passed=$((passed + 1))
        echo "<== $name: ok ($((SECONDS - start))s)"
    else
        failed=$((failed + 1))
        failures+=("$name")
        failure_logs+=("$log")
        echo "<== $name: FAILED ($((SECONDS - start))s)"
    fi
}

step "cargo fmt" cargo fmt --all --check
step "cargo clippy" cargo clippy --workspace --all-targets -- -D warnings
# The Python module sits outside the workspace (PyO3 needs an interpreter): it must still
# compile against the engine, whose enums it matches on.
step "python module (cargo clippy)" cargo clippy --manifest-path crates/python/Cargo.toml -- -D warnings
step "cargo build" cargo build --workspace
step "cargo test" cargo test --workspace --no-fail-fast
# The whole SQL corpus again with every parallel-safe pipeline forced onto the worker pool,
# one row per morsel: the parallel paths must give the serial results, in the serial order.
step "slt --parallel" "${CARGO_TARGET_DIR:-target}/debug/slt" --parallel tests/slt
step "pg_diff" scripts/pg_diff.sh
# A short run of the kill -9 crash test, with synchronous and with asynchronous commit.
step "crash test" scripts/crash_test.sh 8 0.5
step "crash test (synchronous_commit=off)" env KESTREL_ARGS="-c synchronous_commit=off" \
    scripts/crash_test.sh 5 0.5
if [[ -x tests/protocol/psql.sh ]]; then
    step "protocol (psql)" tests/protocol/psql.sh
elif [[ -e tests/protocol/psql.sh ]]; then
    step "protocol (psql)" bash tests/protocol/psql.sh
fi
step "protocol (COPY)" bash tests/protocol/copy.sh
step "protocol (TLS)" bash tests/protocol/tls.sh
step "protocol (psql describe)" bash tests/protocol/psql_describe.sh
step "protocol (error positions)" bash tests/protocol/error_positions.sh
step "protocol (authentication)" bash tests/protocol/auth.sh
# Random SELECTs on the engine and on PostgreSQL, from a fixed seed (tests/differential/).
step "differential" scripts/differential.sh
# Parquet written by COPY read back by DuckDB and pyarrow (installed into a venv).
step "files (DuckDB, pyarrow)" bash tests/files/cross_check.sh

# Real client libraries and tools against PostgreSQL and KestrelDB (see tests/README.md);
# the failures KestrelDB is known for are listed in tests/clients/known_failures.txt.
step "client suite" tests/clients/run.sh

for i in "${!failures[@]}"; do
    echo "==== the last 60 lines of the failed step \"${failures[$i]}\":"
    tail -n 60 "${failure_logs[$i]}"
done
for name in "${failures[@]+"${failures[@]}"}"; do
    echo "failed: $name"
done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
