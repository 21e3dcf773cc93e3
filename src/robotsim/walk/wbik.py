"""Whole-body inverse kinematics of a walking biped, on robotsim's own kinematics.

Given where both soles must be (full poses), where the centre of mass must be and how
the torso should be oriented (upright, turned to the walk's heading), find the root's
pose and the leg joints: the feet are placed exactly (to ``tol``) and the CoM tracked
(the primary task, 15 rows), the torso as upright as that allows (the secondary task,
in the primary one's null space), the joints within their limits; the joints outside
the legs hold their rest posture. With six-joint legs (or five whose axes can still
level the sole, like humanoid17's) the torso is exactly upright. Legs that cannot roll
the sole about its length without moving it (one joint along the foot: a Unitree H1's
five joints) cannot shift the weight sideways with both soles flat: for them the soles'
roll joins the secondary task (weighted ``wroll``, below the torso): the legs lean and
the soles roll onto their edges, as such robots walk. Damped Gauss-Newton, warm-started from
the previous sample along a walk (usually 1-3 iterations a sample).

The CoM Jacobian column of a joint is ``(m_below / M) z x (c_below - o)``: the mass
below the joint, its centre, the joint axis ``z`` through ``o``. The kernel is in
:mod:`robotsim.walk._wbik_kernel` (numba); :func:`reference_solve` is the slow,
obvious version (SciPy least squares on our FK) the tests compare it with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from robotsim.walk.biped import Biped

__all__ = ["IKPath", "WholeBodyIK", "reference_solve"]


@dataclass(frozen=True, eq=False)
class IKPath:
    """Solutions along a path: ``q`` (n, nq) rad/m, ``root`` (n, 4, 4) world poses,
    ``errors`` (n, 3): foot position (m), foot rotation (rad), CoM (m) errors;
    ``torso`` (n,): the torso's deviation from its target (rad); ``sole_roll`` (n,):
    the soles' roll where the legs cannot hold them flat (rad); ``iterations`` (n,)."""

    q: np.ndarray
    root: np.ndarray
    errors: np.ndarray
    torso: np.ndarray
    sole_roll: np.ndarray
    iterations: np.ndarray


