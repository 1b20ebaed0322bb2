"""Shared by the Python client checks: where to connect (libpq's PG* variables, set by
tests/clients/run.sh) and how to run named checks, each in isolation with a time limit, printing
one line per check for the runner: `ok CLIENT/CHECK` or `FAIL CLIENT/CHECK: error`."""

import asyncio
import inspect
import os
import signal
import sys

CHECK_TIMEOUT_S = 20


def settings():
    """host, port, user and database of the server under test."""
    return (
        os.environ["PGHOST"],
        int(os.environ["PGPORT"]),
        os.environ["PGUSER"],
        os.environ["PGDATABASE"],
    )


def url(scheme="postgresql"):
    host, port, user, database = settings()
    return f"{scheme}://{user}@{host}:{port}/{database}"


def expect(actual, expected, what="value"):
    if actual != expected:
        raise AssertionError(f"{what}: expected {expected!r}, got {actual!r}")


def describe(error):
    """One line: the server's message and SQLSTATE when there is one."""
    sqlstate = (
        getattr(error, "sqlstate", None)
        or getattr(error, "pgcode", None)
        or getattr(getattr(error, "orig", None), "sqlstate", None)
    )
    text = str(getattr(error, "orig", None) or error).strip().splitlines()
    message = text[0] if text else type(error).__name__
    if sqlstate:
        message += f" (SQLSTATE {sqlstate})"
    return f"{type(error).__name__}: {message}"[:300]


def _on_alarm(_signum, _frame):
    raise TimeoutError


class Checks:
    """A client's checks, registered with @checks.check in the order they run."""

    def __init__(self, client):
        self.client = client
        self.functions = []

    def check(self, function):
        self.functions.append(function)
        return function

    def run(self):
        signal.signal(signal.SIGALRM, _on_alarm)
        for function in self.functions:
            name = f"{self.client}/{function.__name__}"
            try:
                if inspect.iscoroutinefunction(function):
                    asyncio.run(asyncio.wait_for(function(), CHECK_TIMEOUT_S))
                else:
                    signal.alarm(CHECK_TIMEOUT_S)
                    try:
                        function()
                    finally:
                        signal.alarm(0)
            except TimeoutError:
                print(f"FAIL {name}: no answer within {CHECK_TIMEOUT_S} s", flush=True)
            except Exception as error:  # every failure is reported, none stops the run
                print(f"FAIL {name}: {describe(error)}", flush=True)
            else:
                print(f"ok   {name}", flush=True)
        sys.exit(0)
