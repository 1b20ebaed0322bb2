# shellcheck shell=bash
# Sourced by the tool checks (psql, pgbench, pg_dump). run.sh points libpq's PG* variables at
# the server under test and sets REFERENCE_PGPORT (the scratch PostgreSQL, superuser postgres),
# PGBIN, WORK (a scratch directory) and CLIENT_TARGET (postgres or kestrel).

# The tool's name, from the script's: check_TOOL.sh.
TOOL=$(basename "$0" .sh)
TOOL=${TOOL#check_}
PSQL=("$PGBIN/psql" -X -q -v ON_ERROR_STOP=1)

# The reference PostgreSQL, whatever the target: where dumps are restored and taken.
reference_psql() { # DATABASE ARGS...
    local database=$1
    shift
    "${PSQL[@]}" -h 127.0.0.1 -p "$REFERENCE_PGPORT" -U postgres -d "$database" "$@"
}

# check NAME COMMAND...: runs COMMAND (a shell function) with its output in $WORK/NAME.log and
# prints `ok TOOL/NAME`, or `FAIL TOOL/NAME: ` and the log's first error line (else its last).
check() {
    local name=$1 log="$WORK/$1.log" reason
    shift
    if "$@" >"$log" 2>&1; then
        echo "ok   $TOOL/$name"
    else
        reason=$(grep -m 1 -E 'ERROR:|error:|FATAL:' "$log" || grep -v '^\s*$' "$log" | tail -n 1)
        echo "FAIL $TOOL/$name: $(cut -c1-300 <<<"$reason")"
    fi
}

# expect_output EXPECTED COMMAND...: fails, showing both, unless COMMAND prints EXPECTED.
expect_output() {
    local expected=$1 actual
    shift
    actual=$("$@") || return 1
    [[ $actual == "$expected" ]] && return 0
    echo "expected $(printf %q "$expected"), got $(printf %q "$actual")"
    return 1
}
