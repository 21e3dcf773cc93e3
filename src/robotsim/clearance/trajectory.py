"""Robot trajectories for clearance checks: joint-space quintic and trapezoidal
segments, Cartesian straight lines through IK, chained in time.

Every segment maps a time ``tau`` in ``[0, duration]`` (s) to joint values
``(..., nq)``; a :class:`Trajectory` chains segments after ``start`` seconds, holds the
first configuration before and the last one after.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import InputError
from robotsim.model.robot import RobotModel

__all__ = [
    "CartesianLine",
    "JointQuintic",
    "JointTrapezoid",
    "Segment",
    "Trajectory",
    "UnreachableLine",
    "quintic_scale",
]


class UnreachableLine(InputError):
    """A :class:`CartesianLine` leaves the workspace or the joint limits: ``fraction``
    (0..1) of the way from ``p0`` to ``p1``, IK missing by ``residual`` (m); callers
    that took the points from another frame restate them in it."""

    def __init__(self, message: str, fraction: float, residual: float) -> None:
        super().__init__(message)
        self.fraction = fraction
        self.residual = residual


def quintic_scale(s: np.ndarray) -> np.ndarray:
    """Rest-to-rest quintic time scaling ``10 s^3 - 15 s^4 + 6 s^5`` on ``[0, 1]``."""
    s = np.clip(s, 0.0, 1.0)
    return s**3 * (10.0 + s * (-15.0 + 6.0 * s))


def _trapezoid_scale(s: np.ndarray, f: float) -> np.ndarray:
    """Trapezoidal velocity profile, accelerating for a fraction ``f`` of the time."""
    s = np.clip(s, 0.0, 1.0)
    v = 1.0 / (1.0 - f)  # peak speed so the area is 1
    a = v / f
    up = 0.5 * a * s**2
    mid = 0.5 * a * f**2 + v * (s - f)
    down = 1.0 - 0.5 * a * (1.0 - s) ** 2
    return np.where(s < f, up, np.where(s <= 1.0 - f, mid, down))


def _positive_duration(d: float) -> None:
    if not np.isfinite(d) or d <= 0:
        raise InputError(f"segment duration must be finite and > 0, got {d!r}")


@dataclass(frozen=True, eq=False)
class JointQuintic:
    """From ``q0`` to ``q1`` ``(nq,)`` with zero velocity and acceleration at both ends."""

    q0: np.ndarray
    q1: np.ndarray
    duration: float

    def __post_init__(self) -> None:
        _positive_duration(self.duration)

    def at(self, tau: np.ndarray) -> np.ndarray:
        s = quintic_scale(tau / self.duration)[..., None]
        return self.q0 + s * (self.q1 - self.q0)


@dataclass(frozen=True, eq=False)
class JointTrapezoid:
    """From ``q0`` to ``q1`` with a trapezoidal speed profile; ``accel_fraction`` of the
    duration accelerating and the same decelerating (0 < f <= 0.5)."""

    q0: np.ndarray
    q1: np.ndarray
    duration: float
    accel_fraction: float = 0.25

    def __post_init__(self) -> None:
        _positive_duration(self.duration)
        if not 0 < self.accel_fraction <= 0.5:
            raise InputError(f"accel_fraction must be in (0, 0.5], got {self.accel_fraction}")

    def at(self, tau: np.ndarray) -> np.ndarray:
        s = _trapezoid_scale(tau / self.duration, self.accel_fraction)[..., None]
        return self.q0 + s * (self.q1 - self.q0)


@dataclass(frozen=True, eq=False)
class CartesianLine:
    """``link`` moves on a straight line (base-frame positions ``p0 -> p1``, m) with its
    orientation ``R`` held (``None``: position only), quintic time scaling; joints by IK.

    IK is solved once at ``knots`` points in sequence (each seeded by the previous
    solution, the first by ``q_seed``) so the branch stays continuous; any other time is
    solved seeded by the interpolated knots. Raises :class:`InputError` if the line
    leaves the workspace or the joint limits.
    """

    model: RobotModel
    link: str
    p0: np.ndarray
    p1: np.ndarray
    R: np.ndarray | None
    duration: float
    q_seed: np.ndarray
    knots: int = 41
    _q_knots: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        _positive_duration(self.duration)
        q = np.asarray(self.q_seed, dtype=np.float64)
        sols = []
        for s in np.linspace(0.0, 1.0, self.knots):
            res = self.model.ik(self._target(np.array(s)), link=self.link, q0=q, tol=1e-10)
            if not bool(res.success):
                p = self.p0 + s * (self.p1 - self.p0)
                raise UnreachableLine(
                    f"{self.model.name}: straight line to {np.round(self.p1, 4).tolist()} "
                    f"(base frame) is not reachable at {np.round(p, 4).tolist()} (IK "
                    f"residual {float(res.residual):.3g})",
                    float(s),
                    float(res.residual),
                )
            q = res.q
            sols.append(q)
        object.__setattr__(self, "_q_knots", np.array(sols))

    def _target(self, s: np.ndarray) -> np.ndarray:
        if self.R is None:
            return self.p0 + s[..., None] * (self.p1 - self.p0)
        T = np.broadcast_to(np.eye(4), (*s.shape, 4, 4)).copy()
        T[..., :3, :3] = self.R
        T[..., :3, 3] = self.p0 + s[..., None] * (self.p1 - self.p0)
        return T

    def at(self, tau: np.ndarray) -> np.ndarray:
        tau = np.asarray(tau, dtype=np.float64)
        s = quintic_scale(tau / self.duration)
        x = s * (self.knots - 1)
        k = np.clip(np.floor(x).astype(int), 0, self.knots - 2)
        w = (x - k)[..., None]
        seed = (1 - w) * self._q_knots[k] + w * self._q_knots[k + 1]
        res = self.model.ik(self._target(s), link=self.link, q0=seed, tol=1e-10, restarts=0)
        return res.q


Segment = JointQuintic | JointTrapezoid | CartesianLine


@dataclass(frozen=True, eq=False)
class Trajectory:
    """Segments one after another from time ``start`` (s)."""

    segments: tuple[Segment, ...]
    start: float = 0.0

    def __post_init__(self) -> None:
        if not self.segments:
            raise InputError("a trajectory needs at least one segment")
        object.__setattr__(self, "segments", tuple(self.segments))

    @property
    def duration(self) -> float:
        return float(sum(s.duration for s in self.segments))

    @property
    def end(self) -> float:
        return self.start + self.duration

    def q(self, t: ArrayLike) -> np.ndarray:
        """Joint values ``(..., nq)`` at times ``t (...)`` (s)."""
        t = np.asarray(t, dtype=np.float64)
        tau = t - self.start
        bounds = np.cumsum([0.0] + [s.duration for s in self.segments])
        idx = np.clip(np.searchsorted(bounds, tau, side="right") - 1, 0, len(self.segments) - 1)
        first = self.segments[0].at(np.zeros(1))[0]
        out = np.broadcast_to(first, (*t.shape, len(first))).copy()
        for k, seg in enumerate(self.segments):
            m = idx == k
            if np.any(m):
                out[m] = seg.at(np.clip(tau[m] - bounds[k], 0.0, seg.duration))
        return out
