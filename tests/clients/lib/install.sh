# shellcheck shell=bash
# Sourced by run.sh: per client, how to install it (idempotent; caches in ignored dirs under
# tests/clients/) and the command that runs its checks. Expects HERE (tests/clients).

client_language() {
    case $1 in
    psycopg | psycopg2 | asyncpg | sqlalchemy | pgvector) echo python ;;
    pgx) echo go ;;
    node-postgres) echo node ;;
    pgjdbc) echo java ;;
    tokio-postgres) echo rust ;;
    psql | pgbench | pg_dump) echo tools ;;
    esac
}

# client_command CLIENT: sets COMMAND to the command that runs CLIENT's checks.
# shellcheck disable=SC2034 # COMMAND is run.sh's
client_command() {
    case $1 in
    psycopg | psycopg2 | asyncpg | sqlalchemy | pgvector) COMMAND=("$HERE/.venv/bin/python" "$HERE/python/check_$1.py") ;;
    pgx) COMMAND=("$HERE/.build/pgx-checks") ;;
    node-postgres) COMMAND=(node "$HERE/node/check_pg.js") ;;
    pgjdbc) COMMAND=(java -cp "$HERE/java/target/classes:$HERE/java/target/lib/*" PgjdbcChecks) ;;
    tokio-postgres) COMMAND=("${CARGO_TARGET_DIR:-$ROOT/target}/debug/tokio-postgres-checks") ;;
    psql | pgbench | pg_dump) COMMAND=("$HERE/tools/check_$1.sh") ;;
    esac
}

# Each language is installed once per run, and again only when its pinned versions changed.
declare -A installed_languages=()
install_client() {
    local language
    language=$(client_language "$1")
    [[ -n ${installed_languages[$language]:-} ]] && return 0
    installed_languages[$language]=1
    local started=$SECONDS
    "install_$language"
    echo "install $language: $((SECONDS - started)) s"
}

# up_to_date STAMP INPUT...: whether STAMP is newer than every INPUT.
up_to_date() {
    local stamp=$1 input
    shift
    [[ -e $stamp ]] || return 1
    for input in "$@"; do
        [[ $stamp -nt $input ]] || return 1
    done
}

install_python() {
    local venv=$HERE/.venv
    up_to_date "$venv/.installed" "$HERE/python/requirements.txt" && return 0
    [[ -x $venv/bin/python ]] || python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$HERE/python/requirements.txt"
    touch "$venv/.installed"
}

install_go() {
    # go build fetches the modules go.sum pins into the module cache, then caches the build.
    (cd "$HERE/go" && go build -o "$HERE/.build/pgx-checks" .)
}

install_node() {
    up_to_date "$HERE/node/node_modules/.installed" "$HERE/node/package-lock.json" && return 0
    (cd "$HERE/node" && npm ci --silent --no-audit --no-fund)
    touch "$HERE/node/node_modules/.installed"
}

install_java() {
    # Compiles the checks and copies the pinned driver next to them: the run needs no Maven.
    up_to_date "$HERE/java/target/.installed" "$HERE/java/pom.xml" "$HERE"/java/src/main/java/*.java &&
        return 0
    # Maven's output (colour codes even when quiet) is shown only when it fails.
    local log
    log=$(cd "$HERE/java" && mvn --batch-mode --quiet compile dependency:copy-dependencies \
        -DoutputDirectory=target/lib 2>&1) || { echo "$log" >&2; return 1; }
    touch "$HERE/java/target/.installed"
}

install_rust() {
    # The main target dir: see rust/Cargo.toml.
    CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target} \
        cargo build --quiet --locked --manifest-path "$HERE/rust/Cargo.toml"
}

install_tools() {
    local tool
    for tool in psql pgbench pg_dump; do
        [[ -x $PGBIN/$tool ]] || { echo "no $tool in $PGBIN" >&2; return 1; }
    done
}
