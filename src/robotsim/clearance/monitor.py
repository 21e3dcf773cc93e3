"""Distance-versus-time between robots moving along trajectories, and the collision
intervals.

:func:`run` samples every trajectory at ``t_k = t_0 + k dt``, places each robot's
bounding volumes, and for every pair of robots computes the exact signed distance
(minimum over their volume pairs) at every sample. Then, per pair:

* the minimum: the best sample is refined by zooming on the two steps around it
  (33 evaluations per round, 5 rounds: resolution ``dt * (2/32)^5``);
* the collision intervals ``[t_start, t_end]`` where distance <= ``contact_threshold``:
  runs of samples below the threshold, plus any sampled local minimum whose refined
  value dips below it, with both ends found by bisection on the trajectory (the robots'
  true configurations at intermediate times) down to ``time_tol`` (s). An interval end
  therefore does not depend on ``dt`` beyond ``time_tol``; a contact that lasts less
  than ``dt`` and does not show as a local minimum of the samples can be missed.

Broad phase: robots whose swept bounding boxes (over the whole run) stay farther apart
than ``cutoff`` are not paired at all (sweep and prune); within a pair, samples where
the robots' boxes are farther than ``cutoff`` get ``inf``; volume pairs are visited in
order of their bounding-sphere lower bound and skipped where that bound already
exceeds the best distance found (branch and bound, exact).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np

from robotsim.clearance.scene import PlacedRobot, Scene
from robotsim.clearance.trajectory import Trajectory
from robotsim.errors import InputError, UnknownNameError
from robotsim.geometry import support as sp
from robotsim.geometry.broadphase import aabb, aabb_gap, bounding_radius, sweep_and_prune
from robotsim.geometry.paper import paper_ellipsoid_distance
from robotsim.geometry.shapes import packed_distance

__all__ = ["ClearanceResult", "PairClearance", "run"]

_ROUND = (sp.SPHERE, sp.ELLIPSOID)


@dataclass(frozen=True, eq=False)
class PairClearance:
    """Clearance of one robot pair.

    Attributes:
        name: ``"A-B"``.
        distance: sampled signed distance ``(T,)`` (m); ``inf`` beyond the cutoff.
        min_distance: refined minimum (m) and ``t_min`` its time (s).
        closest: volume labels ``(of A, of B)`` at the minimum.
        collision_intervals: ``((t_start, t_end), ...)`` (s).
        links: per volume pair ``"linkA-linkB" -> (T,)`` curves, when requested.
    """

    name: str
    distance: np.ndarray
    min_distance: float
    t_min: float
    closest: tuple[str, str]
    collision_intervals: tuple[tuple[float, float], ...]
    links: Mapping[str, np.ndarray] | None = None

    def summary(self) -> dict[str, object]:
        return {
            "min_distance": self.min_distance,
            "t_min": self.t_min,
            "closest": list(self.closest),
            "collision_intervals": [list(iv) for iv in self.collision_intervals],
        }


@dataclass(frozen=True, eq=False)
class ClearanceResult:
    """Sample times ``(T,)`` (s) and :class:`PairClearance` per robot pair."""

    times: np.ndarray
    pairs: Mapping[str, PairClearance]
    contact_threshold: float
    time_tol: float

    def to_json(self) -> dict[str, object]:
        """Per pair its summary; with per-link curves also, per volume pair, the sampled
        minimum (m) and its time (s) under ``"link_pairs"``."""
        out: dict[str, object] = {}
        for k, p in self.pairs.items():
            row = p.summary()
            if p.links:
                row["link_pairs"] = {
                    name: {"min_distance": float(np.min(c)),
                           "t_min": float(self.times[int(np.argmin(c))])}
                    for name, c in p.links.items()
                }  # fmt: skip
            out[k] = row
        return {"pairs": out}


class _Mover:
    """A robot with its trajectory: volume poses and boxes at any times."""

    def __init__(self, robot: PlacedRobot, traj: Trajectory, method: str = "exact") -> None:
        self.robot = robot
        self.traj = traj
        self.method = method
        self.kinds, self.sizes = robot.packed
        self.radius = np.array(
            [float(bounding_radius(k, s)) for k, s in zip(self.kinds, self.sizes, strict=True)]
        )

    def poses(self, t: np.ndarray, check: bool = False) -> np.ndarray:
        q = self.traj.q(t)
        if check:
            try:
                self.robot.model.check_limits(q)
            except InputError as exc:
                raise InputError(f"robot {self.robot.name!r}: trajectory: {exc}") from None
        return self.robot.volume_poses(q)

    def boxes(self, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Union box of all volumes ``(T, 3)`` each."""
        lo = np.full((P.shape[0], 3), np.inf)
        hi = np.full((P.shape[0], 3), -np.inf)
        for k, kind in enumerate(self.kinds):
            a, b = aabb(kind, self.sizes[k], P[:, k, :3, :3], P[:, k, :3, 3])
            lo, hi = np.minimum(lo, a), np.maximum(hi, b)
        return lo, hi


