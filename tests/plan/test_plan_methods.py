"""Velocity tuning and replanning (``plan/timing.py``, ``plan/spacetime.py``): each
change is certified above the margin, and a slightly smaller one is not (the same
check saying NO); limits are kept; a goal in collision and a spent budget are clear
results."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.clearance import JointQuintic, PlacedRobot, Scene, Trajectory, paper_puma_end_link
from robotsim.clearance.certified import certified_run
from robotsim.clearance.random_scene import random_scene
from robotsim.clearance.scenario import load_scenario
from robotsim.clearance.trajectory import Hold
from robotsim.model import load_robot
from robotsim.plan import Budget, MarginCheck, joint_limits, plan_delay, plan_replan, plan_scale
from robotsim.plan.check import SEARCH_SLACK
from robotsim.plan.limits import QUINTIC_ACCEL, QUINTIC_SPEED, peak_rates
from robotsim.plan.timing import delayed, limits_ok, scaled

MARGIN = 0.02


@pytest.fixture(scope="module")
def seed8():  # type: ignore[no-untyped-def]
    """A random 3-PUMA scene where R0 and R2 come within 2 cm."""
    model = load_robot("puma560")
    scene, trajs = random_scene(8, model, (paper_puma_end_link(),), 3)
    return scene, trajs


def test_quintic_duration_meets_the_limits() -> None:
    model = load_robot("puma560")
    tr = Trajectory((JointQuintic(np.zeros(6), np.full(6, 0.5), 2.0),))
    lim = joint_limits(model, tr)
    assert set(lim.velocity_source) == {"trajectory"}  # the PUMA file states no limits
    dq = np.array([1.0, -0.3, 0.2, 0, 0, 0])
    T = float(lim.quintic_duration(dq))
    v, a = peak_rates(Trajectory((JointQuintic(np.zeros(6), dq, T),)), 0, T, samples=20001)
    assert np.all(v <= lim.velocity * (1 + 1e-3)) and np.all(a <= lim.acceleration * (1 + 1e-3))
    assert max(np.max(v / lim.velocity), np.max(a / lim.acceleration)) > 0.999  # one binds
    assert QUINTIC_SPEED == pytest.approx(1.875) and QUINTIC_ACCEL == pytest.approx(5.7735, 1e-4)


def test_delay_is_the_smallest_clear_one(seed8) -> None:  # type: ignore[no-untyped-def]
    scene, trajs = seed8
    check = MarginCheck(scene, trajs, 0.02, MARGIN)
    out = plan_delay(check, "R0", Budget(30))
    c = out.change
    assert c is not None and c.method == "delay"
    d = c.params["delay_s"]
    assert 0 < d < 0.5 and c.added_time_s == pytest.approx(d)
    assert check.robot_clear("R0", c.trajectory, quick=False).lower_bound > MARGIN
    below = check.robot_clear("R0", delayed(trajs["R0"], d - 2e-3), quick=False)
    assert not below.clear and below.lower_bound <= MARGIN + SEARCH_SLACK  # 2 ms less: NO
    # what `robotsim clearance --certified` reports (a bound within 1 mm of the minimum,
    # not refined at the margin) proves the margin too: the search kept SEARCH_SLACK
    rep = certified_run(scene, {**trajs, "R0": c.trajectory}, 0.02)
    # (>= MARGIN + SEARCH_SLACK - 1 mm; without the slack this delay gives 0.0203 m)
    assert min(p.min_distance_lower_bound for p in rep.pairs.values()) >= MARGIN + 5e-4


def test_scale_keeps_the_path_and_the_limits(seed8) -> None:  # type: ignore[no-untyped-def]
    scene, trajs = seed8
    check = MarginCheck(scene, trajs, 0.02, MARGIN)
    lim = joint_limits(scene.robot("R0").model, trajs["R0"])
    out = plan_scale(check, "R0", lim, Budget(60))
    c = out.change
    assert c is not None and c.method == "scale" and c.params["limits_kept"]
    k, window = c.params["scale"], tuple(c.params["window_s"])
    assert 1 < k < 3 and c.added_time_s > 0
    new = c.trajectory
    # the same path: every configuration of the new timing is one of the old at s(t)
    t = np.linspace(0, new.end, 300)
    np.testing.assert_allclose(new.q(t), trajs["R0"].q(new.warp(t)), atol=1e-12)
    assert limits_ok(new, lim)[0]
    slower = scaled(trajs["R0"], lim, window, k * 0.97)
    assert slower is not None and not check.robot_clear("R0", slower).clear  # 3 % less: NO


def test_replan_three_puma_is_certified_and_within_limits() -> None:
    """The rest-to-rest chain the search finds (smoothing off: see test_plan_smooth)."""
    sc = load_scenario("three_puma_clearance")
    check = MarginCheck(sc.scene, sc.trajectories, sc.dt, MARGIN)
    lim = joint_limits(sc.scene.robot("A").model, sc.trajectories["A"])
    out = plan_replan(check, "A", lim, Budget(30), smooth=False)
    c = out.change
    assert c is not None, out.reason
    new, old = c.trajectory, sc.trajectories["A"]
    np.testing.assert_allclose(new.q(0.0), old.q(0.0), atol=1e-12)  # same start
    np.testing.assert_allclose(new.q(new.end), old.q(old.end), atol=1e-12)  # same goal
    res = check.robot_clear("A", new, quick=False)
    assert res.clear and res.lower_bound > MARGIN and c.lower_bound == res.lower_bound
    v, a = peak_rates(new, 0.0, new.end, samples=8001)
    assert np.all(v <= lim.velocity * 1.01) and np.all(a <= lim.acceleration * 1.01)
    assert all(isinstance(s, JointQuintic | Hold) for s in new.segments)
    # the original path, certified at the same margin, says NO
    assert not check.robot_clear("A", old, quick=False).clear


def _parked_in_the_way() -> MarginCheck:
    """B parks its forearm where A's goal puts A's: no arrival time can be clear."""
    m = load_robot("puma560")
    v = (paper_puma_end_link(),)
    TB = np.eye(4)
    TB[0, 3] = 1.25
    TB[:2, :2] = [[-1, 0], [0, -1]]
    scene = Scene((PlacedRobot("A", m, v), PlacedRobot("B", m, v, TB)))
    qa0, qa1 = np.radians([-80, -20, -40, 0, 0, 0]), np.radians([20, -20, -40, 0, 0, 0])
    trajs = {
        "A": Trajectory((JointQuintic(qa0, qa1, 1.5),)),
        "B": Trajectory((Hold(np.radians([0, -20, -40, 0, 0, 0]), 2.0),)),
    }
    return MarginCheck(scene, trajs, 0.02, MARGIN)


def test_goal_in_collision_is_a_clear_result() -> None:
    check = _parked_in_the_way()
    lim = joint_limits(check.scene.robot("A").model, check.trajectories["A"])
    out = plan_replan(check, "A", lim, Budget(10))
    assert out.change is None and "goal configuration of A" in out.reason


def test_spent_budget_is_a_clear_result() -> None:
    sc = load_scenario("three_puma_clearance")
    check = MarginCheck(sc.scene, sc.trajectories, sc.dt, MARGIN)
    lim = joint_limits(sc.scene.robot("A").model, sc.trajectories["A"])
    out = plan_replan(check, "A", lim, Budget(1e-3))
    assert out.change is None and "time budget spent" in out.reason


def test_plan_says_when_no_change_can_help() -> None:
    """A pair whose goal configurations are within the margin cannot be cleared by any
    change of timing or path between the same ends: said at once, with the distance."""
    from robotsim.plan import plan

    check = _parked_in_the_way()
    res = plan(check.scene, check.trajectories, 0.02, method="auto", budget_s=20)
    assert not res.collision_free and res.changes == ()
    (why,) = [r for r in res.reasons if r.startswith("A-B:")]
    assert "goal configurations of A and B" in why and "m apart" in why
    assert res.after.pairs["A-B"].min_distance_lower_bound <= MARGIN


@pytest.mark.slow
def test_ten_robots_one_pair_delayed() -> None:
    """Ten PUMAs round a circle, one neighbouring pair within the margin: one robot of
    that pair is started later; all 45 pairs certified above the margin after."""
    from robotsim.plan import plan

    model = load_robot("puma560")
    scene, trajs = random_scene(0, model, (paper_puma_end_link(),), 10, spacing=0.75)
    res = plan(scene, trajs, 0.05, method="delay", budget_s=120)
    assert [k for k, p in res.before.pairs.items() if not p.clear] == ["R6-R7"]
    assert res.collision_free and len(res.after.pairs) == 45
    (c,) = res.changes
    assert c.robot in ("R6", "R7") and 0 < c.params["delay_s"] < 1
    # the pairs without the delayed robot are exactly as before
    for k, p in res.after.pairs.items():
        if c.robot not in k.split("-"):
            assert p.min_distance == pytest.approx(res.before.pairs[k].min_distance, abs=1e-12)
