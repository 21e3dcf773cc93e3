"""Inverse kinematics: reachable targets converge, unreachable ones report failure."""

from __future__ import annotations

import numpy as np
import pytest

import robotsim
from robotsim.errors import InputError


@pytest.fixture(scope="module")
def puma() -> robotsim.RobotModel:
    return robotsim.load_robot("puma560")


def test_full_pose_targets_from_random_configurations(puma) -> None:
    rng = np.random.default_rng(7)
    q_true = rng.uniform(puma.lower * 0.8, puma.upper * 0.8, size=(20, 6))
    targets = puma.fk(q_true)
    res = puma.ik(targets, q0=np.clip(q_true + rng.normal(0, 0.3, q_true.shape),
                                      puma.lower, puma.upper))  # fmt: skip
    assert res.q.shape == (20, 6) and res.success.shape == (20,)
    assert res.success.all()
    reached = puma.fk(res.q)
    assert np.max(np.abs(reached - targets)) < 1e-8
    assert np.all(res.q >= puma.lower) and np.all(res.q <= puma.upper)


def test_position_only_from_zero(puma) -> None:
    res = puma.ik([0.5, -0.15, 0.8])
    assert bool(res.success)
    assert np.linalg.norm(puma.fk(res.q)[:3, 3] - [0.5, -0.15, 0.8]) < 1e-8
    assert float(res.orientation_error) == 0.0


def test_quaternion_target(puma) -> None:
    q = np.array([0.3, 0.4, -0.2, 0.5, 0.6, -0.4])
    T = puma.fk(q)
    quat = robotsim.spatial.R_to_quat(T[:3, :3])
    res = puma.ik(np.concatenate([T[:3, 3], quat]))
    assert bool(res.success)
    assert np.allclose(puma.fk(res.q), T, atol=1e-8)


def test_unreachable_reports_instead_of_raising(puma) -> None:
    res = puma.ik([5.0, 0.0, 0.0], restarts=2)
    assert not bool(res.success)
    assert float(res.position_error) > 3.0
    assert int(res.iterations) > 0
    assert np.all(res.q >= puma.lower) and np.all(res.q <= puma.upper)


def test_bad_target(puma) -> None:
    with pytest.raises(InputError, match="IK target"):
        puma.ik([1.0, 2.0])
    with pytest.raises(InputError, match="NaN"):
        puma.ik([np.nan, 0, 0])


def test_restarts_leave_joints_off_the_path_alone() -> None:
    """A Panda grasp pose (hand pointing down) needs restarts from the zero pose; the
    restarts drew every joint at random, so the fingers, which do not move the grasp
    frame, came back at 25.9 mm instead of the 30 mm they started at. The humanoid's
    legs likewise stay put while its left hand is placed."""
    from tests.paths import FIXTURES

    panda = robotsim.load_robot(FIXTURES / "urdf" / "franka_panda" / "panda.urdf")
    q0 = np.zeros(8)
    q0[7] = 0.03
    res = panda.ik([0.5, 0.1, 0.4, 0.0, 1.0, 0.0, 0.0], q0=q0)
    assert res.success and res.iterations > 100  # beyond the first attempt's 100
    assert res.q[7] == 0.03
    T = panda.fk(res.q)
    assert np.allclose(T[:3, 3], [0.5, 0.1, 0.4], atol=1e-9)
    assert np.allclose(T[:3, :3], np.diag([1.0, -1.0, -1.0]), atol=1e-9)
    hum = robotsim.load_robot(FIXTURES / "mjcf" / "mujoco_humanoid" / "humanoid.xml")
    q0 = hum.pose("squat")
    res = hum.ik([0.1, 0.45, 0.2], link="hand_left", q0=q0, max_iter=5)  # forces restarts
    arm = [hum.joint_index(n) for n in ("shoulder1_left", "shoulder2_left", "elbow_left")]
    others = np.setdiff1d(np.arange(hum.nq), arm)  # the hand hangs off the torso, the root
    assert res.iterations > 5
    assert np.array_equal(res.q[others], q0[others])
