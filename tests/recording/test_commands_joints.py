"""Database ``joints`` commands on a mobile robot: the joints of a pan-tilt head on the
omni3 base get position servos (the wheels keep their velocity motors), so a ``joints``
row inserted by another process moves them while the base holds its goal; a target
outside a joint's range, a wheel and an unknown joint are refused in the table."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from robotsim.mobile.build import build_mobile, servo_joints
from robotsim.mobile.load import load_mobile
from robotsim.model import load_robot
from robotsim.recording import RunStore
from robotsim.recording.commands import read_status, send_command, wait_command
from robotsim.recording.pgserver import TempPostgres
from tests.paths import REPO

LIBRARY = REPO / "src" / "robotsim" / "model" / "library" / "omni3.yaml"

SCENARIO = """\
format: robotsim-scenario/1
kind: mobile
name: omni_pan_tilt
duration: 120
timestep: 0.002
control_rate: 50
record_rate: 10
field: {size: [10, 8], markings: none}
robots:
  - name: omni
    model: omni3_pan_tilt.yaml
    start: [0, 0, 0]
    goal: [0, 0, 0]
    servo: {gain: 50, damping: 2}
"""


def write_pan_tilt_robot(folder: Path) -> Path:
    """omni3 with a pan-tilt camera head on its mast (pan about z, tilt about y)."""
    doc = yaml.safe_load(LIBRARY.read_text())
    doc["name"] = "omni3_pan_tilt"
    link = lambda name, mass, shape: {  # noqa: E731
        "name": name,
        "visuals": [shape],
        "collisions": [shape],
        "inertial": {"mass": mass, "com": [0, 0, 0], "inertia": [2e-4, 2e-4, 2e-4]},
    }
    doc["links"] += [
        link("pan_link", 0.2, {"type": "cylinder", "radius": 0.03, "length": 0.03}),
        link("tilt_link", 0.2, {"type": "box", "size": [0.08, 0.04, 0.04], "xyz": [0.03, 0, 0]}),
    ]
    doc["joints"] += [
        {"name": "pan", "type": "revolute", "parent": "base", "child": "pan_link",
         "xyz": [0, 0, 0.3], "axis": [0, 0, 1], "limits": [-170, 170], "velocity": 90,
         "effort": 2},
        {"name": "tilt", "type": "revolute", "parent": "pan_link", "child": "tilt_link",
         "xyz": [0, 0, 0.04], "axis": [0, 1, 0], "limits": [-45, 45], "velocity": 90,
         "effort": 2},
    ]  # fmt: skip
    path = folder / "omni3_pan_tilt.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def test_the_head_gets_position_servos_and_the_wheels_keep_velocity_motors(tmp_path: Path):
    write_pan_tilt_robot(tmp_path)
    (tmp_path / "s.yaml").write_text(SCENARIO)
    source = str(tmp_path / "s.yaml")
    sc, robots, obstacles = load_mobile(yaml.safe_load(SCENARIO), source)
    assert servo_joints(robots[0]) == ("pan", "tilt")
    scene = build_mobile(sc, robots, obstacles, source)
    motors = scene.robots[0].motors
    assert {j: m.kind for j, m in motors.items()} == {
        "wheel1": "velocity", "wheel2": "velocity", "wheel3": "velocity",
        "pan": "position", "tilt": "position",
    }  # fmt: skip
    assert (motors["pan"].gain, motors["pan"].damping, motors["pan"].force) == (50, 2, 2)
    # a plain omni3 has nothing besides its wheels
    plain = dataclasses.replace(robots[0], model=load_robot("omni3"))
    assert servo_joints(plain) == ()


def start_sim(tmp_path: Path, db: str) -> subprocess.Popen:
    write_pan_tilt_robot(tmp_path)
    (tmp_path / "s.yaml").write_text(SCENARIO)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "MUJOCO_GL": "egl"}
    cmd = [sys.executable, "-m", "robotsim", "run", str(tmp_path / "s.yaml"), "--db", db,
           "--commands", "--json"]  # fmt: skip
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            text=True)  # fmt: skip


def wait_for(cond, what: str, timeout: float = 90.0):  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = cond()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def sim_time(store: RunStore, run_id: int) -> float:
    rows = read_status(store.engine, run_id)
    return float(rows[0]["t"]) if rows else -1.0


def move_the_head(tmp_path: Path, db: str) -> None:
    proc = start_sim(tmp_path, db)
    try:
        store = RunStore(db)
        run_id = wait_for(lambda: store.runs() and store.runs()[-1].id, "the run")
        wait_for(lambda: sim_time(store, run_id) >= 0, "the first status row")
        e = store.engine
        refused = {
            "range": {"tilt": 80},
            "wheel": {"wheel1": 10},
            "ghost": {"elbow": 5},
        }
        rows = {k: wait_command(e, send_command(e, run_id, "joints", a), 60)
                for k, a in refused.items()}  # fmt: skip
        assert all(r["status"] == "failed" for r in rows.values()), rows
        assert (
            "'tilt' of 'omni': target 80 deg is outside its range -45 .. 45 deg"
            in (rows["range"]["reason"])
        )
        assert "velocity motor (a wheel?)" in rows["wheel"]["reason"]
        assert "no joint 'elbow'" in rows["ghost"]["reason"]
        assert "position servos: pan, tilt" in rows["ghost"]["reason"]

        row = wait_command(e, send_command(e, run_id, "joints", {"pan": 30, "tilt": -20}), 60)
        assert row["status"] == "done" and row["reason"] is None
        done_at = float(row["sim_time"])
        wait_for(lambda: sim_time(store, run_id) > done_at + 1.5, "1.5 s of simulated time")
        assert wait_command(e, send_command(e, run_id, "stop"), 60)["status"] == "done"
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        omni = json.loads(out)["robots"]["omni"]
        assert omni["joints"]["pan"] == pytest.approx(30, abs=0.3)
        assert omni["joints"]["tilt"] == pytest.approx(-20, abs=0.3)
        assert omni["final_pose"][0] == pytest.approx(0, abs=0.05)  # the base held its goal
        assert omni["final_pose"][1] == pytest.approx(0, abs=0.05)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.slow
def test_joints_commands_through_sqlite(tmp_path: Path) -> None:
    move_the_head(tmp_path, str(tmp_path / "runs.sqlite"))


@pytest.mark.slow
def test_joints_commands_through_postgresql(tmp_path: Path) -> None:
    with TempPostgres() as pg:
        move_the_head(tmp_path, pg.url)
