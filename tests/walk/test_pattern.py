"""The walk pattern: feet exactly on the plan, CoM tracked, the model's ZMP on the stance
sole, the requested speed met, sizes from the robot, one-line errors for bad requests."""

from __future__ import annotations

import math

import numpy as np
import pytest

from robotsim.errors import InputError
from robotsim.model.loader import load_robot
from robotsim.motion.balance import com_world, convex_hull, polygon_margin
from robotsim.walk.biped import Biped, biped_of
from robotsim.walk.params import WalkParams
from robotsim.walk.pattern import WalkPattern, generate_walk
from tests.walk.robots import arm_urdf


@pytest.fixture(scope="module")
def walk17(h17: Biped) -> WalkPattern:
    return generate_walk(h17, 0.6, speed=0.5 * h17.leg_length)


def test_feet_exact_com_tracked_limits_kept(walk17: WalkPattern) -> None:
    pat, b = walk17, walk17.biped
    m = b.model
    idx = np.arange(0, len(pat.t), 7)  # a sample of the ticks, checked on our FK
    for k in idx:
        T = pat.root[k]
        for f, sole in enumerate(b.soles):
            S = T @ m.fk(pat.q[k], sole)
            np.testing.assert_allclose(S[:3, 3], pat.feet[k, f, :3, 3], atol=1e-9)
            # humanoid17 has no hip yaw: the soles' yaw is the IK's secondary task, met
            # to 1e-7 rad along a straight walk
            np.testing.assert_allclose(S[:3, :3], pat.feet[k, f, :3, :3], atol=1e-7)
        np.testing.assert_allclose(com_world(m, T @ m.fk_all(pat.q[k])), pat.com[k], atol=1e-9)
    assert np.all(pat.q >= m.lower - 1e-12) and np.all(pat.q <= m.upper + 1e-12)
    # humanoid17's legs keep the torso upright (to the heading)
    assert np.max(pat.torso_lean) < 1e-5


def test_model_zmp_stays_on_the_support(walk17: WalkPattern) -> None:
    pat, b = walk17, walk17.biped
    margins = []
    for k in range(0, len(pat.t), 3):
        pts = []
        for f in range(2):
            if pat.support[k] in (f, 2):
                c = pat.feet[k, f] @ np.vstack(
                    [b.polygons[f].T, np.zeros(len(b.polygons[f])), np.ones(len(b.polygons[f]))]
                )
                pts.append(c[:2].T)
        margins.append(polygon_margin(convex_hull(np.vstack(pts)), pat.zmp[k]))
    # the cart-table ZMP never leaves the soles: at least a few mm inside
    assert min(margins) > 0.003


def test_speed_and_sizes_come_from_the_robot(walk17: WalkPattern, h17: Biped) -> None:
    s = walk17.summary()
    assert s["planned_speed_m_s"] == pytest.approx(0.5 * h17.leg_length, rel=0.15)
    assert s["planned_speed_m_s"] >= 0.5 * h17.leg_length
    res = walk17.params
    assert res.leg_length == pytest.approx(0.2185, abs=1e-9)  # hip joint to sole
    assert res.step_height == pytest.approx(0.08 * res.leg_length)
    # 2.4 pendulum time constants, in whole samples
    assert abs(res.step_period - 2.4 * math.sqrt(res.com_height / 9.81)) <= res.dt / 2 + 1e-12
    assert res.step_period / res.dt == pytest.approx(round(res.step_period / res.dt))


def test_swing_foot_clears_and_stance_foot_stays(walk17: WalkPattern) -> None:
    pat = walk17
    for s in pat.plan.steps:
        during = (pat.t > s.t_lift) & (pat.t < s.t_land)
        stance = pat.feet[during, 1 - s.side, :3, 3]
        assert np.ptp(stance, axis=0).max() < 1e-12
        assert pat.feet[during, s.side, 2, 3].max() == pytest.approx(
            pat.params.step_height, rel=0.01
        )


def test_a_maker_humanoid_turns_exactly(urdfbot: Biped) -> None:
    pat = generate_walk(urdfbot, 0.0, turn=math.radians(90))
    yaw = [math.atan2(pat.root[k, 1, 0], pat.root[k, 0, 0]) for k in (0, -1)]
    assert math.degrees(yaw[1] - yaw[0]) == pytest.approx(90.0, abs=1e-6)
    assert pat.summary()["max_foot_error_m"] < 1e-9


def test_legs_without_ankle_roll_walk_with_rolled_soles(h1like: Biped) -> None:
    pat = generate_walk(h1like, 0.5)
    s = pat.summary()
    assert s["max_foot_error_m"] < 1e-8
    assert 0.1 < s["max_sole_roll_deg"] < 10.0


def test_bad_requests_are_one_line_errors(h17: Biped, tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError, match=r"at most [0-9.]+ m/s \([0-9.]+ leg lengths/s"):
        generate_walk(h17, 1.0, speed=5.0)
    with pytest.raises(InputError, match="cannot turn"):
        generate_walk(h17, 0.0, turn=1.0)
    with pytest.raises(InputError, match="walking needs a biped"):
        biped_of(load_robot(arm_urdf(tmp_path)))
    with pytest.raises(InputError, match="--distance"):
        generate_walk(h17, float("nan"))
    for exc in (InputError,):
        with pytest.raises(exc) as info:
            generate_walk(h17, 1.0, speed=5.0)
        assert "\n" not in str(info.value)


