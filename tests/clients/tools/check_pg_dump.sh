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

# A schema of its own with what a real application holds: every common type, defaults, serial
# and identity columns, a sequence, PK/unique/CHECK/FK constraints, indexes, a view, comments.
rich_schema() { # SCHEMA
    cat <<SQL
DROP SCHEMA IF EXISTS $1 CASCADE;
CREATE SCHEMA $1;
CREATE TABLE $1.items (
    id serial PRIMARY KEY,
    name text NOT NULL,
    price numeric(10, 2) DEFAULT 0 CHECK (price >= 0),
    added date, seen timestamptz, active boolean, qty int2, big int8, f4 real,
    f8 double precision, code char(3), label varchar(20) UNIQUE, raw bytea, u uuid,
    doc jsonb, j json, t time, ts timestamp, iv interval, tags text[]
);
CREATE INDEX items_name ON $1.items (name);
INSERT INTO $1.items (name, price, added, seen, active, qty, big, f4, f8, code, label, raw, u,
                      doc, j, t, ts, iv, tags) VALUES
    ('pen', 1.50, '2024-02-29', '2024-03-10 08:30:15+00', true, 1, 10000000000, 1.5, 2.25,
     'abc', 'l1', '\\x0102', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": [1, null]}',
     '{"b":  2}', '10:00', '2024-01-01 01:02:03', '1 day 2 hours', '{a,"b c"}'),
    ('tab	and "quote"', NULL, NULL, NULL, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
     NULL, NULL, NULL, NULL, NULL, NULL, NULL);
CREATE TABLE $1.tags (
    id int GENERATED ALWAYS AS IDENTITY (START WITH 10 INCREMENT BY 5) PRIMARY KEY,
    tag text UNIQUE,
    item_id int REFERENCES $1.items (id)
);
INSERT INTO $1.tags (tag, item_id) VALUES ('new', 1), ('old', NULL);
CREATE SEQUENCE $1.counter START 100;
SELECT nextval('$1.counter');
CREATE VIEW $1.cheap AS SELECT id, name FROM $1.items WHERE price < 10;
COMMENT ON TABLE $1.items IS 'things for sale';
COMMENT ON COLUMN $1.items.name IS 'what it is called';
SQL
}

rich_rows() { # SCHEMA
    echo "SELECT * FROM $1.items ORDER BY id;
SELECT * FROM $1.tags ORDER BY id;
SELECT * FROM $1.cheap ORDER BY id;
SELECT last_value, is_called FROM $1.counter;
SELECT obj_description('$1.items'::regclass, 'pg_class'), col_description('$1.items'::regclass, 2);
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint
    WHERE connamespace = '$1'::regnamespace ORDER BY conname;
INSERT INTO $1.items (name) VALUES ('next') RETURNING id;
INSERT INTO $1.tags (tag) VALUES ('next') RETURNING id;"
}

# pg_dump -Fc of the server under test, restored by pg_restore into PostgreSQL and back into
# the server under test (after dropping the schema): the same rows, sequences, constraints
# and comments on all three.
custom_dump_round_trip() {
    local database="pgdump_fc_from_$CLIENT_TARGET" before
    rich_schema pgdump_fc | "${PSQL[@]}" -f - >/dev/null || return 1
    "$PGBIN/pg_dump" -Fc -n pgdump_fc -f "$WORK/fc.dump" || return 1
    before=$(rich_rows pgdump_fc | "${PSQL[@]}" -tA -f -) || return 1
    reference_psql postgres -c "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database" &&
        "$PGBIN/pg_restore" -e -h 127.0.0.1 -p "$REFERENCE_PGPORT" -U postgres -d "$database" \
            "$WORK/fc.dump" || return 1
    expect_output "$before" reference_psql "$database" -tA -c "$(rich_rows pgdump_fc)" || return 1
    "${PSQL[@]}" -c "DROP SCHEMA pgdump_fc CASCADE" && "$PGBIN/pg_restore" -e -d "$PGDATABASE" "$WORK/fc.dump" ||
        return 1
    expect_output "$before" "${PSQL[@]}" -tA -c "$(rich_rows pgdump_fc)"
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
check custom_dump_round_trip custom_dump_round_trip
