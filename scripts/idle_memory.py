#!/usr/bin/env python3
"""Memory of a server's idle connections: opens N connections that complete start-up and
then stay idle, and prints the server's memory (the summed Pss and Rss of the process and its
children, so PostgreSQL's backends count too) before and after, and the difference per
connection.

    scripts/idle_memory.py --pid PID --port PORT [--connections 200] [--user NAME]
"""
import argparse
import socket
import struct
import time
from pathlib import Path


def processes(pid):
    """The process and all its descendants."""
    found = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        for child in children.read_text().split():
            found += processes(int(child))
    return found


def memory_kb(pid):
    pss = rss = 0
    for p in processes(pid):
        try:
            for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    pss += int(line.split()[1])
                elif line.startswith("Rss:"):
                    rss += int(line.split()[1])
        except OSError:
            pass
    return pss, rss


def connect(port, user):
    sock = socket.create_connection(("127.0.0.1", port))
    body = struct.pack("!i", 196608) + b"user\0" + user.encode() + b"\0database\0postgres\0\0"
    sock.sendall(struct.pack("!i", len(body) + 4) + body)
    buffer = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError("connection closed during start-up")
        buffer += chunk
        # Walk the messages; ReadyForQuery ('Z') ends start-up.
        offset = 0
        while offset + 5 <= len(buffer):
            tag = buffer[offset : offset + 1]
            length = struct.unpack("!i", buffer[offset + 1 : offset + 5])[0]
            if offset + 1 + length > len(buffer):
                break
            if tag == b"E":
                raise RuntimeError(buffer[offset + 5 : offset + 1 + length])
            if tag == b"Z":
                return sock
            offset += 1 + length


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--user", default="postgres")
    args = parser.parse_args()
    time.sleep(0.5)
    before = memory_kb(args.pid)
    sockets = [connect(args.port, args.user) for _ in range(args.connections)]
    time.sleep(2)
    after = memory_kb(args.pid)
    n = args.connections
    print(
        f"idle connections: {n}; Pss {before[0]} -> {after[0]} kB "
        f"({(after[0] - before[0]) / n:.1f} kB each); Rss {before[1]} -> {after[1]} kB "
        f"({(after[1] - before[1]) / n:.1f} kB each)"
    )
    for sock in sockets:
        sock.close()


if __name__ == "__main__":
    main()
