"""Robots on legs are set free in every physics world, whatever their file says (issue
22.1): a URDF humanoid without a floating joint stands on its soles, falls when its
servos let go, and a legged robot that cannot be freed is an error."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tests.humanoid_files import (
    write_h1_like_mjcf,
    write_nao_like_urdf,
    write_planar_walker_urdf,
)
from tests.paths import FIXTURES

from robotsim.errors import PhysicsError
from robotsim.model import load_robot
from robotsim.physics import RobotPlacement, Scene, World
from robotsim.remote.world_target import robot_scene

STANDING_Z = 0.085 + 0.1 + 0.1029 + 0.04519  # NAO: hip offset, thigh, tibia, foot height


@pytest.fixture(scope="module")
def nao(tmp_path_factory: pytest.TempPathFactory):
    return load_robot(str(write_nao_like_urdf(tmp_path_factory.mktemp("nao") / "nao.urdf")))


def _sole_z(world: World) -> float:
    """The lowest point of the feet's collision boxes in the world (m)."""
    import mujoco

    m, d = world.model, world.data
    low = np.inf
    for g in range(m.ngeom):
        body = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, int(m.geom_bodyid[g])) or ""
        if body.endswith("Foot"):
            half = m.geom_size[g]
            R = d.geom_xmat[g].reshape(3, 3)
            corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
            low = min(low, float(np.min((corners * half) @ R.T[:, 2] + d.geom_xpos[g][2])))
    return low


def test_a_urdf_humanoid_is_set_free_and_put_on_its_soles(nao) -> None:
    assert not nao.floating  # the file welds it: no floating joint
    world = World(Scene(robots=(RobotPlacement("nao", nao),)))  # placed at the origin
    placed = world.scene.robots[0]
    assert placed.model.floating
    assert placed.T_world_base[2, 3] == pytest.approx(STANDING_Z, abs=1e-9)
    assert _sole_z(world) == pytest.approx(0.0, abs=1e-9)  # soles on the floor at start
    world.advance(1.0)  # the servos hold the zero pose: it stands where it was put
    torso = world.body("nao/torso").position
    assert torso[2] == pytest.approx(STANDING_Z, abs=3e-3)
    assert abs(_sole_z(world)) < 2e-3


def test_a_freed_humanoid_without_servos_collapses_a_welded_one_does_not(nao) -> None:
    """The same robot, unactuated: set free it falls to the floor; kept as its file
    says (``base="file"``), the torso hangs where it was put -- the false pass."""
    heights = {}
    for base in ("auto", "file"):
        T = np.eye(4)
        T[2, 3] = STANDING_Z
        r = RobotPlacement("nao", nao, T, default_motor=None, base=base)
        world = World(Scene(robots=(r,)))
        world.advance(1.5)
        heights[base] = world.body("nao/torso").position[2]
    assert heights["file"] == pytest.approx(STANDING_Z, abs=1e-9)
    assert heights["auto"] < 0.6 * STANDING_Z


def test_serve_puts_a_urdf_humanoid_on_the_ground(nao) -> None:
    world = World(robot_scene(nao))
    assert world.scene.robots[0].model.floating
    assert _sole_z(world) == pytest.approx(0.0, abs=1e-9)


def test_an_arm_stays_bolted_down() -> None:
    panda = load_robot(str(FIXTURES / "urdf/franka_panda/panda.urdf"))
    world = World(Scene(robots=(RobotPlacement("arm", panda),)))
    assert world.scene.robots[0].model is panda and not panda.floating
    assert world.scene.robots[0].T_world_base[2, 3] == 0.0


def test_a_legged_robot_that_cannot_be_freed_is_an_error(tmp_path: Path) -> None:
    """A planar walker: its body hangs from a massless world anchor on two slides and a
    hinge. Freeing the anchor would leave it held by those joints: refused, naming them."""
    walker = load_robot(str(write_planar_walker_urdf(tmp_path / "walker.urdf")))
    with pytest.raises(PhysicsError, match=r"rootx, rootz.*cannot set it free"):
        World(Scene(robots=(RobotPlacement("w", walker),)))
    # as its file says it compiles (a test stand), but nothing then claims it stands
    World(Scene(robots=(RobotPlacement("w", walker, base="file"),)))


def _tilt_deg(world: World, body: str) -> float:
    R = world.body(body).pose[:3, :3]
    return float(np.degrees(np.arccos(np.clip(R[2, 2], -1.0, 1.0))))


