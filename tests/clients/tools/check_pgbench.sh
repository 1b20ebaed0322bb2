#!/usr/bin/env bash
# pgbench: `pgbench -i -s 1` (client-side data generation, through COPY), then an
# initialization without COPY or VACUUM (server-side generation, -I dtGp) and `-c 4 -j 2 -t 50`
# of each built-in script, which must end with 0 failed transactions.
set -uo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"

PGBENCH=("$PGBIN/pgbench")

initialize() {
    "${PGBENCH[@]}" -i -s 1 -q
}

initialize_server_side() {
    "${PGBENCH[@]}" -i -s 1 -I dtGp
}

# run_script SCRIPT: 4 clients, 2 threads, 50 transactions each, no VACUUM before.
run_script() {
    local out
    out=$("${PGBENCH[@]}" -n -c 4 -j 2 -t 50 -b "$1" 2>&1) || { echo "$out"; return 1; }
    echo "$out"
    if ! grep -q "^number of transactions actually processed: 200/200$" <<<"$out" ||
        ! grep -q "^number of failed transactions: 0 " <<<"$out"; then
        echo "expected 200/200 transactions processed and 0 failed"
        return 1
    fi
}

check init initialize
check init_server_side initialize_server_side
check tpcb_like run_script tpcb-like
check simple_update run_script simple-update
check select_only run_script select-only
