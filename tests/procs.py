"""Helpers for tests that start child processes."""

from __future__ import annotations

import re
import signal
import socket


def default_sigint() -> None:
    """``preexec_fn`` for child processes a test stops with Ctrl-C (SIGINT).

    A shell that starts the suite in the background (``nohup make test &``, a CI
    script) sets SIGINT to "ignore", and children inherit that: Python then never
    raises KeyboardInterrupt. The child gets the default disposition back before it
    starts, so Python installs its Ctrl-C handler as in a terminal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (another process may take it before use)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def served_port(out: str, asked: int) -> int:
    """The port a page command's printed URL names: the one asked for, or the next free
    one when another process (the other test worker) took it while the command started
    (the command then says so)."""
    m = re.search(r"open http://127\.0\.0\.1:(\d+)/", out)
    assert m, out
    port = int(m.group(1))
    assert port == asked or f"(port {asked} was busy)" in out, out
    return port
