"""Footsteps: goals are reached exactly, every step keeps within the limits, sideways
walking steps and closes, turning opens and closes (the feet never cross or toe in)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from robotsim.walk.footsteps import compose, goal_footsteps, pairs_needed, relative, walk_frame
from robotsim.walk.params import Resolved
from robotsim.walk.plan import timed_plan


def _res(**kw: float) -> Resolved:
    base = dict(
        step_period=0.5, double_support=0.2, step_height=0.02, crouch=0.02, com_height=0.2,
        max_step_length=0.08, max_step_side=0.04, max_turn=math.radians(20), half_width=0.03,
        dt=0.01, preview=1.0, qe=1.0, r=1e-6, leg_length=0.2,
    )  # fmt: skip
    base.update(kw)
    return Resolved(**base)  # type: ignore[arg-type]


START = np.array([[0.0, 0.03, 0.0], [0.0, -0.03, 0.0]])


def _feet_after(steps: list) -> np.ndarray:  # type: ignore[type-arg]
    feet = START.copy()
    for s in steps:
        feet[s.side] = s.pose
    return feet


def test_compose_and_relative_are_inverse() -> None:
    rng = np.random.default_rng(0)
    for _ in range(20):
        a, b = rng.normal(size=3), rng.normal(size=3)
        np.testing.assert_allclose(relative(a, compose(a, b))[:2], b[:2], atol=1e-12)
        assert math.isclose(
            math.remainder(relative(a, compose(a, b))[2] - b[2], 2 * math.pi), 0, abs_tol=1e-12
        )


@pytest.mark.parametrize(
    "goal", [(1.0, 0.0, 0.0), (-0.3, 0.0, 0.0), (0.0, 0.25, 0.0), (0.0, -0.2, 0.0),
             (0.0, 0.0, math.pi / 2), (0.0, 0.0, -math.pi), (0.6, 0.2, math.radians(45))],
)  # fmt: skip
def test_goal_is_reached_exactly_within_the_limits(goal: tuple[float, float, float]) -> None:
    res = _res()
    steps = goal_footsteps(res, START, *goal)
    feet = _feet_after(steps)
    end = compose(walk_frame(START), np.array(goal))
    for side, w in ((0, 0.03), (1, -0.03)):
        d = relative(compose(end, np.array([0.0, w, 0.0])), feet[side])
        assert np.hypot(d[0], d[1]) < 1e-9 and abs(d[2]) < 1e-9
    # every step, seen from the foot it stands on: forward/back, width and turn limits
    cur = START.copy()
    for s in steps:
        stance = cur[1 - s.side]
        d = relative(stance, np.array(s.pose))
        side = 1.0 if s.side == 0 else -1.0
        assert -res.max_step_length - 1e-9 <= d[0] <= 2 * res.max_step_length + 1e-9
        width = side * d[1]
        # at least the standing width less a little (a turned foot's offset), at most that
        # plus a sideways step and the offset a turn adds (w sin(max_turn) x 2)
        assert 2 * 0.03 - 0.01 <= width <= 2 * 0.03 + res.max_step_side + 0.021
        assert side * d[2] >= -1e-9  # the feet never toe in
        assert abs(d[2]) <= res.max_turn + 1e-9
        cur[s.side] = s.pose


def test_sideways_steps_out_and_closes() -> None:
    steps = goal_footsteps(_res(), START, 0.0, 0.2, 0.0)
    assert steps[0].side == 0  # going left: the left foot leads
    widths = []
    feet = START.copy()
    for s in steps:
        feet[s.side] = s.pose
        widths.append(feet[0, 1] - feet[1, 1])
    assert max(widths) <= 0.06 + 0.04 + 1e-9 and min(widths) >= 0.06 - 1e-9


def test_turning_opens_then_closes() -> None:
    steps = goal_footsteps(_res(), START, 0.0, 0.0, math.radians(-90))
    assert steps[0].side == 1  # turning right: the right foot leads
    assert len(steps) == 2 * pairs_needed(_res(), 0.0, 0.0, math.radians(-90))


def test_pairs_needed_follow_the_tightest_limit() -> None:
    res = _res()
    assert pairs_needed(res, 1.0, 0.0, 0.0) == math.ceil(1.0 / (2 * 0.08))
    assert pairs_needed(res, 0.0, 0.2, 0.0) == math.ceil(0.2 / 0.04)
    assert pairs_needed(res, 0.1, 0.0, math.pi) == math.ceil(math.pi / math.radians(20))
    assert pairs_needed(res, 0.0, 0.0, 0.0) == 0


def test_timing_and_zmp_reference() -> None:
    res = _res()
    steps = goal_footsteps(res, START, 0.3, 0.0, 0.0)
    plan = timed_plan(START, steps, 0.4, 0.1, 0.02, np.zeros((2, 2)), hold=0.7)
    assert plan.t_start == 0.7
    assert plan.steps[0].t_lift == pytest.approx(0.7 + 0.5)
    for a, b in zip(plan.steps, plan.steps[1:]):
        assert b.t_lift - a.t_lift == pytest.approx(0.5)
        assert a.t_land - a.t_lift == pytest.approx(0.4)
    # during each swing the ZMP stays on the stance sole
    for s in plan.steps:
        t = np.linspace(s.t_lift, s.t_land, 7)
        stance = plan.feet(t)[0][:, 1 - s.side, :2, 3]
        np.testing.assert_allclose(plan.zmp(t), stance, atol=1e-12)
        # ... and the swing foot lifts the step height half way
        mid = plan.feet(np.array([(s.t_lift + s.t_land) / 2]))[0][0, s.side, 2, 3]
        assert mid == pytest.approx(0.02)
    assert plan.t_walk == pytest.approx(plan.steps[-1].t_land + 0.5)
