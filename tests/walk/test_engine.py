"""The online engine: the same walk as the offline generator for the same footsteps,
velocity commands (forward, sideways, turn in place, stop), goals, re-anchoring."""

from __future__ import annotations

import math

import numpy as np
import pytest

from robotsim.errors import InputError
from robotsim.walk.biped import Biped
from robotsim.walk.engine import START_HOLD, WalkEngine
from robotsim.walk.footsteps import relative, walk_frame
from robotsim.walk.pattern import generate_walk


def _run(engine: WalkEngine, seconds: float) -> list:  # type: ignore[type-arg]
    out = []
    for _ in range(round(seconds / engine.dt)):
        ref = engine.tick()
        q, T = engine.solve(ref)
        out.append((ref, q.copy(), T.copy()))
    return out


def test_same_walk_as_the_offline_generator(h17: Biped) -> None:
    pat = generate_walk(h17, 0.6)
    eng = WalkEngine(h17, pat.params.as_params())
    # the engine's weight shift starts START_HOLD pendulum time constants after the goal
    hold = round((pat.plan.t_start - START_HOLD / eng.res.omega) / eng.dt)
    _run(eng, hold * eng.dt)  # stands until the offline walk's shift, less the hold
    eng.set_goal(*pat.goal, pairs=pat.pairs)
    rows = _run(eng, pat.t[-1] - eng.t + 1e-9)
    k0 = hold + 1
    com = np.array([r[0].com for r in rows])
    n = min(len(com), len(pat.com) - k0)
    # the offline CoM starts moving a little earlier (its preview sees the whole
    # horizon coming, the engine's only the hold); the difference fades and the
    # footsteps are the same
    err = np.linalg.norm(com[:n] - pat.com[k0 : k0 + n], axis=1)
    assert err.max() < 0.005 and err[-1] < 1e-3 and err[-1] < err.max() / 5
    np.testing.assert_allclose(eng.rest, pat.feet[-1][:, [0, 1, 1], [3, 3, 0]] * [1, 1, 0],
                               atol=1e-9)  # fmt: skip
    assert eng.t > pat.plan.t_walk and not eng.walking


def test_velocity_commands_walk_turn_sidestep_and_stop(urdfbot: Biped) -> None:
    eng = WalkEngine(urdfbot)
    eng.set_velocity(0.2, 0.0, 0.0)
    _run(eng, 4.0)
    assert eng.walking and walk_frame(eng.rest)[0] > 0.4
    eng.set_velocity(0.0, 0.0, math.radians(20))  # turn in place
    _run(eng, 4.0)
    eng.set_velocity(0.0, 0.08, 0.0)  # sideways, to the left of the new heading
    _run(eng, 3.0)
    eng.stop()
    rows = _run(eng, 4.0)
    assert not eng.walking
    yaw = walk_frame(eng.rest)[2]
    assert math.degrees(yaw) > 30  # it turned left
    # stopped: feet side by side, the CoM still between them
    d = relative(eng.rest[1], eng.rest[0])
    assert abs(d[0]) < 1e-6 and abs(d[2]) < 1e-6
    mid = (eng.rest[0, :2] + eng.rest[1, :2]) / 2
    assert np.linalg.norm(rows[-1][0].com[:2] - mid - np.array([0, 0])) < 0.05
    # the IK followed every reference: soles where planned
    for ref, q, T in rows[::20]:
        for f, sole in enumerate(urdfbot.soles):
            np.testing.assert_allclose(T @ urdfbot.model.fk(q, sole), ref.feet[f], atol=1e-6)


def test_a_goal_is_reached_and_reanchoring_walks_a_slip_back(urdfbot: Biped) -> None:
    eng = WalkEngine(urdfbot)
    start = walk_frame(eng.rest)
    eng.set_goal(1.5, 0.0, 0.0)
    slipped = False
    for _ in range(round(12.0 / eng.dt)):
        eng.tick()
        for swing in eng.lifted:
            stance = 1 - swing
            pose = eng.rest[stance].copy()
            if not slipped and eng.t > 1.0:  # the stance foot slid 3 cm to the right
                pose[1] -= 0.03
                slipped = True
            eng.reanchor(stance, tuple(pose))
    assert slipped and not eng.walking
    end = walk_frame(eng.rest)
    # the engine's world moved with the slip (3 cm to the right): it walked back to the
    # goal, which is now 3 cm to the left of where its plan started
    np.testing.assert_allclose(end, start + np.array([1.5, 0.0, 0.0]), atol=1e-6)


