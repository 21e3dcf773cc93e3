"""The walks ``motion gait`` generates stand in physics (issue 12.2): MuJoCo's humanoid.xml
(a 1.3 m humanoid robotsim has never seen, capsule feet) and humanoid17, each with the
command's defaults, pass ``motion check --physics`` and walk about as far as planned."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from robotsim.cli import main
from tests.paths import FIXTURES

HUMANOID_XML = FIXTURES / "mjcf" / "mujoco_humanoid" / "humanoid.xml"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("robot", "step"), [(str(HUMANOID_XML), 0.08), ("humanoid17", 0.04)], ids=["mjcf", "h17"]
)
def test_generated_walk_stands_in_physics(robot: str, step: float, tmp_path: Path, capsys) -> None:
    walk = tmp_path / "walk.yaml"
    argv = ["motion", "gait", "--robot", robot, "--steps", "4", "--step-length", str(step),
            "--out", str(walk), "--json"]  # fmt: skip
    assert main(argv) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["com_inset_m"] == 0.0  # the CoM over the middle of the stance sole
    code = main(["motion", "check", str(walk), "--robot", robot, "--physics", "--json"])
    s = json.loads(capsys.readouterr().out)
    assert code == 0 and s["verdict"] == "stands", s["reason"]
    assert s["max_tilt_deg"] < 10.0
    planned = s["distance_walked_ref_m"]
    assert planned == pytest.approx(3 * step, rel=0.05)  # the closing step only joins the feet
    assert s["distance_walked_m"] == pytest.approx(planned, abs=0.25 * planned)
    assert s["com_outside_fraction"] < 0.01
