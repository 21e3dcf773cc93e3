"""``kill -9`` of a run faster than real time: at most 0.5 s of simulated time lost.

The wall-clock flush interval is set to a minute so only the simulated-time flush can
have committed anything. The child records up to a known step, says so, then waits to
be killed, so the test knows exactly what had been recorded.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from robotsim.recording import Recorder, RunStatus, RunStore

REPO = Path(__file__).resolve().parents[2]
DT = 0.01  # simulated seconds per sample

CHILD = """
import sys, time
from robotsim.recording import Recorder

db, steps, DT = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
rec = Recorder(db, flush_interval=60.0)
rec.start_run("fast-run", {"steps": steps})
for k in range(steps):
    rec.signal("bot", k * DT, ("k",), [k])
print("recorded", steps, flush=True)
time.sleep(600)
"""


def _kill_after(db: str, tmp_path: Path, steps: int, dt: float = DT) -> None:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    proc = subprocess.Popen(
        [sys.executable, str(script), db, str(steps), repr(dt)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.split() == ["recorded", str(steps)], proc.stderr.read() if proc.stderr else ""
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize(
    ("backend", "dt"),
    [("sqlite", DT), ("postgresql", DT), ("sqlite", 0.3), ("sqlite", 0.45)],
)
def test_kill_9_loses_at_most_half_a_second_of_sim_time(
    backend: str, dt: float, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Dense samples (every 10 ms) and sparse ones (0.3 s and 0.45 s apart: each
    sample is a commit request, and the recorder must not let two of them run ahead)."""
    db = str(tmp_path / "runs.sqlite") if backend == "sqlite" else request.getfixturevalue("pg_url")
    steps = 3000  # 30 s of simulated time or more, in well under a second of wall time
    _kill_after(db, tmp_path, steps, dt)
    with RunStore(db) as store:
        info = next(r for r in store.runs() if r.parameters.get("steps") == steps)
        assert info.status is RunStatus.INTERRUPTED
        k = store.signals(info.id, "bot").column("k")
    np.testing.assert_array_equal(k, np.arange(k.size))  # contiguous
    last_t = (steps - 1) * dt
    assert k.size >= 1
    assert (k[-1] * dt) >= last_t - 0.5 - 1e-9, f"kept up to {k[-1] * dt} s of {last_t} s"


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_kill_9_right_after_the_first_sample_keeps_it(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    db = str(tmp_path / "runs.sqlite") if backend == "sqlite" else request.getfixturevalue("pg_url")
    _kill_after(db, tmp_path, 1)
    with RunStore(db) as store:
        info = next(r for r in store.runs() if r.parameters.get("steps") == 1)
        tab = store.signals(info.id, "bot")
    np.testing.assert_array_equal(tab.column("k"), [0.0])


def test_every_signal_returns_with_all_but_the_last_half_second_committed(
    tmp_path: Path,
) -> None:
    """Whatever the writer thread does (its wall-clock flush is a minute away), when
    ``signal`` returns everything up to 0.5 s of signal time before it is in the
    database, seen from another connection: the first sample at once."""
    db = str(tmp_path / "runs.sqlite")
    dt = 0.01
    with Recorder(db, flush_interval=60.0) as rec, RunStore(db) as store:
        rid = rec.start_run("checkpoints")
        for k in range(150):
            rec.signal("bot", k * dt, ("k",), [k])
            if k == 40:
                rec.event(k * dt, "bump", "bot")
            kept = store.signals(rid, "bot").column("k")
            np.testing.assert_array_equal(kept, np.arange(kept.size))
            assert kept.size >= 1 and kept[-1] * dt >= k * dt - 0.5 - 1e-9, (k, kept[-1])
        assert [e["type"] for e in store.events(rid)] == ["bump"]


def test_ctrl_c_during_a_commit_is_raised_after_it() -> None:
    """A SIGINT arriving while the simulation thread commits is held until the rows
    are in (then raised as usual), so Ctrl-C never drops a batch half-written."""
    from robotsim.recording.recorder import _sigint_deferred

    done = []
    with pytest.raises(KeyboardInterrupt):
        with _sigint_deferred():
            signal.raise_signal(signal.SIGINT)
            done.append("after the signal")
    assert done == ["after the signal"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
