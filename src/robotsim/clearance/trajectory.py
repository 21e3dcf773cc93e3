"""Robot trajectories for clearance checks: joint-space quintic and trapezoidal
segments, holds, cubic joint splines, Cartesian straight lines through IK, chained in
time.

Every segment maps a time ``tau`` in ``[0, duration]`` (s) to joint values
``(..., nq)``; a :class:`Trajectory` chains segments after ``start`` seconds, holds the
first configuration before and the last one after. A :class:`~robotsim.clearance.timewarp.TimeWarp`
(optional) maps the scene's time to the trajectory's own time (a robot slowed down
over a window).

Every segment also bounds its joint speeds over any time interval
(:meth:`JointQuintic.speed_bound`, ...): the exact maxima of its analytic profile. A
Cartesian line follows the cubic joint spline through its IK solutions on a fine grid
(within about 1e-10 m of the IK solution on the shipped PUMA lines, ``line_error``), so
its bound is exact too. The certified clearance (:mod:`robotsim.clearance.certified`)
turns them into bounds on how fast any point of a robot's volumes moves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike

from robotsim.clearance.timewarp import TimeWarp
from robotsim.errors import InputError
from robotsim.model.geometry import readonly
from robotsim.model.robot import RobotModel

__all__ = [
    "LINE_CELLS_PER_KNOT",
    "CartesianLine",
    "Hold",
    "JointQuintic",
    "JointSpline",
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


def _trapezoid_rate(u: np.ndarray, f: float) -> np.ndarray:
    """The derivative of :func:`_trapezoid_scale` (per unit of ``s``)."""
    v = 1.0 / (1.0 - f)
    a = v / f
    return np.where(u < f, a * u, np.where(u <= 1.0 - f, v, a * (1.0 - u)))


def _unimodal_max(g, u0: np.ndarray, u1: np.ndarray, lo: float, hi: float) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Max over ``[u0, u1]`` of a function ``g`` that rises up to ``lo``, is flat up to
    ``hi`` and falls after: ``g`` at the point of the interval nearest ``[lo, hi]``."""
    return g(np.where(u1 < lo, u1, np.where(u0 > hi, u0, np.maximum(u0, lo))))


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

    exact_speed_bound = True

    def at(self, tau: np.ndarray) -> np.ndarray:
        s = quintic_scale(tau / self.duration)[..., None]
        return self.q0 + s * (self.q1 - self.q0)

    def speed_bound(self, tau0: np.ndarray, tau1: np.ndarray) -> np.ndarray:
        """Max ``|dq/dt|`` ``(K, nq)`` over each ``[tau0, tau1]`` ``(K,)`` (exact: the
        speed ``30 u^2 (1 - u)^2 |q1 - q0| / T`` rises to ``u = 1/2`` and falls after)."""
        T = self.duration
        g = lambda u: 30.0 * (u * (1.0 - u)) ** 2  # noqa: E731
        m = _unimodal_max(g, np.clip(tau0 / T, 0, 1), np.clip(tau1 / T, 0, 1), 0.5, 0.5)
        return m[:, None] * (np.abs(self.q1 - self.q0) / T)


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

    exact_speed_bound = True

    def at(self, tau: np.ndarray) -> np.ndarray:
        s = _trapezoid_scale(tau / self.duration, self.accel_fraction)[..., None]
        return self.q0 + s * (self.q1 - self.q0)

    def speed_bound(self, tau0: np.ndarray, tau1: np.ndarray) -> np.ndarray:
        """Max ``|dq/dt|`` ``(K, nq)`` over each ``[tau0, tau1]`` (exact: the speed
        ramps up for ``accel_fraction``, is flat, and ramps down)."""
        T, f = self.duration, self.accel_fraction
        g = lambda u: _trapezoid_rate(u, f)  # noqa: E731
        m = _unimodal_max(g, np.clip(tau0 / T, 0, 1), np.clip(tau1 / T, 0, 1), f, 1.0 - f)
        return m[:, None] * (np.abs(self.q1 - self.q0) / T)


