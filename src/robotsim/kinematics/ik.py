"""Inverse kinematics: damped least squares with joint limits, batched.

Each iteration solves ``dq = J^T (J J^T + lambda^2 I)^-1 e`` for the pose error ``e``
(position in m, orientation as a world rotation vector in rad), limits the step, and
clamps ``q`` into the joint limits. The damping grows when a step does not reduce the
error (Levenberg-Marquardt style) and shrinks when it does. Samples that have not
converged after ``max_iter`` restart from seeded random configurations of the joints
that move the frame (the others, such as a gripper's fingers, keep their start). Nothing is
raised on non-convergence: the result says ``success`` and the residual.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import InputError
from robotsim.spatial import make_T, quat_to_R, rot_log

if TYPE_CHECKING:
    from robotsim.model.robot import RobotModel

__all__ = ["IKResult", "parse_target", "solve_ik"]


@dataclass(frozen=True)
class IKResult:
    """Outcome of :func:`solve_ik`; arrays have the target's batch shape.

    Attributes:
        q: solution (best found) ``(..., nq)``.
        success: both errors within tolerance ``(...)``.
        iterations: iterations used (over all restarts) ``(...)``.
        position_error: ``|p_target - p|`` in m ``(...)``.
        orientation_error: rotation angle between target and reached, rad ``(...)``
            (0 for position-only targets).
    """

    q: np.ndarray
    success: np.ndarray
    iterations: np.ndarray
    position_error: np.ndarray
    orientation_error: np.ndarray

    @property
    def residual(self) -> np.ndarray:
        return self.position_error + self.orientation_error


def parse_target(target: ArrayLike) -> tuple[np.ndarray, bool]:
    """Targets as ``(..., 4, 4)`` poses plus a flag "position only".

    Accepts ``(..., 3)`` positions, ``(..., 7)`` ``[x, y, z, qw, qx, qy, qz]`` or
    ``(..., 4, 4)`` homogeneous poses.
    """
    t = np.asarray(target, dtype=np.float64)
    if not np.all(np.isfinite(t)):
        raise InputError("IK target contains NaN or inf")
    if t.shape[-2:] == (4, 4):
        return t, False
    if t.shape and t.shape[-1] == 3:
        return make_T(None, t), True
    if t.shape and t.shape[-1] == 7:
        return make_T(quat_to_R(t[..., 3:]), t[..., :3]), False
    raise InputError(
        f"IK target must be x,y,z or x,y,z,qw,qx,qy,qz or a 4x4 pose; got shape {t.shape}"
    )


def _errors(T: np.ndarray, target: np.ndarray, pos_only: bool) -> np.ndarray:
    ep = target[:, :3, 3] - T[:, :3, 3]
    if pos_only:
        return ep
    er = rot_log(target[:, :3, :3] @ np.swapaxes(T[:, :3, :3], -1, -2))
    return np.concatenate([ep, er], axis=1)


def solve_ik(
    model: RobotModel,
    target: ArrayLike,
    link: str | None = None,
    q0: ArrayLike | None = None,
    position_only: bool | None = None,
    tol: float = 1e-9,
    max_iter: int = 100,
    restarts: int = 8,
    seed: int = 0,
    max_step: float = 0.4,
) -> IKResult:
    """Solve for ``q`` putting ``link`` (link or frame) at ``target``.

    Args:
        target: see :func:`parse_target`; any leading batch shape.
        q0: start configuration ``(nq,)`` or ``(..., nq)``; default the zero pose.
        position_only: ignore orientation (default: True for 3-vector targets).
        tol: position (m) and orientation (rad) tolerance for success.
        max_iter: iterations per attempt; ``restarts`` further attempts from seeded
            random configurations for samples that did not converge (only the joints
            on the frame's path are drawn; the others keep ``q0``).
        max_step: largest joint step per iteration (rad or m, infinity norm).
    """
    T_target, pos_only_default = parse_target(target)
    pos_only = pos_only_default if position_only is None else position_only
    batch = T_target.shape[:-2]
    tgt = T_target.reshape(-1, 4, 4)
    N, nq = tgt.shape[0], model.nq
    lo, hi = np.asarray(model.lower), np.asarray(model.upper)
    if q0 is None:
        q_start = np.broadcast_to(model.zero(), (N, nq)).copy()
    else:
        q_start = np.broadcast_to(np.asarray(q0, dtype=np.float64), (*batch, nq))
        q_start = q_start.reshape(N, nq).copy()
    q_start = np.clip(q_start, lo, hi)
    rng = np.random.default_rng(seed)
    moving = np.zeros(nq, dtype=bool)
    moving[model.tree.chain(link).qi] = True  # the q columns on the frame's path
    rlo = np.where(np.isfinite(lo), lo, -np.pi)
    rhi = np.where(np.isfinite(hi), hi, np.pi)

    best_q = q_start.copy()
    best_err = np.full(N, np.inf)
    iters = np.zeros(N, dtype=np.int64)
    todo = np.arange(N)
    m = 3 if pos_only else 6
    for attempt in range(restarts + 1):
        if todo.size == 0:
            break
        if attempt == 0:
            q = q_start[todo]
        else:  # joints that do not move the frame (a gripper's fingers) keep their start
            q = np.where(moving, rng.uniform(rlo, rhi, size=(todo.size, nq)), q_start[todo])
        t = tgt[todo]
        lam2 = np.full(todo.size, 1e-4)
        T, J = model.tree.jacobian_world(q, link)
        e = _errors(T, t, pos_only)
        err = np.linalg.norm(e, axis=1)
        active = np.ones(todo.size, dtype=bool)
        for _ in range(max_iter):
            done = _converged(e, pos_only, tol)
            active &= ~done
            if not active.any():
                break
            iters[todo[active]] += 1
            Ja = J[active][:, :m, :]
            A = Ja @ np.swapaxes(Ja, 1, 2) + lam2[active, None, None] * np.eye(m)
            dq = (np.swapaxes(Ja, 1, 2) @ np.linalg.solve(A, e[active][:, :, None]))[..., 0]
            scale = np.maximum(1.0, np.abs(dq).max(axis=1) / max_step)
            q_new = np.clip(q[active] + dq / scale[:, None], lo, hi)
            T_new, J_new = model.tree.jacobian_world(q_new, link)
            e_new = _errors(T_new, t[active], pos_only)
            err_new = np.linalg.norm(e_new, axis=1)
            better = err_new < err[active]
            idx = np.flatnonzero(active)
            acc = idx[better]
            q[acc], J[acc], e[acc], err[acc] = (
                q_new[better],
                J_new[better],
                e_new[better],
                err_new[better],
            )
            lam2[acc] = np.maximum(lam2[acc] * 0.3, 1e-12)
            rej = idx[~better]
            lam2[rej] = np.minimum(lam2[rej] * 10.0, 1e6)
            # A sample whose damping saturated without progress is stuck: stop it.
            active[rej[lam2[rej] >= 1e6]] = False
        improved = err < best_err[todo]
        best_err[todo[improved]] = err[improved]
        best_q[todo[improved]] = q[improved]
        ok = _converged(e, pos_only, tol)
        todo = todo[~ok]

    T_final = model.tree.fk(best_q, link)
    pe = np.linalg.norm(tgt[:, :3, 3] - T_final[:, :3, 3], axis=1)
    if pos_only:
        oe = np.zeros(N)
    else:
        oe = np.linalg.norm(
            rot_log(tgt[:, :3, :3] @ np.swapaxes(T_final[:, :3, :3], -1, -2)), axis=1
        )
    success = (pe <= tol * 10) & (oe <= tol * 10)
    return IKResult(
        q=best_q.reshape(*batch, nq),
        success=success.reshape(batch),
        iterations=iters.reshape(batch),
        position_error=pe.reshape(batch),
        orientation_error=oe.reshape(batch),
    )


def _converged(e: np.ndarray, pos_only: bool, tol: float) -> np.ndarray:
    ok = np.linalg.norm(e[:, :3], axis=1) <= tol
    if not pos_only:
        ok &= np.linalg.norm(e[:, 3:], axis=1) <= tol
    return ok
