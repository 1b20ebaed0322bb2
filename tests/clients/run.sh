#!/usr/bin/env bash
# The client compatibility suite: real client libraries and tools, at pinned versions, run the
# same checks against a scratch PostgreSQL 15 and against `kestrel serve --memory`.
#
#   tests/clients/run.sh [--only CLIENT]... [--kestrel PATH] [--prune-known]
#
# Installs what is missing (cached in ignored dirs under tests/clients/), starts both servers on
# free ports, and runs each client first against PostgreSQL, then against KestrelDB. A client
# prints one line per check, `ok CLIENT/CHECK` or `FAIL CLIENT/CHECK: error`. Every check must
# pass on PostgreSQL (a failure there is a bug in the check). On KestrelDB a failure must be
# listed in known_failures.txt, and a listed check that passes is an error too, so the list only
# shrinks; --prune-known removes such lines from the file instead (after a merge that fixed
# some). Exits non-zero on any unexpected result.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=../../scripts/lib/pg_scratch.sh
source "$ROOT/scripts/lib/pg_scratch.sh"
# shellcheck source=lib/install.sh
source "$HERE/lib/install.sh"

ALL_CLIENTS=(psycopg psycopg2 asyncpg sqlalchemy pgvector pgx node-postgres pgjdbc tokio-postgres psql pgbench pg_dump)
CLIENT_TIMEOUT_S=300

clients=()
kestrel=
prune_known=
while [[ $# -gt 0 ]]; do
    case $1 in
    --only) clients+=("$2"); shift 2 ;;
    --kestrel) kestrel=$(realpath "$2"); shift 2 ;;
    --prune-known) prune_known=1; shift ;;
    -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $1 (clients: ${ALL_CLIENTS[*]})" >&2; exit 2 ;;
    esac
