"""Certified clearance between samples: a lower bound on every robot pair's distance
over the whole run, not only at the samples.

Between two samples ``t0 < t1`` (``h = t1 - t0``) no point of robot A's volumes moves
faster than ``V_A`` and none of B's faster than ``V_B``. A volume that moves rigidly
with every point displaced by at most ``delta`` has its support function changed by at
most ``delta`` in every direction, so the signed distance of two convex volumes
changes by at most the sum of their displacements, and so does the minimum over the
volume pairs (the pair's distance). With ``V = V_A + V_B``:

    d(t) >= max(d(t0) - V (t - t0), d(t1) - V (t1 - t))

whose minimum over ``[t0, t1]`` is ``(d0 + d1 - V h) / 2`` when ``|d0 - d1| <= V h``
(else ``min(d0, d1)``): the interval's **lower bound**.

**How fast a volume point moves.** A point ``p`` of a volume on link ``L`` moves at
``|sum_j qdot_j a_j x (p - o_j)| <= sum_j |qdot_j| rho_j(p)`` over the revolute joints
``j`` between the root and ``L`` (axis ``a_j`` through ``o_j``, ``rho_j`` the distance
of ``p`` from that axis), plus ``|qdot_j|`` for each prismatic joint. With the volume's
centre ``c`` and bounding radius ``r`` (every point within ``r`` of ``c``):
``|pdot| <= |cdot| + r |omega|``, ``|omega| <= sum over revolute j of |qdot_j|``, and
``|cdot| <= sum_j |qdot_j| rho_j(c)``. Over the interval:

* ``|qdot_j|`` is bounded by the trajectory (:meth:`Trajectory.speed_bound`: the exact
  maximum of the quintic, trapezoid and hold profiles over the interval; an estimate
  for Cartesian lines, whose joints come from IK, see ``exact_speed_bound``);
* the lever ``rho_j(c)`` is the distance from ``c`` to axis ``j``, measured by the
  kinematics at both samples. Joints before and at ``j`` move ``c`` and the axis
  together, so the lever only changes through the joints after ``j``, at most at the
  speed of ``c`` relative to axis ``j``: ``rho_j <= max(rho_j(t0), rho_j(t1)) + (h/2)
  sum_{k > j} |qdot_k| rho_k`` (computed from the last joint back), and never more
  than the lengths of the chain from the joint to the volume's centre (the triangle
  inequality over the link offsets, a bound for every configuration).

**Refinement.** An interval whose bound is not above the ``level`` (the contact
threshold, or a planner's margin) while both its samples are is split at its midpoint
(a new exact distance) until every interval is either proved clear (bound above the
level) or holds a sample at or below it (a collision found, its ends then found by
bisection as :func:`robotsim.clearance.run` finds them), so a collision of any
duration is found. Intervals are also split while their bound is more than
``tight_tol`` below the smallest distance seen, so the reported lower bound is within
``tight_tol`` of the true minimum. Splitting stops at ``time_tol`` (an interval that
narrow whose bound is still not above the level is reported ``unresolved``: a contact
within ``time_tol`` that neither proof nor sample decides) or when
``max_evaluations`` is spent (``budget_exhausted``; every bound is still valid).

The certificate is a proof when both robots' speed bounds are exact (no Cartesian line
segment): ``certified`` in the results says which.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from robotsim.clearance.monitor import _check_budget, _intervals_from_runs, _Mover, _pair_distance
from robotsim.clearance.scene import PlacedRobot, Scene
from robotsim.clearance.trajectory import Trajectory
from robotsim.errors import InputError, UnknownNameError

__all__ = [
    "CertifiedPair",
    "CertifiedResult",
    "Motion",
    "certified_run",
    "certify_pair",
    "interval_lower_bound",
    "merge_certified",
]

_PRISMATIC = 2  # kinematics.kernels joint type


def interval_lower_bound(d0: np.ndarray, d1: np.ndarray, vh: np.ndarray) -> np.ndarray:
    """The least ``d`` over an interval whose ends have distances ``d0, d1`` (m) and
    along which ``d`` changes by at most ``vh`` (m) in all: ``(d0 + d1 - vh) / 2``
    where the two cones meet inside the interval, else the smaller end."""
    meet = np.abs(d0 - d1) <= vh
    with np.errstate(invalid="ignore"):
        return np.where(meet, 0.5 * (d0 + d1 - vh), np.minimum(d0, d1))


class _Levers:
    """A placed robot's joints and volumes as the speed bound needs them (built once)."""

    def __init__(self, robot: PlacedRobot) -> None:
        model = robot.model
        tree = model.tree
        self.tree = tree
        links = [int(i) for i in robot._link_index]
        paths = [tree.path(i) for i in links]
        joints = sorted({i for p in paths for i in p if tree.jt[i] != 0})
        pos = {i: k for k, i in enumerate(joints)}
        nv, nj = len(links), len(joints)
        self.joint_link = np.array(joints, dtype=np.int64)
        self.parent = tree.parent[self.joint_link] if nj else np.zeros(0, np.int64)
        A = np.zeros((nj, 4, 4))
        A[:, 3, 3] = 1.0
        if nj:
            A[:, :3, :] = tree.A[self.joint_link]
        self.A = A
        self.prismatic = tree.jt[self.joint_link] == _PRISMATIC if nj else np.zeros(0, bool)
        self.qi = tree.qi[self.joint_link] if nj else np.zeros(0, np.int64)
        self.mult = np.abs(tree.mult[self.joint_link]) if nj else np.zeros(0)
        self.on_path = np.zeros((nv, nj), dtype=bool)
        self.static = np.full((nv, nj), np.inf)
        T_vol = np.stack([np.asarray(v.T_link_volume) for v in robot.volumes])
        lower, upper = np.asarray(model.lower), np.asarray(model.upper)
        for v, path in enumerate(paths):
            # a bound of |c - o_j| for every configuration: the offsets from joint j's
            # frame down the chain to the centre, plus each prismatic joint's travel
            tail = float(np.linalg.norm(T_vol[v][:3, 3]))
            for i in reversed(path):
                step = float(np.linalg.norm(tree.B[i][:, 3]))
                if tree.jt[i] != 0:
                    k = pos[i]
                    self.on_path[v, k] = True
                    self.static[v, k] = tail + step
                travel = 0.0
                if tree.jt[i] == _PRISMATIC:
                    j = int(tree.qi[i])
                    travel = abs(tree.mult[i]) * max(abs(lower[j]), abs(upper[j])) + abs(
                        tree.off[i]
                    )
                tail += step + travel + float(np.linalg.norm(tree.A[i][:, 3]))
        self.link_index = np.array(links, dtype=np.int64)
        self.T_vol = T_vol
        self.T_world_base = np.asarray(robot.T_world_base)

    def frames(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Volume world poses ``(T, nv, 4, 4)`` and each volume centre's distance to
        each joint axis ``(T, nv, nj)`` (m) for configurations ``q (T, nq)``."""
        T_all = self.tree.fk_all(q)
        P = self.T_world_base @ T_all[:, self.link_index] @ self.T_vol
        c = P[:, :, :3, 3]
        if len(self.joint_link) == 0:
            return P, np.zeros((len(q), len(self.link_index), 0))
        J = self.T_world_base @ T_all[:, self.parent] @ self.A  # joint frames (T, nj, 4, 4)
        o, a = J[:, :, :3, 3], J[:, :, :3, 2]
        w = c[:, :, None, :] - o[:, None, :, :]  # (T, nv, nj, 3)
        along = np.einsum("tvjk,tjk->tvj", w, a)
        perp = np.sqrt(np.maximum(np.einsum("tvjk,tvjk->tvj", w, w) - along**2, 0.0))
        return P, perp

    def speed(
        self,
        qd: np.ndarray,
        perp0: np.ndarray,
        perp1: np.ndarray,
        h: np.ndarray,
        radius: np.ndarray,
    ) -> np.ndarray:
        """Bound on the speed (m/s) of any point of any volume over ``K`` intervals:
        ``qd (K, nq)`` joint speed bounds, ``perp0/perp1 (K, nv, nj)`` the levers at
        the ends, ``h (K,)`` the widths; returns ``(K,)``."""
        K, nv = len(h), len(radius)
        nj = len(self.joint_link)
        if nj == 0:
            return np.zeros(K)
        w = qd[:, self.qi] * self.mult  # (K, nj) joint speeds
        acc = np.zeros((K, nv))  # speed of each volume centre from the later joints
        omega = np.zeros((K, nv))
        ends = np.maximum(perp0, perp1)
        for j in range(nj - 1, -1, -1):
            on = self.on_path[:, j]
            if not on.any():
                continue
            if self.prismatic[j]:
                acc[:, on] += w[:, j : j + 1]
                continue
            lever = np.minimum(self.static[on, j], ends[:, on, j] + 0.5 * h[:, None] * acc[:, on])
            acc[:, on] += w[:, j : j + 1] * lever
            omega[:, on] += w[:, j : j + 1]
        return np.max(acc + omega * radius[None, :], axis=1)


class Motion:
    """A placed robot following its trajectory: volume poses, levers and speed bounds
    at any times (what the certified check evaluates)."""

    def __init__(self, robot: PlacedRobot, trajectory: Trajectory) -> None:
        self.robot = robot
        self.trajectory = trajectory
        self.mover = _Mover(robot, trajectory)
        self.levers = _Levers(robot)

    def following(self, trajectory: Trajectory) -> Motion:
        """The same robot on another trajectory (the kinematic tables are shared)."""
        m = object.__new__(Motion)
        m.robot, m.trajectory, m.levers = self.robot, trajectory, self.levers
        m.mover = _Mover(self.robot, trajectory)
        return m

    @property
    def exact(self) -> bool:
        return bool(self.trajectory.exact_speed_bound)

    def at(self, t: np.ndarray, check: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Volume poses ``(T, nv, 4, 4)`` and levers ``(T, nv, nj)`` at times ``t (T,)``."""
        q = self.trajectory.q(t)
        if check:
            try:
                self.robot.model.check_limits(q)
            except InputError as exc:
                raise InputError(f"robot {self.robot.name!r}: trajectory: {exc}") from None
        return self.levers.frames(q)

    def speed(
        self, t0: np.ndarray, t1: np.ndarray, perp0: np.ndarray, perp1: np.ndarray
    ) -> np.ndarray:
        """Max speed (m/s) of any volume point over each ``[t0, t1]`` ``(K,)``."""
        qd = self.trajectory.speed_bound(t0, t1)
        return self.levers.speed(qd, perp0, perp1, t1 - t0, self.mover.radius)


@dataclass(frozen=True, eq=False)
class CertifiedPair:
    """One robot pair's certified clearance.

    Attributes:
        name: ``"A-B"``.
        min_distance_lower_bound: no distance over the run is below it (m).
        min_distance: the smallest distance evaluated (m), at ``t_min`` (s): the true
            minimum lies in ``[min_distance_lower_bound, min_distance]``.
        collision_intervals: ``((t_start, t_end), ...)`` (s) where the distance is at
            most ``level``; ends to ``time_tol``.
        unresolved: intervals (s) narrower than ``time_tol`` whose bound is not above
            the level and whose samples are (a touch at the level within ``time_tol``).
        clear: True when the bound is above the level (no collision anywhere).
        exact: True when both robots' speed bounds are exact (the bound is a proof).
        evaluations: distance evaluations beyond the samples (refinement; the
            bisection of interval ends not counted).
        budget_exhausted: the refinement stopped at ``max_evaluations``.
    """

    name: str
    min_distance_lower_bound: float
    min_distance: float
    t_min: float
    collision_intervals: tuple[tuple[float, float], ...]
    unresolved: tuple[tuple[float, float], ...]
    level: float
    exact: bool
    evaluations: int
    budget_exhausted: bool

    @property
    def clear(self) -> bool:
        return self.min_distance_lower_bound > self.level

    def summary(self) -> dict[str, object]:
        return {
            "min_distance": self.min_distance,
            "t_min": self.t_min,
            "min_distance_lower_bound_m": self.min_distance_lower_bound,
            "collision_intervals": [list(iv) for iv in self.collision_intervals],
            "unresolved_intervals": [list(iv) for iv in self.unresolved],
            "clear": self.clear,
            "speed_bound": "exact" if self.exact else "estimated",
            "evaluations": self.evaluations,
            "budget_exhausted": self.budget_exhausted,
        }


@dataclass(frozen=True, eq=False)
class CertifiedResult:
    """Sample times ``(T,)`` (s), the sampled distance of every pair ``(T,)`` (m) and
    its :class:`CertifiedPair`."""

    times: np.ndarray
    distance: Mapping[str, np.ndarray]
    pairs: Mapping[str, CertifiedPair]
    level: float

    @property
    def certified(self) -> bool:
        """Every pair's bound is a proof (exact speed bounds, refinement finished)."""
        return all(p.exact and not p.budget_exhausted for p in self.pairs.values())

    @property
    def collision_free(self) -> bool:
        """Certified and every pair's lower bound above the level."""
        return self.certified and all(p.clear for p in self.pairs.values())

    @cached_property
    def min_distance_lower_bound(self) -> float:
        return min((p.min_distance_lower_bound for p in self.pairs.values()), default=math.inf)

    def to_json(self) -> dict[str, object]:
        return {
            "certified": self.certified,
            "level": self.level,
            "collision_free": self.collision_free,
            "pairs": {k: p.summary() for k, p in self.pairs.items()},
        }


def certify_pair(
    ma: Motion,
    mb: Motion,
    times: np.ndarray,
    level: float,
    *,
    samples: tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None,
    time_tol: float = 1e-6,
    tight_tol: float = 1e-3,
    max_evaluations: int | None = None,
    stop_at_contact: bool = False,
) -> tuple[CertifiedPair, np.ndarray]:
    """Certify one pair over ``times (n,)`` (s, increasing). ``samples``: the motions'
    :meth:`Motion.at` at ``times`` if already computed. ``stop_at_contact``: return as
    soon as a sample at or below the level is found (a planner's quick "no"; the
    intervals are then not refined). Returns the pair and its sampled distances."""
    times = np.asarray(times, dtype=np.float64)
    n = len(times)
    (Pa, La), (Pb, Lb) = samples if samples is not None else (ma.at(times), mb.at(times))
    d_s = _pair_distance(ma.mover, mb.mover, Pa, Pb)[0]
    name = f"{ma.robot.name}-{mb.robot.name}"
    exact = ma.exact and mb.exact
    budget = max_evaluations if max_evaluations is not None else 20 * n + 2000
    t, d, la, lb = times.copy(), d_s.copy(), La, Lb
    lo = np.arange(n - 1)
    hi = np.arange(1, n)
    done_lo: list[np.ndarray] = []
    done_hi: list[np.ndarray] = []
    done_lb: list[np.ndarray] = []
    evals = 0
    exhausted = False
    found = bool(np.any(d_s <= level))
    stopped = False
    while lo.size:
        if stop_at_contact and found:
            stopped = True
            break
        va = ma.speed(t[lo], t[hi], la[lo], la[hi])
        vb = mb.speed(t[lo], t[hi], lb[lo], lb[hi])
        width = t[hi] - t[lo]
        bound = interval_lower_bound(d[lo], d[hi], (va + vb) * width)
        above = (d[lo] > level) & (d[hi] > level)
        split = (above & (bound <= level)) | (bound < float(np.min(d)) - tight_tol)
        split &= width > 2 * time_tol
        if split.any() and evals + int(split.sum()) > budget:
            exhausted = True
            split[:] = False
        keep = ~split
        done_lo.append(lo[keep])
        done_hi.append(hi[keep])
        done_lb.append(bound[keep])
        if not split.any():
            break
        slo, shi = lo[split], hi[split]
        mid = 0.5 * (t[slo] + t[shi])
        (Pma, Lma), (Pmb, Lmb) = ma.at(mid), mb.at(mid)
        dm = _pair_distance(ma.mover, mb.mover, Pma, Pmb)[0]
        evals += len(mid)
        found = found or bool(np.any(dm <= level))
        k0 = len(t)
        t = np.concatenate([t, mid])
        d = np.concatenate([d, dm])
        la = np.concatenate([la, Lma])
        lb = np.concatenate([lb, Lmb])
        idx = np.arange(k0, k0 + len(mid))
        lo = np.concatenate([slo, idx])
        hi = np.concatenate([idx, shi])
    if stopped:  # the open intervals count unbounded
        done_lo.append(lo)
        done_hi.append(hi)
        done_lb.append(np.full(len(lo), -math.inf))
    ilo = np.concatenate(done_lo) if done_lo else np.zeros(0, np.int64)
    ihi = np.concatenate(done_hi) if done_hi else np.zeros(0, np.int64)
    ilb = np.concatenate(done_lb) if done_lb else np.zeros(0)
    lower = float(min(np.min(ilb, initial=math.inf), np.min(d)))
    above_both = (d[ilo] > level) & (d[ihi] > level)
    unresolved_mask = above_both & (ilb <= level)
    unresolved = tuple(
        (float(t[a]), float(t[b]))
        for a, b in zip(ilo[unresolved_mask], ihi[unresolved_mask], strict=True)
    )
    order = np.argsort(t, kind="stable")
    ts, ds = t[order], d[order]
    intervals: list[tuple[float, float]] = []
    if not stop_at_contact and np.any(ds <= level):
        intervals = _intervals_from_runs(ma.mover, mb.mover, ts, ds <= level, level, time_tol, [])
    k = int(np.argmin(d))
    pair = CertifiedPair(
        name=name,
        min_distance_lower_bound=lower,
        min_distance=float(d[k]),
        t_min=float(t[k]),
        collision_intervals=tuple(intervals),
        unresolved=unresolved,
        level=float(level),
        exact=exact,
        evaluations=evals,
        budget_exhausted=exhausted,
    )
    return pair, d_s


def certified_run(
    scene: Scene,
    trajectories: Mapping[str, Trajectory],
    dt: float,
    *,
    level: float | None = None,
    t_start: float = 0.0,
    t_end: float | None = None,
    time_tol: float = 1e-6,
    tight_tol: float = 1e-3,
    max_evaluations: int | None = None,
    pairs: Sequence[tuple[str, str]] | None = None,
) -> CertifiedResult:
    """Certified clearance of every robot pair of ``scene`` (or of ``pairs``): sampled
    every ``dt`` (s) as :func:`robotsim.clearance.run` samples, each interval between
    samples bounded and refined (see the module). ``level`` defaults to the scene's
    contact threshold: a pair is clear when its lower bound is above it."""
    if not (np.isfinite(dt) and dt > 0):
        raise InputError(f"dt must be finite and > 0, got {dt!r}")
    lvl = scene.contact_threshold if level is None else float(level)
    if not math.isfinite(lvl):
        raise InputError(f"level must be finite, got {level!r}")
    motions: dict[str, Motion] = {}
    for r in scene.robots:
        if r.name not in trajectories:
            raise UnknownNameError("trajectory for robot", r.name, list(trajectories))
        motions[r.name] = Motion(r, trajectories[r.name])
    for name in trajectories:
        scene.robot(name)
    end = max(m.trajectory.end for m in motions.values()) if t_end is None else float(t_end)
    _check_budget([m.mover for m in motions.values()], (end - t_start) / dt + 2, dt, False)
    count = math.floor((end - t_start) / dt + 1e-9) + 1
    times = t_start + dt * np.arange(count)
    if times[-1] < end - 1e-12:
        times = np.append(times, end)
    if len(times) < 2:
        times = np.array([t_start, t_start + dt])
    if pairs is None:
        names = [r.name for r in scene.robots]
        pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    used = {n for p in pairs for n in p}
    samples = {n: motions[n].at(times, check=True) for n in used}
    out: dict[str, CertifiedPair] = {}
    dist: dict[str, np.ndarray] = {}
    for a, b in pairs:
        p, d = certify_pair(
            motions[a],
            motions[b],
            times,
            lvl,
            samples=(samples[a], samples[b]),
            time_tol=time_tol,
            tight_tol=tight_tol,
            max_evaluations=max_evaluations,
        )
        d.setflags(write=False)
        out[p.name], dist[p.name] = p, d
    times.setflags(write=False)
    return CertifiedResult(times, dist, out, lvl)


def merge_certified(payload: dict[str, Any], cert: dict[str, Any]) -> dict[str, Any]:
    """The sampled summary with the certified results: ``certified`` at the top and,
    per pair, ``min_distance_lower_bound_m`` and the collision intervals the certified
    check found (every collision, of any duration)."""
    pairs = {k: dict(v) for k, v in payload["pairs"].items()}
    for k, c in cert["pairs"].items():
        row = pairs.setdefault(k, {})
        row["min_distance_lower_bound_m"] = c["min_distance_lower_bound_m"]
        row["collision_intervals"] = c["collision_intervals"]
        row["unresolved_intervals"] = c["unresolved_intervals"]
        row["certified_clear"] = c["clear"]
    return {
        "certified": cert["certified"],
        "collision_free": cert["collision_free"],
        **payload,
        "pairs": pairs,
    }
