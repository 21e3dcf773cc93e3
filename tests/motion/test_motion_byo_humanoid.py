"""A humanoid robotsim has never seen (MuJoCo's humanoid.xml, no profile file): motion
playback infers its feet, floats its base and switches support at each touchdown."""

from __future__ import annotations

import json
from pathlib import Path

from robotsim.cli import main

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures"
HUMANOID_XML = FIXTURES / "mjcf" / "mujoco_humanoid" / "humanoid.xml"

PROGRAM = """format: robotsim-program/1
name: lift_feet
robot: {robot}
units: deg
motions:
- name: lift
  interpolation: linear
  keyframes:
  - {{name: up_right, targets: {{hip_y_right: -30, knee_right: -50}}, speed: 4}}
  - {{name: down_right, targets: {{hip_y_right: 0, knee_right: 0}}, speed: 4}}
  - {{name: up_left, targets: {{hip_y_left: -30, knee_left: -50}}, speed: 4}}
  - {{name: down_left, targets: {{hip_y_left: 0, knee_left: 0}}, speed: 4}}
"""


def test_mujoco_humanoid_plays_with_support_switching(tmp_path: Path, capsys) -> None:
    f = tmp_path / "lift.yaml"
    f.write_text(PROGRAM.format(robot=HUMANOID_XML))
    assert main(["motion", "play", str(f), "--out", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert s["support_switches"] == 4  # each lifted foot hands over, each touchdown back
    assert s["max_stance_slip_m"] <= 1e-9 and s["max_penetration_m"] <= 1e-3
    assert {sw["to_foot"] for sw in s["switches"]} == {"foot_left_sole", "foot_right_sole"}


def test_gait_for_the_mujoco_humanoid_walks_statically(tmp_path: Path, capsys) -> None:
    """`motion gait` from the inferred profile: a statically stable walk that plays with
    support switching, no slip and no penetration."""
    walk = tmp_path / "walk.yaml"
    argv = ["motion", "gait", "--robot", str(HUMANOID_XML), "--steps", "4",
            "--step-length", "0.08", "--out", str(walk), "--json"]  # fmt: skip
    assert main(argv) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["soles"] == ["foot_left_sole", "foot_right_sole"]
    # the side-view picture is not what this test checks (tests/motion/test_motion_cli.py)
    assert main(["motion", "play", str(walk), "--out", str(tmp_path / "out"), "--no-strip"]) == 0
    capsys.readouterr()
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert s["support_switches"] >= 3
    assert s["max_stance_slip_m"] <= 1e-9 and s["max_penetration_m"] <= 1e-3
    assert s["min_support_margin_m"] > 0.005  # the CoM stays inside the support polygon
    assert s["distance_walked_m"] > 3 * 0.08 - 1e-6


def test_gait_needs_two_legs(tmp_path: Path, capsys) -> None:
    argv = ["motion", "gait", "--robot", "puma560", "--step-length", "0.05",
            "--out", str(tmp_path / "w.yaml")]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "a walk needs a biped" in err and "has 0 leg(s)" in err
