"""Session fixtures: the shared folder and its fixtures (paths in ``tests/paths.py``), and
a real PostgreSQL server for the run-store tests, started once per session."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from robotsim.recording import RecordingError
from robotsim.recording.pgserver import TempPostgres
from tests.paths import FIXTURES, SHARED

os.environ.setdefault("MUJOCO_GL", "egl")


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    return SHARED


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """URL of a throwaway PostgreSQL server (fails, never skips, if it cannot start)."""
    try:
        server = TempPostgres().start()
    except RecordingError as exc:
        pytest.fail(f"could not start the test PostgreSQL server: {exc}")
    try:
        yield server.url
    finally:
        server.stop()
