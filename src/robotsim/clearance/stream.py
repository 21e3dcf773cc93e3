"""Clearance of a long run in chunks: memory bounded by the chunk, not the run.

:func:`robotsim.clearance.run` holds every sample of every robot (link poses, volume
boxes, distance work arrays) at once, so its memory grows with ``duration / dt`` and
the memory budget refuses long runs. :class:`ClearanceStream` computes the same thing
chunk by chunk: :meth:`ClearanceStream.chunks` yields the sample times and each pair's
distances (and volume-pair curves) for consecutive slices of the run, which the report
writes to its files as they come (:func:`robotsim.clearance.report.stream_outputs`);
the per-pair minimum, its closest volumes and the collision intervals are carried from
chunk to chunk and are in :meth:`ClearanceStream.summary` afterwards.

The results are those of :func:`~robotsim.clearance.run`: the same sample times and
distances (bit for bit), the same refined minimum, and the same intervals (interval
ends found by bisection may differ below ``time_tol`` when the run spans several
chunks, as bisections are batched per chunk). A run that fits one chunk (every usual
run: the chunk is 16,384 samples, fewer if the memory budget is small) is computed
exactly as :func:`~robotsim.clearance.run` computes it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from robotsim.clearance.monitor import (
    _bisect,
    _check_budget,
    _Mover,
    _pair_distance,
    _zoom_min,
    per_sample_bytes,
)
from robotsim.clearance.scene import Scene
from robotsim.clearance.trajectory import Trajectory
from robotsim.errors import InputError, UnknownNameError
from robotsim.geometry.broadphase import aabb_gap, sweep_and_prune

__all__ = ["CHUNK", "ClearanceChunk", "ClearanceStream", "ClearanceSummary", "PairSummary"]

#: Samples per chunk (fewer when the memory budget is small: a quarter of it per chunk).
CHUNK = 16384
MIN_CHUNK = 64


@dataclass(frozen=True)
class ClearanceChunk:
    """Consecutive samples of the run: ``times`` ``(m,)`` (s), ``distance`` per pair
    ``(m,)`` (m), ``links`` per pair and volume pair ``(m,)`` (with ``link_pairs``)."""

    start: int  # index of the first sample in the run
    times: np.ndarray
    distance: Mapping[str, np.ndarray]
    links: Mapping[str, Mapping[str, np.ndarray]] = field(default_factory=dict)


@dataclass(frozen=True)
class PairSummary:
    """What :class:`~robotsim.clearance.PairClearance` says about a pair, without the
    curves: refined minimum (m) at ``t_min`` (s), closest volumes, intervals (s), and
    per volume pair the sampled minimum and its time (with ``link_pairs``)."""

    name: str
    min_distance: float
    t_min: float
    closest: tuple[str, str]
    collision_intervals: tuple[tuple[float, float], ...]
    link_minima: Mapping[str, tuple[float, float]] | None = None

    def summary(self) -> dict[str, object]:
        return {
            "min_distance": self.min_distance,
            "t_min": self.t_min,
            "closest": list(self.closest),
            "collision_intervals": [list(iv) for iv in self.collision_intervals],
        }


@dataclass(frozen=True)
class ClearanceSummary:
    """The run's per-pair results (:class:`PairSummary`), as
    :meth:`~robotsim.clearance.ClearanceResult.to_json` reports them."""

    samples: int
    pairs: Mapping[str, PairSummary]
    contact_threshold: float
    time_tol: float

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {}
        for k, p in self.pairs.items():
            row = p.summary()
            if p.link_minima:
                row["link_pairs"] = {
                    n: {"min_distance": d, "t_min": t} for n, (d, t) in p.link_minima.items()
                }
            out[k] = row
        return {"pairs": out}


class _Intervals:
    """Collision intervals of one pair from its distance chunks, as
    :func:`robotsim.clearance.monitor._intervals` finds them for the whole run.

    The last two samples of a chunk are carried into the next: a sample is a local
    minimum candidate once both neighbours are known, and a run of samples in contact
    ends once the sample after it is known."""

    def __init__(self, ma: _Mover, mb: _Mover, thr: float, tol: float) -> None:
        self.ma, self.mb, self.thr, self.tol = ma, mb, thr, tol
        self.tail_t = np.zeros(0)
        self.tail_d = np.zeros(0)
        self.tail_below = np.zeros(0, bool)
        self.tail_extra: dict[int, tuple[float, float]] = {}
        self.first = True
        self.open_start: float | None = None  # start time of a run still in contact
        self.open_index = -1  # global index where it started
        self.offset = 0  # global index of ext[0]
        self.out: list[tuple[float, float]] = []

    def add(self, times: np.ndarray, d: np.ndarray, final: bool) -> None:
        ma, mb, thr, tol = self.ma, self.mb, self.thr, self.tol
        carried = len(self.tail_t)
        t = np.concatenate([self.tail_t, times])
        dd = np.concatenate([self.tail_d, d])
        n = len(t)
        below = np.concatenate([self.tail_below, dd[carried:] <= thr])
        extra = dict(self.tail_extra)
        # local minima above the threshold that may dip below between samples; decided
        # for samples with both neighbours here (not the run's first or last sample)
        lo_k = 1  # ext[0] is the run's first sample or was decided in the last chunk
        hi_k = n - 1  # exclusive: the last sample waits for its right neighbour
        if hi_k > lo_k:
            k = np.arange(lo_k, hi_k)
            dk, dl, dr = dd[k], dd[k - 1], dd[k + 1]
            with np.errstate(invalid="ignore"):
                slope = np.maximum(np.abs(dk - dl), np.abs(dr - dk))
                cand = (~below[k]) & (dk <= dl) & (dk <= dr) & np.isfinite(dk)
                cand &= dk - thr <= slope
            for kk in k[cand]:
                dm, tm = _zoom_min(ma, mb, float(t[kk - 1]), float(t[kk + 1]))
                if dm <= thr:
                    s = _bisect(ma, mb, np.array([False]), t[kk - 1 : kk], np.array([tm]), thr, tol)
                    e = _bisect(ma, mb, np.array([True]), np.array([tm]), t[kk + 1 : kk + 2], thr,
                                tol)  # fmt: skip
                    extra[int(kk)] = (float(s[0]), float(e[0]))
                    below[kk] = True
        last = n if final else n - 1  # samples decided: [0, last)
        b = below[:last].astype(np.int8)
        prev = 0 if self.first else int(below[0])
        # run starts among the samples not yet looked at, run ends among those whose
        # next sample is decided (or the run's last sample)
        s0 = 0 if self.first else 1
        diff_s = np.diff(np.concatenate([[prev], b]))  # diff_s[i]: sample i vs i-1
        starts = [i for i in np.flatnonzero(diff_s == 1) if i >= s0]
        nxt = np.concatenate([b[1:], [0]]) if final else b[1:]
        ends = list(np.flatnonzero((b[: len(nxt)] == 1) & (nxt == 0)))
        s_idx = [i for i in starts if not (self.first and i == 0) and i not in extra]
        e_idx = [i for i in ends if i < n - 1 and i not in extra]
        s_t = (
            _bisect(ma, mb, np.zeros(len(s_idx), bool), t[np.array(s_idx, int) - 1],
                    t[np.array(s_idx, int)], thr, tol)
            if s_idx else np.zeros(0)
        )  # fmt: skip
        e_t = (
            _bisect(ma, mb, np.ones(len(e_idx), bool), t[np.array(e_idx, int)],
                    t[np.array(e_idx, int) + 1], thr, tol)
            if e_idx else np.zeros(0)
        )  # fmt: skip
        s_map = dict(zip(s_idx, s_t, strict=True))
        e_map = dict(zip(e_idx, e_t, strict=True))
        events = sorted([(i, 0) for i in starts] + [(i, 1) for i in ends])
        for i, kind in events:
            if kind == 0:
                self.open_start = float(s_map.get(i, t[i]))
                self.open_index = self.offset + i
                continue
            g = self.offset + i
            if self.open_index == g and i in extra:
                self.out.append(extra[i])
            else:
                assert self.open_start is not None
                self.out.append((self.open_start, float(e_map.get(i, t[i]))))
            self.open_start = None
        self.first = False
        if not final:
            keep = n - 2
            self.tail_t, self.tail_d = t[keep:], dd[keep:]
            self.tail_below = below[keep:]
            self.tail_extra = {i - keep: v for i, v in extra.items() if i >= keep}
            self.offset += keep


class ClearanceStream:
    """:func:`robotsim.clearance.run` in chunks (module docs); the same arguments, plus
    ``chunk`` (samples per chunk; default :data:`CHUNK`, capped by the budget)."""

    def __init__(
        self,
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
        chunk: int | None = None,
    ) -> None:
        from robotsim import budget

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
        self.scene, self.trajectories, self.movers = scene, trajectories, movers
        self.dt, self.t_start = float(dt), float(t_start)
        self.end = max(m.traj.end for m in movers) if t_end is None else float(t_end)
        self.link_pairs, self.cutoff, self.time_tol = link_pairs, cutoff, time_tol
        span = (self.end - self.t_start) / self.dt
        if not math.isfinite(span) or span > 2**53:
            raise InputError(f"dt {dt:g} s: too many samples over {self.end - self.t_start:g} s")
        n = math.floor(span + 1e-9) + 1
        self.extra_end = self.t_start + self.dt * (n - 1) < self.end - 1e-12
        self.samples = n + int(self.extra_end)
        per = per_sample_bytes(movers, link_pairs)
        cap = budget.current_budget() // (4 * per)
        self.chunk = int(max(MIN_CHUNK, min(chunk or CHUNK, cap)))
        _check_budget(movers, self.chunk + 2, dt, link_pairs)  # one chunk must fit
        self._summary: ClearanceSummary | None = None

    def times(self, start: int, stop: int) -> np.ndarray:
        """Sample times of samples ``[start, stop)`` (s), as :func:`run` has them."""
        n_grid = self.samples - int(self.extra_end)
        grid = self.t_start + self.dt * np.arange(start, min(stop, n_grid))
        if self.extra_end and stop >= self.samples:  # the end, off the grid
            grid = np.append(grid, self.end)
        return grid

    def _candidates(self) -> np.ndarray:
        """Robot pairs to compute: all, or (finite cutoff) those whose boxes swept over
        the whole run come within the cutoff (one pass over the run in chunks)."""
        movers = self.movers
        if not math.isfinite(self.cutoff):
            return np.array(
                [(i, j) for i in range(len(movers)) for j in range(i + 1, len(movers))],
                dtype=np.int64,
            ).reshape(-1, 2)
        lo = np.full((len(movers), 3), np.inf)
        hi = np.full((len(movers), 3), -np.inf)
        for a in range(0, self.samples, self.chunk):
            t = self.times(a, a + self.chunk)
            for k, m in enumerate(movers):
                b = m.boxes(m.poses(t))
                lo[k] = np.minimum(lo[k], b[0].min(axis=0))
                hi[k] = np.maximum(hi[k], b[1].max(axis=0))
        return sweep_and_prune(lo, hi, margin=self.cutoff)

    def chunks(self) -> Iterator[ClearanceChunk]:
        """The run's samples, chunk by chunk; :meth:`summary` is ready after the last."""
        movers, thr = self.movers, self.scene.contact_threshold
        cand = self._candidates()
        names = [f"{movers[i].robot.name}-{movers[j].robot.name}" for i, j in cand]
        tracks = {n: _Intervals(movers[i], movers[j], thr, self.time_tol)
                  for n, (i, j) in zip(names, cand, strict=True)}  # fmt: skip
        best = dict.fromkeys(names, math.inf)
        best_at = dict.fromkeys(names, -1)
        best_arg = dict.fromkeys(names, 0)
        link_min: dict[str, dict[str, tuple[float, float]]] = {n: {} for n in names}
        for a in range(0, self.samples, self.chunk):
            times = self.times(a, a + self.chunk)
            final = a + len(times) >= self.samples
            P = [m.poses(times, check=True) for m in movers]
            boxes = [m.boxes(p) for m, p in zip(movers, P, strict=True)] if math.isfinite(
                self.cutoff) else None  # fmt: skip
            dist: dict[str, np.ndarray] = {}
            links: dict[str, dict[str, np.ndarray]] = {}
            for name, (i, j) in zip(names, cand, strict=True):
                ma, mb = movers[i], movers[j]
                active = None
                if boxes is not None:
                    active = aabb_gap(*boxes[i], *boxes[j]) <= self.cutoff
                d, arg, curves = _pair_distance(ma, mb, P[i], P[j], active, self.link_pairs)
                k = int(np.argmin(d))
                if d[k] < best[name]:
                    best[name], best_at[name], best_arg[name] = float(d[k]), a + k, int(arg[k])
                tracks[name].add(times, d, final)
                dist[name] = d
                if self.link_pairs:
                    named = {
                        f"{ma.robot.volume_label(x)}-{mb.robot.volume_label(y)}": c
                        for (x, y), c in curves.items()
                    }
                    links[name] = named
                    for ln, c in named.items():
                        kk = int(np.argmin(c))
                        if ln not in link_min[name] or c[kk] < link_min[name][ln][0]:
                            link_min[name][ln] = (float(c[kk]), float(times[kk]))
            del P, boxes
            yield ClearanceChunk(a, times, dist, links)
        pairs: dict[str, PairSummary] = {}
        last = self.samples - 1
        for name, (i, j) in zip(names, cand, strict=True):
            ma, mb = movers[i], movers[j]
            k = best_at[name]
            if k >= 0 and math.isfinite(best[name]):
                t_lo = float(self.times(max(k - 1, 0), max(k - 1, 0) + 1)[0])
                t_hi = float(self.times(min(k + 1, last), min(k + 1, last) + 1)[0])
                d_min, t_min = _zoom_min(ma, mb, t_lo, t_hi)
                if best[name] < d_min:
                    d_min, t_min = best[name], float(self.times(k, k + 1)[0])
                intervals = tuple(tracks[name].out)
            else:
                d_min, t_min, intervals, k = math.inf, math.nan, (), 0
            nb = len(mb.kinds)
            closest = (ma.robot.volume_label(best_arg[name] // nb),
                       mb.robot.volume_label(best_arg[name] % nb))  # fmt: skip
            pairs[name] = PairSummary(name, d_min, t_min, closest, intervals,
                                      link_min[name] if self.link_pairs else None)  # fmt: skip
        self._summary = ClearanceSummary(self.samples, pairs, thr, self.time_tol)

    def summary(self) -> ClearanceSummary:
        """The per-pair results (after :meth:`chunks` has run to its end)."""
        if self._summary is None:
            raise RuntimeError("ClearanceStream.summary: iterate chunks() to the end first")
        return self._summary
