#!/usr/bin/env bash
# Runs files of PostgreSQL's own regression suite against KestrelDB the way pg_regress runs
# them, and reports how far each output is from PostgreSQL's expected output.
#
#   scripts/pg_regress.sh REGRESS_DIR OUT_DIR TEST...
#
# REGRESS_DIR is PostgreSQL 15's src/test/regress (with sql/, expected/, data/); TEST is a
# file name without .sql (e.g. uuid enum domain). Not part of CI or scripts/test.sh: it needs
# the PostgreSQL sources, which CI machines do not have.
#
# It builds and starts `kestrel serve --memory` on a free port, then runs test_setup and each
# TEST in that order, in one database, as pg_regress does: `psql -X -a -q -d regression -v
# HIDE_TABLEAM=on -v HIDE_TOAST_COMPRESSION=on < sql/TEST.sql`, with pg_regress's environment
# (PGTZ, PGDATESTYLE, intervalstyle in PGOPTIONS, LC_MESSAGES=C, PGAPPNAME, and the
# PG_ABS_SRCDIR, PG_ABS_BUILDDIR, PG_LIBDIR, PG_DLSUFFIX that test_setup reads; regress.so does
# not exist here, so test_setup's C functions fail, as they may). For each TEST it writes
# OUT_DIR/TEST.out (our output) and OUT_DIR/TEST.diff (`diff -U3` against expected/TEST.out, or
# against the alternative expected/TEST_N.out that differs least, as pg_regress picks), then
# prints a table: file, diff lines, matches.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)

if [[ $# -lt 3 ]]; then
    sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
regress=$(realpath "$1")
mkdir -p "$2"
out=$(realpath "$2")
shift 2
[[ -f $regress/sql/test_setup.sql ]] || { echo "pg_regress: no sql/test_setup.sql in $regress" >&2; exit 2; }

# The whole workspace, as scripts/test.sh builds it: `-p kestrel-cli` alone resolves other
# dependency features and rebuilds much of the dependency tree.
cargo build --quiet --workspace --all-targets --manifest-path "$ROOT/Cargo.toml"
KESTREL=${CARGO_TARGET_DIR:-$ROOT/target}/debug/kestrel

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=
for _ in $(seq 20); do
    candidate=$((30000 + RANDOM % 10000))
    port_in_use "$candidate" || { port=$candidate; break; }
done
[[ -n $port ]] || { echo "pg_regress: no free port" >&2; exit 1; }

"$KESTREL" serve --memory --port "$port" >"$out/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    port_in_use "$port" && break
    sleep 0.1
done
port_in_use "$port" || { echo "pg_regress: the server did not start:" >&2; cat "$out/server.log" >&2; exit 1; }

# pg_regress's environment (pg_regress.c, initialize_environment).
unset LC_COLLATE LC_CTYPE LC_MONETARY LC_NUMERIC LC_TIME LANGUAGE LC_ALL PGDATABASE PGSERVICE
export LANG=C LC_MESSAGES=C
export PGTZ=America/Los_Angeles PGDATESTYLE='Postgres, MDY'
export PGOPTIONS='-c intervalstyle=postgres_verbose'
export PG_ABS_SRCDIR=$regress PG_ABS_BUILDDIR=$out PG_LIBDIR=$out PG_DLSUFFIX=.so
export PGHOST=127.0.0.1 PGPORT=$port PGUSER=kestrel
mkdir -p "$out/results" # some tests write files under abs_builddir/results

# Runs one file; prints its diff line count against the closest expected output.
run_test() {
    local name=$1 best= best_lines= expected lines
    PGAPPNAME=pg_regress/$name psql -X -a -q -d regression -v HIDE_TABLEAM=on \
        -v HIDE_TOAST_COMPRESSION=on <"$regress/sql/$name.sql" >"$out/$name.out" 2>&1 || true
    for expected in "$regress/expected/$name.out" "$regress/expected/${name}"_[0-9].out; do
        [[ -f $expected ]] || continue
        lines=$(diff -U3 "$expected" "$out/$name.out" | wc -l)
        if [[ -z $best_lines || $lines -lt $best_lines ]]; then
            best=$expected
            best_lines=$lines
        fi
    done
    if [[ -z $best ]]; then
        echo "pg_regress: no expected output for $name" >&2
        return 1
    fi
    diff -U3 "$best" "$out/$name.out" >"$out/$name.diff" || true
    echo "$best_lines"
}

run_test test_setup >/dev/null || true
printf '%-24s %10s  %s\n' file "diff lines" matches
for name in "$@"; do
    if [[ ! -f $regress/sql/$name.sql ]]; then
        printf '%-24s %10s  %s\n' "$name" - "no such test"
        continue
    fi
    lines=$(run_test "$name") || continue
    printf '%-24s %10s  %s\n' "$name" "$lines" "$([[ $lines -eq 0 ]] && echo yes || echo no)"
done