def test_a_served_50kg_humanoid_stands_on_servos_sized_from_its_profile(tmp_path: Path) -> None:
    """``robotsim serve ROBOT`` on an H1-sized humanoid (47 kg, 1 m legs): a fixed servo
    stiffness (200 N m/rad, below its m g h of ~450) let it topple over its ankles within
    2 s; the servos its profile sizes hold it upright, and its IMU and foot force sensors
    read gravity and its weight."""
    from pydantic import TypeAdapter

    from robotsim.sensors import SensorRig, SensorSpec, mount_sensors

    h1 = load_robot(str(write_h1_like_mjcf(tmp_path / "h1.xml")))
    scene = robot_scene(h1)
    placed = scene.robots[0]
    world = World(scene)
    model = world.scene.robots[0].model
    specs = [TypeAdapter(SensorSpec).validate_python(s) for s in
             ({"type": "imu"}, {"type": "force", "links": "feet"})]  # fmt: skip
    rig = SensorRig(world, mount_sensors(model.name, model, specs, world.timestep, "h1.xml"))
    rig.step(round(1.5 / world.timestep))
    root = f"{h1.name}/{model.root}"
    assert _tilt_deg(world, root) < 1.0
    accel = rig.latest(model.name, "imu").data["accel"]
    assert float(np.linalg.norm(accel)) == pytest.approx(9.81, abs=0.02)  # at rest: g
    assert accel[2] > 9.8 * np.cos(np.radians(1.0))  # up, within the body's tilt
    weight = sum(lk.inertial.mass for lk in model.links if lk.inertial is not None) * 9.81
    normal = rig.latest(model.name, "force").data["normal"]
    assert float(normal.sum()) == pytest.approx(weight, rel=0.01)
    # the same robot on the fixed servo falls: the check above can say no
    weak = RobotPlacement(h1.name, placed.model, placed.T_world_base)
    world = World(Scene(robots=(weak,)))
    world.advance(1.5)
    assert _tilt_deg(world, root) > 20.0


def _write_quadruped_mjcf(path: Path) -> Path:
    """A 15 kg quadruped whose knees bend only backwards (range -2.7..-0.84 rad: 0 is
    outside it), thigh and shank 0.21 m, ball feet."""
    legs = []
    for i, (x, y) in enumerate(((0.19, 0.05), (0.19, -0.05), (-0.19, 0.05), (-0.19, -0.05))):
        s = 1 if y > 0 else -1
        legs.append(f"""
      <body name="hip{i}" pos="{x} {y} 0">
        <inertial pos="0 0 0" mass="0.7" diaginertia="9e-4 6e-4 5e-4"/>
        <joint name="abd{i}" axis="1 0 0" range="-1 1"/>
        <body name="thigh{i}" pos="0 {0.095 * s} 0">
          <inertial pos="0 0 -0.03" mass="1.15" diaginertia="6e-3 6e-3 9e-4"/>
          <joint name="hip{i}" axis="0 1 0" range="-1.5 3.4"/>
          <geom type="capsule" size="0.015" fromto="0 0 0 0 0 -0.21"/>
          <body name="calf{i}" pos="0 0 -0.21">
            <inertial pos="0 0 -0.14" mass="0.24" diaginertia="1.5e-3 1.5e-3 5e-5"/>
            <joint name="knee{i}" axis="0 1 0" range="-2.72 -0.84"/>
            <geom type="capsule" size="0.012" fromto="0 0 0 0 0 -0.19"/>
            <geom type="sphere" size="0.022" pos="0 0 -0.21"/>
          </body>
        </body>
      </body>""")
    path.write_text(f"""<mujoco model="quad">
  <compiler angle="radian"/>
  <worldbody>
    <body name="trunk" pos="0 0 0.45">
      <freejoint/>
      <inertial pos="0.02 0 0" mass="6.9" diaginertia="0.025 0.1 0.1"/>
      <geom type="box" size="0.19 0.047 0.057"/>{"".join(legs)}
    </body>
  </worldbody>
</mujoco>
""")
    return path


def test_a_served_robot_starts_within_its_joint_limits(tmp_path: Path) -> None:
    """A quadruped whose knees cannot reach 0: started at the zero configuration, the
    knee limits kicked it over on its back; started at zero clipped into the limits, it
    stands on its four feet and they carry its weight."""
    quad = load_robot(str(_write_quadruped_mjcf(tmp_path / "quad.xml")))
    scene = robot_scene(quad)
    world = World(scene)
    world.advance(1.5)
    assert _tilt_deg(world, "quad/trunk") < 5.0
    weight = sum(lk.inertial.mass for lk in quad.links if lk.inertial is not None) * 9.81
    feet = [f"quad/calf{i}" for i in range(4)]
    _, force = world.contact_forces().on(set(feet))
    normal = float(force[:, 2].sum())
    assert normal == pytest.approx(weight, rel=0.02)
    knees = [scene.robots[0].q0.get(f"knee{i}") for i in range(4)]
    assert knees == pytest.approx([-0.84] * 4)  # the limit nearest 0
