# Starting `kestrel serve --memory` for a test script and waiting until it answers.
# Source it; the caller kills "$SERVER_PID" when it is done.

# Waits until the server on 127.0.0.1:PORT answers psql as USER (database of the same
# name): up to 30 s, since CI machines can be slow to start a debug build. Fails after that.
kestrel_wait() { # port, user
    for _ in $(seq 300); do
        psql -X -h 127.0.0.1 -p "$1" -U "$2" -d "$2" -c '' >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "kestrel_wait: no server answered on port $1 within 30 s" >&2
    return 1
}

# Starts KESTREL in memory on PORT with its log in LOG, sets SERVER_PID, and waits for it; if
# it never answers, prints the server's log and fails.
kestrel_start() { # kestrel binary, port, log file
    "$1" serve --memory --port "$2" 2>"$3" &
    SERVER_PID=$!
    kestrel_wait "$2" kestrel || { tail -n 20 "$3" >&2; return 1; }
}
