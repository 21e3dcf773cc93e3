"""A replanned path timed without stopping at its waypoints (``plan/smooth.py``): the
time-optimal run against the analytic trapezoid, the Hermite spline's exact peaks and
range, the three-PUMA replan made faster and still certified (its fastest timing is
not: the check saying NO), and a segment that falls back to its rest-to-rest quintic
because no smooth timing of it is clear."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from robotsim.clearance import JointQuintic, paper_puma_end_link
from robotsim.clearance.random_scene import random_scene
from robotsim.clearance.scenario import load_scenario
from robotsim.clearance.trajectory import JointSpline, Trajectory
from robotsim.model import load_robot
from robotsim.plan import Budget, JointLimits, MarginCheck, joint_limits, plan_replan
from robotsim.plan.limits import peak_rates
from robotsim.plan.smooth import (
    fastest_through,
    peak_acceleration,
    peak_velocity,
    spline_in_range,
    stretched,
)

MARGIN = 0.02


def _limits(v: list[float], a: list[float]) -> JointLimits:
    n = len(v)
    return JointLimits(
        tuple(f"j{k}" for k in range(n)),
        np.array(v),
        np.array(a),
        ("model",) * n,
        ("model",) * n,
    )


def _trapezoid_time(L: float, v: float, a: float) -> float:
    """Rest-to-rest minimum time over a distance ``L`` with speed ``v`` and
    acceleration ``a`` limits: bang-bang when ``v`` is never reached."""
    return L / v + v / a if L >= v * v / a else 2 * math.sqrt(L / a)


@pytest.mark.parametrize("L", [1.0, 0.05])
def test_fastest_line_is_the_trapezoid(L: float) -> None:
    """On a straight joint-space line the time-optimal motion is the trapezoid of the
    line's binding joint: |d_j| sdot <= v_j and |d_j| sddot <= a_j."""
    lim = _limits([0.5, 0.8, 1.0], [2.0, 1.0, 4.0])
    d = np.array([L, -0.5 * L, 0.0])
    sp = fastest_through(np.array([np.zeros(3), d]), lim)
    assert sp is not None
    V = float(np.min(lim.velocity[:2] / np.abs(d[:2])))
    A = float(np.min(lim.acceleration[:2] / np.abs(d[:2])))
    ref = _trapezoid_time(1.0, V, A)
    assert sp.duration == pytest.approx(ref, rel=0.01)  # TOPP-RA's grid, then the stretch
    assert sp.duration >= ref * (1 - 1e-9)  # never faster than the optimum
    np.testing.assert_array_equal(sp.q[0], np.zeros(3))
    np.testing.assert_array_equal(sp.q[-1], d)
    assert not sp.qd[0].any() and not sp.qd[-1].any()  # from rest to rest
    assert np.all(peak_velocity(sp) <= lim.velocity) and np.all(
        peak_acceleration(sp) <= lim.acceleration
    )
    # the rest-to-rest quintic over the same line takes longer
    assert sp.duration < float(lim.quintic_duration(d))


def test_fastest_through_waypoints_passes_them_within_limits() -> None:
    lim = _limits([0.5, 0.5], [2.0, 2.0])
    Q = np.array([[0.0, 0.0], [0.6, 0.3], [0.2, 0.9]])
    sp = fastest_through(Q, lim)
    assert sp is not None
    assert np.min(np.linalg.norm(sp.q - Q[1], axis=1)) < 1e-9  # a knot on the waypoint
    v, a = peak_rates(Trajectory((sp,)), 0.0, sp.duration, samples=40001)
    assert np.all(v <= lim.velocity * (1 + 1e-6)) and np.all(a <= lim.acceleration * 1.001)
    assert max(np.max(v / lim.velocity), np.max(a / lim.acceleration)) > 0.95  # one binds
    # faster than stopping at the middle waypoint
    rest = sum(float(lim.quintic_duration(b - a)) for a, b in itertools.pairwise(Q))
    assert sp.duration < 0.8 * rest