def _pair_distance(
    ma: _Mover,
    mb: _Mover,
    Pa: np.ndarray,
    Pb: np.ndarray,
    active: np.ndarray | None = None,
    all_links: bool = False,
) -> tuple[np.ndarray, np.ndarray, dict[tuple[int, int], np.ndarray]]:
    """Min over volume pairs ``(T,)``, the argmin volume pair index ``(T,)`` and, when
    ``all_links``, every volume pair's curve. ``active`` masks samples to compute."""
    T = Pa.shape[0]
    best = np.full(T, np.inf)
    arg = np.zeros(T, dtype=np.int64)
    curves: dict[tuple[int, int], np.ndarray] = {}
    act = np.ones(T, dtype=bool) if active is None else active
    nb = len(mb.kinds)
    pairs = [(i, j) for i in range(len(ma.kinds)) for j in range(nb)]
    lb = {}
    for i, j in pairs:
        gap = np.linalg.norm(Pa[:, i, :3, 3] - Pb[:, j, :3, 3], axis=1)
        lb[(i, j)] = gap - ma.radius[i] - mb.radius[j]
    order = sorted(pairs, key=lambda p: float(np.mean(lb[p])))
    for i, j in order:
        need = act if all_links else act & (lb[(i, j)] < best)
        idx = np.flatnonzero(need)
        if idx.size == 0:
            continue
        if ma.method == "paper" and ma.kinds[i] in _ROUND and mb.kinds[j] in _ROUND:
            d = paper_ellipsoid_distance(
                Pa[idx, i, :3, 3],
                Pa[idx, i, :3, :3],
                np.broadcast_to(ma.sizes[i], (idx.size, 3)),
                Pb[idx, j, :3, 3],
                Pb[idx, j, :3, :3],
                np.broadcast_to(mb.sizes[j], (idx.size, 3)),
            ).distance
        else:
            d, *_ = packed_distance(
                ma.kinds[i],
                np.broadcast_to(ma.sizes[i], (idx.size, 3)),
                Pa[idx, i, :3, :3],
                Pa[idx, i, :3, 3],
                mb.kinds[j],
                np.broadcast_to(mb.sizes[j], (idx.size, 3)),
                Pb[idx, j, :3, :3],
                Pb[idx, j, :3, 3],
            )
        if all_links:
            full = np.full(T, np.inf)
            full[idx] = d
            curves[(i, j)] = full
        upd = d < best[idx]
        best[idx[upd]] = d[upd]
        arg[idx[upd]] = i * nb + j
    return best, arg, curves


def _distance_at(ma: _Mover, mb: _Mover, t: np.ndarray) -> np.ndarray:
    return _pair_distance(ma, mb, ma.poses(t), mb.poses(t))[0]


def _zoom_min(ma: _Mover, mb: _Mover, lo: float, hi: float, rounds: int = 5) -> tuple[float, float]:
    t_best, d_best = lo, math.inf
    for _ in range(rounds):
        ts = np.linspace(lo, hi, 33)
        d = _distance_at(ma, mb, ts)
        k = int(np.argmin(d))
        if d[k] < d_best:
            t_best, d_best = float(ts[k]), float(d[k])
        lo, hi = ts[max(k - 1, 0)], ts[min(k + 1, 32)]
    return d_best, t_best


