"""Robots on legs are set free in every physics world, whatever their file says (issue
22.1): a URDF humanoid without a floating joint stands on its soles, falls when its
servos let go, and a legged robot that cannot be freed is an error."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tests.humanoid_files import write_nao_like_urdf, write_planar_walker_urdf
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
