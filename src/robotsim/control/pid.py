"""PID control with anti-windup, and per-axis pose control for mobile bases.

:class:`PID` is a textbook parallel PID on one axis: derivative on the error (or on the
measurement with ``derivative_on="measurement"``), output clamped to ``output_limit``,
integral clamped to ``integral_limit`` and frozen while the output saturates in the
direction the integral would push it further (conditional integration).

:class:`PosePID` runs one PID per axis of a planar pose ``(x, y, theta)``: position
errors in the world frame, the heading error wrapped to ``(-pi, pi]``; its output is a
world-frame velocity command ``[vx, vy, w]``. The control loop calls
:meth:`PosePID.command` on plain floats (a controller tick is a few dozen float
operations; NumPy on 3-vectors cost more in call overhead than in arithmetic).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import InputError

__all__ = ["PID", "PIDGains", "PosePID", "scaled_gains", "wrap_angle"]


def wrap_angle(a: ArrayLike) -> np.ndarray:
    """Angles (rad) wrapped to ``(-pi, pi]``, any shape."""
    a = np.asarray(a, dtype=np.float64)
    return np.pi - np.mod(np.pi - a, 2 * np.pi)


@dataclass(frozen=True)
class PIDGains:
    """Gains of one axis: ``kp`` (1/s for a pose loop), ``ki``, ``kd``; limits on the
    output (units/s) and the integral term's contribution (units/s)."""

    kp: float = 1.0
    ki: float = 0.0
    kd: float = 0.0
    output_limit: float = math.inf
    integral_limit: float = math.inf

    def __post_init__(self) -> None:
        for name in ("kp", "ki", "kd"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v >= 0):
                raise InputError(f"PID gain {name} must be finite and >= 0, got {v!r}")
        if not (self.output_limit > 0 and self.integral_limit > 0):
            raise InputError("PID output_limit and integral_limit must be > 0")


class PID:
    """One PID loop (see the module docstring). Call with the error and ``dt`` (s)."""

    def __init__(
        self, gains: PIDGains, derivative_on: Literal["error", "measurement"] = "error"
    ) -> None:
        self.gains = gains
        self.derivative_on = derivative_on
        self.reset()

    def reset(self) -> None:
        self.integral = 0.0
        self._prev: float | None = None

    def __call__(self, error: float, dt: float, measurement: float | None = None) -> float:
        g = self.gains
        error = float(error)
        sig = error if self.derivative_on == "error" or measurement is None else -measurement
        d = 0.0 if self._prev is None or dt <= 0 else (sig - self._prev) / dt
        self._prev = sig
        p = g.kp * error
        lim = g.output_limit
        if g.ki > 0:
            unsat = p + g.ki * self.integral + g.kd * d
            pushing_out = abs(unsat) >= lim and (error > 0) == (unsat > 0) and error != 0
            if not pushing_out:  # conditional integration (anti-windup)
                i_lim = g.integral_limit / g.ki
                self.integral = min(i_lim, max(-i_lim, self.integral + error * dt))
        out = p + g.ki * self.integral + g.kd * d
        # clamp to [-lim, lim] (comparisons: the min/max builtins cost ~10x more)
        return lim if out > lim else -lim if out < -lim else out


def scaled_gains(gains: PIDGains, factor: float) -> PIDGains:
    """``gains`` with ``kp``, ``ki`` and ``kd`` times ``factor`` (the output and
    integral limits kept: they bound speeds, not gains)."""
    f = float(factor)
    return dataclasses.replace(gains, kp=gains.kp * f, ki=gains.ki * f, kd=gains.kd * f)


class PosePID:
    """Planar pose control: gains per axis ``x``, ``y``, ``theta``."""

    def __init__(self, x: PIDGains, y: PIDGains, theta: PIDGains) -> None:
        self.axes = (PID(x), PID(y), PID(theta))

    def set_gains(self, x: PIDGains, y: PIDGains, theta: PIDGains) -> None:
        """New gains from the next call on; the integrals and derivative memory are
        kept (a bumpless change of gains while running)."""
        for axis, g in zip(self.axes, (x, y, theta), strict=True):
            axis.gains = g

    def reset(self) -> None:
        for a in self.axes:
            a.reset()

    def error(self, pose: ArrayLike, target: ArrayLike) -> np.ndarray:
        """``target - pose`` (3,) with the heading wrapped."""
        p = np.asarray(pose, dtype=np.float64)
        t = np.asarray(target, dtype=np.float64)
        e = t - p
        e[2] = math.pi - (math.pi - e[2]) % (2 * math.pi)
        return e

    def __call__(self, pose: ArrayLike, target: ArrayLike, dt: float) -> np.ndarray:
        """World-frame command ``[vx, vy, w]`` driving ``pose`` to ``target``."""
        p = np.asarray(pose, dtype=np.float64).reshape(3).tolist()
        t = np.asarray(target, dtype=np.float64).reshape(3).tolist()
        return np.array(self.command(*p, *t, dt))

    def command(
        self, x: float, y: float, theta: float, tx: float, ty: float, ttheta: float, dt: float
    ) -> tuple[float, float, float]:
        """:meth:`__call__` on floats: pose ``(x, y, theta)``, target ``(tx, ty, ttheta)``
        (m, m, rad) -> world-frame ``(vx, vy, w)``."""
        ax, ay, ath = self.axes
        e = ttheta - theta
        e = math.pi - (math.pi - e) % (2 * math.pi)
        return ax(tx - x, dt), ay(ty - y, dt), ath(e, dt)
