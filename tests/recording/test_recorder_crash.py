"""Ctrl-C and kill -9 of a recording process, in a real subprocess.

Ctrl-C (SIGINT) must lose nothing and mark the run ``interrupted``; SIGKILL may lose
only what was stepped within the last flush interval, and the next open of the store
marks the run ``interrupted``.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from robotsim.recording import RunStatus, RunStore
from tests.procs import default_sigint

FLUSH = 0.2

CHILD = """
import sys, time
from robotsim.recording import Recorder

rec = Recorder(sys.argv[1], flush_interval=float(sys.argv[2]))
with rec:
    rec.start_run("crash-test", {"kind": "child"})
    k = 0
    names = ("k", "minus_k")
    while True:
        rec.signal("bot", k * 0.01, names, [k, -k])
        if k % 5 == 0:
            print(k, flush=True)
        k += 1
        time.sleep(0.002)
"""


def _run_child(db: str, tmp_path: Path, sig: int) -> tuple[list[tuple[float, int]], float]:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    proc = subprocess.Popen(
        [sys.executable, str(script), db, str(FLUSH)],
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,  # Ctrl-C works even if this suite runs in the background
    )
    seen: list[tuple[float, int]] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            seen.append((time.monotonic(), int(line)))
            if seen[-1][1] >= 800:
                break
        kill_time = time.monotonic()
        proc.send_signal(sig)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert seen, "the child process printed nothing"
    return seen, kill_time


def _recorded_steps(store: RunStore, rid: int) -> np.ndarray:
    tab = store.signals(rid, "bot")
    k = tab.column("k")
    np.testing.assert_array_equal(tab.column("minus_k"), -k)
    np.testing.assert_array_equal(k, np.arange(k.size))  # contiguous: no gaps, no dupes
    return k


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_ctrl_c_keeps_everything_and_marks_interrupted(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    db = str(tmp_path / "runs.sqlite") if backend == "sqlite" else request.getfixturevalue("pg_url")
    seen, _ = _run_child(db, tmp_path, signal.SIGINT)
    with RunStore(db) as store:
        info = store.runs(limit=1)[0]
        assert info.scenario == "crash-test"
        assert info.status is RunStatus.INTERRUPTED
        k = _recorded_steps(store, info.id)
        assert k[-1] >= seen[-1][1]  # every step printed before Ctrl-C is stored


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_kill_9_loses_at_most_the_flush_interval(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    db = str(tmp_path / "runs.sqlite") if backend == "sqlite" else request.getfixturevalue("pg_url")
    seen, kill_time = _run_child(db, tmp_path, signal.SIGKILL)
    with RunStore(db) as store:  # opening repairs the dead run (its pid is gone)
        info = store.runs(limit=1)[0]
        assert info.scenario == "crash-test"
        assert info.status is RunStatus.INTERRUPTED
        assert "killed or crashed" in (info.message or "")
        k = _recorded_steps(store, info.id)
    # Steps seen at least one flush interval (plus scheduling slack on a busy machine)
    # before the kill are in the store.
    old = [step for when, step in seen if when <= kill_time - FLUSH - 0.8]
    assert old, "the child ran for less than the flush interval"
    assert k.size > 0 and k[-1] >= old[-1]


def test_process_exiting_with_an_open_run_marks_it_interrupted(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    code = (
        "import sys\nfrom robotsim.recording import Recorder\n"
        "r = Recorder(sys.argv[1]); r.start_run('forgot-to-finish')\n"
        "for k in range(100): r.signal('bot', k * 0.01, ('k',), [k])\n"
    )
    subprocess.run([sys.executable, "-c", code, str(db)], check=True, timeout=60)
    with RunStore(db) as store:
        info = store.runs(limit=1)[0]
        assert info.status is RunStatus.INTERRUPTED
        assert info.message == "process exited before the run finished"
        assert store.signal_count(info.id) == 100