@dataclass(frozen=True, eq=False)
class Hold:
    """Stay at ``q`` ``(nq,)`` for ``duration`` (s): a wait."""

    q: np.ndarray
    duration: float

    exact_speed_bound = True

    def __post_init__(self) -> None:
        _positive_duration(self.duration)

    @property
    def q0(self) -> np.ndarray:
        return self.q

    @property
    def q1(self) -> np.ndarray:
        return self.q

    def at(self, tau: np.ndarray) -> np.ndarray:
        tau = np.asarray(tau, dtype=np.float64)
        return np.broadcast_to(self.q, (*tau.shape, len(self.q))).copy()

    def speed_bound(self, tau0: np.ndarray, tau1: np.ndarray) -> np.ndarray:
        return np.zeros((len(tau0), len(self.q)))


@dataclass(frozen=True, eq=False)
class JointSpline:
    """A piecewise cubic Hermite joint trajectory: knot times ``times (n,)`` (s, from 0,
    increasing), joint values ``q (n, nq)`` and speeds ``qd (n, nq)`` at the knots.
    Each piece is the cubic with those end values and speeds (a C2 spline's pieces are
    reproduced exactly); ``duration = times[-1]``."""

    times: np.ndarray
    q: np.ndarray
    qd: np.ndarray

    exact_speed_bound = True

    def __post_init__(self) -> None:
        t = np.asarray(self.times, dtype=np.float64)
        q = np.asarray(self.q, dtype=np.float64)
        qd = np.asarray(self.qd, dtype=np.float64)
        if t.ndim != 1 or len(t) < 2 or q.ndim != 2 or q.shape[0] != len(t) or qd.shape != q.shape:
            raise InputError(
                "a spline needs knot times (n >= 2), joint values and speeds of shape (n, nq)"
            )
        if not (np.isfinite(t).all() and np.isfinite(q).all() and np.isfinite(qd).all()):
            raise InputError("spline knots must be finite")
        if t[0] != 0.0 or np.any(np.diff(t) <= 0):
            raise InputError("spline knot times must start at 0 and increase")
        for name, v in (("times", t), ("q", q), ("qd", qd)):
            object.__setattr__(self, name, readonly(v))

    @property
    def duration(self) -> float:
        return float(self.times[-1])

    @property
    def q0(self) -> np.ndarray:
        return self.q[0]

    @property
    def q1(self) -> np.ndarray:
        return self.q[-1]

    def _piece(self, tau: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        k = np.clip(np.searchsorted(self.times, tau, side="right") - 1, 0, len(self.times) - 2)
        h = self.times[k + 1] - self.times[k]
        return k, h, np.clip((tau - self.times[k]) / h, 0.0, 1.0)

    def at(self, tau: np.ndarray) -> np.ndarray:
        tau = np.asarray(tau, dtype=np.float64)
        k, h, u = self._piece(tau)
        u, h = u[..., None], h[..., None]
        u2, u3 = u * u, u * u * u
        return (
            (2 * u3 - 3 * u2 + 1) * self.q[k]
            + (u3 - 2 * u2 + u) * h * self.qd[k]
            + (-2 * u3 + 3 * u2) * self.q[k + 1]
            + (u3 - u2) * h * self.qd[k + 1]
        )

    @cached_property
    def _coeffs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``dq/dt = a u^2 + b u + c`` per piece ``(n - 1, nq)``."""
        h = np.diff(self.times)[:, None]
        d = (self.q[:-1] - self.q[1:]) / h
        v0, v1 = self.qd[:-1], self.qd[1:]
        return 6 * d + 3 * v0 + 3 * v1, -6 * d - 4 * v0 - 2 * v1, v0

    def _piece_max(self, k: np.ndarray, u0: np.ndarray, u1: np.ndarray) -> np.ndarray:
        """Max ``|dq/dt|`` on piece ``k`` over ``u`` in ``[u0, u1]`` ``(K, nq)``."""
        a, b, c = (x[k] for x in self._coeffs)
        u0, u1 = u0[:, None], u1[:, None]
        f = lambda u: (a * u + b) * u + c  # noqa: E731
        out = np.maximum(np.abs(f(u0)), np.abs(f(u1)))
        with np.errstate(divide="ignore", invalid="ignore"):
            uv = np.where(a != 0, -b / (2 * a), -1.0)
        inside = (uv > u0) & (uv < u1)
        return np.where(inside, np.maximum(out, np.abs(f(np.clip(uv, 0, 1)))), out)

    @cached_property
    def _full_table(self) -> list[np.ndarray]:
        """Sparse table of whole-piece maxima: level ``j`` is the max over ``2^j`` pieces."""
        n = len(self.times) - 1
        k = np.arange(n)
        table = [self._piece_max(k, np.zeros(n), np.ones(n))]
        while 2 ** len(table) <= n:
            w = 2 ** (len(table) - 1)
            table.append(np.maximum(table[-1][:-w], table[-1][w:]))
        return table

    def speed_bound(self, tau0: np.ndarray, tau1: np.ndarray) -> np.ndarray:
        """Max ``|dq/dt|`` ``(K, nq)`` over each ``[tau0, tau1]`` (exact: ``dq/dt`` is a
        quadratic on every piece)."""
        tau0 = np.asarray(tau0, dtype=np.float64)
        tau1 = np.asarray(tau1, dtype=np.float64)
        k0, _, u0 = self._piece(tau0)
        k1, _, u1 = self._piece(tau1)
        same = k0 == k1
        out = self._piece_max(k0, u0, np.where(same, u1, 1.0))
        out = np.maximum(out, self._piece_max(k1, np.where(same, u0, 0.0), u1))
        lo, hi = k0 + 1, k1 - 1  # whole pieces between
        m = np.flatnonzero(hi >= lo)
        if m.size:
            span = hi[m] - lo[m] + 1
            lv = np.floor(np.log2(span)).astype(np.int64)
            for j in np.unique(lv):
                sel = m[lv == j]
                t = self._full_table[j]
                a, b = lo[sel], hi[sel] - 2**j + 1
                out[sel] = np.maximum(out[sel], np.maximum(t[a], t[b]))
        return out


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

    exact_speed_bound = True

    @cached_property
    def spline(self) -> JointSpline:
        """The joint trajectory the line follows: the C2 cubic spline (zero speed at both
        ends) through IK solutions at :data:`LINE_CELLS_PER_KNOT` points per knot interval
        (each seeded by the interpolated knots). Its joint speeds have exact bounds; it
        deviates from the IK solution by ``line_error`` (m, measured at the cell
        midpoints; about 1e-10 m on the PUMA lines of ``three_puma_clearance``)."""
        from scipy.interpolate import CubicSpline

        tau = np.linspace(0.0, self.duration, LINE_CELLS_PER_KNOT * (self.knots - 1) + 1)
        q = self._ik(tau)
        cs = CubicSpline(tau, q, bc_type="clamped")
        return JointSpline(tau, q, cs(tau, 1))

    @cached_property
    def line_error(self) -> float:
        """Largest distance (m) between ``link`` on the spline and on the IK solution, at
        the midpoints of the spline's cells."""
        sp_ = self.spline
        mid = 0.5 * (sp_.times[1:] + sp_.times[:-1])
        p_ik = self.model.fk(self._ik(mid), self.link)[..., :3, 3]
        p_sp = self.model.fk(sp_.at(mid), self.link)[..., :3, 3]
        return float(np.max(np.linalg.norm(p_ik - p_sp, axis=-1)))

    def speed_bound(self, tau0: np.ndarray, tau1: np.ndarray) -> np.ndarray:
        """Max ``|dq/dt|`` ``(K, nq)`` over each ``[tau0, tau1]`` of :attr:`spline` (exact)."""
        return self.spline.speed_bound(tau0, tau1)

    def at(self, tau: np.ndarray) -> np.ndarray:
        """Joint values ``(..., nq)`` on :attr:`spline`."""
        return self.spline.at(tau)

    def _ik(self, tau: np.ndarray) -> np.ndarray:
        tau = np.asarray(tau, dtype=np.float64)
        s = quintic_scale(tau / self.duration)
        x = s * (self.knots - 1)
        k = np.clip(np.floor(x).astype(int), 0, self.knots - 2)
        w = (x - k)[..., None]
        seed = (1 - w) * self._q_knots[k] + w * self._q_knots[k + 1]
        res = self.model.ik(self._target(s), link=self.link, q0=seed, tol=1e-10, restarts=0)
        return res.q


#: Spline points per IK knot interval of a Cartesian line (41 knots: 321 points).
LINE_CELLS_PER_KNOT = 8

Segment = JointQuintic | JointTrapezoid | Hold | JointSpline | CartesianLine


@dataclass(frozen=True, eq=False)
class Trajectory:
    """Segments one after another from time ``start`` (s, the trajectory's own time).

    ``warp`` (optional) maps the scene's time ``t`` to the trajectory's own time
    (monotone): the robot is where its segments put it at ``warp(t)``. ``end`` is the
    scene time at which the last segment ends.
    """

    segments: tuple[Segment, ...]
    start: float = 0.0
    warp: TimeWarp | None = None

    def __post_init__(self) -> None:
        if not self.segments:
            raise InputError("a trajectory needs at least one segment")
        if not (np.isfinite(self.start) and self.start >= 0):
            raise InputError(f"trajectory start must be finite and >= 0, got {self.start!r}")
        object.__setattr__(self, "segments", tuple(self.segments))

    @property
    def duration(self) -> float:
        """The segments' total duration (s, own time)."""
        return float(sum(s.duration for s in self.segments))

    @property
    def end(self) -> float:
        own = self.start + self.duration
        return own if self.warp is None else float(self.warp.inverse(own))

    @property
    def exact_speed_bound(self) -> bool:
        """Whether :meth:`speed_bound` is a proof (every segment's bound is exact)."""
        return all(s.exact_speed_bound for s in self.segments)

    @cached_property
    def _bounds(self) -> np.ndarray:
        return np.cumsum([0.0] + [s.duration for s in self.segments])

    def speed_bound(self, t0: ArrayLike, t1: ArrayLike) -> np.ndarray:
        """Max joint speeds ``|dq/dt|`` ``(K, nq)`` (rad/s or m/s) over each scene-time
        interval ``[t0, t1]`` ``(K,)``: the max over the segments it overlaps (0 while
        holding before the start and after the end), times the warp's largest rate."""
        t0 = np.atleast_1d(np.asarray(t0, dtype=np.float64))
        t1 = np.atleast_1d(np.asarray(t1, dtype=np.float64))
        rate = None
        if self.warp is not None:
            rate = self.warp.max_rate(t0, t1)
            t0, t1 = self.warp(t0), self.warp(t1)
        tau0, tau1 = t0 - self.start, t1 - self.start
        b = self._bounds
        out = np.zeros((len(tau0), len(self._first)))
        for k, seg in enumerate(self.segments):
            lo = np.maximum(tau0, b[k]) - b[k]
            hi = np.minimum(tau1, b[k + 1]) - b[k]
            m = np.flatnonzero(hi >= lo)
            if m.size:
                out[m] = np.maximum(out[m], seg.speed_bound(lo[m], hi[m]))
        return out if rate is None else out * rate[:, None]

    @cached_property
    def _first(self) -> np.ndarray:
        return self.segments[0].at(np.zeros(1))[0]

    def q(self, t: ArrayLike) -> np.ndarray:
        """Joint values ``(..., nq)`` at times ``t (...)`` (s)."""
        t = np.asarray(t, dtype=np.float64)
        if self.warp is not None:
            t = self.warp(t)
        tau = t - self.start
        bounds = self._bounds
        idx = np.clip(np.searchsorted(bounds, tau, side="right") - 1, 0, len(self.segments) - 1)
        out = np.broadcast_to(self._first, (*t.shape, len(self._first))).copy()
        for k, seg in enumerate(self.segments):
            m = idx == k
            if np.any(m):
                out[m] = seg.at(np.clip(tau[m] - bounds[k], 0.0, seg.duration))
        return out
