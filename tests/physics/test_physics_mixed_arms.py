"""A URDF arm and an MJCF arm from makers' files in one physics world (issue 12.4): the
Panda URDF from the shared fixtures beside a three-joint arm written as MJCF the way
MuJoCo models are published (inertias from the geoms). Both are servoed, both track
their targets under gravity, MuJoCo's link poses equal robotsim's FK of the simulated
joints, and the two arms collide with each other."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tests.paths import FIXTURES

from robotsim.model import load_robot
from robotsim.physics import Motor, RobotPlacement, Scene, World
from robotsim.spatial import make_T, rot_z

PANDA = FIXTURES / "urdf" / "franka_panda" / "panda.urdf"

MJCF_ARM = """<mujoco model="three_link">
  <default><geom type="capsule" size="0.04" rgba="0.3 0.5 0.8 1"/></default>
  <worldbody>
    <body name="base" pos="0 0 0">
      <geom type="cylinder" size="0.08 0.05" pos="0 0 0.05"/>
      <body name="upper" pos="0 0 0.1">
        <joint name="yaw" type="hinge" axis="0 0 1" range="-170 170"/>
        <geom fromto="0 0 0 0 0 0.4"/>
        <body name="fore" pos="0 0 0.4">
          <joint name="shoulder" type="hinge" axis="0 1 0" range="-120 120"/>
          <geom fromto="0 0 0 0.4 0 0"/>
          <body name="hand" pos="0.4 0 0">
            <joint name="elbow" type="hinge" axis="0 1 0" range="-150 150"/>
            <geom fromto="0 0 0 0.3 0 0"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def _world(tmp_path: Path, gap: float) -> tuple[World, object, object]:
    f = tmp_path / "three_link.xml"
    f.write_text(MJCF_ARM)
    panda, arm = load_robot(str(PANDA)), load_robot(str(f))
    servo = Motor("position", gain=2000.0, damping=100.0)  # holds a Panda against gravity
    scene = Scene(
        robots=(
            RobotPlacement("panda", panda, default_motor=servo),
            RobotPlacement("mj", arm, make_T(rot_z(np.pi), [gap, 0, 0]), default_motor=servo),
        ),
        name="mixed_arms",
    )
    return World(scene), panda, arm


def _q(world: World, robot: str, model) -> np.ndarray:  # type: ignore[no-untyped-def]
    q = model.zero()
    for n in model.joint_names:
        q[model.joint_index(n)] = world.joint(f"{robot}/{n}").q
    return q


def test_urdf_and_mjcf_arms_track_targets_side_by_side(tmp_path: Path) -> None:
    world, panda, arm = _world(tmp_path, 2.0)
    targets = {
        "panda": {"panda_joint2": 0.3, "panda_joint4": -1.6, "panda_joint6": 1.4},
        "mj": {"shoulder": -0.6, "elbow": 0.9},
    }
    for robot, t in targets.items():
        for j, v in t.items():
            world.motor(f"{robot}/{j}").set(v)
    world.advance(3.0)
    for robot, model in (("panda", panda), ("mj", arm)):
        for j, v in targets[robot].items():
            assert world.joint(f"{robot}/{j}").q == pytest.approx(v, abs=0.03), (robot, j)
        q = _q(world, robot, model)
        fk = model.fk_all(q)
        root = world.body(f"{robot}/{model.root}").pose
        mimic_children = {j.child for j in model.joints if j.mimic is not None}
        for i, link in enumerate(model.link_names):
            if f"{robot}/{link}" in world.body_names:
                pose = world.body(f"{robot}/{link}").pose
                rel = np.linalg.inv(root) @ pose
                # a mimic joint is an equality constraint in MuJoCo (soft): sub-mm there
                tol = 1e-3 if link in mimic_children else 1e-9
                np.testing.assert_allclose(
                    rel, np.linalg.inv(fk[0]) @ fk[i], atol=tol, err_msg=link
                )


def test_the_two_arms_collide_with_each_other(tmp_path: Path) -> None:
    world, _, _ = _world(tmp_path, 0.9)
    # the MJCF arm swings its forearm down towards the Panda, which leans towards it
    world.motor("panda/panda_joint2").set(0.9)
    world.motor("mj/shoulder").set(0.9)
    touched = False
    for _ in range(150):
        world.advance(0.02)
        d, m = world.data, world.model
        for c in d.contact[: d.ncon]:
            b1 = m.body(m.geom_bodyid[c.geom1]).name
            b2 = m.body(m.geom_bodyid[c.geom2]).name
            if {b1.split("/")[0], b2.split("/")[0]} == {"panda", "mj"}:
                touched = True
        if touched:
            break
    assert touched