done
[[ ${#clients[@]} -gt 0 ]] || clients=("${ALL_CLIENTS[@]}")
for client in "${clients[@]}"; do
    [[ " ${ALL_CLIENTS[*]} " == *" $client "* ]] || { echo "run.sh: no client $client (clients: ${ALL_CLIENTS[*]})" >&2; exit 2; }
done

started_at=$SECONDS
work=$(mktemp -d /tmp/kestrel-clients.XXXXXX)
chmod 755 "$work"
kestrel_pid=
cleanup() {
    [[ -n $kestrel_pid ]] && kill "$kestrel_pid" 2>/dev/null && wait "$kestrel_pid" 2>/dev/null
    pg_scratch_stop "$work"
    rm -rf "$work"
}
trap cleanup EXIT

# --- install ---------------------------------------------------------------------------------
for client in "${clients[@]}"; do
    install_client "$client"
done
if [[ -z $kestrel ]]; then
    # The whole workspace, as scripts/test.sh builds it (one package alone rebuilds dependencies).
    cargo build --quiet --workspace --manifest-path "$ROOT/Cargo.toml"
    kestrel=${CARGO_TARGET_DIR:-$ROOT/target}/debug/kestrel
fi
echo "installed in $((SECONDS - started_at)) s"

# --- servers ---------------------------------------------------------------------------------
pg_scratch_start "$work" 26000 1000
# Drivers connect as kestrel/kestrel to both servers, KestrelDB's default user and database.
"$PGBIN/psql" -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 \
    -c "CREATE ROLE kestrel SUPERUSER LOGIN" -c "CREATE DATABASE kestrel OWNER kestrel"

kestrel_port=
start_kestrel() {
    for _ in $(seq 20); do
        kestrel_port=$((27000 + RANDOM % 3000))
        port_in_use "$kestrel_port" && continue
        "$kestrel" serve --memory --port "$kestrel_port" >>"$work/kestrel.log" 2>&1 &
        kestrel_pid=$!
        for _ in $(seq 100); do
            port_in_use "$kestrel_port" && return 0
            kill -0 "$kestrel_pid" 2>/dev/null || break
            sleep 0.1
        done
        kill "$kestrel_pid" 2>/dev/null # not listening after 10 s: try another port
    done
    echo "run.sh: could not start $kestrel:" >&2
    cat "$work/kestrel.log" >&2
    return 1
}
start_kestrel

# --- checks ----------------------------------------------------------------------------------
declare -A known=()
while IFS= read -r line; do
    line=${line%%#*}
    read -r name _ <<<"$line" || true
    [[ -n ${name:-} ]] && known[$name]=1
done <"$HERE/known_failures.txt"

unexpected=()
passed=0
failed=0
known_failed=0
declare -A seen_on_pg=() seen_on_kestrel=()

# restart_dead_kestrel CLIENT WHEN: a server that died is a failure of CLIENT, and is restarted
# so that the next clients still run.
restart_dead_kestrel() {
    kill -0 "$kestrel_pid" 2>/dev/null && return 0
    echo "FAIL $1/(server): kestrel exited $2: $(tail -n 1 "$work/kestrel.log")" >>"$work/kestrel.$1.out"
    start_kestrel
}

# run_checks TARGET CLIENT PORT: runs CLIENT against the server on PORT; its result lines go to
# $work/TARGET.CLIENT.out, the client's own error output to .err.
run_checks() {
    local target=$1 client=$2 port=$3 out="$work/$1.$2.out" status=0
    touch "$out"
    client_command "$client"
    mkdir -p "$work/$target.$client"
    (
        cd "$HERE"
        PGHOST=127.0.0.1 PGPORT=$port PGUSER=kestrel PGDATABASE=kestrel PGSSLMODE=disable \
            REFERENCE_PGPORT=$PG_PORT PGBIN=$PGBIN WORK="$work/$target.$client" \
            CLIENT_TARGET=$target \
            timeout "$CLIENT_TIMEOUT_S" "${COMMAND[@]}"
    ) >>"$out" 2>"$work/$target.$client.err" || status=$?
    if [[ $status -ne 0 ]]; then
        echo "FAIL $client/(run): exit status $status: $(tail -n 1 "$work/$target.$client.err")" >>"$out"
    fi
}

# judge TARGET CLIENT: prints and counts the results of one run.
judge() {
    local target=$1 client=$2 verdict state name message
    local -A reported=()
    while IFS= read -r line; do
        [[ $line =~ ^(ok|FAIL)\ +([^ :]+)(:\ (.*))?$ ]] || continue
        state=${BASH_REMATCH[1]} name=${BASH_REMATCH[2]} message=${BASH_REMATCH[4]}
        reported[$name]=1
        verdict=$(verdict_of "$target" "$state" "$name")
        [[ $target == postgres ]] && seen_on_pg[$name]=1
        [[ $target == kestrel ]] && seen_on_kestrel[$name]=1
        report "$target" "$verdict" "$name" "$message"
    done <"$work/$target.$client.out"
    if [[ $target == kestrel ]]; then
        for name in "${!seen_on_pg[@]}"; do
            [[ $name == "$client"/* && -z ${reported[$name]:-} ]] || continue
            report "$target" "$(verdict_of kestrel FAIL "$name")" "$name" "no result (the client stopped before it)"
        done
    fi
}

verdict_of() { # TARGET STATE NAME → ok | known | FAIL | FIXED (STALE: see the end)
    local target=$1 state=$2 name=$3
    if [[ $target == postgres || -z ${known[$name]:-} ]]; then
        [[ $state == ok ]] && echo ok || echo FAIL
    else
        [[ $state == ok ]] && echo FIXED || echo known
    fi
}

pruned=()
report() { # TARGET VERDICT NAME MESSAGE
    local target=$1 verdict=$2 name=$3 message=$4
    if [[ -n $prune_known && ($verdict == FIXED || $verdict == STALE) ]]; then
        pruned+=("$name")
        verdict=pruned message="removed from known_failures.txt"
    fi
    case $verdict in
    pruned) passed=$((passed + 1)) ;;
    known) passed=$((passed + 1)) known_failed=$((known_failed + 1)) ;;
    ok) passed=$((passed + 1)) ;;
    *) failed=$((failed + 1)); unexpected+=("$target $verdict $name${message:+: $message}") ;;
    esac
    case $verdict in
    FIXED) message="passes now: remove it from known_failures.txt" ;;
    FAIL) [[ $target == postgres ]] && message="(a bug in the check) $message" ;;
    esac
    printf '%-8s %-6s %-45s %s\n' "$target" "$verdict" "$name" "$message"
}

for client in "${clients[@]}"; do
    client_started=$SECONDS
    run_checks postgres "$client" "$PG_PORT"
    judge postgres "$client"
    : >"$work/kestrel.$client.out"
    restart_dead_kestrel "$client" "before the client started"
    run_checks kestrel "$client" "$kestrel_port"
    restart_dead_kestrel "$client" "while the client ran"
    judge kestrel "$client"
    echo "-- $client: $((SECONDS - client_started)) s"
done

# A listed check that no longer exists (renamed or removed) must leave the list too.
for name in "${!known[@]}"; do
    [[ " ${clients[*]} " == *" ${name%%/*} "* && -z ${seen_on_kestrel[$name]:-} ]] &&
        report kestrel STALE "$name" "listed in known_failures.txt but not run: remove it"
done

for name in "${pruned[@]+"${pruned[@]}"}"; do
    grep -v -E "^${name//./\\.}( |#|$)" "$HERE/known_failures.txt" >"$work/known" || true
    cat "$work/known" >"$HERE/known_failures.txt"
done

echo
for line in "${unexpected[@]+"${unexpected[@]}"}"; do
    echo "unexpected: $line"
done
echo "clients: ${#clients[@]} in $((SECONDS - started_at)) s; passed counts $known_failed known KestrelDB failures"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
