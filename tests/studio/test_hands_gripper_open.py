"""The studio's hand-scenario opener and single-arm ``gripper:`` files (physics only):
a clear one-line refusal naming the CLI command, and the current scene kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from robotsim.errors import ScenarioError

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures"

GRIPPER = """kind: hand_ball_transfer
robot: {robot}
ball: {{radius: 0.025, position: [0.5, 0.0, 0.325], mass: 0.05, friction: 1.5}}
tables: [{{center: [0.5, 0.0, 0.15], size: [0.2, 0.2, 0.3]}}]
gripper: {{approach: 0.12, lift: 0.15, hold: 1.0}}
expect: [touch, grasp, release, landed]
"""


def test_gripper_file_is_refused_with_the_cli_command(studio, tmp_path: Path) -> None:
    studio.open("puma560")
    title = studio.title
    f = tmp_path / "pick.yaml"
    f.write_text(GRIPPER.format(robot=FIXTURES / "urdf" / "franka_panda" / "panda.urdf"))
    with pytest.raises(ScenarioError) as exc:
        studio.open(str(f))
    msg = str(exc.value)
    assert "\n" not in msg and "gripper:" in msg
    assert f"robotsim run {f} --mode physics" in msg
    assert studio.title == title  # the scene stays as it was
