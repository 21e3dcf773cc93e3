"""Obstacles as a range sensor sees them: a polar histogram of a lidar scan, for the
potential field and VFH (:mod:`robotsim.control.avoidance`) instead of the scenario's
ground-truth list.

A scan's returns are turned into world points (:func:`scan_points_2d`: the returns of
every layer, those on the ground dropped) and binned by bearing around the sensor into
``sectors`` equal sectors; the nearest return of each sector is an obstacle point
(:func:`nearest_per_sector`). That is the polar obstacle histogram of VFH (Borenstein
and Koren, 1991) kept as points, so the avoidance's own enlargement (robot radius plus
safety margin) and its clearance arithmetic apply unchanged: an obstacle ``[x, y, 0]``
is the nearest seen surface point in that direction.

The potential field sums one repulsion per obstacle; a wall seen as twenty sector points
would push twenty times as hard as one post. For it the returns are split into objects
where neighbouring returns jump apart, and each object is represented by its nearest
point (:func:`nearest_per_object`): Khatib's repulsion from the closest point of each
obstacle.

:class:`ScanObstacles` keeps the latest scan's obstacles. Returns older than the latest
scan are forgotten, except, with ``memory`` > 0 s, those outside the lidar's field of
view (a lidar looking forward still remembers what it passed for that long).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["ScanObstacles", "nearest_per_object", "nearest_per_sector", "scan_points_2d"]


def _quat_R(q: np.ndarray) -> np.ndarray:
    w, x, y, z = (float(v) for v in q)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


def scan_points_2d(
    ranges: ArrayLike,
    azimuths: ArrayLike,
    elevations: ArrayLike,
    pose: ArrayLike,
    ground: float = 0.03,
) -> np.ndarray:
    """World ``(x, y)`` ``(k, 2)`` of a scan's returns that are obstacles: ``ranges``
    ``(layers, rays)`` m (non-finite: no return), ray ``azimuths`` ``(rays,)`` and
    ``elevations`` ``(layers,)`` rad in the sensor frame, ``pose`` ``(7,)`` the sensor
    frame in the world (x, y, z, qw, qx, qy, qz). Returns less than ``ground`` m above
    the ground plane z = 0 are the ground, not obstacles."""
    az = np.asarray(azimuths, dtype=np.float64)
    el = np.asarray(elevations, dtype=np.float64)
    r = np.asarray(ranges, dtype=np.float64).reshape(len(el), len(az))
    ok = np.isfinite(r)
    if not ok.any():
        return np.zeros((0, 2))
    li, ri = np.nonzero(ok)
    d = r[ok]
    ce = np.cos(el[li])
    local = np.column_stack([d * ce * np.cos(az[ri]), d * ce * np.sin(az[ri]), d * np.sin(el[li])])
    pose = np.asarray(pose, dtype=np.float64)
    world = local @ _quat_R(pose[3:]).T + pose[:3]
    return world[world[:, 2] >= ground, :2]


def nearest_per_sector(points: ArrayLike, centre: ArrayLike, sectors: int = 72) -> np.ndarray:
    """The nearest of ``points`` ``(k, 2)`` in each of ``sectors`` bearing sectors around
    ``centre`` ``(2,)``: obstacles ``(m, 3)`` ``[x, y, 0]``, m <= sectors, sorted by
    bearing."""
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(p) == 0:
        return np.zeros((0, 3))
    c = np.asarray(centre, dtype=np.float64)[:2]
    rel = p - c
    dist = np.hypot(rel[:, 0], rel[:, 1])
    sector = ((np.arctan2(rel[:, 1], rel[:, 0]) + math.pi) * (sectors / (2 * math.pi))).astype(
        np.int64
    ) % sectors
    order = np.lexsort((dist, sector))  # by sector, nearest first
    first = np.ones(len(order), dtype=bool)
    first[1:] = sector[order][1:] != sector[order][:-1]
    pick = order[first]
    return np.column_stack([p[pick], np.zeros(len(pick))])


def nearest_per_object(
    points: ArrayLike,
    centre: ArrayLike,
    join: float = 0.3,
    incidence_deg: float = 10.0,
    max_gap_deg: float = 5.0,
) -> np.ndarray:
    """One obstacle per object seen: ``points`` ``(k, 2)`` ordered by bearing around
    ``centre`` are split where two neighbours lie more than ``max_gap_deg`` apart in
    bearing (no return between them) or farther apart than ``join + r dphi /
    sin(incidence)`` (``r`` their distance, ``dphi`` the bearing between them: a surface
    seen at a grazing angle below ``incidence_deg`` breaks, the adaptive breakpoint rule
    of Borges and Aldon, 2004), and each group is represented by its nearest point:
    ``(m, 3)`` ``[x, y, 0]``."""
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    n = len(p)
    if n == 0:
        return np.zeros((0, 3))
    c = np.asarray(centre, dtype=np.float64)[:2]
    rel = p - c
    bearing = np.arctan2(rel[:, 1], rel[:, 0])
    order = np.argsort(bearing, kind="stable")
    p, bearing = p[order], bearing[order]
    dist = np.hypot(*(p - c).T)
    if n == 1:
        return np.column_stack([p, np.zeros(1)])
    nxt = np.roll(np.arange(n), -1)
    gap = np.hypot(*(p - p[nxt]).T)
    dphi = np.abs((bearing[nxt] - bearing + math.pi) % (2 * math.pi) - math.pi)
    limit = join + np.minimum(dist, dist[nxt]) * dphi / math.sin(math.radians(incidence_deg))
    linked = (gap <= limit) & (dphi <= math.radians(max_gap_deg))
    if linked.all():
        i = int(np.argmin(dist))
        return np.array([[p[i, 0], p[i, 1], 0.0]])
    start = int(np.flatnonzero(~linked)[0]) + 1  # a group starts after a break
    out = []
    best = -1
    for k in range(n):
        i = (start + k) % n
        if best < 0 or dist[i] < dist[best]:
            best = i
        if not linked[i]:  # the group ends at i
            out.append(best)
            best = -1
    return np.column_stack([p[out], np.zeros(len(out))])


@dataclass
class ScanObstacles:
    """Obstacle points from a robot's lidar scans (see the module doc).

    ``sectors``: bearing sectors of the histogram; ``per_object``: one obstacle per
    object instead (the potential field; ``join``, m: the gap that still joins two
    neighbouring returns, see :func:`nearest_per_object`); ``ground`` (m): returns
    below this height are the ground; ``memory`` (s): how long returns outside the
    lidar's field of view are kept (0: only the latest scan)."""

    azimuths: np.ndarray
    elevations: np.ndarray
    sectors: int = 72
    per_object: bool = False
    join: float = 0.3
    ground: float = 0.03
    memory: float = 0.0
    obstacles: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    t: float = -math.inf
    _old: list[tuple[float, np.ndarray]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.azimuths = np.asarray(self.azimuths, dtype=np.float64)
        self.elevations = np.asarray(self.elevations, dtype=np.float64)
        span = float(self.azimuths.max() - self.azimuths.min()) if self.azimuths.size else 0.0
        step = span / max(len(self.azimuths) - 1, 1)
        self._full = span + step >= 2 * math.pi - 1e-9
        self._half_fov = (span + step) / 2

    def update(self, t: float, ranges: ArrayLike, pose: ArrayLike) -> np.ndarray:
        """Take the scan read at ``t`` (s); returns the obstacles ``(m, 3)``."""
        pose = np.asarray(pose, dtype=np.float64)
        pts = scan_points_2d(ranges, self.azimuths, self.elevations, pose, self.ground)
        centre = pose[:2]
        if self.memory > 0 and not self._full:
            pts = self._remember(t, pts, pose)
        if self.per_object:
            self.obstacles = nearest_per_object(pts, centre, self.join)
        else:
            self.obstacles = nearest_per_sector(pts, centre, self.sectors)
        self.t = float(t)
        return self.obstacles

    def _remember(self, t: float, pts: np.ndarray, pose: np.ndarray) -> np.ndarray:
        """The scan's points plus older ones now outside the field of view."""
        R = _quat_R(pose[3:])
        heading = math.atan2(R[1, 0], R[0, 0])
        self._old = [(ts, p) for ts, p in self._old if t - ts <= self.memory]
        keep = [pts]
        for _, p in self._old:
            rel = p - pose[:2]
            bearing = np.arctan2(rel[:, 1], rel[:, 0]) - heading
            off = np.abs((bearing + math.pi) % (2 * math.pi) - math.pi) > self._half_fov
            keep.append(p[off])
        self._old.append((float(t), pts))
        return np.vstack(keep)