def test_a_hip_yaw_shared_by_both_legs_still_turns(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # NAO's right hip yaw-pitch mimics the left (one motor): the turning range is read
    # through the coupling, and the IK turns both feet with the one joint
    from tests.humanoid_files import write_nao_like_urdf

    nao = biped_of(load_robot(write_nao_like_urdf(tmp_path / "nao.urdf")))
    assert any(j.mimic is not None for j in nao.model.joints)
    assert nao.yaw_range[1] > math.radians(20)
    pat = generate_walk(nao, 0.0, turn=math.radians(90))
    yaw = [math.atan2(pat.root[k, 1, 0], pat.root[k, 0, 0]) for k in (0, -1)]
    assert math.degrees(yaw[1] - yaw[0]) == pytest.approx(90.0, abs=0.5)
    assert pat.summary()["max_foot_error_m"] < 1e-8


def test_legs_without_ankle_roll_step_quicker_to_sway_less(h1like: Biped, urdfbot: Biped) -> None:
    """The sway formula against the pendulum integrated step by step (RK4, ZMP switched
    between the feet every period), and the period it gives: only for legs that cannot
    roll a sole, and the pattern's sideways CoM sway within the sole's room."""
    from robotsim.walk.params import SWAY_LEAN, resolve_params, sole_side_room, sway_period

    tau, hw, room = 0.3, 0.2, 0.02
    T = sway_period(tau, hw, room)
    w2 = 1.0 / tau**2
    # start on the periodic orbit's crossing of the middle: y 0, y' from the formula's
    # cosh solution (y = a - a cosh((t - T/2)/tau) / cosh(T/(2 tau)) on the foot at +a)
    y, v, peak, h = 0.0, hw * math.tanh(T / (2 * tau)) / tau, 0.0, T / 2000
    for k in range(4 * 2000):
        p = hw if (k // 2000) % 2 == 0 else -hw

        def f(s: np.ndarray, p: float = p) -> np.ndarray:
            return np.array([s[1], w2 * (s[0] - p)])

        s = np.array([y, v])
        k1 = f(s)
        k2 = f(s + h / 2 * k1)
        k3 = f(s + h / 2 * k2)
        k4 = f(s + h * k3)
        y, v = s + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        peak = max(peak, abs(y))
    assert peak == pytest.approx(room, rel=1e-3)
    assert sway_period(tau, 0.02, 0.03) == math.inf
    assert resolve_params(urdfbot).step_period == pytest.approx(
        2.4 * math.sqrt(resolve_params(urdfbot).com_height / 9.81), abs=0.006
    )
    res = resolve_params(h1like)
    room = sole_side_room(h1like)
    assert room == pytest.approx(h1like.foot_width / 2)  # a box sole: its half width
    room = min(room, SWAY_LEAN * h1like.leg_length)
    tau = math.sqrt(res.com_height / 9.81)
    assert res.step_period < 2.4 * tau - 0.01
    assert res.step_period == pytest.approx(sway_period(tau, res.half_width, room), abs=0.006)
    # the steady steps (past the weight shift's and before the stop's) sway about that
    pat = generate_walk(h1like, 1.5)
    st = pat.plan.steps
    steady = (pat.t > st[2].t_lift) & (pat.t < st[-3].t_land)
    mid = pat.feet[steady][:, :, 1, 3].mean(axis=1)
    assert np.max(np.abs(pat.com[steady, 1] - mid)) < 1.25 * room


def test_no_walk_grows_without_bound(h17: Biped) -> None:
    """Steps grow in number as 1 / speed: a crawl over a long way, a goal of a million
    degrees, a sole whose margin allows a tiny default speed or a step period of hours
    are one-line errors at once (what speed fits), not a walk of millions of samples."""
    import dataclasses

    from robotsim.walk.params import resolve_params
    from robotsim.walk.pattern import MAX_STEPS, default_speed, sole_margin, walk_duration

    with pytest.raises(InputError, match=rf"more than the {MAX_STEPS} a walk may take: ask") as a:
        generate_walk(h17, 5.0, speed=1e-6)
    res = resolve_params(h17)
    slowest = float(str(a.value).split("ask at least ")[1].split(" m/s")[0])
    assert slowest == pytest.approx(5.0 / walk_duration(res, MAX_STEPS), rel=1e-2)
    with pytest.raises(InputError, match="a nearer goal"):
        generate_walk(h17, 1e6)
    # a sole 0.2 mm long: its margin speed is tiny (the error names it)
    box = [[-1e-4, -0.02], [1e-4, -0.02], [1e-4, 0.02], [-1e-4, 0.02]]
    tiny = (np.array(box), np.array(box))
    small = dataclasses.replace(h17, polygons=tiny, centres=(np.zeros(2), np.zeros(2)))
    assert sole_margin(small) == pytest.approx(1e-4)
    v = default_speed(res, 1.0, small)
    assert 0 < v < 1e-3
    with pytest.raises(InputError, match="the default speed its soles allow") as b:
        generate_walk(small, 5.0)
    with pytest.raises(InputError, match="samples, more than"):
        generate_walk(h17, 0.2, params=WalkParams(step_period=3600.0))
    for e in (a.value, b.value):
        assert "\n" not in str(e)
