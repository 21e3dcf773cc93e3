"""A real PostgreSQL server for the run store tests, started once per session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from robotsim.recording import RecordingError
from robotsim.recording.pgserver import TempPostgres


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
