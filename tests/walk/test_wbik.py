"""Whole-body IK: its Jacobian against finite differences, its solutions against SciPy's
least squares on our FK, the hierarchy (feet and CoM exact, torso as upright as the legs
allow), joint limits, and the measured state."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.motion.balance import com_world
from robotsim.walk import _wbik_kernel as K
from robotsim.walk.biped import Biped
from robotsim.walk.pattern import bent_seed, standing_feet
from robotsim.walk.swing import Ground, foot_T
from robotsim.walk.wbik import WholeBodyIK, reference_solve


def _residual_jacobian(ik: WholeBodyIK, q, R, p, Rt, targets, com_t):  # type: ignore[no-untyped-def]
    b = ik.biped
    L = len(b.model.links)
    nv = len(ik.var)
    col_var = np.full(b.model.nq, -1)
    col_var[ik.var] = np.arange(nv)
    r, J = np.empty(18), np.empty((18, 6 + nv))
    K._residual_jacobian(
        q, R, p, Rt, ik.tree, ik.mass, ik.com_local, ik.foot_link, ik.foot_T, ik.on_path,
        col_var, targets, com_t, ik.wrot, 1.0, np.empty((L, 3, 4)), np.zeros((L, 3, 4)),
        np.empty((3, 4)), np.empty(L), np.empty((L, 3)), r, J,
    )  # fmt: skip
    return r, J


@pytest.mark.parametrize("robot", ["h17", "urdfbot", "h1like"])
def test_jacobian_matches_finite_differences(robot: str, request: pytest.FixtureRequest) -> None:
    b: Biped = request.getfixturevalue(robot)
    ik = WholeBodyIK(b)
    rng = np.random.default_rng(1)
    q = np.clip(bent_seed(b) + rng.normal(0, 0.2, b.model.nq), b.model.lower, b.model.upper)
    R = np.eye(3)
    K._rotate_left(R, 0.1, -0.2, 0.3)
    p = np.array([0.1, -0.05, 0.8])
    # targets at the current orientations: the rotation rows' Jacobian is exact there
    soles, com = ik.measure(np.vstack([np.column_stack([R, p]), [0, 0, 0, 1]]), q)
    targets = soles.copy()
    targets[:, :, 3] += [[0.01, 0.02, -0.01], [0.0, -0.01, 0.02]]
    r0, J = _residual_jacobian(ik, q, R, p, R.copy(), targets, com + 0.01)
    h = 1e-7
    Jn = np.zeros_like(J)
    for c in range(J.shape[1]):
        qq, RR, pp = q.copy(), R.copy(), p.copy()
        if c < 3:
            pp[c] += h
        elif c < 6:
            d = np.zeros(3)
            d[c - 3] = h
            K._rotate_left(RR, *d)
        else:
            qq[ik.var[c - 6]] += h
        r1, _ = _residual_jacobian(ik, qq, RR, pp, R.copy(), targets, com + 0.01)
        Jn[:, c] = -(r1 - r0) / h
    np.testing.assert_allclose(J, Jn, atol=2e-6)


def _stance(b: Biped, dx: float, lift: float) -> tuple[np.ndarray, np.ndarray]:
    """Feet (left ``dx`` ahead and ``lift`` up, right on the floor) and a CoM target
    between them at the crouched height."""
    f = standing_feet(b)
    f[0, 0] += dx
    T = foot_T(f, np.array([lift, 0.0]), Ground().tilt())
    com = np.array([f[:, 0].mean() * 0.5 + f[1, 0] * 0.5, 0.3 * f[1, 1], 0.0])
    com[2] = b.com_height - 0.08 * b.leg_length
    return T, com


@pytest.mark.parametrize("robot", ["h17", "urdfbot"])
def test_solution_matches_scipy_least_squares(robot: str, request: pytest.FixtureRequest) -> None:
    b: Biped = request.getfixturevalue(robot)
    feet, com = _stance(b, 0.15 * b.leg_length, 0.05 * b.leg_length)
    ik = WholeBodyIK(b, max_iter=100)
    T0 = np.eye(4)
    T0[:3, 3] = [com[0], com[1], com[2] + b.sole_height - b.com_height]
    q, T, err = ik.solve(feet, com, np.eye(3) @ b.R_root_upright, bent_seed(b), T0)
    assert err[0] < 1e-10 and err[1] < 1e-10 and err[2] < 1e-10  # feet and CoM exact
    assert err[4] < 1e-8  # these legs can hold the torso upright: it is
    q_ref, T_ref = reference_solve(b, feet, com, b.R_root_upright, bent_seed(b), T0)
    # the same pose by another solver (the solution is unique near the bent-knee seed)
    np.testing.assert_allclose(T[:3, 3], T_ref[:3, 3], atol=1e-7)
    np.testing.assert_allclose(
        q[np.concatenate(b.leg_cols)], q_ref[np.concatenate(b.leg_cols)], atol=1e-6
    )
    m = b.model
    for f, sole in enumerate(b.soles):
        np.testing.assert_allclose(T @ m.fk(q, sole), feet[f], atol=1e-9)
    np.testing.assert_allclose(com_world(m, T @ m.fk_all(q)), com, atol=1e-9)
    assert np.all(q >= m.lower - 1e-12) and np.all(q <= m.upper + 1e-12)


def test_legs_without_ankle_roll_lean_and_roll_their_soles(h1like: Biped, urdfbot: Biped) -> None:
    # five-joint legs (yaw, roll, pitch, knee, ankle pitch) cannot roll a sole without
    # moving it: shifting the CoM sideways, the legs lean and the soles roll on an edge
    assert not h1like.rolls_soles and urdfbot.rolls_soles
    b = h1like
    feet, com = _stance(b, 0.0, 0.0)
    com[1] = 0.02
    ik = WholeBodyIK(b, max_iter=200)
    T0 = np.eye(4)
    T0[:3, 3] = [com[0], 0.0, com[2] + b.sole_height - b.com_height]
    _, _, err = ik.solve(feet, com, b.R_root_upright, bent_seed(b), T0)
    assert err[0] < 1e-10 and err[1] < 1e-10 and err[2] < 1e-10  # position, pitch, yaw, CoM
    assert 1e-3 < err[5] < 0.05  # the soles rolled (rad), a little
    assert err[4] < err[5]  # more than the torso leaned


def test_joint_limits_bound_the_solution_and_the_miss_is_reported(urdfbot: Biped) -> None:
    b = urdfbot
    feet, com = _stance(b, 0.0, 0.0)
    com[2] = b.com_height - 0.6 * b.leg_length  # deeper than the knees can bend
    ik = WholeBodyIK(b, max_iter=100)
    T0 = np.eye(4)
    T0[:3, 3] = [com[0], com[1], com[2] + b.sole_height - b.com_height]
    q, _, err = ik.solve(feet, com, b.R_root_upright, bent_seed(b), T0)
    m = b.model
    assert np.all(q >= m.lower) and np.all(q <= m.upper)
    assert max(err[0], err[2]) > 1e-3  # it says it could not


def test_measure_matches_fk_and_com(h17: Biped) -> None:
    ik = WholeBodyIK(h17)
    rng = np.random.default_rng(3)
    q = np.clip(rng.normal(0, 0.3, h17.model.nq), h17.model.lower, h17.model.upper)
    T = np.eye(4)
    K._rotate_left(T[:3, :3], 0.2, 0.1, -0.4)
    T[:3, 3] = [0.3, -0.2, 0.5]
    soles, com = ik.measure(T, q)
    for f, sole in enumerate(h17.soles):
        np.testing.assert_allclose(soles[f], (T @ h17.model.fk(q, sole))[:3], atol=1e-14)
    np.testing.assert_allclose(com, com_world(h17.model, T @ h17.model.fk_all(q)), atol=1e-14)
