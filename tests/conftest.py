"""Session fixtures: the shared folder and its fixtures (paths in ``tests/paths.py``)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.paths import FIXTURES, SHARED

os.environ.setdefault("MUJOCO_GL", "egl")


def default_sigint() -> None:
    """``preexec_fn`` for child processes a test stops with Ctrl-C (SIGINT).

    A shell that starts the suite in the background (``nohup make test &``, a CI
    script) sets SIGINT to "ignore", and children inherit that: Python then never
    raises KeyboardInterrupt. The child gets the default disposition back before it
    starts, so Python installs its Ctrl-C handler as in a terminal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    return SHARED


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES
