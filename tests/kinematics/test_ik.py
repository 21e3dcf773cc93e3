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
