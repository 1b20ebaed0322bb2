#!/usr/bin/env bash
# The one benchmark command (bench/README.md): builds KestrelDB in release mode and its Python
# module, installs the pinned competitors into a virtualenv, then runs the suite, which starts
# PostgreSQL, KestrelDB and DuckDB by itself. Every argument goes to the suite (--help).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${KESTREL_BENCH_VENV:-$ROOT/bench/.venv}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}

if [[ ! -x $VENV/bin/python ]]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install -q --disable-pip-version-check -r "$ROOT/bench/requirements.txt"

echo "==> cargo build --release -p kestrel-cli"
(cd "$ROOT" && CARGO_TARGET_DIR=$TARGET cargo build --release -q -p kestrel-cli)
echo "==> maturin develop --release (crates/python)"
# The extension is outside the workspace (own Cargo.lock), so it gets its own target dir.
(cd "$ROOT/crates/python" && VIRTUAL_ENV=$VENV CARGO_TARGET_DIR=$TARGET/python \
    "$VENV/bin/maturin" develop --release -q)

cd "$ROOT/bench"
exec "$VENV/bin/python" -m kbench --kestrel "$TARGET/release/kestrel" "$@"