def _bisect(
    ma: _Mover,
    mb: _Mover,
    below_lo: np.ndarray,
    t_lo: np.ndarray,
    t_hi: np.ndarray,
    thr: float,
    tol: float,
) -> np.ndarray:
    """Crossing times of ``d(t) = thr`` in ``[t_lo, t_hi]`` (vectorised); ``below_lo``
    says which end is in contact."""
    lo, hi = t_lo.astype(float).copy(), t_hi.astype(float).copy()
    while lo.size and np.max(hi - lo) > tol:
        mid = 0.5 * (lo + hi)
        inside = _distance_at(ma, mb, mid) <= thr
        move_lo = inside == below_lo  # mid on the same side as lo
        lo = np.where(move_lo, mid, lo)
        hi = np.where(move_lo, hi, mid)
    return 0.5 * (lo + hi)


def _intervals(
    ma: _Mover, mb: _Mover, times: np.ndarray, d: np.ndarray, thr: float, tol: float
) -> list[tuple[float, float]]:
    n = len(times)
    below = d <= thr
    extra = []
    # sampled local minima above the threshold that may dip below between samples
    for k in range(1, n - 1):
        if below[k] or not (d[k] <= d[k - 1] and d[k] <= d[k + 1]) or not np.isfinite(d[k]):
            continue
        slope = max(abs(d[k] - d[k - 1]), abs(d[k + 1] - d[k]))
        if d[k] - thr <= slope:
            dm, tm = _zoom_min(ma, mb, float(times[k - 1]), float(times[k + 1]))
            if dm <= thr:
                s = _bisect(ma, mb, np.array([False]), times[k - 1 : k], np.array([tm]), thr, tol)
                e = _bisect(
                    ma, mb, np.array([True]), np.array([tm]), times[k + 1 : k + 2], thr, tol
                )
                extra.append((k, float(s[0]), float(e[0])))
                below[k] = True
    return _intervals_from_runs(ma, mb, times, below, thr, tol, extra)


def _intervals_from_runs(ma, mb, times, below, thr, tol, extra):  # type: ignore[no-untyped-def]
    n = len(times)
    extra_k = {k: (s, e) for k, s, e in extra}
    b = below.astype(np.int8)
    starts = np.flatnonzero(np.diff(np.concatenate([[0], b])) == 1)
    ends = np.flatnonzero(np.diff(np.concatenate([b, [0]])) == -1)
    out: list[tuple[float, float]] = []
    # refine run ends in one vectorised bisection each
    s_idx = [k for k in starts if k > 0 and k not in extra_k]
    e_idx = [k for k in ends if k < n - 1 and k not in extra_k]
    s_t = (
        _bisect(
            ma,
            mb,
            np.zeros(len(s_idx), bool),
            times[np.array(s_idx, int) - 1],
            times[np.array(s_idx, int)],
            thr,
            tol,
        )
        if s_idx
        else np.zeros(0)
    )
    e_t = (
        _bisect(
            ma,
            mb,
            np.ones(len(e_idx), bool),
            times[np.array(e_idx, int)],
            times[np.array(e_idx, int) + 1],
            thr,
            tol,
        )
        if e_idx
        else np.zeros(0)
    )
    s_map = dict(zip(s_idx, s_t, strict=True))
    e_map = dict(zip(e_idx, e_t, strict=True))
    for k0, k1 in zip(starts, ends, strict=True):
        if k0 == k1 and k0 in extra_k:
            out.append(extra_k[k0])
            continue
        t0 = float(s_map.get(k0, times[k0]))
        t1 = float(e_map.get(k1, times[k1]))
        out.append((t0, t1))
    return out


def per_sample_bytes(movers: list[_Mover], link_pairs: bool) -> int:
    """Bytes one sample holds while it is computed: every link pose (4x4), every
    volume's box (2x3) and distance work arrays per volume pair, in float64."""
    links = sum(len(m.robot.model.link_names) for m in movers)
    vols = [max(1, len(m.kinds)) for m in movers]
    pairs = sum(a * b for i, a in enumerate(vols) for b in vols[i + 1 :])
    return 8 * (16 * links + 6 * sum(vols) + 4 * pairs * (2 if link_pairs else 1) + 8)


