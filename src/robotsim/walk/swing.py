"""Swing-foot trajectories and the ground the feet stand on.

A swing lifts the foot, carries it and sets it down flat: along the ground it follows a
minimum-jerk blend (``10 s^3 - 15 s^4 + 6 s^5``: zero velocity and acceleration at both
ends) that starts after the first ``lag`` and ends before the last ``lag`` of the swing
time, so the foot leaves and meets the ground vertically; its height above the ground
is ``h 64 u^3 (1 - u)^3`` (peak ``h`` half way, zero velocity and acceleration at lift
off and touchdown); the yaw blends like the position.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["Ground", "bump", "foot_T", "minjerk", "swing_poses"]


@dataclass(frozen=True)
class Ground:
    """A plane ``z = slope_x x + slope_y y + height`` (world, m)."""

    slope_x: float = 0.0
    slope_y: float = 0.0
    height: float = 0.0

    def z(self, x: ArrayLike, y: ArrayLike) -> np.ndarray:
        return self.slope_x * np.asarray(x) + self.slope_y * np.asarray(y) + self.height

    def tilt(self) -> np.ndarray:
        """``(3, 3)`` the smallest rotation taking world z onto the plane's normal."""
        n = np.array([-self.slope_x, -self.slope_y, 1.0])
        n /= np.linalg.norm(n)
        z = np.array([0.0, 0.0, 1.0])
        v = np.cross(z, n)
        s, c = float(np.linalg.norm(v)), float(n[2])
        if s < 1e-15:
            return np.eye(3)
        K = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]]) / s
        return np.eye(3) + s * K + (1 - c) * (K @ K)


def minjerk(s: ArrayLike) -> np.ndarray:
    """``10 s^3 - 15 s^4 + 6 s^5`` of ``s`` clipped to [0, 1]."""
    u = np.clip(np.asarray(s, dtype=np.float64), 0.0, 1.0)
    return u**3 * (10.0 - 15.0 * u + 6.0 * u * u)


def bump(u: ArrayLike) -> np.ndarray:
    """``64 u^3 (1 - u)^3`` on [0, 1] (peak 1 at 0.5), 0 outside."""
    v = np.clip(np.asarray(u, dtype=np.float64), 0.0, 1.0)
    return 64.0 * v**3 * (1.0 - v) ** 3


def foot_T(xyyaw: np.ndarray, z: np.ndarray, tilt: np.ndarray) -> np.ndarray:
    """Foot poses ``(..., 4, 4)`` from ``(..., 3)`` (x, y, yaw) and heights ``(...)``:
    yaw about the vertical, then tilted onto the ground."""
    a = np.asarray(xyyaw, dtype=np.float64)
    c, s = np.cos(a[..., 2]), np.sin(a[..., 2])
    T = np.zeros((*a.shape[:-1], 4, 4))
    T[..., 0, 0], T[..., 0, 1] = c, -s
    T[..., 1, 0], T[..., 1, 1] = s, c
    T[..., 2, 2] = 1.0
    T[..., :3, :3] = tilt @ T[..., :3, :3]
    T[..., 0, 3], T[..., 1, 3], T[..., 2, 3] = a[..., 0], a[..., 1], z
    T[..., 3, 3] = 1.0
    return T


def swing_poses(
    start: ArrayLike,
    end: ArrayLike,
    u: ArrayLike,
    height: float,
    ground: Ground,
    lag: float = 0.05,
) -> tuple[np.ndarray, np.ndarray]:
    """``(xyyaw (n, 3), z (n,))`` of a swing from ``start`` to ``end`` (x, y, yaw; m,
    rad) at swing phases ``u`` ``(n,)`` in [0, 1]; ``height`` (m) above the ground."""
    a, b = np.asarray(start, dtype=np.float64), np.asarray(end, dtype=np.float64)
    uu = np.asarray(u, dtype=np.float64)
    s = minjerk((uu - lag) / (1.0 - 2.0 * lag))
    dyaw = (b[2] - a[2] + np.pi) % (2 * np.pi) - np.pi
    xy = a[:2] + s[:, None] * (b[:2] - a[:2])
    yaw = a[2] + s * dyaw
    z = ground.z(xy[:, 0], xy[:, 1]) + height * bump(uu)
    return np.column_stack([xy, yaw]), z
