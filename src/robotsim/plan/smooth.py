"""A replanned path timed without stopping at its waypoints, certified piece by piece.

The space-time search (:mod:`robotsim.plan.spacetime`) returns states ``(q_k, t_k)``
joined by rest-to-rest quintics, each certified: a valid trajectory, but one that
stops at every waypoint. :func:`smooth_states` replaces runs of it with faster,
smooth pieces, and keeps a rest-to-rest edge wherever no faster piece is proved clear:

* **A run** ``i..j`` of waypoints becomes one smooth motion through them: a natural
  cubic spline in joint space (parameter: chord length), timed time-optimally under
  the joints' velocity and acceleration limits by TOPP-RA (Pham and Pham, IEEE T-RO
  2018; ``toppra``), then written as a cubic Hermite :class:`JointSpline` through
  TOPP-RA's knots, whose exact peak speed and acceleration are brought within the
  limits by stretching its time (:func:`fastest_through`). It stays in the joint
  ranges (checked at its exact extremes) or is refused.
* **Greedy, longest run first.** At waypoint ``i``, reached at time ``T <= t_i``, the
  runs ``i..n``, ``i..n-1``, ... are tried. A run's timing is the fastest first; if
  that comes within the margin of another robot, later arrivals up to the rest-to-rest
  chain's ``t_j`` (the run slowed uniformly, or the fastest one after a wait at
  ``q_i``), bisected. A run is accepted when the certified check proves it clear
  from ``T`` until ``t_j`` with the robot then holding at ``q_j`` (the last waypoint:
  holding until the others have stopped).
* **Fallback per segment.** When no run from ``i`` is proved clear, the rest-to-rest
  edge ``i -> i+1`` is kept: moved to start at ``T`` when that is proved clear, else
  at its own ``t_i`` after a hold.

Invariant: at waypoint ``i`` at time ``T``, holding there until ``t_i`` is proved
clear, so the rest of the rest-to-rest chain (certified) always completes the path:
the result is certified piece by piece whatever is smoothed, and never ends later
than the chain. The caller certifies the whole trajectory once more.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import numpy as np

from robotsim.clearance.trajectory import Hold, JointQuintic, JointSpline, Segment, Trajectory
from robotsim.plan.check import MarginCheck
from robotsim.plan.limits import JointLimits
from robotsim.plan.outcome import Budget

__all__ = [
    "SmoothResult",
    "fastest_through",
    "peak_acceleration",
    "smooth_states",
    "spline_in_range",
    "stretched",
]


def peak_acceleration(sp: JointSpline) -> np.ndarray:
    """The exact peak ``|d2q/dt2|`` ``(nq,)`` of a cubic Hermite spline: linear on every
    piece (``(2 a u + b) / h`` for ``dq/dt = a u^2 + b u + c``), so at a piece's end."""
    a, b, _ = sp._coeffs
    h = np.diff(sp.times)[:, None]
    return np.max(np.maximum(np.abs(b), np.abs(2 * a + b)) / h, axis=0)


def peak_velocity(sp: JointSpline) -> np.ndarray:
    """The exact peak ``|dq/dt|`` ``(nq,)`` of a cubic Hermite spline."""
    return sp.speed_bound(np.zeros(1), np.array([sp.duration]))[0]


def stretched(sp: JointSpline, c: float) -> JointSpline:
    """``sp`` run ``c`` times slower (speeds over ``c``, accelerations over ``c^2``)."""
    return JointSpline(sp.times * c, sp.q, sp.qd / c)