class WholeBodyIK:
    """The solver for one biped (arrays compiled once; see the module docs).

    Args:
        biped: the robot.
        tol: convergence threshold on every residual (m, rad).
        max_iter: iterations per solve.
    """

    def __init__(self, biped: Biped, tol: float = 1e-10, max_iter: int = 30) -> None:
        m = biped.model
        tr = m.tree
        L = len(m.links)
        if np.any(tr.parent[1:] >= np.arange(1, L)):  # pragma: no cover - tree invariant
            raise AssertionError("kinematic tree not in parent-first order")
        self.biped = biped
        self.model = m
        self.tol = float(tol)
        self.max_iter = int(max_iter)
        self.tree = (
            np.ascontiguousarray(tr.parent, dtype=np.int64),
            np.ascontiguousarray(tr.jt, dtype=np.int64),
            np.ascontiguousarray(tr.qi, dtype=np.int64),
            np.ascontiguousarray(tr.mult, dtype=np.float64),
            np.ascontiguousarray(tr.off, dtype=np.float64),
            np.ascontiguousarray(tr.A, dtype=np.float64),
            np.ascontiguousarray(tr.B, dtype=np.float64),
        )
        self.mass = np.array(
            [lk.inertial.mass if lk.inertial is not None else 0.0 for lk in m.links]
        )
        self.com_local = np.array(
            [lk.inertial.com if lk.inertial is not None else np.zeros(3) for lk in m.links],
            dtype=np.float64,
        ).reshape(L, 3)
        links, Ts = [], []
        on_path = np.zeros((2, L), dtype=np.bool_)
        for f, sole in enumerate(biped.soles):
            li, T_link = tr.frame(sole)
            links.append(li)
            Ts.append(np.asarray(T_link)[:3])
            for i in tr.path(li):
                on_path[f, i] = True
        self.foot_link = np.array(links, dtype=np.int64)
        self.foot_T = np.ascontiguousarray(np.array(Ts))
        self.on_path = on_path
        self.var = np.ascontiguousarray(np.concatenate(biped.leg_cols)).astype(np.int64)
        self.lo = np.ascontiguousarray(m.lower[self.var], dtype=np.float64)
        self.hi = np.ascontiguousarray(m.upper[self.var], dtype=np.float64)
        self.wrot = max(biped.foot_length / 2, 1e-3)  # m per rad: rotation errors at the toe
        self._T = np.empty((L, 3, 4))  # work arrays of measure()
        self._Z = np.zeros((L, 3, 4))
        self._err = np.empty(6)
        self.primary = np.ones(18, dtype=np.bool_)
        self.primary[15:] = False  # the torso
        if not biped.rolls_soles:
            self.primary[[3, 9]] = False  # the soles' roll
        if biped.yaw_range == (0.0, 0.0):
            self.primary[[5, 11]] = False  # the soles' yaw: no joint turns them
        # a step the torso's secondary task pulls off the feet or the CoM is retried
        # without it (up to 3 times; NAO's shared hip yaw-pitch needs it, an OP3 walks
        # better for it) where the feet are wholly primary: legs whose soles' roll or yaw
        # is secondary (five joints) would let those wander, and walk worse for it
        self.retries = 3 if bool(self.primary[:12].all()) else 0
        self.wroll = 0.3

    def measure(self, T_root: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(soles (2, 3, 4), com (3,))`` of the robot at ``q`` with its root at
        ``T_root`` (4, 4): where its soles and its CoM are (world)."""
        from robotsim.walk._wbik_kernel import body_state

        soles, com = np.empty((2, 3, 4)), np.empty(3)
        body_state(
            np.ascontiguousarray(q, dtype=np.float64), np.ascontiguousarray(T_root[:3, :3]),
            np.ascontiguousarray(T_root[:3, 3]), self.tree, self.mass, self.com_local,
            self.foot_link, self.foot_T, self._T, self._Z, soles, com,
        )  # fmt: skip
        return soles, com

    def solve(
        self,
        feet: ArrayLike,
        com: ArrayLike,
        R_torso: ArrayLike,
        q0: ArrayLike,
        T0: ArrayLike,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(q, T_world_root (4, 4), errors (5,))`` for foot targets ``feet`` (2, 4, 4)
        (left, right), the CoM target ``com`` (3,), the torso's target orientation
        ``R_torso`` (3, 3), from the guess ``q0`` (nq,) and root pose ``T0`` (4, 4).
        ``errors``: foot position (m), foot rotation (rad; the rows of the primary task),
        CoM (m), iterations, torso deviation (rad), sole roll or yaw (rad; legs that
        cannot roll or turn their soles)."""
        from robotsim.walk._wbik_kernel import wbik_solve

        q = np.array(q0, dtype=np.float64)
        T0 = np.asarray(T0, dtype=np.float64)
        p = np.array(T0[:3, 3])
        R = np.array(T0[:3, :3])
        err = self._err
        wbik_solve(
            q, p, R, np.ascontiguousarray(R_torso, dtype=np.float64), self.tree, self.mass,
            self.com_local, self.foot_link, self.foot_T, self.on_path, self.var, self.lo,
            self.hi, np.ascontiguousarray(np.asarray(feet, dtype=np.float64)[:, :3]),
            np.asarray(com, dtype=np.float64), self.wrot, self.wroll, self.primary, self.tol,
            self.max_iter, self.retries, err,
        )  # fmt: skip
        T = np.eye(4)
        T[:3, :3] = R
        T[:3, 3] = p
        return q, T, err.copy()

    def path(
        self,
        feet: ArrayLike,
        com: ArrayLike,
        R_torso: ArrayLike,
        q0: ArrayLike,
        T0: ArrayLike,
        stop: tuple[float, float] = (math.inf, math.inf),
    ) -> IKPath:
        """Solve ``n`` samples in order, each from the one before: ``feet`` (n, 2, 4, 4),
        ``com`` (n, 3), ``R_torso`` (n, 3, 3); the first from ``q0`` and the root pose
        ``T0`` (4, 4). ``stop``: (m, rad) a miss that ends the path there (the result
        then holds the samples up to that one)."""
        from robotsim.walk._wbik_kernel import wbik_path

        F = np.ascontiguousarray(np.asarray(feet, dtype=np.float64)[..., :3, :])
        C = np.ascontiguousarray(com, dtype=np.float64)
        R = np.ascontiguousarray(R_torso, dtype=np.float64)
        T0 = np.asarray(T0, dtype=np.float64)
        n = len(C)
        Q = np.empty((n, self.model.nq))
        P = np.empty((n, 3))
        RR = np.empty((n, 3, 3))
        E = np.empty((n, 6))
        done = wbik_path(
            np.array(q0, dtype=np.float64), np.array(T0[:3, 3]), np.array(T0[:3, :3]), R,
            self.tree, self.mass, self.com_local, self.foot_link, self.foot_T, self.on_path,
            self.var, self.lo, self.hi, F, C, self.wrot, self.wroll, self.primary, self.tol,
            self.max_iter, self.retries, Q, P, RR, E, float(stop[0]), float(stop[1]),
        )  # fmt: skip
        Q, P, RR, E = Q[:done], P[:done], RR[:done], E[:done]
        n = done
        T = np.zeros((n, 4, 4))
        T[:, :3, :3] = RR
        T[:, :3, 3] = P
        T[:, 3, 3] = 1.0
        return IKPath(
            q=Q,
            root=T,
            errors=E[:, :3],
            torso=E[:, 4],
            sole_roll=E[:, 5],
            iterations=E[:, 3].astype(np.int64),
        )


def reference_solve(
    biped: Biped,
    feet: ArrayLike,
    com: ArrayLike,
    R_torso: ArrayLike,
    q0: ArrayLike,
    T0: ArrayLike,
) -> tuple[np.ndarray, np.ndarray]:
    """The same problem as :meth:`WholeBodyIK.solve`, solved the slow, obvious way:
    SciPy's bounded least squares over the root pose (position and a rotation vector)
    and the leg joints, residuals from :meth:`RobotModel.fk` and
    :func:`robotsim.motion.balance.com_world`, the torso's rows weighted 1e-4 of the
    others (a hierarchy by weights): ``(q, T_world_root)``. For tests."""
    from scipy.optimize import least_squares

    from robotsim.motion.balance import com_world
    from robotsim.spatial import axis_angle_to_R, rot_log

    m = biped.model
    cols = np.concatenate(biped.leg_cols)
    F = np.asarray(feet, dtype=np.float64)
    Rt = np.asarray(R_torso, dtype=np.float64)
    T0 = np.asarray(T0, dtype=np.float64)
    q_base = np.array(q0, dtype=np.float64)

    def unpack(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        q = q_base.copy()
        q[cols] = x[6:]
        T = np.eye(4)
        ang = float(np.linalg.norm(x[3:6]))
        R = axis_angle_to_R(x[3:6] / ang, ang) if ang > 0 else np.eye(3)
        T[:3, :3] = R @ T0[:3, :3]
        T[:3, 3] = x[:3]
        return q, T

    def fun(x: np.ndarray) -> np.ndarray:
        q, T = unpack(x)
        out = []
        for f, sole in enumerate(biped.soles):
            S = T @ m.fk(q, sole)
            out.append(F[f, :3, 3] - S[:3, 3])
            out.append(rot_log(F[f, :3, :3] @ S[:3, :3].T))
        out.append(np.asarray(com) - com_world(m, T @ m.fk_all(q)))
        out.append(1e-4 * rot_log(Rt @ T[:3, :3].T))
        return np.concatenate(out)

    x0 = np.concatenate([T0[:3, 3], np.zeros(3), q_base[cols]])
    lo = np.concatenate([np.full(6, -np.inf), m.lower[cols]])
    hi = np.concatenate([np.full(6, np.inf), m.upper[cols]])
    sol = least_squares(
        fun, np.clip(x0, lo, hi), bounds=(lo, hi), xtol=1e-15, ftol=1e-15, gtol=1e-15
    )
    return unpack(sol.x)
