"""Velocity tuning: keep a robot's path, change its timing (Kant and Zucker's
path-velocity decomposition).

* :func:`plan_delay`: the smallest start delay of one robot after which every pair it
  is in stays above the margin (certified). Delays are scanned on a grid up to the
  moment the others have all stopped (beyond it nothing changes), and the first clear
  one is bisected against the grid point before it to ``resolution`` (s): the smallest
  clear delay to that resolution, unless a clear window narrower than the grid step
  lies below it.
* :func:`plan_scale`: the smallest slow-down ``k`` of one robot over a window of its
  own time (the stretch where it comes too close, widened by ``pad``): its path speed
  is capped at ``1/k`` there and at its planned speed elsewhere, and the fastest timing
  under those caps and the joints' velocity and acceleration limits is computed by
  time-optimal path parametrisation (TOPP-RA, ``toppra``: Pham and Pham, IEEE T-RO
  2018). The result is a :class:`~robotsim.clearance.timewarp.TimeWarp` of the robot's
  own time (TOPP-RA's constant-acceleration segments are quadratic in time, reproduced
  exactly by the warp's Hermite pieces), so the path stays the planned one exactly.
  ``k`` is scanned on a geometric grid and bisected like the delay; a window where
  none of four slow-downs spread over the grid (up to ``k_max``) is clear is given up
  without the scan.
"""

from __future__ import annotations

import dataclasses
import logging

import numpy as np

from robotsim.clearance.timewarp import TimeWarp
from robotsim.clearance.trajectory import Trajectory
from robotsim.plan.check import MarginCheck
from robotsim.plan.limits import JointLimits, peak_rates
from robotsim.plan.outcome import Budget, Change, Outcome

__all__ = ["delayed", "plan_delay", "plan_scale", "scaled"]


def delayed(traj: Trajectory, d: float) -> Trajectory:
    """``traj`` started ``d`` seconds later (a warp is shifted with it)."""
    if traj.warp is None:
        return dataclasses.replace(traj, start=traj.start + d)
    w = traj.warp
    return dataclasses.replace(traj, warp=TimeWarp(w.t + d, w.s, w.rate))


def _scene_start(traj: Trajectory) -> float:
    return traj.start if traj.warp is None else float(traj.warp.inverse(traj.start))


def _bisect(ok, lo: float, hi: float, resolution: float, budget: Budget) -> float:  # type: ignore[no-untyped-def]
    """The smallest clear value in ``(lo, hi]`` to ``resolution`` (``hi`` is clear)."""
    while hi - lo > resolution and not budget.spent():
        mid = 0.5 * (lo + hi)
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def plan_delay(
    check: MarginCheck,
    name: str,
    budget: Budget,
    *,
    grid: int = 64,
    resolution: float = 1e-3,
) -> Outcome:
    """The smallest start delay (s) of robot ``name`` keeping its pairs above the
    margin (see the module)."""
    traj = check.trajectories[name]
    n0 = check.checks
    others = [t.end for n, t in check.trajectories.items() if n != name]
    d_max = max(0.0, max(others, default=0.0) - _scene_start(traj)) + check.dt

    def ok(d: float) -> bool:
        return check.robot_clear(name, delayed(traj, d)).clear

    prev = 0.0
    if ok(0.0):
        return Outcome(None, f"robot {name} is already clear of the others", check.checks - n0)
    for d in np.linspace(d_max / grid, d_max, grid):
        if budget.spent():
            return Outcome(
                None,
                f"delay of {name}: time budget spent after delays up to {prev:.3f} s",
                check.checks - n0,
            )
        if ok(float(d)):
            best = _bisect(ok, prev, float(d), resolution, budget)
            new = delayed(traj, best)
            res = check.robot_clear(name, new, quick=False)
            change = Change(
                name, "delay", new, new.end - traj.end, {"delay_s": best}, res.lower_bound
            )
            return Outcome(change, f"{name} starts {best:.3f} s later", check.checks - n0)
        prev = float(d)
    res = check.robot_clear(name, delayed(traj, d_max), quick=False)
    return Outcome(
        None,
        f"no start delay of {name} up to {d_max:.3f} s (after every other robot has "
        f"stopped) keeps it above the margin: {res.worst} comes within "
        f"{res.lower_bound:.4f} m",
        check.checks - n0,
    )


def _windows(check: MarginCheck, name: str, pad: float) -> list[tuple[float, float]]:
    """Own-time windows to slow down in: the stretch of the robot's motion where it
    comes within the margin, widened by ``pad`` (s), and its whole motion."""
    traj = check.trajectories[name]
    res = check.robot_clear(name, traj, quick=False)
    ivs = [iv for p in res.pairs for iv in p.collision_intervals + p.unresolved]
    t0, t1 = _scene_start(traj), traj.end
    own = (lambda t: t) if traj.warp is None else traj.warp
    out = []
    if ivs:
        a = max(t0, min(a for a, _ in ivs) - pad)
        b = min(t1, max(b for _, b in ivs) + pad)
        if b > a:
            out.append((float(own(a)), float(own(b))))
    whole = (float(own(t0)), float(own(t1)))
    if whole not in out and whole[1] > whole[0]:
        out.append(whole)
    return out