def spline_in_range(sp: JointSpline, lower: np.ndarray, upper: np.ndarray) -> bool:
    """Whether ``sp`` stays within ``[lower, upper]`` everywhere: at its knots and at
    every interior extremum of its pieces (roots of the quadratic ``dq/dt``)."""
    tol = 1e-9
    if np.any(sp.q < lower - tol) or np.any(sp.q > upper + tol):
        return False
    a, b, c = sp._coeffs
    disc = b * b - 4 * a * c
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.sqrt(np.maximum(disc, 0.0))
        lin = np.where(b != 0, -c / b, -1.0)
        u1 = np.where(a != 0, (-b - r) / (2 * a), lin)
        u2 = np.where(a != 0, (-b + r) / (2 * a), -1.0)
    h = np.diff(sp.times)[:, None]
    taus = []
    for u in (u1, u2):
        m = (disc >= 0) & (u > 0) & (u < 1)
        k, _ = np.nonzero(m)
        taus.append(sp.times[k] + u[m] * h[k, 0])
    tau = np.concatenate(taus)
    if tau.size == 0:
        return True
    q = sp.at(tau)
    return bool(np.all(q >= lower - tol) and np.all(q <= upper + tol))


def fastest_through(Q: np.ndarray, limits: JointLimits, *, grid: int = 100) -> JointSpline | None:
    """The time-optimal motion from rest to rest through the waypoints ``Q (m, nq)``
    along a natural cubic spline (chord-length parameter), within ``limits`` (see the
    module); None when TOPP-RA finds no timing."""
    import toppra as ta
    import toppra.algorithm as algo
    import toppra.constraint as con

    logging.getLogger("toppra").setLevel(logging.ERROR)
    Q = np.asarray(Q, dtype=np.float64)
    keep = np.concatenate([[True], np.linalg.norm(np.diff(Q, axis=0), axis=1) > 1e-12])
    Q = Q[keep]
    if len(Q) < 2:
        return None
    s = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(Q, axis=0), axis=1))])
    s /= s[-1]
    path = ta.SplineInterpolator(s, Q, bc_type="natural")
    v, a = limits.velocity, limits.acceleration
    gp = np.unique(np.concatenate([np.linspace(0.0, 1.0, grid + 1), s]))
    inst = algo.TOPPRA(
        [
            con.JointVelocityConstraint(np.column_stack([-v, v])),
            con.JointAccelerationConstraint(np.column_stack([-a, a])),
        ],
        path,
        gridpoints=gp,
        parametrizer="ParametrizeConstAccel",
    )
    try:
        out = inst.compute_trajectory(0.0, 0.0)
    except Exception:  # toppra raises on degenerate paths: no timing
        return None
    if out is None:
        return None
    ts = np.asarray(out._ts, dtype=np.float64)
    ts = ts[np.concatenate([[True], np.diff(ts) > 1e-9])]
    if len(ts) < 2 or not np.all(np.isfinite(ts)):
        return None
    t = np.sort(np.concatenate([ts, 0.5 * (ts[1:] + ts[:-1])]))
    q = np.asarray(out(t), dtype=np.float64)
    qd = np.asarray(out(t, 1), dtype=np.float64)
    q[0], q[-1] = Q[0], Q[-1]
    qd[0], qd[-1] = 0.0, 0.0
    sp = JointSpline(t - t[0], q, qd)
    c = max(
        1.0,
        float(np.max(peak_velocity(sp) / v)),
        math.sqrt(float(np.max(peak_acceleration(sp) / a))),
    )
    return stretched(sp, c * (1 + 1e-9)) if c > 1.0 else sp


@dataclass(frozen=True)
class SmoothResult:
    """The timed trajectory, its pieces (``{"from", "to", "timing", "t0", "t1"}``:
    waypoint indices, ``"smooth"`` or ``"rest-to-rest"``, scene times) and the number
    of certified piece checks."""

    trajectory: Trajectory
    pieces: tuple[dict[str, object], ...]
    checks: int


