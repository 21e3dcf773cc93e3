"""The swing legs' momentum in the walk pattern (robotsim.walk.momentum): the planned
walk's multibody ZMP (MuJoCo's inverse dynamics of the planned motion) stays on a small
sole only with the correction, and a NAO-sized humanoid on 4.4 cm soles walks."""

from __future__ import annotations

import math
from pathlib import Path

import mujoco
import numpy as np
import pytest

from robotsim.model import load_robot
from robotsim.walk import biped_of, generate_walk
from robotsim.walk.biped import Biped
from robotsim.walk.momentum import zmp_shift
from tests.humanoid_files import write_nao_like_urdf


@pytest.fixture(scope="module")
def small_feet(tmp_path_factory: pytest.TempPathFactory) -> Biped:
    """NAO-sized, on 4.4 cm square soles (a NAO file whose foot meshes are missing)."""
    path = tmp_path_factory.mktemp("nao") / "nao.urdf"
    return biped_of(load_robot(str(write_nao_like_urdf(path, foot=(0.044, 0.044)))))


def multibody_zmp(pattern) -> np.ndarray:  # type: ignore[no-untyped-def]
    """``(n, 2)`` the ZMP of the planned motion from MuJoCo's inverse dynamics (the
    wrench the floor must give the free root; no contacts: the robot 10 m up)."""
    from robotsim.motion.profile import motion_profile
    from robotsim.physics import World
    from robotsim.walk.simulate import ROBOT, _scene

    b = pattern.biped
    T0 = pattern.root[0].copy()
    T0[2, 3] += 10.0
    w = World(_scene(b, pattern.q[0], T0, motion_profile(b.model)[1].physics, None))
    m, d = w.model, w.data
    qadr = np.array([w.joint(f"{ROBOT}/{n}").qadr for n in b.model.joint_names])
    base = w.body(f"{ROBOT}/{b.model.root}")
    fj = next(i for i in range(m.njnt) if m.jnt_type[i] == 0 and m.jnt_bodyid[i] == base.id)
    qa, va = m.jnt_qposadr[fj], m.jnt_dofadr[fj]
    n, dt = len(pattern.t), pattern.params.dt
    Q = np.repeat(d.qpos[None].copy(), n, axis=0)
    for k in range(n):
        Q[k, qa : qa + 3] = pattern.root[k, :3, 3] + (0, 0, 10.0)
        mujoco.mju_mat2Quat(Q[k, qa + 3 : qa + 7], pattern.root[k, :3, :3].flatten())
        Q[k, qadr] = pattern.q[k]
    V = np.zeros((n, m.nv))
    for k in range(n - 1):
        mujoco.mj_differentiatePos(m, V[k + 1], dt, Q[k], Q[k + 1])  # velocity k+1/2
    zmp = np.full((n, 2), np.nan)
    for k in range(1, n - 1):
        d.qpos[:], d.qvel[:] = Q[k], 0.5 * (V[k] + V[k + 1])
        d.qacc[:] = (V[k + 1] - V[k]) / dt
        mujoco.mj_inverse(m, d)
        F = d.qfrc_inverse[va : va + 3]
        tau = d.xmat[base.id].reshape(3, 3) @ d.qfrc_inverse[va + 3 : va + 6]
        o = d.xpos[base.id] - (0, 0, 10.0)
        zmp[k] = (o[0] - (tau[1] + o[2] * F[0]) / F[2], o[1] + (tau[0] - o[2] * F[1]) / F[2])
    return zmp


def _x_error(pattern) -> float:  # type: ignore[no-untyped-def]
    """The largest error along the walk of the multibody ZMP against the reference,
    averaged over 50 ms (what a sole feels: the correction leaves single-sample spikes
    of about 1 cm at touchdown, where the feet's vertical motion is least linear)."""
    e = multibody_zmp(pattern) - pattern.zmp_ref
    walk = (pattern.t > pattern.plan.t_start) & (pattern.t < pattern.plan.t_walk)
    ex = np.convolve(np.nan_to_num(e[:, 0]), np.ones(5) / 5, mode="same")
    return float(np.max(np.abs(ex[walk])))