def _turn_with_slips(biped: Biped, turn: float, slips: dict[int, float]) -> tuple[float, int, int]:
    """Turn in place by ``turn`` (rad), the standing foot found turned by ``slips[k]``
    (rad) at the k-th lift: ``(heading error at the end (rad), pairs planned at first,
    pairs walked)``."""
    eng = WalkEngine(biped)
    start = walk_frame(eng.rest)
    eng.set_goal(0.0, 0.0, turn)
    need = eng.goal_pairs
    lifts = 0
    for _ in range(round(30.0 / eng.dt)):
        eng.tick()
        for swing in eng.lifted:
            stance = 1 - swing
            pose = eng.rest[stance].copy()
            pose[2] += slips.get(lifts, 0.0)
            eng.reanchor(stance, tuple(pose))
            lifts += 1
        if not eng.walking and lifts:
            break
    assert not eng.walking
    end = walk_frame(eng.rest)
    return (end[2] - start[2] - turn + math.pi) % (2 * math.pi) - math.pi, need, eng.goal_pairs


def test_a_turn_whose_stance_feet_slip_gets_more_steps_to_its_heading(
    urdfbot: Biped, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Standing feet found turned back 6 deg in the second half of a 90 deg turn (Unitree's
    H1 file slips so): the steps the turn limit planned cannot make it up, so the engine
    adds pairs of steps (at most EXTRA_PAIRS) until the heading is within HEADING_TOL;
    without them the turn ends short."""
    import robotsim.walk.engine as engine

    turn = math.radians(90.0)
    slips = {k: math.radians(-6.0) for k in (3, 4, 5, 6)}
    err, need, walked = _turn_with_slips(urdfbot, turn, slips)
    assert abs(err) <= engine.HEADING_TOL, math.degrees(err)
    assert need < walked <= need + engine.EXTRA_PAIRS
    monkeypatch.setattr(engine, "EXTRA_PAIRS", 0)
    err0, _, walked0 = _turn_with_slips(urdfbot, turn, slips)
    assert walked0 == need and abs(err0) > 2 * engine.HEADING_TOL, math.degrees(err0)


@pytest.mark.parametrize(("slip_deg", "moved_deg"), [(4.0, 4.0), (-12.0, -10.0)])
def test_reanchoring_takes_the_whole_yaw_of_a_slip(
    urdfbot: Biped, slip_deg: float, moved_deg: float
) -> None:
    """A standing foot found turned by a few degrees moves the engine's world by all of
    it (half of it left half of every slip unwalked), at most 10 deg."""
    eng = WalkEngine(urdfbot)
    eng.set_goal(1.0, 0.0, 0.0)
    # the first lift comes after the hold and one period: a few seconds at most
    for _ in range(round(3.0 / eng.dt)):
        eng.tick()
        if eng.lifted:
            break
    assert eng.lifted, "no foot lifted within 3 s"
    stance = 1 - eng.lifted[0]
    before = eng.rest[stance].copy()
    other = eng.rest[1 - stance].copy()
    pose = before.copy()
    pose[2] += math.radians(slip_deg)
    eng.reanchor(stance, tuple(pose))
    assert math.degrees(eng.rest[stance][2] - before[2]) == pytest.approx(moved_deg)
    np.testing.assert_allclose(eng.rest[stance][:2], before[:2], atol=1e-9)  # turned in place
    # the other foot turned with the world about the standing one
    d0 = other[:2] - before[:2]
    d1 = eng.rest[1 - stance][:2] - before[:2]
    turn = math.atan2(d0[0] * d1[1] - d0[1] * d1[0], d0 @ d1)
    assert math.degrees(turn) == pytest.approx(moved_deg)


def test_a_command_resent_within_the_start_hold_keeps_the_hold(h17: Biped) -> None:
    """Live commands are re-sent constantly (a slider dragged, UDP set_base_velocity
    streamed): one sent again within the start hold keeps that hold (it dropped it:
    humanoid17's knots went from [0, .144, .494] to [0, .02, .37]); the walk is timed as
    if it had been sent once."""
    once = WalkEngine(h17)
    once.set_velocity(0.1)
    hold = START_HOLD / once.res.omega
    assert once.hold_until == pytest.approx(hold) and hold > 5 * once.dt
    again = WalkEngine(h17)
    again.set_velocity(0.05)
    for _ in range(2):
        once.tick()
        again.tick()
    again.set_velocity(0.1)  # re-sent (changed) within the hold
    assert again.t < hold
    assert again.hold_until == pytest.approx(hold)
    once.tick()
    again.tick()  # both plan as far ahead
    a = [t for t in again.knots_t if t > again.t + 1e-9]
    b = [t for t in once.knots_t if t > once.t + 1e-9]
    assert len(a) > 4 and a[0] == pytest.approx(hold)
    np.testing.assert_allclose(a, b, atol=1e-12)
    assert len(again.steps) == len(once.steps) > 1
    for x, y in zip(again.steps, once.steps):
        assert (x.t_lift, x.t_land) == pytest.approx((y.t_lift, y.t_land))
        np.testing.assert_allclose(x.pose, y.pose, atol=1e-12)
    assert again.steps[0].t_lift == pytest.approx(hold + again.period)


def test_live_drivers_count_the_walk_from_the_weight_shift(h17: Biped) -> None:
    """A velocity command or a goal sent live starts the walk's clock where the goal
    driver does: after the start hold (its speeds were counted from before it)."""
    from robotsim.walk.simulate import CommandDriver

    d = CommandDriver(WalkEngine(h17))
    d.tick()
    d.command(0.1)
    hold = START_HOLD / d.engine.res.omega
    assert d.t_start == pytest.approx(d.t + hold)
    d.tick()
    d.command(0.12)  # re-sent: the clock does not move
    assert d.t_start == pytest.approx(d.dt + hold)
    g = CommandDriver(WalkEngine(h17))
    g.go_to(0.3)
    assert g.t_start == pytest.approx(hold)


def test_bad_commands(h17: Biped) -> None:
    eng = WalkEngine(h17)
    with pytest.raises(InputError, match="finite"):
        eng.set_velocity(float("nan"))


def test_soles_standing_a_few_mm_apart_are_the_robots_stance(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A robot whose right sole stands 4 mm ahead of the left (a maker's file may):
    standing, the engine takes no step (it took two at once, with no weight shift,
    before); a walk to a goal ends with the feet in that same stance."""
    from robotsim.model.loader import load_robot
    from robotsim.walk.biped import biped_of
    from tests.walk.robots import urdf_humanoid

    path = urdf_humanoid(tmp_path)
    text = path.read_text()
    i = text.index('<joint name="right_ankle_pitch"')
    j = text.index('<origin xyz="0 0 -0.32"/>', i)
    path.write_text(text[:j] + '<origin xyz="0.004 0 -0.32"/>' + text[j + 25 :])
    eng = WalkEngine(biped_of(load_robot(path)))
    rest0 = eng.rest.copy()
    assert rest0[1, 0] - rest0[0, 0] == pytest.approx(0.004, abs=1e-9)
    for _ in range(round(1.0 / eng.dt)):
        eng.tick()
    assert not eng.walking and eng.steps == []
    eng.set_goal(0.4, 0.0, 0.0)
    for _ in range(round(8.0 / eng.dt)):
        eng.tick()
    assert not eng.walking
    end = eng.rest
    for k in (0, 1):
        np.testing.assert_allclose(
            relative(walk_frame(end), end[k]), relative(walk_frame(rest0), rest0[k]), atol=1e-9
        )
    np.testing.assert_allclose(
        walk_frame(end), walk_frame(rest0) + np.array([0.4, 0.0, 0.0]), atol=1e-6
    )
