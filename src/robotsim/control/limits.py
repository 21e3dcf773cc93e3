"""Per-axis motion limits: maximum speed, acceleration and deceleration.

The paper (seed ``002_…``, section 1) gives every direction of motion its own
acceleration, deceleration and maximum speed. :class:`RateLimiter` applies them to a
command vector (e.g. ``[vx, vy, w]``) step by step: speeding up (the magnitude grows,
same sign) is limited by ``accel``, slowing down or reversing by ``decel``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import InputError

__all__ = ["AxisLimit", "RateLimiter"]


@dataclass(frozen=True)
class AxisLimit:
    """Limits of one axis: ``max_speed`` (units/s), ``accel`` and ``decel`` (units/s^2)."""

    max_speed: float = math.inf
    accel: float = math.inf
    decel: float = math.inf

    def __post_init__(self) -> None:
        for name in ("max_speed", "accel", "decel"):
            if not getattr(self, name) > 0:
                raise InputError(f"axis limit {name} must be > 0, got {getattr(self, name)!r}")


class RateLimiter:
    """Limits a command vector ``(n,)`` axis by axis; keeps the last output as state."""

    def __init__(self, limits: Sequence[AxisLimit]) -> None:
        self.limits = tuple(limits)
        self.vmax = np.array([lm.max_speed for lm in self.limits])
        self.acc = np.array([lm.accel for lm in self.limits])
        self.dec = np.array([lm.decel for lm in self.limits])
        self.last = np.zeros(len(self.limits))

    def reset(self, value: ArrayLike | None = None) -> None:
        self.last = np.zeros(len(self.limits)) if value is None else np.array(value, float)

    def __call__(self, command: ArrayLike, dt: float) -> np.ndarray:
        """The command ``(n,)`` after speed, acceleration and deceleration limits."""
        c = np.minimum(np.maximum(np.asarray(command, dtype=np.float64), -self.vmax), self.vmax)
        prev = self.last
        delta = c - prev
        speeding_up = (np.abs(c) > np.abs(prev)) & (c * prev >= 0)
        step = np.where(speeding_up, self.acc, self.dec) * dt
        out = prev + np.minimum(np.maximum(delta, -step), step)
        self.last = out
        return out.copy()
