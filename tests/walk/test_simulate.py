"""Walking in MuJoCo with balance feedback: humanoid17 walks and the verdict carries its
numbers; the same check says it fell when a push is too strong."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.walk.biped import Biped
from robotsim.walk.pattern import WalkPattern, generate_walk
from robotsim.walk.simulate import Push, simulate_walk

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def walk17(h17: Biped) -> WalkPattern:
    return generate_walk(h17, 0.5, speed=0.5 * h17.leg_length)


def test_humanoid17_walks_in_physics(walk17: WalkPattern) -> None:
    run = simulate_walk(walk17)
    s = run.summary()
    assert s["fell"] is False and s["fell_at_s"] is None
    assert s["distance_m"] == pytest.approx(0.5, rel=0.2)
    assert s["max_tilt_deg"] < 15.0
    assert abs(s["heading_change_deg"]) < 10.0
    assert s["mean_speed_leg_lengths_s"] > 0.45
    # the measured ZMP exists while the feet are on the floor, and the sole poses
    # measured are where the pattern put them, up to the slip the summary reports
    assert np.isfinite(run.zmp[run.walking()]).mean() > 0.95
    assert s["max_zmp_error_m"] is not None


def test_a_strong_push_makes_it_fall_and_says_why(walk17: WalkPattern) -> None:
    steps = walk17.plan.steps
    mid = (steps[3].t_lift + steps[3].t_land) / 2
    run = simulate_walk(walk17, pushes=(Push(mid, 1.5, (0.0, 1.0)),), stop_after_fall=0.2)
    s = run.summary()
    assert s["fell"] is True
    assert s["fell_at_s"] > mid
    assert "tilted" in s["reason"] or "above the ground" in s["reason"]
    assert s["mean_speed_m_s"] is None  # no speed for a walk that did not finish


def test_legs_without_ankle_roll_walk_steadier_for_the_quicker_steps(h1like: Biped) -> None:
    """The H1-like MJCF (no ankle roll) at its default, quicker steps walks 1 m in physics
    straight and upright; at about the pendulum's own period (0.75 s, 2.4 tau) the same
    check says no: its soles roll onto their edges, it tilts, turns off its heading and
    ends short (at 0.74 s the physics guard stops it diverging)."""
    from robotsim.walk.params import WalkParams
    from robotsim.walk.simulate import simulate_goal

    def walk(params: WalkParams | None) -> dict:  # type: ignore[type-arg]
        pat = generate_walk(h1like, 1.0, params=params)
        return simulate_goal(h1like, pat.goal, pat.pairs, pat.params.as_params()).summary()

    def steady(s: dict) -> bool:  # type: ignore[type-arg]
        return (
            s["fell"] is False
            and abs(s["distance_m"] - 1.0) < 0.03
            and abs(s["heading_change_deg"]) < 2.0
            and s["max_tilt_deg"] < 4.0
        )

    quick = walk(None)
    assert steady(quick), quick
    slow = walk(WalkParams(step_period=0.75))
    assert not steady(slow), slow
