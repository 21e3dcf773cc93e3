"""Drive kinematics (the paper's eq. 1 and its inverse, differential drive) and the wheeled
robots following commanded twists in MuJoCo."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robotsim.control import DiffDrive, Omni3
from robotsim.control.wheeled_base import MobileBase
from robotsim.errors import InputError
from robotsim.model import load_robot
from robotsim.physics import Motor, RobotPlacement, Scene, World
from robotsim.spatial import trans

S60, C60 = math.sin(math.radians(60)), math.cos(math.radians(60))


def test_eq1_by_hand() -> None:
    o = Omni3()  # alpha 30, beta 60, R 0.2, k 0.035 (seed 002, eq. 1)
    assert o.wheel_speeds([1.0, 0.0, 0.0]) == pytest.approx(0.035 * np.array([S60, -S60, 0.0]))
    assert o.wheel_speeds([0.0, 1.0, 0.0]) == pytest.approx(0.035 * np.array([C60, C60, -1.0]))
    assert o.wheel_speeds([0.0, 0.0, 1.0]) == pytest.approx(0.035 * 0.2 * np.ones(3))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-3, 3), min_size=3, max_size=3))
def test_eq1_inverse_round_trip(twist: list[float]) -> None:
    o = Omni3()
    assert o.twist(o.wheel_speeds(twist)) == pytest.approx(twist, abs=1e-12)
    assert o.twist_from_rates(o.wheel_rates(twist, 0.05), 0.05) == pytest.approx(twist, abs=1e-12)


def test_eq1_batched_and_geometry() -> None:
    o = Omni3()
    t = np.random.default_rng(0).normal(size=(4, 5, 3))
    assert o.wheel_speeds(t).shape == (4, 5, 3)
    assert o.twist(o.wheel_speeds(t)) == pytest.approx(t)
    angles = np.degrees(np.arctan2(o.wheel_positions[:, 1], o.wheel_positions[:, 0]))
    assert angles == pytest.approx([-60.0, 60.0, 180.0])
    assert np.linalg.norm(o.wheel_positions, axis=1) == pytest.approx([0.2] * 3)
    with pytest.raises(InputError, match="3 values"):
        o.wheel_speeds([1.0, 2.0])


@settings(max_examples=30, deadline=None)
@given(st.floats(-1, 1), st.floats(-3, 3))
def test_diffdrive_round_trip(v: float, w: float) -> None:
    dd = DiffDrive(track=0.16, wheel_radius=0.033)
    rates = dd.wheel_rates(v, w)
    assert dd.twist(rates) == pytest.approx([v, w], abs=1e-12)
    if w == 0.0:  # straight: both wheels alike (a tiny w still turns them apart by w*track/r)
        assert rates[0] == pytest.approx(rates[1], abs=1e-12)


def _robot_world(name: str, gain: float, force: float) -> tuple[World, MobileBase]:
    model = load_robot(name)
    motors = {j: Motor("velocity", gain=gain, force=force) for j in model.joint_names}
    placement = RobotPlacement("r", model, trans([0, 0, 0]), motors=motors, default_motor=None)
    world = World(Scene(robots=(placement,)))
    return world, MobileBase(world, "r")


def test_library_omni3_wheels_are_laid_out_as_eq1() -> None:
    _, base = _robot_world("omni3", 0.5, 3.0)
    o = Omni3()
    # physical wheel rates x k r == the paper's wheel commands, for every twist
    assert base.G * base.drive.wheel_radius == pytest.approx(o.matrix, abs=1e-6)


@pytest.mark.parametrize(
    "twist", [(0.5, 0.0, 0.0), (0.0, 0.5, 0.0), (0.0, 0.0, 1.0), (0.4, -0.3, 0.8)]
)
def test_omni_robot_follows_commanded_twist_in_mujoco(twist: tuple[float, float, float]) -> None:
    """Wheels set from the decomposition; measured body twist within 3 % of the command's
    largest component (slip of the anisotropic wheel contact, the paper's mu=3, mu2=0)."""
    world, base = _robot_world("omni3", 0.5, 3.0)
    world.step(50)
    rates = base.set_twist(twist)
    assert rates * 0.035 * base.drive.wheel_radius == pytest.approx(Omni3().wheel_speeds(twist))
    world.step(250)
    measured = np.mean([base.twist() for _ in range(40) if world.step(5) is None], axis=0)
    scale = max(abs(v) for v in twist)
    assert np.abs(measured - twist).max() <= 0.03 * scale


def test_diffdrive_robot_follows_commanded_twist_in_mujoco() -> None:
    world, base = _robot_world("diffdrive", 0.5, 1.4)
    world.step(50)
    base.set_twist([0.2, 0.0, 0.5])
    world.step(500)
    measured = np.mean([base.twist() for _ in range(40) if world.step(5) is None], axis=0)
    assert measured[0] == pytest.approx(0.2, abs=0.01)
    assert measured[2] == pytest.approx(0.5, abs=0.05)
    assert abs(measured[1]) < 0.03  # non-holonomic: small sideways creep only
