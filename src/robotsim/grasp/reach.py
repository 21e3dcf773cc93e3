"""Reaching a grasp with the arm: inverse kinematics that asks only what a grasp needs.

A grasp fixes where the contacts' midpoint is (3 numbers) and the closing axis through
the contacts (2 numbers); the turn of the hand about that axis (the approach direction)
is free. So the solver's main task is those 5 numbers; the candidate's full orientation
is a weak secondary task (weight ``w_roll``, for the first third of the iterations) that
picks, among the hand's turns, the one nearest the candidate's; then the main task alone
is solved from there. A 5-joint arm (the two-arm robot's) meets the main task exactly
where a 6-number pose target would fail; a 7-joint arm (the Panda) meets all of it.

Damped least squares on the stacked, weighted tasks, batched over candidates, only the
arm's joints moving, joint limits clamped, a fixed number of iterations (the budget).
For parallel grippers the closing axis may point either way (the fingers are alike):
``symmetric`` accepts the flipped axis too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robotsim.model.robot import RobotModel

__all__ = ["ReachResult", "reach"]


@dataclass(frozen=True, eq=False)
class ReachResult:
    """Per candidate ``(B,)``: joint values ``q`` ``(B, nq)``, the position error (m) of
    the contacts' midpoint and the closing axis error (rad), and ``ok``."""

    q: np.ndarray
    position_error: np.ndarray
    axis_error: np.ndarray
    ok: np.ndarray


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ax, ay, az = a[..., 0], a[..., 1], a[..., 2]
    bx, by, bz = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx], axis=-1)


def _vee_log(R: np.ndarray) -> np.ndarray:
    """A rotation vector pointing like ``log(R)`` (its sine-scaled part): enough for a
    weak secondary task, cheaper than the exact logarithm."""
    return 0.5 * np.stack([R[:, 2, 1] - R[:, 1, 2], R[:, 0, 2] - R[:, 2, 0],
                           R[:, 1, 0] - R[:, 0, 1]], axis=-1)  # fmt: skip


def reach(
    model: RobotModel,
    tool: str,
    arm_joints: tuple[str, ...],
    T_world_target: np.ndarray,
    T_tool_point: np.ndarray,
    q0: np.ndarray,
    symmetric: bool = False,
    w_roll: float = 0.1,
    iterations: int = 80,
    pos_tol: float = 2e-3,
    axis_tol: float = 0.03,
) -> ReachResult:
    """Bring the frame ``T_tool_point`` ``(B, 4, 4)`` or ``(4, 4)`` (on the tool) to
    ``T_world_target`` ``(B, 4, 4)`` (robot base frame): its origin onto the target's,
    its x axis along the target's (module docstring). ``q0`` ``(nq,)`` or ``(B, nq)``:
    the start. Stops early once every candidate meets the tolerances or stalls."""
    Tt = np.asarray(T_world_target, float).reshape(-1, 4, 4)
    B = len(Tt)
    Tp = np.broadcast_to(np.asarray(T_tool_point, float), (B, 4, 4))
    q = np.array(np.broadcast_to(np.asarray(q0, float), (B, model.nq)))
    cols = np.array([model.joint_index(j) for j in arm_joints])
    lo, hi = np.asarray(model.lower)[cols], np.asarray(model.upper)[cols]
    tree = model.tree
    lam2 = np.full(B, 1e-3)
    x_t = Tt[:, :3, 0]
    p_loc, x_loc = Tp[:, :3, 3], Tp[:, :3, 0]
    Rp_T = np.swapaxes(Tp[:, :3, :3], -1, -2)
    R_main = Tt[:, :3, :3] @ Rp_T  # the tool rotation that puts the point frame on target
    # or, for alike fingers, the hand turned half about the approach axis
    R_alt = Tt[:, :3, :3] @ np.diag([-1.0, -1.0, 1.0]) @ Rp_T if symmetric else R_main
    best_err = np.full(B, np.inf)
    best_q = q.copy()
    eye3 = np.eye(3)
    reg = np.eye(9)
    for it in range(iterations):
        # the turn about the closing axis is only a preference: after the first third of
        # the budget it steps aside, so an arm short of joints meets the main task exactly
        w = w_roll if it < iterations // 3 else 1e-3
        T, J = tree.jacobian_world(q, tool)  # (B, 4, 4), (B, 6, nq)
        R = T[:, :3, :3]
        r = np.einsum("bij,bj->bi", R, p_loc)
        x = np.einsum("bij,bj->bi", R, x_loc)
        flip = (np.einsum("bi,bi->b", x, x_t) < 0) if symmetric else np.zeros(B, bool)
        xt = np.where(flip[:, None], -x_t, x_t)
        Jw = J[:, 3:][:, :, cols]
        Jp = J[:, :3][:, :, cols] - _cross(r[:, :, None].repeat(len(cols), 2).swapaxes(1, 2),
                                           Jw.swapaxes(1, 2)).swapaxes(1, 2)  # fmt: skip
        e_p = Tt[:, :3, 3] - (T[:, :3, 3] + r)
        e_a = _cross(x, xt)
        Ja = (eye3 - x[:, :, None] * x[:, None, :]) @ Jw
        R_t = np.where(flip[:, None, None], R_alt, R_main)
        e_r = _vee_log(R_t @ np.swapaxes(R, -1, -2))
        pe = np.sqrt(np.einsum("bi,bi->b", e_p, e_p))
        ae = np.sqrt(np.einsum("bi,bi->b", e_a, e_a))
        err = pe + 0.05 * ae
        if it == iterations // 3:  # the main task alone from here: judge afresh
            best_err[:] = np.inf
            lam2[:] = 1e-3
        better = err < best_err
        best_err[better], best_q[better] = err[better], q[better]
        if it > iterations // 3 and np.all(
            ((pe <= 0.1 * pos_tol) & (ae <= 0.1 * axis_tol)) | (lam2 >= 1.0)
        ):
            break
        e = np.concatenate([e_p, e_a, w * e_r], axis=1)
        Js = np.concatenate([Jp, Ja, w * Jw], axis=1)  # (B, 9, n)
        A = Js @ np.swapaxes(Js, 1, 2) + lam2[:, None, None] * reg
        dq = (np.swapaxes(Js, 1, 2) @ np.linalg.solve(A, e[..., None]))[..., 0]
        scale = np.maximum(1.0, np.abs(dq).max(axis=1) / 0.3)
        q[:, cols] = np.clip(q[:, cols] + dq / scale[:, None], lo, hi)
        lam2 = np.where(better, np.maximum(lam2 * 0.5, 1e-6), np.minimum(lam2 * 4, 1.0))
    T = tree.fk(best_q, tool)
    R = T[:, :3, :3]
    p = T[:, :3, 3] + np.einsum("bij,bj->bi", R, p_loc)
    x = np.einsum("bij,bj->bi", R, x_loc)
    pe = np.linalg.norm(Tt[:, :3, 3] - p, axis=1)
    cosang = np.einsum("bi,bi->b", x, x_t)
    if symmetric:
        cosang = np.abs(cosang)
    ae = np.arccos(np.clip(cosang, -1.0, 1.0))
    return ReachResult(best_q, pe, ae, (pe <= pos_tol) & (ae <= axis_tol))
