"""Session fixtures: the shared folder and its fixtures (paths in ``tests/paths.py``), a
real PostgreSQL server for the run-store tests, started once per session, and a check
that the session leaves no studio temp folders behind."""

from __future__ import annotations

import gc
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from robotsim.recording import RecordingError
from robotsim.recording.pgserver import TempPostgres
from tests.paths import FIXTURES, SHARED

os.environ.setdefault("MUJOCO_GL", "egl")

# A shell that starts the suite in the background (``nohup make test &``, a CI script)
# sets SIGINT to "ignore", which every test process and the commands and docs examples
# it starts would inherit: the tests of Ctrl-C would then hang or fail. Python's own
# handler again (children get the default disposition when they start).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(config, items):  # type: ignore[no-untyped-def]
    """Modules with the most ``slow`` tests first (each module's tests stay together, in
    their order): the two workers of ``make test`` then end on short tests together,
    rather than one running a long docs page or simulation while the other idles."""
    slow: dict[str, int] = {}
    for item in items:
        slow[str(item.path)] = slow.get(str(item.path), 0) + bool(item.get_closest_marker("slow"))
    items.sort(key=lambda item: -slow[str(item.path)])  # stable: a module stays in order


LEAKABLE = ("robotsim-map-*", "robotsim-thumbs-*")  # the studio panels' temp files/folders


@pytest.fixture(scope="session", autouse=True)
def no_leaked_temp_folders() -> Iterator[None]:
    """Studios the tests build (and stop, or drop) remove their panels' temp folders: the
    session fails if one is left once every fixture has been torn down. The session's
    process (an xdist worker too) gets a temp folder of its own, inherited by the
    commands the tests start, so that what it leaves can be told apart from the rest of
    /tmp (other processes of the machine); pytest's ``tmp_path`` folders stay where
    they were."""
    os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", tempfile.gettempdir())
    own = Path(tempfile.mkdtemp(prefix="robotsim-tests-"))
    own.chmod(0o1777)  # as /tmp: the test PostgreSQL server runs as another user
    before = (tempfile.tempdir, os.environ.get("TMPDIR"))
    tempfile.tempdir, os.environ["TMPDIR"] = str(own), str(own)
    try:
        yield
        gc.collect()  # studios dropped without a stop remove theirs when collected
        left = sorted(p.name for pattern in LEAKABLE for p in own.glob(pattern))
    finally:
        tempfile.tempdir = before[0]
        if before[1] is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = before[1]
        shutil.rmtree(own, ignore_errors=True)
    assert not left, f"the tests left {len(left)} studio temp folders: {', '.join(left[:5])}"


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