@pytest.mark.slow
def test_the_planned_zmp_stays_on_a_small_sole_only_with_the_legs_momentum(
    small_feet: Biped, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 0.4 leg lengths/s the swing legs' momentum moves the planned motion's ZMP
    3 cm off the pendulum's along the walk: more than the 2.2 cm half sole. With the
    correction (the feet's horizontal motion) the multibody ZMP stays on the sole, the
    error about halved (over 50 ms; what is left is largest at the touchdowns of this
    short walk, where the feet's vertical motion, not modelled, is fastest)."""
    speed = 0.4 * small_feet.leg_length
    with_it = _x_error(generate_walk(small_feet, 0.4, speed=speed))
    import robotsim.walk.pattern as pattern_module

    monkeypatch.setattr(pattern_module, "swing_momentum_gains", lambda *a, **k: np.zeros((2, 2, 3)))
    without = _x_error(generate_walk(small_feet, 0.4, speed=speed))
    half = small_feet.foot_length / 2
    assert with_it < 0.75 * half < half < without and with_it < 0.55 * without, (
        with_it,
        without,
        half,
    )


def test_zmp_shift_turns_with_the_feet() -> None:
    """A foot accelerating along its own heading shifts the ZMP the same way in that
    heading, whatever the heading; a still foot shifts nothing."""
    K = np.zeros((2, 2, 3))
    K[:, 1, 0] = -0.2  # H_y per forward foot velocity: the swing's forward momentum
    t = np.arange(5) * 0.01
    fwd = 0.5 * 3.0 * t**2  # 3 m/s^2 along the heading

    def shift(yaw: float) -> np.ndarray:
        xyz = np.zeros((5, 2, 3))
        xyz[:, 0, 0], xyz[:, 0, 1] = fwd * math.cos(yaw), fwd * math.sin(yaw)
        return zmp_shift(K, 5.0, xyz, np.full((5, 2), yaw), 0.01)

    s0 = shift(0.0)
    assert np.allclose(s0, [[0.2 * 3.0 / (5.0 * 9.81), 0.0]] * 3)
    yaw = 1.1
    R = np.array([[math.cos(yaw), -math.sin(yaw)], [math.sin(yaw), math.cos(yaw)]])
    assert np.allclose(shift(yaw), s0 @ R.T)


@pytest.mark.slow
def test_a_nao_sized_humanoid_on_small_soles_walks(small_feet: Biped) -> None:
    """1.5 m at >= 0.4 leg lengths/s on 4.4 cm soles in physics (before the correction
    it fell after 1.0 m, rocking off its soles' edges)."""
    from robotsim.walk.simulate import simulate_goal

    pat = generate_walk(small_feet, 1.5, speed=0.42 * small_feet.leg_length)
    s = simulate_goal(small_feet, pat.goal, pat.pairs, pat.params.as_params()).summary()
    assert s["fell"] is False, s["reason"]
    assert s["distance_m"] > 1.45 and s["mean_speed_leg_lengths_s"] >= 0.4, s


def test_leg_masses(small_feet: Biped) -> None:
    """What a hip moves: pelvis, hip, thigh, tibia, ankle and foot links of NAO's
    table (tests/humanoid_files.py), their centre between knee and hip."""
    five = 0.14053 + 0.38968 + 0.30142 + 0.13416 + 0.16184
    # the right hip yaw-pitch mimics the left: the right leg's own joints start below
    # its pelvis link
    assert small_feet.leg_mass == pytest.approx(((five + 0.06981) + five) / 2)
    assert 0.05 < small_feet.leg_com_height < small_feet.leg_length


def test_default_speed_from_the_soles_margin(small_feet: Biped, tmp_path: Path) -> None:
    """The default speed is the step limits' unless the capture point, moved by the
    swing legs' ZMP excursion at that speed, would take more than SWING_MARGIN of the
    sole's margin: then it is the speed where it takes exactly that (a 4.4 cm sole: half
    its length; NAO's own sole: the step limits); the excursion is one lumped leg's and
    the capture point's motion the pendulum's, both by hand (the pendulum integrated
    step by step)."""
    from robotsim.walk.params import resolve_params
    from robotsim.walk.pattern import (
        STEADY_SHARE,
        SWING_MARGIN,
        default_speed,
        sole_margin,
        swing_dcm_per_speed,
        swing_zmp_per_speed,
    )
    from robotsim.walk.preview import G

    assert sole_margin(small_feet) == pytest.approx(0.022, abs=1e-4)  # a square's half
    res = resolve_params(small_feet)
    ll, h = small_feet.leg_length, small_feet.leg_com_height
    acc = 5.77 * 2 * res.step_period / (0.9 * res.t_single) ** 2  # peak m/s^2 per m/s
    per_acc = small_feet.leg_mass * h * (ll - h) / ll / (small_feet.mass * G)
    assert swing_zmp_per_speed(small_feet, res) == pytest.approx(per_acc * acc)
    # the capture point xi' = (xi - p) / tau from rest, p the excursion while the foot
    # (minimum jerk over t, a stride of 2 T per m/s) speeds up: explicit Euler steps
    t, tau = 0.9 * res.t_single, math.sqrt(res.com_height / G)
    n = 20000
    xi = 0.0
    for k in range(n):
        u = (k + 0.5) / n * 0.5
        a = 2 * res.step_period / t**2 * (60 * u - 180 * u**2 + 120 * u**3)
        xi += (xi + per_acc * a) / tau * (0.5 * t / n)
    assert swing_dcm_per_speed(small_feet, res) == pytest.approx(xi, rel=1e-3)
    v_sole = SWING_MARGIN * 0.022 / xi
    assert default_speed(res, 10.0, small_feet) == pytest.approx(v_sole, rel=2e-3)
    assert 0.4 < v_sole / ll < 0.55  # NAO's file walks at 0.44 and rocks at 0.6
    big = biped_of(load_robot(str(write_nao_like_urdf(tmp_path / "nao.urdf"))))
    rb = resolve_params(big)
    assert default_speed(rb, 0.1, big) == pytest.approx(0.1)  # the goal's fastest
    assert default_speed(rb, 10.0, big) == pytest.approx(STEADY_SHARE * rb.max_speed)
    assert default_speed(rb, 10.0, None) == pytest.approx(STEADY_SHARE * rb.max_speed)


def test_quick_steps_move_the_capture_point_no_more_per_speed(small_feet: Biped) -> None:
    """The swing's ZMP excursion per m/s grows as the step period shrinks (a quicker
    swing accelerates the foot harder), but it lasts shorter: the capture point moves
    about as much, so legs that step quicker to sway less (no ankle roll) keep their
    speed; the old rule (excursion against the sole) gave them 2.5 times less."""
    from robotsim.walk.params import WalkParams, resolve_params
    from robotsim.walk.pattern import swing_dcm_per_speed, swing_zmp_per_speed
    from robotsim.walk.preview import G

    tau = math.sqrt(resolve_params(small_feet).com_height / G)
    slow = resolve_params(small_feet, WalkParams(step_period=2.4 * tau))
    quick = resolve_params(small_feet, WalkParams(step_period=0.96 * tau))
    zmp = swing_zmp_per_speed(small_feet, quick) / swing_zmp_per_speed(small_feet, slow)
    dcm = swing_dcm_per_speed(small_feet, quick) / swing_dcm_per_speed(small_feet, slow)
    # ~ 1 / T (the double support is rounded to whole samples)
    assert zmp == pytest.approx(slow.step_period / quick.step_period, rel=0.05)
    assert zmp > 2.3
    assert 0.6 < dcm < 0.85  # the long swing lets the pendulum run away for longer


def test_legs_without_ankle_roll_take_shorter_steps_by_default(h1like: Biped) -> None:
    """Legs that cannot roll a sole walk by default in steps of at most UNROLLED_STEP
    leg lengths (their soles' margin would let the H1-like MJCF walk 0.62 leg lengths/s;
    it spins and falls there): 2 m in 13 steps, above 0.4 leg lengths/s; a speed given
    still takes the longest steps it needs."""
    from robotsim.walk.params import resolve_params
    from robotsim.walk.pattern import (
        SWING_MARGIN,
        UNROLLED_STEP,
        default_speed,
        sole_margin,
        swing_dcm_per_speed,
    )

    res = resolve_params(h1like)
    assert not h1like.rolls_soles
    ll = h1like.leg_length
    by_soles = SWING_MARGIN * sole_margin(h1like) / swing_dcm_per_speed(h1like, res)
    assert default_speed(res, 10.0, h1like) == pytest.approx(by_soles)
    assert by_soles / ll > 0.6
    pat = generate_walk(h1like, 2.0)
    strides = [s.pose[0] - s.start[0] for s in pat.plan.steps]
    assert max(strides) <= 2 * UNROLLED_STEP * ll + 1e-9  # a stride: two steps
    assert 0.4 < pat.summary()["planned_speed_m_s"] / ll < 0.5
    assert len(generate_walk(h1like, 2.0, speed=0.5 * ll).plan.steps) < len(pat.plan.steps)


def test_a_sole_with_no_margin_says_so_not_speed_zero(small_feet: Biped) -> None:
    """A sole whose reference point lies on its front edge leaves the swing no room:
    the default speed would be 0; the error names the sole and its margin (it named
    "--speed: 0 m/s", which the user never gave). A speed given still walks."""
    import dataclasses

    from robotsim.errors import ModelError

    P = small_feet.polygons[1]
    edge = np.array([P[:, 0].max(), small_feet.centres[1][1]])
    bad = dataclasses.replace(small_feet, centres=(small_feet.centres[0], edge))
    with pytest.raises(ModelError) as info:
        generate_walk(bad, 0.4)
    msg = str(info.value)
    assert "\n" not in msg and "--speed: 0" not in msg
    assert f"right sole {small_feet.soles[1]!r}" in msg
    assert "0 mm from its centre to its front end" in msg and "(--speed)" in msg


def test_a_44_kg_humanoid_walks_fast_enough_by_default(urdfbot: Biped) -> None:
    """The 44 kg URDF humanoid's 22 cm soles leave its default 2 m walk at its step
    limits: >= 0.4 leg lengths/s planned (the issue's figure)."""
    pattern = generate_walk(urdfbot, 2.0)
    assert pattern.summary()["planned_speed_m_s"] / urdfbot.leg_length >= 0.4


def _qpos(w, b: Biped, q: np.ndarray, T: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
    """MuJoCo's qpos of the robot at joints ``q`` with its root at ``T`` (4, 4)."""
    from robotsim.walk.simulate import ROBOT

    m = w.model
    out = w.data.qpos.copy()
    base = w.body(f"{ROBOT}/{b.model.root}")
    fj = next(i for i in range(m.njnt) if m.jnt_type[i] == 0 and m.jnt_bodyid[i] == base.id)
    a = m.jnt_qposadr[fj]
    out[a : a + 3] = T[:3, 3]
    mujoco.mju_mat2Quat(out[a + 3 : a + 7], np.ascontiguousarray(T[:3, :3]).flatten())
    for name, v in zip(b.model.joint_names, q):
        out[w.joint(f"{ROBOT}/{name}").qadr] = v
    return out


def test_the_legs_momentum_gains_are_mujocos_angular_momentum(small_feet: Biped) -> None:
    """K (momentum.py: every link's mass and inertia on our kinematics) against MuJoCo's
    own angular momentum of the whole robot about its CoM (``mj_subtreeVel``) for the
    same motion: the whole-body IK's two solutions for the lifted foot moved +-1 % of the
    leg length, the velocity between them from ``mj_differentiatePos``, evaluated at
    their midpoint. The lumped leg of the default speed (pattern.swing_zmp_per_speed) is
    the order of magnitude of the same (within 3x)."""
    from robotsim.motion.profile import motion_profile
    from robotsim.physics import World
    from robotsim.walk.momentum import swing_momentum_gains
    from robotsim.walk.params import resolve_params
    from robotsim.walk.pattern import heading_R
    from robotsim.walk.simulate import ROBOT, _scene
    from robotsim.walk.wbik import WholeBodyIK

    b = small_feet
    pat = generate_walk(b, 0.1)
    ik = WholeBodyIK(b)
    R = heading_R(b, np.array([0.0]))[0]
    feet, com, q, T = pat.feet[0], pat.com[0], pat.q[0], pat.root[0]
    lift, d = pat.params.step_height, 0.01 * b.leg_length
    K = swing_momentum_gains(b, ik, feet, com, R, q, T, lift, delta=d)
    w = World(_scene(b, q, T, motion_profile(b.model)[1].physics, None))
    m, data = w.model, w.data
    root = w.body(f"{ROBOT}/{b.model.root}").id
    for side in (0, 1):
        base = np.array(feet)
        base[side, 2, 3] += lift
        q0, T0, _ = ik.solve(base, com, R, q, T)
        for axis in (0, 1):
            Q = []
            for sgn in (1.0, -1.0):
                f = base.copy()
                f[side, axis, 3] += sgn * d
                qs, Ts, err = ik.solve(f, com, R, q0, T0)
                assert err[0] < 1e-9 and err[2] < 1e-9
                Q.append(_qpos(w, b, qs, Ts))
            v = np.zeros(m.nv)
            mujoco.mj_differentiatePos(m, v, 2 * d, Q[1], Q[0])  # per m/s of the foot
            mid = Q[1].copy()
            mujoco.mj_integratePos(m, mid, v, d)
            data.qpos[:], data.qvel[:] = mid, v
            mujoco.mj_fwdPosition(m, data)
            mujoco.mj_comVel(m, data)
            mujoco.mj_subtreeVel(m, data)
            H = data.subtree_angmom[root]
            np.testing.assert_allclose(K[side][:, axis], H[:2], rtol=2e-3, atol=1e-4 * abs(H).max())
        assert abs(K[side][1, 0]) > 0.1 * abs(K[side]).max()  # the forward swing's H_y
    from robotsim.walk.pattern import swing_zmp_per_speed

    res = resolve_params(b)
    acc = 5.77 * 2 * res.step_period / (0.9 * res.t_single) ** 2
    multibody = abs(K[0][1, 0]) * acc / (b.mass * 9.81)
    assert 1 / 3 < multibody / swing_zmp_per_speed(b, res) < 3