def smooth_states(
    states: list[tuple[np.ndarray, float]],
    check: MarginCheck,
    name: str,
    limits: JointLimits,
    budget: Budget,
    *,
    hold_until: float,
    edge_dt: float = 0.05,
    bisections: int = 6,
    slack: float = 0.0,
) -> SmoothResult:
    """Time the certified rest-to-rest chain through ``states`` without stopping where
    that is proved clear (see the module); ``hold_until``: the robot stays at its goal
    until then (the others' end); ``slack`` (m): smooth pieces are proved above the
    check's ``search_level`` plus this."""
    model = check.scene.robot(name).model
    lower, upper = np.asarray(model.lower), np.asarray(model.upper)
    Q = [np.asarray(q, dtype=np.float64) for q, _ in states]
    tk = [float(t) for _, t in states]
    n = len(states) - 1
    count = 0
    runs: dict[tuple[int, int], JointSpline | None] = {}

    def clear(segs: list[Segment], T: float, until: float) -> bool:
        nonlocal count
        count += 1
        tr = Trajectory(tuple(segs), start=T)
        t1 = max(until, tr.end)
        return check.robot_clear(
            name, tr, t0=T, t1=max(t1, T + edge_dt), dt=edge_dt, level=check.search_level + slack
        ).clear

    def run(i: int, j: int) -> JointSpline | None:
        if (i, j) not in runs:
            sp = fastest_through(np.array(Q[i : j + 1]), limits)
            runs[(i, j)] = sp if sp is not None and spline_in_range(sp, lower, upper) else None
        return runs[(i, j)]

    def timed(sp: JointSpline, i: int, T: float, arrive: float, how: str) -> list[Segment]:
        extra = arrive - T - sp.duration
        if extra <= 1e-9:
            return [sp]
        if how == "slow":
            return [stretched(sp, (arrive - T) / sp.duration)]
        return [Hold(Q[i], extra), sp]

    segs: list[Segment] = []
    pieces: list[dict[str, object]] = []
    T, i = tk[0], 0
    while i < n:
        found: tuple[int, list[Segment], float] | None = None
        for j in range(n, i, -1):
            if budget.spent():
                break
            sp = run(i, j)
            if sp is None:
                continue
            latest = tk[j]
            fast = T + sp.duration
            if fast > latest + 1e-9:
                continue  # no faster than the chain here
            until = hold_until if j == n else latest
            until = max(until, latest)
            if clear([sp], T, until):
                found = (j, [sp], fast)
                break
            if latest - fast < 1e-3:
                continue
            best: tuple[float, str] | None = None
            for how in ("wait", "slow"):
                if budget.spent() or not clear(timed(sp, i, T, latest, how), T, until):
                    continue
                lo, hi = fast, latest
                for _ in range(bisections):
                    if budget.spent():
                        break
                    mid = 0.5 * (lo + hi)
                    if clear(timed(sp, i, T, mid, how), T, until):
                        hi = mid
                    else:
                        lo = mid
                if best is None or hi < best[0]:
                    best = (hi, how)
            if best is not None:
                found = (j, timed(sp, i, T, best[0], best[1]), best[0])
                break
        if found is not None:
            j, piece, arrive = found
            segs += piece
            pieces.append({"from": i, "to": j, "timing": "smooth", "t0": T, "t1": arrive})
            T, i = arrive, j
            continue
        # fallback: the rest-to-rest edge i -> i+1, moved to T if that is proved clear
        d = tk[i + 1] - tk[i]
        edge: Segment = (
            Hold(Q[i], d) if np.array_equal(Q[i], Q[i + 1]) else JointQuintic(Q[i], Q[i + 1], d)
        )
        until = max(hold_until, tk[n]) if i + 1 == n else tk[i + 1]
        if T < tk[i] - 1e-9 and not budget.spent() and clear([edge], T, until):
            start = T
        else:
            if tk[i] > T + 1e-9:
                segs.append(Hold(Q[i], tk[i] - T))
            start = tk[i]
        segs.append(edge)
        pieces.append(
            {"from": i, "to": i + 1, "timing": "rest-to-rest", "t0": start, "t1": start + d}
        )
        T, i = start + d, i + 1
    if not segs:
        segs = [Hold(Q[0], 1e-3)]
    return SmoothResult(Trajectory(tuple(segs), start=tk[0]), tuple(pieces), count)
