#!/usr/bin/env bash
# Crash test of a durable `kestrel serve`: builds the server and the `crash` harness, then kills
# the server with SIGKILL CRASHES times under load and checks what survives each restart.
#
#   scripts/crash_test.sh [--release] [--no-kill] [--clients N] CRASHES [SECONDS_PER_ROUND]
#
# CI: scripts/crash_test.sh 5 0.5. Environment: KESTREL_BIN (server binary), KESTREL_ARGS
# (extra server arguments, e.g. "-c synchronous_commit=off"), KESTREL_DATA_ARGS (default
# "--data-dir {dir}"; empty runs the server in memory), CRASH_SEED (replay a run).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

profile=debug
build_flags=()
args=()
for arg in "$@"; do
    case $arg in
        --release)
            profile=release
            build_flags+=(--release)
            ;;
        *) args+=("$arg") ;;
    esac
done

# The whole workspace, as scripts/test.sh builds it: single packages resolve other
# dependency features and rebuild much of the dependency tree.
cargo build --quiet "${build_flags[@]+"${build_flags[@]}"}" --workspace
target=${CARGO_TARGET_DIR:-$ROOT/target}/$profile
export KESTREL_BIN=${KESTREL_BIN:-$target/kestrel}
exec "$target/crash" "${args[@]+"${args[@]}"}"
