"""Helpers for tests that start child processes."""

from __future__ import annotations

import signal


def default_sigint() -> None:
    """``preexec_fn`` for child processes a test stops with Ctrl-C (SIGINT).

    A shell that starts the suite in the background (``nohup make test &``, a CI
    script) sets SIGINT to "ignore", and children inherit that: Python then never
    raises KeyboardInterrupt. The child gets the default disposition back before it
    starts, so Python installs its Ctrl-C handler as in a terminal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
