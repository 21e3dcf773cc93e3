"""The swing legs' angular momentum and the ZMP shift it makes.

The cart-table model (:mod:`robotsim.walk.preview`) puts the whole robot in its centre
of mass: its ZMP is ``p = c - zc / g c''``. A real robot's ZMP also moves with the rate
of its angular momentum about the CoM, ``H``: ``p_x = c_x - zc / g c''_x - H'_y / (M g)``,
``p_y = c_y - zc / g c''_y + H'_x / (M g)``. When a leg swings while the whole-body IK
holds the CoM on the pendulum's path, the leg and the body counter-moving to hold the
CoM carry angular momentum, and the ZMP moves by centimetres: as much as a small sole's
half length (a NAO-sized robot: 2.7 cm at 0.4 leg lengths/s). Kajita et al. (ICRA 2003,
section IV) correct the pattern with a second preview control on the multibody ZMP
error (their "dynamics filter"); computed online it would need the whole-body IK of the
preview horizon ahead. Here the same correction uses a linear model of the multibody
momentum, measured once per walk on the robot's own kinematics:

- :func:`swing_momentum_gains`: with one foot lifted by the step height and the CoM
  held, the IK moves that foot by a few millimetres along x and y; the change of ``H``
  (every link's mass at its CoM and its rotational inertia) per metre of foot motion
  is ``K`` ``(2 sides, 2 (H_x, H_y), 3 (x, y, z))``, in the walk's heading. The
  column of the feet's vertical motion is left at zero: its lever arm is the foot's
  distance ahead of or behind the CoM, which changes sign along the swing, so no
  constant models it (measured where the foot is under the hip, it made MuJoCo's
  humanoid spin and fall; without it that robot walks straighter than with no
  correction at all);
- :func:`zmp_shift`: along a planned walk, each foot's acceleration ``f''`` gives
  ``H' = K f''`` (turned into the foot's heading), hence the ZMP shift above.

The preview controller then tracks ``p_ref - shift`` so that the robot's own ZMP, the
cart-table's plus the shift, is ``p_ref``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from robotsim.walk.preview import G

__all__ = ["swing_momentum_gains", "zmp_shift"]


def _momentum_state(biped: Any, q: np.ndarray, T: np.ndarray) -> tuple[np.ndarray, ...]:
    """``(link CoMs (L, 3), link rotations (L, 3, 3), masses (L,), inertias (L, 3, 3))``."""
    from robotsim.motion.balance import _mass_arrays

    model = biped.model
    m, c = _mass_arrays(model)
    P = T @ model.fk_all(q)
    pts = (P @ c[:, :, None])[:, :3, 0]
    inert = np.array(
        [lk.inertial.inertia if lk.inertial is not None else np.zeros((3, 3)) for lk in model.links]
    )
    return pts, P[:, :3, :3], m, inert


def _rotvec(R: np.ndarray) -> np.ndarray:
    """Small-angle rotation vectors ``(..., 3)`` of rotations ``(..., 3, 3)``."""
    return 0.5 * np.stack(
        [R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0], R[..., 1, 0] - R[..., 0, 1]],
        axis=-1,
    )


def swing_momentum_gains(
    biped: Any,
    ik: Any,
    feet: np.ndarray,
    com: np.ndarray,
    R_torso: np.ndarray,
    q: np.ndarray,
    T: np.ndarray,
    lift: float,
    delta: float | None = None,
) -> np.ndarray:
    """``K`` ``(2, 2, 3)`` (module docs): the change of the angular momentum about the
    CoM ``(H_x, H_y)`` (kg m^2 / s per m/s, i.e. kg m) per unit velocity of foot
    ``side`` along (x, y, z; z left zero, module docs) in the frame of ``R_torso``'s
    heading, with that foot ``lift`` m up and the CoM held at ``com``; from the
    standing solution ``(q, T)`` for ``feet`` (2, 4, 4). Central differences of
    ``delta`` (default 1 % of the leg length) through the whole-body IK ``ik``."""
    d = 0.01 * biped.leg_length if delta is None else delta
    yaw = math.atan2(R_torso[1, 0], R_torso[0, 0])
    Rz = np.array([[math.cos(yaw), -math.sin(yaw), 0.0], [math.sin(yaw), math.cos(yaw), 0.0],
                   [0.0, 0.0, 1.0]])  # fmt: skip
    K = np.zeros((2, 2, 3))
    for side in (0, 1):
        base = np.array(feet, dtype=np.float64)
        base[side, 2, 3] += lift
        q0, T0, _ = ik.solve(base, com, R_torso, q, T)
        cols = [np.zeros(2)] * 3
        for axis in range(2):
            states = []
            for sgn in (1.0, -1.0):
                f = base.copy()
                f[side, :3, 3] += sgn * d * Rz[:, axis]
                qs, Ts, _ = ik.solve(f, com, R_torso, q0, T0)
                states.append(_momentum_state(biped, qs, Ts))
            (p1, R1, m, I), (p2, R2, _, _) = states
            c0 = (m @ (0.5 * (p1 + p2))) / m.sum()
            dp = p1 - p2  # displacement over 2 d
            H = np.einsum("l,lk->k", m, np.cross(0.5 * (p1 + p2) - c0, dp))
            dth = _rotvec(R1 @ np.transpose(R2, (0, 2, 1)))  # world rotation vectors
            Rm = 0.5 * (R1 + R2)
            Iw = Rm @ I @ np.transpose(Rm, (0, 2, 1))
            H = H + np.einsum("lij,lj->i", Iw, dth)
            cols[axis] = (Rz.T @ H)[:2] / (2 * d)
        K[side] = np.array(cols).T
    return K


def zmp_shift(K: np.ndarray, mass: float, feet_xyz: np.ndarray, feet_yaw: np.ndarray,
              dt: float) -> np.ndarray:  # fmt: skip
    """The ZMP shift ``(n - 2, 2)`` (m) at the inner samples of a walk whose feet are
    at ``feet_xyz`` ``(n, 2, 3)`` (m) with yaws ``feet_yaw`` ``(n, 2)`` (rad), ``dt``
    (s) apart: ``H' = K f''`` per foot in its heading, ``(-H'_y, H'_x) / (M g)``."""
    f = np.asarray(feet_xyz, dtype=np.float64)
    acc = (f[2:] - 2.0 * f[1:-1] + f[:-2]) / (dt * dt)  # (n-2, 2, 3)
    yaw = np.asarray(feet_yaw, dtype=np.float64)[1:-1]
    c, s = np.cos(yaw), np.sin(yaw)
    # the acceleration in each foot's heading
    ax = c * acc[..., 0] + s * acc[..., 1]
    ay = -s * acc[..., 0] + c * acc[..., 1]
    local = np.stack([ax, ay, acc[..., 2]], axis=-1)  # (n-2, 2, 3)
    Hd = np.einsum("sij,nsj->nsi", K, local)  # (n-2, 2, 2) in the heading
    hx = c * Hd[..., 0] - s * Hd[..., 1]
    hy = s * Hd[..., 0] + c * Hd[..., 1]
    return np.stack([-hy.sum(axis=1), hx.sum(axis=1)], axis=-1) / (mass * G)