def scaled(
    traj: Trajectory, limits: JointLimits, window: tuple[float, float], k: float, grid: int = 200
) -> Trajectory | None:
    """``traj`` slowed by ``k`` over the own-time ``window`` with the fastest timing
    elsewhere that keeps its planned speed and the joint ``limits`` (TOPP-RA); None when
    TOPP-RA finds no timing."""
    import toppra as ta
    import toppra.algorithm as algo
    import toppra.constraint as con

    logging.getLogger("toppra").setLevel(logging.ERROR)
    base = traj if traj.warp is None else dataclasses.replace(traj, warp=None)
    s0 = traj.start
    s1 = traj.start + traj.duration
    sa, sb = max(window[0], s0), min(window[1], s1)
    ss = np.linspace(s0, s1, max(grid, 2 * int((s1 - s0) / 0.01) + 1))
    path = ta.SplineInterpolator(ss, np.column_stack([base.q(ss), ss]))
    nq = len(limits.velocity)
    vel = limits.velocity
    acc = np.concatenate([limits.acceleration, [1e6]])

    def vlim(s: float) -> np.ndarray:
        cap = 1.0 / k if sa - 1e-12 <= s <= sb + 1e-12 else 1.0
        v = np.concatenate([vel, [cap]])
        return np.column_stack([-v, v])

    pts = np.unique(np.concatenate([np.linspace(s0, s1, grid), [sa, sb]]))
    inst = algo.TOPPRA(
        [
            con.JointVelocityConstraintVarying(vlim),
            con.JointAccelerationConstraint(np.column_stack([-acc, acc])),
        ],
        path,
        gridpoints=pts,
        parametrizer="ParametrizeConstAccel",
    )
    # the path's ends are at rest: a window reaching them starts (ends) at the capped rate
    sd0 = 1.0 / k if sa <= s0 + 1e-9 else 1.0
    sd1 = 1.0 / k if sb >= s1 - 1e-9 else 1.0
    out = inst.compute_trajectory(sd0, sd1)
    if out is None:
        return None
    ts = np.asarray(out._ts, dtype=np.float64)
    s = np.asarray(out._ss, dtype=np.float64)
    v = np.clip(np.asarray(out._velocities, dtype=np.float64), 0.0, None)
    v[0], v[-1] = sd0, sd1
    # before s0 the robot holds (own time = scene time until it starts)
    t_start = _scene_start(traj) if traj.warp is None else float(traj.warp.inverse(s0))
    keep = np.concatenate([[True], np.diff(ts) > 1e-12])
    warp = TimeWarp(t_start + ts[keep], s[keep], v[keep])
    del nq
    return dataclasses.replace(base, warp=warp)


def limits_ok(
    traj: Trajectory, limits: JointLimits, tol: float = 0.02
) -> tuple[bool, float, float]:
    """Whether ``traj`` keeps ``limits`` (measured by finite differences, ``tol``
    relative); returns it with the peak velocity and acceleration ratios."""
    v, a = peak_rates(traj, _scene_start(traj), traj.end, samples=4001)
    rv = float(np.max(v / limits.velocity))
    ra = float(np.max(a / limits.acceleration))
    return rv <= 1 + tol and ra <= 1 + tol, rv, ra


def plan_scale(
    check: MarginCheck,
    name: str,
    limits: JointLimits,
    budget: Budget,
    *,
    k_max: float = 8.0,
    grid: int = 24,
    resolution: float = 1e-3,
    pad: float = 0.5,
) -> Outcome:
    """The smallest slow-down of robot ``name`` over a window of its motion keeping
    its pairs above the margin (see the module). ``k`` up to ``k_max``."""
    traj = check.trajectories[name]
    n0 = check.checks
    if check.robot_clear(name, traj).clear:
        return Outcome(None, f"robot {name} is already clear of the others", check.checks - n0)
    best: Change | None = None
    tried = []
    for window in _windows(check, name, pad):
        cache: dict[float, Trajectory | None] = {}

        def make(
            k: float,
            window: tuple[float, float] = window,
            cache: dict[float, Trajectory | None] = cache,
        ) -> Trajectory | None:
            if k not in cache:
                cache[k] = scaled(traj, limits, window, k)
            return cache[k]

        def ok(k: float) -> bool:
            t = make(k)
            return t is not None and check.robot_clear(name, t).clear

        prev = 1.0
        found = None
        ks = np.geomspace(1.0, k_max, grid + 1)[1:]
        # a window where none of a few slow-downs up to k_max is clear is given up
        # before the scan (a clear k between them is possible, not likely)
        probe = ks[[len(ks) // 4, len(ks) // 2, 3 * len(ks) // 4, len(ks) - 1]]
        if not any(ok(float(k)) for k in probe if not budget.spent()):
            tried.append(f"[{window[0]:.3f}, {window[1]:.3f}] s")
            continue
        for k in ks:
            if budget.spent():
                break
            if ok(float(k)):
                found = _bisect(ok, prev, float(k), resolution * float(k), budget)
                break
            prev = float(k)
        tried.append(f"[{window[0]:.3f}, {window[1]:.3f}] s")
        if found is None:
            continue
        new = make(found)
        assert new is not None
        fine, rv, ra = limits_ok(new, limits)
        res = check.robot_clear(name, new, quick=False)
        change = Change(
            name,
            "scale",
            new,
            new.end - traj.end,
            {
                "scale": found,
                "window_s": list(window),
                "peak_velocity_ratio": rv,
                "peak_acceleration_ratio": ra,
                "limits_kept": fine,
            },
            res.lower_bound,
        )
        if fine and (best is None or change.added_time_s < best.added_time_s):
            best = change
    if best is None:
        why = "time budget spent" if budget.spent() else f"no slow-down up to {k_max:g}x"
        return Outcome(
            None,
            f"scale of {name}: {why} over the windows {', '.join(tried)} "
            "keeps it above the margin within its joint limits",
            check.checks - n0,
        )
    k = best.params["scale"]
    return Outcome(
        best,
        f"{name} slowed {k:.3f}x over its own time {best.params['window_s']}",
        check.checks - n0,
    )
