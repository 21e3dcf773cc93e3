"""A PostgreSQL server that goes away mid-run: clear RecordingErrors, no hang, and the
simulation's own exception is not masked."""

from __future__ import annotations

import time

import pytest

from robotsim.recording import Recorder, RecordingError, RunStatus
from robotsim.recording.pgserver import TempPostgres


def _record_until_error(rec: Recorder) -> RecordingError:
    deadline = time.monotonic() + 30
    k = 0
    while time.monotonic() < deadline:
        try:
            rec.signal("r", k * 0.01, ("a",), [k])
        except RecordingError as exc:
            return exc
        k += 1
        time.sleep(0.001)
    pytest.fail("the recorder never reported the lost database")


def test_lost_server_is_reported_and_never_hangs() -> None:
    try:
        pg = TempPostgres().start()
    except RecordingError as exc:
        pytest.fail(f"could not start the test PostgreSQL server: {exc}")
    try:
        rec = Recorder(pg.url, flush_interval=0.05)
        rec.start_run("doomed")
        rec.signal("r", 0.0, ("a",), [0.0])
        rec.flush()
    finally:
        pg.stop()
    err = _record_until_error(rec)
    assert "writer failed" in str(err)
    with pytest.raises(RecordingError, match="cannot set status 'failed'"):
        rec.finish()
    assert rec.status is RunStatus.FAILED


def test_simulation_error_is_not_masked_by_a_lost_server() -> None:
    pg = TempPostgres().start()
    with pytest.warns(RuntimeWarning, match="writer failed"), pytest.raises(ZeroDivisionError):
        try:
            with Recorder(pg.url, flush_interval=0.05) as rec:
                rec.start_run("doomed")
                rec.signal("r", 0.0, ("a",), [0.0])
                rec.flush()
                pg.stop()
                time.sleep(0.3)  # the writer notices
                _ = 1 / 0
        finally:
            pg.stop()
