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
