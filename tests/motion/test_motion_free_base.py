"""``motion check --physics`` tests the robot it is given (issue 22.1): a URDF humanoid
without a floating joint (NAO-sized) is set free, walks the walk ``motion gait`` makes
for it, falls when a program topples it, and a legged robot that cannot be freed is an
error (exit 2), never a verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from robotsim.cli import main
from tests.doc_numbers import quoted
from tests.humanoid_files import write_nao_like_urdf, write_planar_walker_urdf

LIFT = """format: robotsim-program/1
name: lift_left
robot: {robot}
units: deg
motions:
- name: lift
  interpolation: linear
  keyframes:
  - {{name: up, targets: {{LHipPitch: -50, LKneePitch: 100, LAnklePitch: -50}}, speed: 5}}
  - {{name: hold, targets: {{LHipPitch: -50, LKneePitch: 100, LAnklePitch: -50}}, speed: 1}}
"""


@pytest.fixture(scope="module")
def nao(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_nao_like_urdf(tmp_path_factory.mktemp("nao") / "nao_like.urdf")


@pytest.mark.slow
def test_a_urdf_humanoid_walks_its_generated_walk_in_physics(nao: Path, tmp_path, capsys):
    walk = tmp_path / "walk.yaml"
    argv = ["motion", "gait", "--robot", str(nao), "--steps", "6", "--step-length", "0.04",
            "--out", str(walk)]  # fmt: skip
    assert main(argv) == 0
    capsys.readouterr()
    code = main(["motion", "check", str(walk), "--physics", "--json"])
    s = json.loads(capsys.readouterr().out)
    assert s["floating_base"] is True
    assert code == 0 and s["verdict"] == "stands", s["reason"]
    planned = s["distance_walked_ref_m"]
    assert planned == pytest.approx(5 * 0.04, rel=1e-6)  # the closing step joins the feet
    assert s["distance_walked_m"] >= 0.9 * planned  # welded, it walked 0.000 m
    walked, plan = quoted("physics.md", r"walks ([\d.]+) m of the ([\d.]+) m planned")
    assert walked.holds(s["distance_walked_m"]) and plan.holds(planned)
    assert s["max_tilt_deg"] < 5.0 and s["com_outside_fraction"] < 0.01
    assert 0.0 < s["min_support_margin_m"] and s["airborne_fraction"] == 0.0


def test_a_urdf_humanoid_that_lifts_a_foot_without_shifting_its_weight_falls(
    nao: Path, tmp_path: Path, capsys
) -> None:
    prog = tmp_path / "lift.yaml"
    prog.write_text(LIFT.format(robot=nao))
    code = main(["motion", "check", str(prog), "--physics", "--json"])
    s = json.loads(capsys.readouterr().out)
    assert code == 1 and s["verdict"] == "falls" and s["floating_base"] is True
    assert s["max_tilt_deg"] > 35.0 and s["fell_during"].endswith("'hold'")
    assert s["com_outside_fraction"] > 0.5


def test_a_legged_robot_held_by_its_file_is_an_error_not_a_verdict(tmp_path: Path, capsys) -> None:
    walker = write_planar_walker_urdf(tmp_path / "walker.urdf")
    prog = tmp_path / "squat.yaml"
    prog.write_text(
        "format: robotsim-program/1\nname: squat\nunits: deg\nmotions:\n- name: squat\n"
        "  keyframes:\n  - {name: down, targets: {left_knee: 30, right_knee: 30}, speed: 5}\n"
    )
    code = main(["motion", "check", str(prog), "--robot", str(walker), "--physics", "--json"])
    err = capsys.readouterr().err
    assert code == 2
    assert "cannot set it free" in err and "rootx, rootz, rooty" in err
    assert "Traceback" not in err
