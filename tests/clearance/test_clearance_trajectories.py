"""Joint-space quintic/trapezoid and Cartesian straight-line trajectories."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.clearance import CartesianLine, JointQuintic, JointTrapezoid, Trajectory
from robotsim.errors import InputError
from robotsim.model import load_robot

Q0 = np.radians([0, -30, -30, 0, 0, 0])
Q1 = np.radians([40, 10, -60, 20, 10, 5])


@pytest.mark.parametrize("seg", [JointQuintic(Q0, Q1, 2.0), JointTrapezoid(Q0, Q1, 2.0, 0.3)])
def test_joint_segments_rest_to_rest(seg) -> None:  # type: ignore[no-untyped-def]
    t = np.array([0.0, 1e-6, 1.0, 2.0 - 1e-6, 2.0])
    q = seg.at(t)
    np.testing.assert_allclose(q[0], Q0)
    np.testing.assert_allclose(q[-1], Q1)
    np.testing.assert_allclose(q[2], (Q0 + Q1) / 2, atol=1e-12)  # symmetric profiles
    assert np.abs(q[1] - q[0]).max() < 1e-5 and np.abs(q[-1] - q[-2]).max() < 1e-5


def test_trajectory_chains_and_holds() -> None:
    tr = Trajectory((JointQuintic(Q0, Q1, 1.0), JointTrapezoid(Q1, Q0, 2.0)), start=0.5)
    q = tr.q([0.0, 0.5, 1.5, 3.5, 10.0])
    np.testing.assert_allclose(q[[0, 1, 3, 4]], [Q0, Q0, Q0, Q0], atol=1e-12)
    np.testing.assert_allclose(q[2], Q1)
    assert tr.end == 3.5


def test_cartesian_line_is_straight() -> None:
    puma = load_robot("puma560")
    p0 = puma.fk(Q0, "link4")[:3, 3]
    p1 = p0 + np.array([0.1, 0.15, -0.1])
    line = CartesianLine(puma, "link4", p0, p1, None, 2.0, Q0)
    t = np.linspace(0, 2, 57)
    p = puma.fk(line.at(t), "link4")[:, :3, 3]
    s = (p - p0) @ (p1 - p0) / np.dot(p1 - p0, p1 - p0)
    np.testing.assert_allclose(p, p0 + s[:, None] * (p1 - p0), atol=1e-8)
    assert np.all(np.diff(s) >= -1e-9) and s[0] == pytest.approx(0) and s[-1] == pytest.approx(1)


def test_unreachable_line_and_bad_durations_are_errors() -> None:
    puma = load_robot("puma560")
    p0 = puma.fk(Q0, "link4")[:3, 3]
    with pytest.raises(InputError, match="not reachable"):
        CartesianLine(puma, "link4", p0, p0 + np.array([3.0, 0, 0]), None, 2.0, Q0)
    with pytest.raises(InputError, match="duration"):
        JointQuintic(Q0, Q1, 0.0)
    with pytest.raises(InputError, match="accel_fraction"):
        JointTrapezoid(Q0, Q1, 1.0, 0.7)
