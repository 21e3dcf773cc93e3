"""New-user papercuts of issue 29 (item 6), without a browser: motion programs open by
name, a scenario opens on its own tab, a robot file's title is not its absolute path,
the Pose tab follows a mobile robot driven by physics, the soccer field has its
markings in 3D, and `teleop --keyboard` does not report missing gamepads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from robotsim.plots import soccer_markings

URDF = """<robot name="stick">
  <link name="base"><visual><geometry><box size="0.1 0.1 0.1"/></geometry></visual></link>
  <link name="tip"><visual><geometry><box size="0.05 0.05 0.3"/></geometry></visual></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="tip"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>
"""


def test_a_motion_program_opens_by_name_on_the_motion_tab(studio) -> None:
    said = studio.open("walk_forward")
    assert studio.title.startswith(("program walk_forward", "motion walk_forward")), said
    assert "scenario walk" not in studio.title
    assert studio.tabs.label == "Motion"


def test_a_scenario_opens_on_its_own_tab_with_the_field_markings(studio) -> None:
    studio.open("soccer_obstacles")
    assert studio.tabs.label == "Mobile"
    names = [getattr(h, "name", "") for h in studio._objects]
    assert "/objects/field_markings" in names
    studio.open("puma560")
    assert studio.tabs.label == "Pose"


def test_the_pose_tab_follows_a_mobile_robot_driven_by_physics(studio) -> None:
    studio.open("soccer_obstacles")
    pose = studio.panels["pose"]
    before = pose.readout.content
    for _ in range(150):  # 3 s of the run: the robot drives off its start
        studio.tick()
    pose.sync()
    view = studio.find_robot("omni")
    root = view.frame_pose(view.model.root)[:3, 3]
    assert np.linalg.norm(root[:2] - np.array([-9.0, -5.0])) > 0.5
    assert f"({root[0]:.3f}, {root[1]:.3f}" in pose.readout.content != before


def test_a_robot_file_title_names_it_relative_to_the_workspace(studio, tmp_path: Path) -> None:
    f = tmp_path / "robots" / "stick.urdf"
    f.parent.mkdir()
    f.write_text(URDF)
    studio.open(str(f.resolve()))
    assert str(tmp_path) not in studio.title
    assert "robots/stick.urdf" in studio.title and studio.title.startswith("robot stick")


def test_soccer_markings_are_the_lines_of_the_2d_map() -> None:
    seg = soccer_markings(20.0, 14.0)
    assert seg.shape[1:] == (2, 2)
    assert np.isclose(np.abs(seg[..., 0]).max(), 10.0) and np.isclose(
        np.abs(seg[..., 1]).max(), 7.0
    )
    radii = np.linalg.norm(seg[5:53].reshape(-1, 2), axis=1)
    assert np.allclose(radii, 14.0 * 0.13)  # the centre circle


def test_teleop_keyboard_does_not_list_gamepads() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "robotsim", "teleop", "--keyboard", "--headless",
         "--keyboard-source", "terminal", "--duration", "0.1"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "keyboard -> L arm" in out.stdout
    assert "gamepad" not in out.stdout and "not connected" not in out.stdout
