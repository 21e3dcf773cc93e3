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
    """Limits a command vector ``(n,)`` axis by axis; keeps the last output as state.

    The arithmetic runs on Python floats (:meth:`limit`, what the control loop calls):
    for three axes that is cheaper than NumPy's per-call overhead (and comparisons
    cheaper than the ``min``/``max`` builtins)."""

    def __init__(self, limits: Sequence[AxisLimit]) -> None:
        self.limits = tuple(limits)
        self.vmax = np.array([lm.max_speed for lm in self.limits])
        self.acc = np.array([lm.accel for lm in self.limits])
        self.dec = np.array([lm.decel for lm in self.limits])
        self._axes = [(lm.max_speed, lm.accel, lm.decel) for lm in self.limits]
        self._last = [0.0] * len(self.limits)

    def set_speed_scale(self, factor: float) -> None:
        """Maximum speeds at ``factor`` x the configured ones from the next call on
        (acceleration limits kept; the last output stays, so a lowered limit is reached
        at the deceleration limit)."""
        f = float(factor)
        self.vmax = np.array([lm.max_speed * f for lm in self.limits])
        self._axes = [(lm.max_speed * f, lm.accel, lm.decel) for lm in self.limits]

    @property
    def last(self) -> np.ndarray:
        """The last output ``(n,)``."""
        return np.array(self._last)

    def reset(self, value: ArrayLike | None = None) -> None:
        n = len(self.limits)
        self._last = [0.0] * n if value is None else np.asarray(value, float).reshape(n).tolist()

    def __call__(self, command: ArrayLike, dt: float) -> np.ndarray:
        """The command ``(n,)`` after speed, acceleration and deceleration limits."""
        c = np.asarray(command, dtype=np.float64).reshape(len(self.limits)).tolist()
        return np.array(self.limit(c, dt))

    def limit(self, command: Sequence[float], dt: float) -> list[float]:
        """:meth:`__call__` on floats: ``command`` (n floats) -> the limited command."""
        out = []
        for c, prev, (vmax, acc, dec) in zip(command, self._last, self._axes):
            if c > vmax:
                c = vmax
            elif c < -vmax:
                c = -vmax
            speeding_up = abs(c) > abs(prev) and c * prev >= 0
            step = (acc if speeding_up else dec) * dt
            delta = c - prev
            if delta > step:
                delta = step
            elif delta < -step:
                delta = -step
            out.append(prev + delta)
        self._last = out
        return list(out)
