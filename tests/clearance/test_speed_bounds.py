"""Joint speed bounds of trajectory segments (exact maxima over any interval), the
cubic joint spline, Cartesian lines as splines through IK, and time warps."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.interpolate import CubicSpline

from robotsim.clearance import CartesianLine, JointQuintic, JointTrapezoid, Trajectory
from robotsim.clearance.timewarp import TimeWarp
from robotsim.clearance.trajectory import Hold, JointSpline
from robotsim.errors import InputError
from robotsim.model import load_robot

Q0 = np.radians([0, -30, -30, 0, 0, 0])
Q1 = np.radians([40, 10, -60, 20, 10, 5])
RNG = np.random.default_rng(3)
_T = np.linspace(0, 2, 5)
SPLINE = JointSpline(_T, RNG.normal(size=(5, 6)), RNG.normal(size=(5, 6)))


def _dense_max_speed(f, a: float, b: float) -> np.ndarray:  # type: ignore[no-untyped-def]
    t = np.linspace(a, b, 4001)
    q = f(t)
    return np.max(np.abs(np.diff(q, axis=0)), axis=0) / (t[1] - t[0])


@pytest.mark.parametrize(
    "seg",
    [JointQuintic(Q0, Q1, 2.0), JointTrapezoid(Q0, Q1, 2.0, 0.3), Hold(Q0, 2.0), SPLINE],
    ids=["quintic", "trapezoid", "hold", "spline"],
)
def test_segment_speed_bound_is_the_exact_maximum(seg) -> None:  # type: ignore[no-untyped-def]
    lo = RNG.uniform(0, 2, 30)
    hi = np.minimum(lo + RNG.uniform(0, 1.5, 30), 2.0)
    bound = seg.speed_bound(lo, hi)
    for k in range(30):
        ref = _dense_max_speed(seg.at, lo[k], hi[k])
        # never below the dense maximum, and within its discretisation of it
        assert np.all(bound[k] >= ref - 1e-9)
        np.testing.assert_allclose(bound[k], ref, rtol=2e-3, atol=2e-3)


def test_trajectory_speed_bound_spans_segments_and_holds() -> None:
    tr = Trajectory((JointQuintic(Q0, Q1, 1.0), JointTrapezoid(Q1, Q0, 2.0)), start=0.5)
    b = tr.speed_bound([0.0, 0.0, 3.6, 1.0], [0.4, 1.0, 9.0, 2.5])
    assert np.all(b[0] == 0) and np.all(b[2] == 0)  # before the start, after the end
    np.testing.assert_allclose(b[3], _dense_max_speed(tr.q, 1.0, 2.5), rtol=2e-3, atol=1e-6)


def test_spline_reproduces_a_cubic_spline() -> None:
    t = np.linspace(0, 3, 9)
    q = RNG.normal(size=(9, 2))
    cs = CubicSpline(t, q, bc_type="clamped")
    sp = JointSpline(t, q, cs(t, 1))
    tt = RNG.uniform(0, 3, 200)
    np.testing.assert_allclose(sp.at(tt), cs(tt), atol=1e-12)
    with pytest.raises(InputError, match="start at 0"):
        JointSpline(t + 1, q, cs(t, 1))


def test_cartesian_line_spline_stays_on_the_ik_path() -> None:
    puma = load_robot("puma560")
    p0 = puma.fk(Q0, "link4")[:3, 3]
    line = CartesianLine(puma, "link4", p0, p0 + np.array([0.1, 0.15, -0.1]), None, 2.0, Q0)
    assert line.line_error < 1e-8 and line.exact_speed_bound
    np.testing.assert_allclose(line.at(np.array([0.0, 2.0])), line._ik(np.array([0.0, 2.0])),
                               atol=1e-10)  # fmt: skip


def test_time_warp_rate_max_and_inverse() -> None:
    w = TimeWarp([1.0, 2.0, 4.0, 5.0], [1.0, 1.75, 2.75, 3.5], [1.0, 0.5, 0.5, 1.0])
    t = np.linspace(0, 6, 60001)
    s = w(t)
    assert np.all(np.diff(s) > 0)
    np.testing.assert_allclose(np.gradient(s, t), w.rate_at(t), atol=5e-5)
    lo = RNG.uniform(0, 6, 20)
    hi = np.minimum(lo + RNG.uniform(0, 2, 20), 6)
    for a, b, m in zip(lo, hi, w.max_rate(lo, hi), strict=True):
        ref = float(np.max(w.rate_at(np.linspace(a, b, 2001))))
        assert ref - 1e-12 <= m <= ref + 1e-6
    np.testing.assert_allclose(w(w.inverse([0.2, 2.0, 3.0, 9.0])), [0.2, 2.0, 3.0, 9.0])
    with pytest.raises(InputError, match="not monotone"):
        TimeWarp([0.0, 1.0], [0.0, 0.1], [1.0, 1.0])


def test_warped_trajectory_speed_bound() -> None:
    w = TimeWarp([1.0, 2.0, 4.0, 5.0], [1.0, 1.75, 2.75, 3.5], [1.0, 0.5, 0.5, 1.0])
    tr = Trajectory((JointQuintic(Q0, Q1, 4.0),), warp=w)
    assert tr.end == pytest.approx(float(w.inverse(4.0)))
    for a, b in ((0.0, 1.5), (1.5, 3.0), (2.0, 6.0)):
        ref = _dense_max_speed(tr.q, a, b)
        bound = tr.speed_bound([a], [b])[0]
        assert np.all(bound >= ref - 1e-9)
