# shellcheck shell=bash disable=SC2034 # PG_PORT is for the caller
# Sourced by scripts that need a scratch PostgreSQL 15 (scripts/pg_diff.sh, tests/clients/run.sh).
#
#   pg_scratch_start DIR FIRST_PORT PORT_COUNT   initdb in DIR/data, start on a free port of the
#                                                 range; sets PG_PORT (unix socket in DIR)
#   pg_scratch_stop DIR                           stop it (immediate); DIR is left to the caller
#   "${PG_AS[@]}" CMD...                          run CMD as the cluster's owner
#
# The cluster: C.UTF-8 locale (text sorts by byte like KestrelDB), UTF8, timezone UTC, fsync off,
# trust auth, superuser `postgres`, listening on 127.0.0.1. PostgreSQL refuses to run as root, so
# as root it runs as the user kestrel_pg, created if missing.

PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
PG_AS=()
PG_PORT=

pg_scratch_start() {
    local dir=$1 first_port=$2 port_count=$3
    [[ -x $PGBIN/initdb ]] || { echo "no PostgreSQL 15 at $PGBIN (set PGBIN)" >&2; return 2; }
    if [[ $(id -u) -eq 0 ]]; then
        id kestrel_pg >/dev/null 2>&1 ||
            useradd --system --no-create-home --shell /usr/sbin/nologin kestrel_pg
        chown kestrel_pg "$dir"
        PG_AS=(runuser -u kestrel_pg --)
    fi
    # PostgreSQL's tools refuse to start in a directory their user cannot read (e.g. /root/...).
    (
        cd "$dir" || exit 1
        "${PG_AS[@]}" "$PGBIN/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 \
            --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1
    ) || { cat "$dir/initdb.log" >&2; return 1; }
    local port
    for _ in $(seq 20); do
        port=$((first_port + RANDOM % port_count))
        port_in_use "$port" && continue
        if (cd "$dir" && "${PG_AS[@]}" "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
            -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c timezone=UTC" \
            start >/dev/null); then
            PG_PORT=$port
            return 0
        fi
    done
    echo "could not start PostgreSQL:" >&2
    cat "$dir/server.log" >&2 || true
    return 1
}

pg_scratch_stop() {
    local dir=$1
    if [[ -f $dir/data/postmaster.pid ]]; then
        (cd "$dir" && "${PG_AS[@]}" "$PGBIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1) || true
    fi
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