def _check_budget(movers: list[_Mover], samples: float, dt: float, link_pairs: bool) -> None:
    """Refuse before allocating (:func:`per_sample_bytes` per sample)."""
    from robotsim import budget

    per = per_sample_bytes(movers, link_pairs)
    budget.check(
        f"clearance sampling: {samples:.3g} samples of {dt:g} s",
        samples * per,
        "use a larger dt",
    )


def run(
    scene: Scene,
    trajectories: Mapping[str, Trajectory],
    dt: float,
    *,
    t_start: float = 0.0,
    t_end: float | None = None,
    link_pairs: bool = False,
    cutoff: float = math.inf,
    time_tol: float = 1e-6,
    method: Literal["exact", "paper"] = "exact",
) -> ClearanceResult:
    """Distance curves and collision intervals of every robot pair of ``scene``.

    Args:
        trajectories: robot name -> :class:`Trajectory` (every robot needs one).
        dt: sampling step (s). ``t_end`` defaults to the end of the longest trajectory.
        link_pairs: also return every volume pair's curve.
        cutoff: distances beyond it need not be computed (``inf`` in the curves).
        time_tol: bisection tolerance of interval ends (s).
        method: ``"paper"`` uses the seed paper's level-set distance
            (:func:`robotsim.geometry.paper_ellipsoid_distance`, an approximation, the
            first robot of a pair as "A") for ellipsoid/sphere volume pairs.
    """
    if method not in ("exact", "paper"):
        raise InputError(f"method must be 'exact' or 'paper', got {method!r}")
    if not (np.isfinite(dt) and dt > 0):
        raise InputError(f"dt must be finite and > 0, got {dt!r}")
    for name in trajectories:
        scene.robot(name)
    movers = []
    for r in scene.robots:
        if r.name not in trajectories:
            raise UnknownNameError("trajectory for robot", r.name, list(trajectories))
        movers.append(_Mover(r, trajectories[r.name], method))
    end = max(m.traj.end for m in movers) if t_end is None else float(t_end)
    _check_budget(movers, (end - t_start) / dt + 2, dt, link_pairs)
    n = math.floor((end - t_start) / dt + 1e-9) + 1
    times = t_start + dt * np.arange(n)
    if times[-1] < end - 1e-12:
        times = np.append(times, end)
    n = len(times)
    P = [m.poses(times, check=True) for m in movers]
    boxes = [m.boxes(p) for m, p in zip(movers, P, strict=True)]
    lo = np.array([b[0].min(axis=0) for b in boxes])
    hi = np.array([b[1].max(axis=0) for b in boxes])
    if math.isfinite(cutoff):
        cand = sweep_and_prune(lo, hi, margin=cutoff)
    else:
        cand = np.array(
            [(i, j) for i in range(len(movers)) for j in range(i + 1, len(movers))], dtype=np.int64
        ).reshape(-1, 2)
    thr = scene.contact_threshold
    pairs: dict[str, PairClearance] = {}
    for i, j in cand:
        ma, mb = movers[i], movers[j]
        active = None
        if math.isfinite(cutoff):
            active = aabb_gap(*boxes[i], *boxes[j]) <= cutoff
        d, arg, curves = _pair_distance(ma, mb, P[i], P[j], active, link_pairs)
        name = f"{ma.robot.name}-{mb.robot.name}"
        k = int(np.argmin(d))
        if np.isfinite(d[k]):
            d_min, t_min = _zoom_min(
                ma, mb, float(times[max(k - 1, 0)]), float(times[min(k + 1, n - 1)])
            )
            if d[k] < d_min:
                d_min, t_min = float(d[k]), float(times[k])
            intervals = _intervals(ma, mb, times, d, thr, time_tol)
        else:
            d_min, t_min, intervals = math.inf, math.nan, []
        nb = len(mb.kinds)
        closest = (
            ma.robot.volume_label(int(arg[k]) // nb),
            mb.robot.volume_label(int(arg[k]) % nb),
        )
        links = None
        if link_pairs:
            links = {
                f"{ma.robot.volume_label(a)}-{mb.robot.volume_label(b)}": c
                for (a, b), c in curves.items()
            }
        d.setflags(write=False)
        pairs[name] = PairClearance(name, d, d_min, t_min, closest, tuple(intervals), links)
    times.setflags(write=False)
    return ClearanceResult(times, pairs, thr, time_tol)
