"""Differential-drive kinematics: two wheels on one axle, a passive caster.

Robot frame x forward, y left. ``track`` is the distance between the wheel contact
points (m), ``wheel_radius`` in m. Left wheel positive rate drives the robot forward.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import InputError

__all__ = ["DiffDrive"]


@dataclass(frozen=True)
class DiffDrive:
    track: float
    wheel_radius: float

    def __post_init__(self) -> None:
        if not (self.track > 0 and self.wheel_radius > 0):
            raise InputError(
                f"diffdrive: track and wheel_radius must be > 0, got "
                f"{self.track}, {self.wheel_radius}"
            )

    def wheel_rates(self, v: ArrayLike, w: ArrayLike) -> np.ndarray:
        """Forward speed ``v`` (m/s) and yaw rate ``w`` (rad/s), any matching shapes ->
        ``(..., 2)`` [left, right] wheel rates (rad/s)."""
        v = np.asarray(v, dtype=np.float64)
        w = np.asarray(w, dtype=np.float64)
        half = 0.5 * self.track
        return np.stack([(v - w * half), (v + w * half)], axis=-1) / self.wheel_radius

    def twist(self, rates: ArrayLike) -> np.ndarray:
        """``(..., 2)`` [left, right] rates -> ``(..., 2)`` [v m/s, w rad/s]."""
        r = np.asarray(rates, dtype=np.float64) * self.wheel_radius
        if r.shape[-1:] != (2,):
            raise InputError(f"diffdrive rates must end with 2 values, got {r.shape}")
        return np.stack(
            [(r[..., 0] + r[..., 1]) / 2, (r[..., 1] - r[..., 0]) / self.track], axis=-1
        )
