#!/usr/bin/env bash
# Password authentication through psql against `kestrel serve --hba FILE` and a scratch
# PostgreSQL 15 with the same pg_hba.conf and roles, whose outputs must be identical: the
# right password (SCRAM-SHA-256, md5 and cleartext rules), a wrong one, an unknown role, a
# role without LOGIN, an md5 verifier under a scram-sha-256 rule, a rule that rejects and a
# database no rule names. Both bootstrap superusers are `kestrel`, their password set at
# start (initdb --pwfile, kestrel serve --password-file).
# Usage: tests/protocol/auth.sh [path/to/kestrel]   (default: target/debug/kestrel, built first)
set -euo pipefail

source "$(dirname "$0")/scratch_servers.sh"
scratch_servers auth "$@"

echo 'super secret' >"$WORK/password"
chmod 644 "$WORK/password"
cat >"$WORK/hba.conf" <<'HBA'
# PostgreSQL's own set-up connects over its socket.
local     all    all                  trust
host      all    dave   127.0.0.1/32  reject
host      md5db  all    127.0.0.1/32  md5
host      plain  all    127.0.0.1/32  password
host      all    all    127.0.0.1/32  scram-sha-256
HBA

"$KESTREL" serve --memory --port "$KESTREL_PORT" --hba "$WORK/hba.conf" \
    --password-file "$WORK/password" 2>"$WORK/server.log" &
SERVER_PID=$!
(cd "$WORK/pg" && "${as_pg[@]}" "$PGBIN/initdb" -D "$WORK/pg/data" -A trust -U kestrel \
    --pwfile "$WORK/password" -E UTF8 --locale=C.UTF-8 --no-sync >"$WORK/initdb.log" 2>&1)
cp "$WORK/hba.conf" "$WORK/pg/data/pg_hba.conf"
[[ -n ${as_pg[*]} ]] && chown kestrel_pg "$WORK/pg/data/pg_hba.conf"
(cd "$WORK/pg" && "${as_pg[@]}" "$PGBIN/pg_ctl" -D "$WORK/pg/data" -l "$WORK/pg/log" -w \
    -o "-p $PG_PORT -k $WORK/pg -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null)
"$PGBIN/psql" -X -q -h "$WORK/pg" -p "$PG_PORT" -U kestrel -d postgres \
    -c 'CREATE DATABASE md5db' -c 'CREATE DATABASE plain' -c 'CREATE DATABASE shop'

for _ in $(seq 1 50); do
    PGPASSWORD='super secret' "$PGBIN/psql" -X -q -h 127.0.0.1 -p "$KESTREL_PORT" -U kestrel \
        -d shop -c 'SELECT 1' >/dev/null 2>&1 && break
    sleep 0.1
done

# What a client sees: the query's output, or psql's error with the port taken out.
attempt() { # port user password database
    PGPASSWORD=$3 "$PGBIN/psql" -X -h 127.0.0.1 -p "$1" -U "$2" -d "$4" -A -t \
        -c 'SELECT current_user' 2>&1 | sed "s/port $1 failed/port N failed/" || true
}

run() { # port
    PGPASSWORD='super secret' "$PGBIN/psql" -X -q -h 127.0.0.1 -p "$1" -U kestrel -d shop <<'SQL'
CREATE USER alice PASSWORD 'apple';
CREATE USER dave PASSWORD 'dove';
CREATE ROLE carol PASSWORD 'cherry';
SET password_encryption = md5;
CREATE USER bob PASSWORD 'banana';
SQL
    attempt "$1" kestrel 'super secret' shop
    attempt "$1" alice apple shop
    attempt "$1" alice pear shop
    attempt "$1" mallory apple shop
    attempt "$1" carol cherry shop
    attempt "$1" bob banana shop
    attempt "$1" bob banana md5db
    attempt "$1" bob wrong md5db
    attempt "$1" alice apple md5db
    attempt "$1" alice apple plain
    attempt "$1" alice pear plain
    attempt "$1" dave dove shop
}

run "$PG_PORT" >"$WORK/postgres.out"
run "$KESTREL_PORT" >"$WORK/kestrel.out"
if diff -u "$WORK/postgres.out" "$WORK/kestrel.out"; then
    cat "$WORK/kestrel.out"
    echo "auth.sh: $(wc -l <"$WORK/postgres.out") lines identical"
else
    echo "auth.sh: KestrelDB differs from PostgreSQL (above)" >&2
    exit 1
fi
