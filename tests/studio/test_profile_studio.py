"""The studio's Profile section (Open tab): opening a maker's robot file lists its
inferred profile and draws its sole, tool, fingertip and wheel markers on the robot; a
wheeled base from a file drives through the mobile driver (MuJoCo physics)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tests.paths import FIXTURES
from tests.wheeled_urdf import TURTLEBOT, write_omni_urdf, write_onshape_omni_urdf

from robotsim.studio.mobile.driver import MobileDriver

HUMANOID_XML = FIXTURES / "mjcf" / "mujoco_humanoid" / "humanoid.xml"
PANDA = FIXTURES / "urdf" / "franka_panda" / "panda.urdf"


@pytest.fixture
def panel(studio):
    p = studio.panels["open"].profile
    p.show.value = True
    yield p
    studio.clear()


def test_humanoid_file_shows_legs_soles_and_markers(studio, panel) -> None:
    studio.open(str(HUMANOID_XML))
    assert panel.robot.value == studio.robot_names()[0]
    text = panel.text.content
    assert "humanoid" in text and "leg `left_leg`: 6 joints" in text
    assert "sole `foot_left_sole`" in text and "arm `right_arm`" in text
    kinds = [h.name.split("/")[-1].split("_")[1] for h in panel.markers if "outline" not in h.name]
    assert kinds.count("sole") == 2 and kinds.count("tool") == 2
    assert sum("outline" in h.name for h in panel.markers) == 2  # the sole polygons
    assert panel.drive.disabled  # no wheels
    panel.show.value = False
    panel.draw()
    assert panel.markers == []


def test_panda_file_shows_its_gripper_and_fingertips(studio, panel) -> None:
    studio.open(str(PANDA))
    text = panel.text.content
    assert "arm `arm`: 7 joints" in text and "gripper `panda_hand`" in text
    assert "2 fingers" in text
    names = [h.name for h in panel.markers]
    assert sum("profile_fingertip" in n for n in names) == 2
    # markers hang under the link nodes, so they follow the robot
    assert all(n.startswith(f"/robots/{studio.robot_names()[0]}/") for n in names)


@pytest.mark.parametrize("which", ["turtlebot", "omni", "onshape"])
def test_a_base_from_a_file_drives_in_the_studio(studio, panel, which, tmp_path: Path) -> None:
    f = TURTLEBOT
    if which == "omni":
        f = write_omni_urdf(tmp_path / "tri_omni.urdf")
    elif which == "onshape":
        f = write_onshape_omni_urdf(tmp_path / "onshape.urdf")
    studio.open(str(f))
    assert not panel.drive.disabled
    assert ("drive **diff**" if which == "turtlebot" else "drive **omni**") in panel.text.content
    assert ("8 passive rollers" in panel.text.content) == (which == "onshape")
    assert sum("profile_wheel" in h.name for h in panel.markers) == (
        2 if which == "turtlebot" else 3
    )
    panel.open_drive()
    d = studio.driver
    assert isinstance(d, MobileDriver) and list(studio.robots) == ["base"]
    start = float(np.hypot(*(d.goals["base"][:2] - d.run.bases[0].pose()[:2])))
    for _ in range(120):  # 2 s of physics
        studio.tick()
    studio.push()
    assert d.error["base"][-1] < start - 0.2  # it drives towards the goal
    body = d.run.world.body(f"base/{d.run.robots[0].model.root}").pose
    np.testing.assert_allclose(
        studio.robots["base"].scene_link_poses()[0, :3], body[:3, 3], atol=1e-9
    )
