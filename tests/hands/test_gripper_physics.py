"""A parallel gripper in the hand scenario's physics mode (issue 12.4): the Franka Panda
URDF from the shared fixtures, its arm, tool frame, fingers and fingertip frames all
from the inferred profile, picks the ball off its table, holds it up and lets it fall;
touch events name the profile's fingertip frames."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from tests.paths import FIXTURES

from robotsim.cli import main
from robotsim.errors import ScenarioError
from robotsim.hands.run import run_hand_data

PANDA = FIXTURES / "urdf" / "franka_panda" / "panda.urdf"

DOC = {
    "kind": "hand_ball_transfer",
    "name": "panda_pick",
    "robot": str(PANDA),
    "ball": {"radius": 0.025, "position": [0.5, 0.0, 0.325], "mass": 0.05, "friction": 1.5},
    "tables": [{"center": [0.5, 0.0, 0.15], "size": [0.2, 0.2, 0.3]}],
    "gripper": {"approach": 0.12, "lift": 0.15, "hold": 1.0},
    "expect": ["touch", "grasp", "release", "landed"],
}


@pytest.mark.slow
def test_panda_picks_holds_and_drops_the_ball(tmp_path: Path, capsys) -> None:
    f = tmp_path / "panda_pick.yaml"
    f.write_text(yaml.safe_dump(DOC))
    assert main(["run", str(f), "--mode", "physics", "--out", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert s["completed"] and s["missing_events"] == []
    types = [e["type"] for e in s["events"]]
    assert types == ["touch", "touch", "grasp", "release", "landed"]
    assert {e["detail"] for e in s["events"] if e["type"] == "touch"} == set(s["fingertips"])
    assert s["fingertips"] == ["panda_hand_tip1", "panda_hand_tip2"]  # the profile's
    assert s["held_lift_m"] == pytest.approx(0.15, abs=0.01)  # carried by friction
    assert s["ball"]["position"][2] == pytest.approx(0.325, abs=0.01)  # back on the table


def test_gripper_files_say_what_is_wrong(tmp_path: Path) -> None:
    bad = {**DOC, "ball": {**DOC["ball"], "position": [0.5, 0.0, 0.6]}}
    with pytest.raises(ScenarioError, match=r"ball\.position: the ball must rest on the table"):
        run_hand_data(bad, str(tmp_path / "x.yaml"), "physics")
    with pytest.raises(ScenarioError, match="runs in physics mode"):
        run_hand_data(DOC, str(tmp_path / "x.yaml"), "kinematic")
    with pytest.raises(ScenarioError, match=r"gripper\.lift"):
        run_hand_data({**DOC, "gripper": {"lift": -1}}, str(tmp_path / "x.yaml"), "physics")
    arm = {**DOC, "robot": "puma560"}
    with pytest.raises(ScenarioError, match="needs an arm with a gripper in its profile"):
        run_hand_data(arm, str(tmp_path / "x.yaml"), "physics")
