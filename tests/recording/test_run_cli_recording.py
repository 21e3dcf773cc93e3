"""``robotsim run --db``: a physics scenario recorded into the run store, also when the
process is killed with SIGKILL half-way (the run is repaired to ``interrupted`` and
every batch committed before the kill is still there)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from robotsim.cli import main
from robotsim.recording import RunStatus, RunStore

SCENARIO = """\
format: robotsim-scenario/1
kind: mobile
name: omni_goal
duration: {duration}
robots:
  - {{name: omni, model: omni3, start: [0, 0, 0], goal: [2, 1, 0]}}
"""


def test_run_records_into_the_store(tmp_path: Path) -> None:
    sc = tmp_path / "omni_goal.yaml"
    sc.write_text(SCENARIO.format(duration=3))
    assert main(["run", str(sc), "--out", str(tmp_path / "out"), "--db", str(tmp_path)]) == 0
    with RunStore(tmp_path) as store:
        info = store.run("last")
        assert info.status is RunStatus.COMPLETED and info.scenario == "omni_goal"
        table = store.signals(info.id, "omni")
        assert table.t[-1] == pytest.approx(3.0, abs=0.05)
        assert table.column("x")[-1] > 0.5  # it drove towards the goal


def test_kill_9_during_run_keeps_committed_batches(tmp_path: Path) -> None:
    sc = tmp_path / "long.yaml"
    sc.write_text(SCENARIO.format(duration=600))
    db = tmp_path / "runs.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-m", "robotsim", "run", str(sc), "--db", str(db)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        committed_t = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and committed_t is None:
            time.sleep(0.3)
            if db.exists():
                with RunStore(db, stale_after=1e9) as store:
                    if store.runs() and store.signal_count("last") > 0:
                        time.sleep(0.6)  # at least one more flush
                        committed_t = store.time_span("last")[1]
        assert committed_t is not None, "the run never committed a batch"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    with RunStore(db) as store:
        info = store.run("last")
        assert info.status is RunStatus.INTERRUPTED
        assert store.time_span(info.id)[1] >= committed_t
