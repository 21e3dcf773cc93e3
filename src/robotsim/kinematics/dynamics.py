"""Rigid-body dynamics of any fixed-root model: inverse dynamics, gravity, mass matrix.

Our own recursive Newton-Euler algorithm (RNEA), batched over leading axes with NumPy
(the loop runs over links, every step works on the whole batch), on the link poses of
the numba tree FK. MuJoCo is not used: the kinematics layer stays free of it, and the
tests compare both (and published PUMA 560 numbers).

Conventions:

- The root link is fixed at the world origin (a floating model is treated as if its
  root were welded; its base pose lives elsewhere). Gravity is ``gravity`` in root axes,
  by default ``(0, 0, -9.81)`` m/s^2.
- ``tau = M(q) qdd + c(q, qd) + g(q) + passive``: the joint torques (N m) or forces
  (N) an actuator must apply, ``(..., nq)`` in :attr:`RobotModel.joint_names` order.
  ``passive`` are the joint terms of :class:`~robotsim.model.JointDynamics`: armature
  ``* qdd``, damping ``* qd``, Coulomb friction ``* sign(qd)`` and stiffness
  ``* (q - rest)``. :meth:`Dynamics.gravity_torques` is ``g(q)`` alone;
  :meth:`Dynamics.mass_matrix` is ``M(q)`` plus the armature on its diagonal.
- A mimic joint (``q_m = k q_l + c``) moves with its leader; its torque, times ``k``,
  is the leader's (virtual work), and its armature appears as ``k^2 * armature``.
- Inertials count as the file gives them, as pinocchio does: a massless link's tensor
  (the Panda's ``panda_link8``: mass 0, a 0.1 kg m^2 placeholder) adds rotational
  inertia; zero and singular tensors are used as they are. A model without any
  inertia gets all-zero dynamics (armature aside) and one :class:`ModelWarning`.
- ``M`` is built column by column from RNEA with unit accelerations (``nq`` passes,
  stacked into one batch), so it is exactly consistent with :meth:`inverse_dynamics`.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import KinematicsError, ModelWarning
from robotsim.kinematics import kernels

if TYPE_CHECKING:
    from robotsim.model.robot import RobotModel

__all__ = [
    "STANDARD_GRAVITY",
    "Dynamics",
    "compile_dynamics",
    "gravity_torques",
    "inverse_dynamics",
    "mass_matrix",
]

STANDARD_GRAVITY = (0.0, 0.0, -9.81)
"""Gravity (m/s^2) in the root's axes unless a call names another."""