def test_spline_peaks_and_range_are_exact() -> None:
    rng = np.random.default_rng(3)
    t = np.concatenate([[0.0], np.cumsum(rng.uniform(0.2, 0.6, 6))])
    sp = JointSpline(t, rng.uniform(-1, 1, (7, 3)), rng.uniform(-2, 2, (7, 3)))
    tau = np.linspace(0.0, sp.duration, 200001)
    q = sp.at(tau)
    h = tau[1] - tau[0]
    v = np.abs(np.diff(q, axis=0)).max(axis=0) / h
    a = np.abs(np.diff(q, 2, axis=0)).max(axis=0) / h**2
    np.testing.assert_allclose(peak_velocity(sp), v, rtol=1e-3)
    np.testing.assert_allclose(peak_acceleration(sp), a, rtol=1e-3)
    slow = stretched(sp, 2.0)
    np.testing.assert_allclose(peak_velocity(slow), v / 2, rtol=1e-3)
    np.testing.assert_allclose(peak_acceleration(slow), a / 4, rtol=1e-3)
    # the range between knots: an upper bound just above every knot but below the
    # spline's true peak is refused; one just above the peak is accepted
    top = q.max(axis=0)
    assert np.any(top > sp.q.max(axis=0) + 1e-3)  # a peak between knots
    assert not spline_in_range(sp, np.full(3, -5.0), np.maximum(sp.q.max(axis=0), top - 1e-4))
    assert spline_in_range(sp, np.full(3, -5.0), top + 1e-6)


def test_three_puma_replan_is_faster_and_certified() -> None:
    sc = load_scenario("three_puma_clearance")
    check = MarginCheck(sc.scene, sc.trajectories, sc.dt, MARGIN)
    lim = joint_limits(sc.scene.robot("A").model, sc.trajectories["A"])
    out = plan_replan(check, "A", lim, Budget(30))
    c = out.change
    assert c is not None, out.reason
    assert c.params["timing"] == "smooth"
    assert c.added_time_s < c.params["rest_to_rest_added_time_s"] - 0.5
    new, old = c.trajectory, sc.trajectories["A"]
    assert any(isinstance(s, JointSpline) for s in new.segments)
    np.testing.assert_allclose(new.q(0.0), old.q(0.0), atol=1e-12)  # same start
    np.testing.assert_array_equal(new.q(new.end), old.q(old.end))  # same goal, exactly
    res = check.robot_clear("A", new, quick=False)
    assert res.clear and res.lower_bound > MARGIN and c.lower_bound == res.lower_bound
    v, a = peak_rates(new, 0.0, new.end, samples=20001)
    assert np.all(v <= lim.velocity * 1.001) and np.all(a <= lim.acceleration * 1.01)
    # the same path at its fastest, from the start: the check says NO (it had to wait
    # or slow down for B)
    Q = np.array([w["q"] for w in c.params["waypoints"]])
    fast = fastest_through(Q, lim)
    assert fast is not None and fast.duration < new.end - 0.1
    assert not check.robot_clear("A", Trajectory((fast,)), quick=False).clear


def test_a_segment_no_smooth_timing_clears_stays_rest_to_rest() -> None:
    """A random scene where R1's direct move is clear as the rest-to-rest quintic only:
    its time-optimal line, at its fastest or slowed to the quintic's arrival, comes
    within the margin; the quintic is kept, with its own times."""
    model = load_robot("puma560")
    scene, trajs = random_scene(43, model, (paper_puma_end_link(),), 3, spacing=0.35)
    check = MarginCheck(scene, trajs, 0.05, MARGIN)
    lim = joint_limits(model, trajs["R1"])
    out = plan_replan(check, "R1", lim, Budget(30))
    c = out.change
    assert c is not None, out.reason
    assert c.params["timing"] == "rest-to-rest"
    assert c.added_time_s == pytest.approx(c.params["rest_to_rest_added_time_s"], abs=1e-12)
    ((qa, ta), (qb, tb)) = [(np.array(w["q"]), w["t"]) for w in c.params["waypoints"]]
    (seg,) = c.trajectory.segments
    assert isinstance(seg, JointQuintic) and seg.duration == pytest.approx(tb - ta)
    assert check.robot_clear("R1", c.trajectory, quick=False).clear
    fast = fastest_through(np.array([qa, qb]), lim)
    assert fast is not None and fast.duration < tb - ta
    for sp in (fast, stretched(fast, (tb - ta) / fast.duration)):
        assert not check.robot_clear("R1", Trajectory((sp,), start=ta), quick=False).clear
