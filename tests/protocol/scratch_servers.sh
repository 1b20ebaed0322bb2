# Sourced by the protocol tests that compare `kestrel serve` with a scratch PostgreSQL 15:
# `scratch_servers NAME [path/to/kestrel]` goes to the repository's root and sets KESTREL
# (built in debug when not given), PGBIN, WORK (a directory removed at exit, $WORK/pg for
# PostgreSQL's cluster), KESTREL_PORT and PG_PORT, and as_pg, which runs PostgreSQL's tools
# as an unprivileged user when the test runs as root. The test sets SERVER_PID once it has
# started kestrel, so that the exit trap stops it with the cluster.
# shellcheck source=../../scripts/lib/kestrel_server.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/kestrel_server.sh"

scratch_servers() {
    local name=$1
    cd "$(dirname "${BASH_SOURCE[0]}")/../.."
    KESTREL=${2:-}
    if [ -z "$KESTREL" ]; then
        cargo build -q -p kestrel-cli
        KESTREL=${CARGO_TARGET_DIR:-target}/debug/kestrel
    fi
    PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
    [[ -x $PGBIN/initdb ]] || { echo "$name.sh: no PostgreSQL 15 at $PGBIN (set PGBIN)" >&2; exit 2; }

    WORK=$(mktemp -d "/tmp/kestrel-$name-test.XXXXXX")
    chmod 755 "$WORK"
    KESTREL_PORT=$((27000 + RANDOM % 3000))
    PG_PORT=$((26000 + RANDOM % 1000))
    as_pg=()
    if [[ $(id -u) -eq 0 ]]; then
        id kestrel_pg >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin kestrel_pg
        mkdir "$WORK/pg" && chown kestrel_pg "$WORK/pg"
        as_pg=(runuser -u kestrel_pg --)
    else
        mkdir "$WORK/pg"
    fi
    trap stop_scratch_servers EXIT
}

stop_scratch_servers() {
    [[ -n ${SERVER_PID:-} ]] && kill "$SERVER_PID" 2>/dev/null
    if [[ -f $WORK/pg/data/postmaster.pid ]]; then
        "${as_pg[@]}" "$PGBIN/pg_ctl" -D "$WORK/pg/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$WORK"
}