class Dynamics:
    """A model's inertial and joint-space arrays, compiled once (``model.dynamics``)."""

    def __init__(self, model: RobotModel) -> None:
        self.model = model
        tree = model.tree
        self.tree = tree
        L = len(model.links)
        self.mass = np.zeros(L)
        self.com = np.zeros((L, 3))
        self.inertia = np.zeros((L, 3, 3))
        for i, link in enumerate(model.links):
            if link.inertial is not None:  # as given, massless tensors included
                self.mass[i] = link.inertial.mass
                self.com[i] = link.inertial.com
                self.inertia[i] = link.inertial.inertia
        if model.nq and not (self.mass[1:].any() or self.inertia[1:].any()):
            where = f"{model.source}: " if model.source is not None else ""
            warnings.warn(
                f"{where}robot {model.name!r} has no inertias (no link below the root has "
                "a mass or an inertia tensor): its inverse dynamics, gravity torques and "
                "mass matrix are zero but for joint armature and friction",
                ModelWarning,
                stacklevel=3,
            )
        A4 = np.zeros((L, 4, 4))
        A4[:, :3, :] = tree.A
        A4[:, 3, 3] = 1.0
        self.A4 = A4
        # Joint-space passive terms per link (the joint whose child the link is).
        self.armature = np.zeros(L)
        self.damping = np.zeros(L)
        self.friction = np.zeros(L)
        self.stiffness = np.zeros(L)
        self.rest = np.zeros(L)
        index = tree.link_index
        for joint in model.joints:
            if joint.movable:
                i = index[joint.child]
                d = joint.dynamics
                self.armature[i] = d.armature
                self.damping[i] = d.damping
                self.friction[i] = d.friction
                self.stiffness[i] = d.stiffness
                self.rest[i] = d.rest
        self.moving = np.flatnonzero(tree.jt != kernels.FIXED)

    # ------------------------------------------------------------------ helpers
    def _flat(self, x: ArrayLike, what: str) -> tuple[np.ndarray, tuple[int, ...]]:
        nq = self.model.nq
        a = np.asarray(x, dtype=np.float64)
        if a.ndim == 0 or a.shape[-1] != nq:
            raise KinematicsError(
                f"{self.model.name}: {what} must have shape (..., {nq}) for joints "
                f"{list(self.model.joint_names)}, got shape {a.shape}"
            )
        return a.reshape(-1, nq), a.shape[:-1]

    def _joint_values(self, x: np.ndarray, offset: bool) -> np.ndarray:
        """Per-link joint values ``(N, L)`` from actuated ones ``(N, nq)``."""
        t = self.tree
        out = x[:, t.qi] * t.mult
        if offset:
            out = out + t.off
        return out

    def _gather(self, per_link: np.ndarray) -> np.ndarray:
        """Sum per-link joint torques ``(N, L)`` into actuated ones ``(N, nq)``."""
        t = self.tree
        out = np.zeros((per_link.shape[0], self.model.nq))
        m = self.moving
        np.add.at(out.T, t.qi[m], (per_link[:, m] * t.mult[m]).T)
        return out

    def _rnea(
        self, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray, gravity: np.ndarray
    ) -> np.ndarray:
        """Rigid-body joint torques ``(N, L)`` per link's joint (zero for fixed ones)."""
        t = self.tree
        N, L = q.shape[0], len(t.parent)
        T = t.fk_all(q)  # (N, L, 4, 4)
        qd_l = self._joint_values(qd, False)
        qdd_l = self._joint_values(qdd, False)
        R = T[:, :, :3, :3]
        o = T[:, :, :3, 3]
        w = np.zeros((N, L, 3))
        dw = np.zeros((N, L, 3))
        ao = np.zeros((N, L, 3))
        ao[:, 0] = -np.asarray(gravity, dtype=np.float64)
        axis = np.zeros((N, L, 3))
        pj = np.zeros((N, L, 3))
        cross = np.cross
        for i in range(1, L):
            p = int(t.parent[i])
            Tj = T[:, p] @ self.A4[i]
            a = Tj[:, :3, 2]
            axis[:, i] = a
            pj[:, i] = Tj[:, :3, 3]
            wp, dwp = w[:, p], dw[:, p]
            if t.jt[i] == kernels.PRISMATIC:
                r = o[:, i] - o[:, p]
                w[:, i] = wp
                dw[:, i] = dwp
                ao[:, i] = (ao[:, p] + cross(dwp, r) + cross(wp, cross(wp, r))
                            + 2.0 * qd_l[:, i, None] * cross(wp, a)
                            + qdd_l[:, i, None] * a)  # fmt: skip
                continue
            if t.jt[i] == kernels.FIXED:
                wi, dwi = wp, dwp
            else:
                wi = wp + a * qd_l[:, i, None]
                dwi = dwp + a * qdd_l[:, i, None] + cross(wp, a) * qd_l[:, i, None]
            w[:, i], dw[:, i] = wi, dwi
            r1 = pj[:, i] - o[:, p]
            apj = ao[:, p] + cross(dwp, r1) + cross(wp, cross(wp, r1))
            r2 = o[:, i] - pj[:, i]
            ao[:, i] = apj + cross(dwi, r2) + cross(wi, cross(wi, r2))
        # Link forces at the centre of mass, moments about the link origin.
        rc = np.einsum("nlij,lj->nli", R, self.com)
        ac = ao + cross(dw, rc) + cross(w, cross(w, rc))
        F = self.mass[None, :, None] * ac
        Iw = R @ self.inertia[None] @ np.swapaxes(R, -1, -2)
        Iw_w = np.einsum("nlij,nlj->nli", Iw, w)
        Nm = np.einsum("nlij,nlj->nli", Iw, dw) + cross(w, Iw_w)
        f = F.copy()
        n = Nm + cross(rc, F)
        tau = np.zeros((N, L))
        for i in range(L - 1, 0, -1):
            p = int(t.parent[i])
            if t.jt[i] == kernels.PRISMATIC:
                tau[:, i] = np.einsum("ni,ni->n", axis[:, i], f[:, i])
            elif t.jt[i] != kernels.FIXED:
                about_axis = n[:, i] + cross(o[:, i] - pj[:, i], f[:, i])
                tau[:, i] = np.einsum("ni,ni->n", axis[:, i], about_axis)
            f[:, p] += f[:, i]
            n[:, p] += n[:, i] + cross(o[:, i] - o[:, p], f[:, i])
        return tau

    def _gravity(self, gravity: ArrayLike | None) -> np.ndarray:
        g = np.asarray(STANDARD_GRAVITY if gravity is None else gravity, dtype=np.float64)
        if g.shape != (3,) or not np.all(np.isfinite(g)):
            raise KinematicsError(f"gravity must be 3 finite numbers (m/s^2), got {gravity!r}")
        return g

    # ------------------------------------------------------------------ API
    def inverse_dynamics(
        self,
        q: ArrayLike,
        qd: ArrayLike,
        qdd: ArrayLike,
        gravity: ArrayLike | None = None,
        passive: bool = True,
    ) -> np.ndarray:
        """Joint torques/forces ``(..., nq)`` (N m, N) for ``q``, ``qd``, ``qdd``
        ``(..., nq)`` (rad, rad/s, rad/s^2 or m...), broadcast against each other.

        ``passive=False`` leaves out the joint terms (armature, damping, friction,
        stiffness): the rigid bodies only.
        """
        arrays = []
        for x, what in ((q, "q"), (qd, "qd"), (qdd, "qdd")):
            self._flat(x, what)  # shape check naming the argument
            arrays.append(np.asarray(x, dtype=np.float64))
        try:
            qa, qda, qdda = np.broadcast_arrays(*arrays)
        except ValueError:
            raise KinematicsError(
                f"{self.model.name}: q, qd, qdd batch shapes {[a.shape for a in arrays]} "
                "do not broadcast"
            ) from None
        q2, batch = self._flat(qa, "q")
        qd2, _ = self._flat(qda, "qd")
        qdd2, _ = self._flat(qdda, "qdd")
        tau_l = self._rnea(q2, qd2, qdd2, self._gravity(gravity))
        if passive:
            ql = self._joint_values(q2, True)
            qdl = self._joint_values(qd2, False)
            qddl = self._joint_values(qdd2, False)
            tau_l = tau_l + (self.armature * qddl + self.damping * qdl
                             + self.friction * np.sign(qdl)
                             + self.stiffness * (ql - self.rest))  # fmt: skip
        return self._gather(tau_l).reshape(*batch, self.model.nq)

    def gravity_torques(self, q: ArrayLike, gravity: ArrayLike | None = None) -> np.ndarray:
        """Torques ``(..., nq)`` that hold ``q`` at rest against gravity (no springs)."""
        q2, batch = self._flat(q, "q")
        zero = np.zeros_like(q2)
        tau_l = self._rnea(q2, zero, zero, self._gravity(gravity))
        return self._gather(tau_l).reshape(*batch, self.model.nq)

    def mass_matrix(self, q: ArrayLike) -> np.ndarray:
        """Joint-space inertia ``M(q)`` ``(..., nq, nq)`` with the armature on the
        diagonal (kg m^2 for revolute, kg for prismatic joints); symmetric."""
        q2, batch = self._flat(q, "q")
        N, nq = q2.shape
        qs = np.repeat(q2, nq, axis=0)
        unit = np.tile(np.eye(nq), (N, 1))
        tau_l = self._rnea(qs, np.zeros_like(qs), unit, np.zeros(3))
        tau_l = tau_l + self.armature * self._joint_values(unit, False)
        M = self._gather(tau_l).reshape(N, nq, nq).swapaxes(1, 2)
        M = 0.5 * (M + M.swapaxes(1, 2))
        return M.reshape(*batch, nq, nq)


def compile_dynamics(model: RobotModel) -> Dynamics:
    """The model's dynamics arrays (``model.dynamics`` caches them)."""
    return Dynamics(model)


def inverse_dynamics(
    model: RobotModel,
    q: ArrayLike,
    qd: ArrayLike,
    qdd: ArrayLike,
    gravity: ArrayLike | None = None,
    passive: bool = True,
) -> np.ndarray:
    """Joint torques/forces ``(..., nq)``; see :meth:`Dynamics.inverse_dynamics`."""
    return model.dynamics.inverse_dynamics(q, qd, qdd, gravity=gravity, passive=passive)  # type: ignore[no-any-return]


def gravity_torques(
    model: RobotModel, q: ArrayLike, gravity: ArrayLike | None = None
) -> np.ndarray:
    """Torques ``(..., nq)`` holding ``q`` against gravity; see :class:`Dynamics`."""
    return model.dynamics.gravity_torques(q, gravity=gravity)  # type: ignore[no-any-return]


def mass_matrix(model: RobotModel, q: ArrayLike) -> np.ndarray:
    """Joint-space inertia ``(..., nq, nq)`` with armature; see :class:`Dynamics`."""
    return model.dynamics.mass_matrix(q)  # type: ignore[no-any-return]
