"""Three-omniwheel base: the paper's velocity decomposition (seed ``002_…``, eq. 1).

Robot frame: x forward, y 90 deg counter-clockwise, origin at the centre of the three
wheels. With ``alpha = 30 deg``, ``beta = 60 deg``, ``R = 0.2 m`` (wheel centre to body
centre) and the speed scale ``k = 0.035``::

    v1 = ( Vx sin(beta)  + Vy cos(beta)  + Vr R) k
    v2 = (-Vx cos(alpha) + Vy sin(alpha) + Vr R) k
    v3 = (-Vx cos(pi/2)  - Vy sin(pi/2)  + Vr R) k

``Vx, Vy`` in m/s, ``Vr`` in rad/s. The bracket is the speed of wheel i's rim along its
rolling direction (m/s); ``k`` scales it to the paper's wheel command. In the simulation a
wheel of radius ``r`` turns at ``v_i / (k r)`` rad/s (:meth:`Omni3.wheel_rates`).

The rolling directions are at 30, 150 and 270 deg and the wheels sit at -60, 60 and
180 deg around the centre (the ``+ Vr R`` terms need each rolling direction to be the
counter-clockwise tangent of its wheel's position).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import InputError

__all__ = ["Omni3"]


@dataclass(frozen=True)
class Omni3:
    """The paper's three-omniwheel kinematics. Angles in rad, lengths in m."""

    alpha: float = math.radians(30.0)
    beta: float = math.radians(60.0)
    R: float = 0.2
    k: float = 0.035

    def __post_init__(self) -> None:
        if not (self.R > 0 and self.k > 0):
            raise InputError(f"omni3: R and k must be > 0, got R={self.R}, k={self.k}")
        if abs(np.linalg.det(self.matrix)) < 1e-9:
            raise InputError("omni3: alpha/beta give a singular wheel arrangement")

    @cached_property
    def matrix(self) -> np.ndarray:
        """``M`` (3, 3) with ``v = k M [Vx, Vy, Vr]`` (eq. 1 without ``k``)."""
        a, b, R = self.alpha, self.beta, self.R
        M = np.array(
            [
                [math.sin(b), math.cos(b), R],
                [-math.cos(a), math.sin(a), R],
                [-math.cos(math.pi / 2), -math.sin(math.pi / 2), R],
            ]
        )
        M.setflags(write=False)
        return M

    @cached_property
    def inverse(self) -> np.ndarray:
        Mi = np.linalg.inv(self.matrix)
        Mi.setflags(write=False)
        return Mi

    def wheel_speeds(self, twist: ArrayLike) -> np.ndarray:
        """Eq. 1: body twist ``(..., 3)`` ``[Vx m/s, Vy m/s, Vr rad/s]`` -> wheel commands
        ``(..., 3)`` ``[v1, v2, v3]`` in the paper's units (rim speed times ``k``)."""
        t = np.asarray(twist, dtype=np.float64)
        if t.shape[-1:] != (3,):
            raise InputError(f"omni3 twist must end with 3 values, got shape {t.shape}")
        return self.k * (t @ self.matrix.T)

    def twist(self, wheel_speeds: ArrayLike) -> np.ndarray:
        """Inverse of eq. 1: wheel commands ``(..., 3)`` -> body twist ``(..., 3)``."""
        v = np.asarray(wheel_speeds, dtype=np.float64)
        if v.shape[-1:] != (3,):
            raise InputError(f"omni3 wheel speeds must end with 3 values, got {v.shape}")
        return (v / self.k) @ self.inverse.T

    def wheel_rates(self, twist: ArrayLike, wheel_radius: float) -> np.ndarray:
        """Wheel angular rates (..., 3) rad/s for a body twist, wheels of ``wheel_radius``."""
        return self.wheel_speeds(twist) / (self.k * wheel_radius)

    def twist_from_rates(self, rates: ArrayLike, wheel_radius: float) -> np.ndarray:
        return self.twist(np.asarray(rates, dtype=np.float64) * self.k * wheel_radius)

    @cached_property
    def rolling_directions(self) -> np.ndarray:
        """Unit rolling directions (3, 2) of the wheels in the robot frame."""
        d = np.array(self.matrix[:, :2])
        return d / np.linalg.norm(d, axis=1, keepdims=True)

    @cached_property
    def wheel_positions(self) -> np.ndarray:
        """Wheel centres (3, 2) in the robot frame (m): rolling direction = CCW tangent."""
        d = self.rolling_directions
        return self.R * np.stack([d[:, 1], -d[:, 0]], axis=1)
