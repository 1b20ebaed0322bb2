#!/usr/bin/env bash
# psql: the basic commands and output formats, and the \d family through
# tests/protocol/psql_describe.sh when that script exists (it compares with PostgreSQL itself).
set -uo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"

aligned() {
    expect_output " n |  t  
---+-----
 1 | one
 2 | 
(2 rows)" "${PSQL[@]}" -c "SELECT * FROM (VALUES (1, 'one'), (2, NULL)) AS v(n, t)"
}

unaligned_tuples() {
    expect_output "1|one
2|" "${PSQL[@]}" -tA -c "SELECT * FROM (VALUES (1, 'one'), (2, NULL)) AS v(n, t)"
}

expanded() {
    expect_output "-[ RECORD 1 ]
n | 1
t | one" "${PSQL[@]}" -x -c "SELECT 1 AS n, 'one' AS t"
}

variables() {
    expect_output "it's 42|42" "${PSQL[@]}" -tA -v word="it's" <<'SQL'
SELECT 42 AS answer \gset
SELECT :'word' || ' ' || :answer, :answer;
SQL
}

script_and_errors() {
    local status=0
    "${PSQL[@]}" -f - >/dev/null <<'SQL'
DROP TABLE IF EXISTS psql_script;
CREATE TABLE psql_script (id int PRIMARY KEY, v text);
INSERT INTO psql_script VALUES (1, 'one');
SELECT 1 / 0;
INSERT INTO psql_script VALUES (2, 'two');
SQL
    status=$?
    [[ $status -eq 3 ]] || { echo "exit status $status, expected 3 (ON_ERROR_STOP)"; return 1; }
    expect_output "1" "${PSQL[@]}" -tA -c "SELECT count(*) FROM psql_script"
}

copy_meta_command() {
    "${PSQL[@]}" -c "DROP TABLE IF EXISTS psql_copy" -c "CREATE TABLE psql_copy (id int, v text)" &&
        printf '1\tone\n2\t\\N\n' >"$WORK/copy_in.tsv" &&
        "${PSQL[@]}" -c "\\copy psql_copy FROM '$WORK/copy_in.tsv'" &&
        expect_output "1	one
2	\\N" "${PSQL[@]}" -c "\\copy (SELECT * FROM psql_copy ORDER BY id) TO STDOUT"
}

ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
# Called as a user would call it, with no arguments: its interface is its own.
describe_family() {
    "$ROOT/tests/protocol/psql_describe.sh"
}

check aligned aligned
check unaligned_tuples unaligned_tuples
check expanded expanded
check variables variables
check script_and_errors script_and_errors
check copy_meta_command copy_meta_command
# The byte-exact \d comparison starts its own servers: run it once, on KestrelDB's turn.
if [[ $CLIENT_TARGET == kestrel && -x $ROOT/tests/protocol/psql_describe.sh ]]; then
    check describe_family describe_family
fi
