#!/usr/bin/env bash
# pg_dump (15): a dump of the server under test restores into PostgreSQL, and a plain dump of a
# PostgreSQL database restores into the server under test through psql, with the same rows
# after the trip. Restores go into databases of the reference PostgreSQL named after the target.
set -uo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"

# A sample of what dumps carry: a serial key, common types, NULLs, an index, a sequence value,
# an identity column with its options, comments.
sample_schema() { # PREFIX
    cat <<SQL
DROP TABLE IF EXISTS $1_items, $1_tags;
CREATE TABLE $1_items (
    id serial PRIMARY KEY,
    name text NOT NULL,
    price numeric(10, 2),
    added date,
    seen timestamptz,
    active boolean
);
CREATE INDEX $1_items_name ON $1_items (name);
INSERT INTO $1_items (name, price, added, seen, active) VALUES
    ('pen', 1.50, '2024-02-29', '2024-03-10 08:30:15+00', true),
    ('tab	and "quote"', NULL, NULL, NULL, false),
    ('ink', 12345678.99, '1999-12-31', '2000-01-01 00:00:00+00', NULL);
CREATE TABLE $1_tags (id int GENERATED ALWAYS AS IDENTITY (START WITH 10 INCREMENT BY 5) PRIMARY KEY, tag text);
INSERT INTO $1_tags (tag) VALUES ('new'), ('old');
COMMENT ON TABLE $1_items IS 'things for sale';
COMMENT ON COLUMN $1_items.name IS 'what it is called';
SQL
}

sample_rows() { # PREFIX
    echo "SELECT id, name, price, added, seen, active FROM $1_items ORDER BY id;
SELECT nextval('$1_items_id_seq');
SELECT id, tag FROM $1_tags ORDER BY id;
INSERT INTO $1_tags (tag) VALUES ('next') RETURNING id;
SELECT obj_description('$1_items'::regclass, 'pg_class'), col_description('$1_items'::regclass, 2);"
}

dump_restores_into_pg() {
    local database="pgdump_from_$CLIENT_TARGET"
    sample_schema pgdump_out | "${PSQL[@]}" -f - || return 1
    "$PGBIN/pg_dump" --no-owner --no-privileges -t 'pgdump_out_*' -f "$WORK/out.sql" || return 1
    reference_psql postgres -c "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database" &&
        reference_psql "$database" -f "$WORK/out.sql" >/dev/null || return 1
    expect_output "$(sample_rows pgdump_out | "${PSQL[@]}" -tA -f -)" \
        reference_psql "$database" -tA -c "$(sample_rows pgdump_out)"
}

restore_from_pg() { # DUMP_OPTION...
    local database="pgdump_to_$CLIENT_TARGET"
    reference_psql postgres -c "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database" &&
        sample_schema pgdump_in | reference_psql "$database" -f - || return 1
    "$PGBIN/pg_dump" -h 127.0.0.1 -p "$REFERENCE_PGPORT" -U postgres -d "$database" \
        --no-owner --no-privileges "$@" -f "$WORK/in.sql" || return 1
    "${PSQL[@]}" -c "DROP TABLE IF EXISTS pgdump_in_items, pgdump_in_tags" &&
        "${PSQL[@]}" -f "$WORK/in.sql" >/dev/null || return 1
    expect_output "$(reference_psql "$database" -tA -c "$(sample_rows pgdump_in)")" \
        "${PSQL[@]}" -tA -c "$(sample_rows pgdump_in)"
}

check dump_restores_into_pg dump_restores_into_pg
check restore_from_pg restore_from_pg
check restore_from_pg_inserts restore_from_pg --inserts
