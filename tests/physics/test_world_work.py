"""The work budget and Ctrl-C of a physics run (issue 29, item 2): a run sizes itself
(steps x bodies) before it steps and refuses with one line naming the parameter; MuJoCo
is called in slices so that Ctrl-C stops any step within a fraction of a second, and
slicing changes nothing in the result."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from tests.procs import default_sigint

from robotsim.budget import DEFAULT_MAX_WORK, BudgetError, set_work_budget
from robotsim.cli import main
from robotsim.model.geometry import Box
from robotsim.physics import World
from robotsim.physics.scene import Body, Joint, Scene
from robotsim.spatial import make_T


def _boxes(n: int = 3, timestep: float = 0.002) -> Scene:
    bodies = tuple(
        Body(f"b{i}", Box((0.2, 0.2, 0.2)), make_T(None, [0.5 * i, 0, 0.3 + 0.1 * i]),
             joint=Joint("free"), mass=1.0)
        for i in range(n)
    )  # fmt: skip
    return Scene(bodies=bodies, timestep=timestep)


@pytest.fixture(autouse=True)
def _default_budget() -> None:
    set_work_budget(None)
    yield
    set_work_budget(None)


def test_a_tiny_timestep_is_refused_naming_the_timestep() -> None:
    w = World(_boxes(3, timestep=1e-9))
    with pytest.raises(BudgetError) as err:
        w.check_work(30.0, "crates.yaml")
    msg = str(err.value)
    assert msg.startswith("crates.yaml: timestep 1e-09 s for 30 s")
    assert "3e+10 steps of 3 bodies (9e+10 body-steps)" in msg
    assert "use a timestep of at least 9e-08 s" in msg and "--max-work" in msg
    assert "\n" not in msg
    w.check_work(30.0 * 1e9 / 9e10 * 0.999, "short enough")  # just under the budget


def test_a_long_duration_is_refused_naming_the_duration() -> None:
    w = World(_boxes(3))
    assert w.check_work(60.0, "x") == 30_000
    steps_allowed = DEFAULT_MAX_WORK / 3
    with pytest.raises(BudgetError, match=r"^x: duration 1e\+07 s at timestep 0.002 s") as err:
        w.check_work(1e7, "x")
    assert f"use a duration of at most {steps_allowed * 0.002:.4g} s" in str(err.value)
    with pytest.raises(Exception, match="must be a finite number"):
        w.check_work(float("inf"), "x")
    set_work_budget("1e12")  # --max-work raises it
    w.check_work(1e7, "x")


def test_slices_change_nothing_in_the_result() -> None:
    """The same 2,000 steps in one MuJoCo call per 10 ms chunk and in slices of 1 and 7
    steps: bitwise the same state (nothing is written between slices)."""
    runs = []
    for slice_ in (1 << 20, 1, 7):
        w = World(_boxes(4, timestep=1e-4))
        w.body("b1").set_velocity([1.0, 0.5, 0.0], [0.0, 0.0, 3.0])
        w._slice = slice_
        w.step(2000)
        runs.append(w.data.qpos.copy())
    assert np.array_equal(runs[0], runs[1]) and np.array_equal(runs[0], runs[2])


CHILD = """
import time
from robotsim.model.geometry import Sphere
from robotsim.physics import World
from robotsim.physics.scene import Body, Joint, Scene
from robotsim.spatial import make_T
w = World(Scene(bodies=(Body("ball", Sphere(0.1), make_T(None, [0, 0, 1]),
                             joint=Joint("free"), mass=1.0),), timestep=1e-9))
print("stepping", flush=True)
try:
    w.step(10**9)  # 1 s of simulated time: hours of wall time
except KeyboardInterrupt:
    print("interrupted", time.monotonic(), w.time, flush=True)
"""


@pytest.mark.slow
def test_ctrl_c_stops_a_huge_step_at_once() -> None:
    """Before slicing, a 10 ms chunk at a 1e-9 s step was one MuJoCo call of 10^7 steps
    (tens of seconds) and Ctrl-C waited for it; now the KeyboardInterrupt comes at the
    end of the current slice (25-100 ms of wall time). Bound: 1 s of wall time, measured
    from the signal to the child's own clock reading in its handler."""
    p = subprocess.Popen(
        [sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True, preexec_fn=default_sigint
    )
    try:
        assert p.stdout is not None and p.stdout.readline().startswith("stepping")
        time.sleep(1.0)  # well inside the first 10 ms chunk of simulated time
        sent = time.monotonic()
        p.send_signal(2)
        line = p.stdout.readline().split()
        assert line and line[0] == "interrupted", line
        latency, sim_t = float(line[1]) - sent, float(line[2])
        assert sim_t < 0.01  # it was inside one chunk, which used to be one call
        assert latency < 1.0, latency
    finally:
        p.kill()
        p.wait(10)


def test_the_cli_refuses_the_run_of_the_issue(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:  # fmt: skip
    rc = main(["run", "soccer_obstacles", "--set", "timestep=1e-9", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.count("\n") == 0, err
    assert "timestep 1e-09 s for 30 s" in err and "work budget" in err, err
    assert not (tmp_path / "o" / "summary.json").exists()  # refused before it stepped
    rc = main(["run", "soccer_obstacles", "--set", "timestep=1e-9", "--max-work", "1e12",
               "--duration", "1e-6", "--json"])  # fmt: skip
    assert rc == 0, capsys.readouterr().err


@pytest.mark.slow
def test_ctrl_c_stops_robotsim_run_and_keeps_what_was_recorded(tmp_path: Path) -> None:
    """`robotsim run` at a 1e-9 s step (allowed by a raised --max-work): each 10 ms
    chunk used to be one MuJoCo call of 10^7 steps; Ctrl-C now ends the command at
    once, the run store keeps the run, marked interrupted."""
    from robotsim.recording import RunStore

    out = tmp_path / "o"
    cmd = [sys.executable, "-m", "robotsim", "run", "soccer_obstacles", "--set",
           "timestep=1e-9", "--max-work", "1e15", "--out", str(out)]  # fmt: skip
    p = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    try:
        deadline = time.monotonic() + 120
        while not (out / "runs.sqlite").exists() and time.monotonic() < deadline:
            time.sleep(0.2)  # the recorder opens before the run steps
        with RunStore(out / "runs.sqlite") as store:
            while not store.runs() and time.monotonic() < deadline:
                time.sleep(0.2)
        time.sleep(1.0)  # inside the first chunk (hours of wall time at this step)
        sent = time.monotonic()
        p.send_signal(2)
        rc = p.wait(30)  # without slices: until the current 10^7-step call ends
        stopped = time.monotonic() - sent
    finally:
        p.kill()
        p.wait(10)
    assert rc == 130, p.stderr.read() if p.stderr else rc
    assert stopped < 10.0, stopped
    with RunStore(out / "runs.sqlite") as store:
        assert store.runs()[0].status.value == "interrupted"


def test_the_shipped_motion_check_by_name_sizes_its_work_first(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`run walk_forward_check` from any folder finds its program (``../motions/`` beside
    the shipped scenario: it looked in the current folder's parent), and a tiny step is
    refused in one line before the foot sensor is built (it was a pydantic traceback)."""
    monkeypatch.chdir(tmp_path)
    rc = main(["run", "walk_forward_check", "--set", "physics.timestep=1e-9", "--out", "o"])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.count("\n") == 0 and "Traceback" not in err, err
    assert err.startswith("error: humanoid17: physics check: timestep 1e-09 s for"), err
    assert "work budget" in err and not (tmp_path / "o" / "summary.json").exists()
