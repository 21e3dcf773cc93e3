"""Obstacle avoidance for planar robots among circular obstacles.

Obstacles are an array ``(N, 3)`` of ``[x, y, radius]`` (m, world frame); the robot is a
disc of ``robot_radius``. Both methods return a unit direction of travel (world frame)
and a speed factor in [0, 1] (slow down near obstacles); the caller keeps its own speed
law (a PID on the distance to the goal).

- :class:`PotentialField`: attraction to the goal plus Khatib-style repulsion
  ``k (1/d - 1/d0) / d^2`` from every obstacle closer than ``influence`` (clearance ``d``
  between the robot disc and the obstacle). Simple and smooth, but it can stall in a
  local minimum (an obstacle straight between robot and goal).
- :class:`VFH`: a Vector-Field-Histogram-style polar histogram (Borenstein and Koren,
  1991): obstacles inside the ``window`` block the sectors their enlarged disc
  (radius + robot radius + safety margin) covers, weighted by closeness; the robot takes
  the free sector nearest the goal bearing (cost: angle to the goal plus 0.3 x angle to
  its previous heading). It chooses a side instead of stalling and keeps the safety
  margin by construction. **Keep right**: when the best free sectors on the two sides
  of the goal bearing cost within ``tie`` sector widths of each other, the robot takes
  the one on its right (clockwise of the goal bearing). Two robots meeting head-on thus
  both turn to their own right and pass each other, whatever tiny offset or numerical
  drift there is between them (a lowest-index tie-break sent both to the same side of
  the world and deadlocked them).
  One decision is one compiled call (:func:`_vfh_decide`); :meth:`VFH.histogram` and
  the tests keep the NumPy form it must agree with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit
from numpy.typing import ArrayLike

__all__ = ["VFH", "PotentialField", "clearances"]


def clearances(position: ArrayLike, obstacles: np.ndarray, robot_radius: float) -> np.ndarray:
    """Gap (N,) in m between the robot disc at ``position`` and each obstacle disc."""
    if len(obstacles) == 0:
        return np.zeros(0)
    p = np.asarray(position, dtype=np.float64)
    d = np.hypot(obstacles[:, 0] - p[0], obstacles[:, 1] - p[1])
    return d - obstacles[:, 2] - robot_radius


def _unit(v: np.ndarray) -> np.ndarray:
    n = math.hypot(v[0], v[1]) if len(v) == 2 else float(np.linalg.norm(v))
    return v / n if n > 1e-12 else np.zeros_like(v)


def _unit2(x: float, y: float) -> tuple[float, float]:
    """:func:`_unit` of a 2-vector given as floats."""
    n = math.hypot(x, y)
    return (x / n, y / n) if n > 1e-12 else (0.0, 0.0)


@dataclass(frozen=True)
class PotentialField:
    robot_radius: float = 0.25
    influence: float = 1.0
    repulsion: float = 0.5
    slow_distance: float = 0.5

    def __call__(
        self, position: ArrayLike, goal: ArrayLike, obstacles: np.ndarray
    ) -> tuple[np.ndarray, float]:
        p = np.asarray(position, dtype=np.float64)[:2]
        to_goal = np.asarray(goal, dtype=np.float64)[:2] - p
        force = _unit(to_goal)
        factor = 1.0
        if len(obstacles):
            gaps = np.maximum(clearances(p, obstacles, self.robot_radius), 1e-3)
            near = gaps < self.influence
            for (ox, oy, _), d in zip(obstacles[near], gaps[near]):
                away = _unit(p - np.array([ox, oy]))
                force = force + self.repulsion * (1.0 / d - 1.0 / self.influence) / d**2 * away
            factor = float(np.clip(gaps.min() / self.slow_distance, 0.2, 1.0))
        return _unit(force), factor


@dataclass(frozen=True)
class VFH:
    robot_radius: float = 0.25
    safety: float = 0.25
    window: float = 3.0
    sectors: int = 72
    threshold: float = 0.0
    slow_distance: float = 0.6
    tie: float = 1.0

    @property
    def _centres(self) -> np.ndarray:
        return np.arange(self.sectors) * (2 * math.pi / self.sectors)

    def _discs(
        self, p: np.ndarray, obstacles: np.ndarray, reach: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Bearing, angular half-width and weight (each (M,)) of the enlarged obstacles
        within ``reach`` of ``p``."""
        rel = obstacles[:, :2] - p
        dc = np.hypot(rel[:, 0], rel[:, 1])
        enlarged = obstacles[:, 2] + self.robot_radius + self.safety
        near = dc - enlarged <= reach
        rel, dc, enlarged = rel[near], dc[near], enlarged[near]
        bearing = np.arctan2(rel[:, 1], rel[:, 0])
        ratio = np.minimum(enlarged / np.maximum(dc, 1e-9), 1.0)
        half = np.where(dc <= enlarged, math.pi / 2, np.arcsin(ratio))
        weight = 1.0 + np.maximum(0.0, reach - np.maximum(dc - enlarged, 0.0)) / reach
        return bearing, half, weight

    def _density(self, angles: np.ndarray, discs: tuple[np.ndarray, ...]) -> np.ndarray:
        bearing, half, weight = discs
        width = 2 * math.pi / self.sectors
        diff = np.abs((angles[None, :] - bearing[:, None] + math.pi) % (2 * math.pi) - math.pi)
        covered = diff <= (half + width / 2)[:, None]
        return (covered * weight[:, None]).sum(axis=0)

    def histogram(self, position: ArrayLike, obstacles: np.ndarray, horizon: float) -> np.ndarray:
        """Polar obstacle density (sectors,) around ``position``; sector i points at
        ``2 pi i / sectors`` rad. Obstacles farther than ``horizon`` are ignored."""
        p = np.asarray(position, dtype=np.float64)[:2]
        if len(obstacles) == 0:
            return np.zeros(self.sectors)
        discs = self._discs(p, obstacles, min(self.window, horizon))
        return self._density(self._centres, discs)

    def __call__(
        self,
        position: ArrayLike,
        goal: ArrayLike,
        obstacles: np.ndarray,
        previous: float | None = None,
    ) -> tuple[np.ndarray, float]:
        p = np.asarray(position, dtype=np.float64)[:2].tolist()
        g = np.asarray(goal, dtype=np.float64)[:2].tolist()
        dx, dy, factor = self.decide(p[0], p[1], g[0], g[1], obstacles, previous)
        return np.array([dx, dy]), factor

    def decide(
        self,
        x: float,
        y: float,
        gx: float,
        gy: float,
        obstacles: np.ndarray,
        previous: float | None = None,
    ) -> tuple[float, float, float]:
        """:meth:`__call__` on floats: position ``(x, y)``, goal ``(gx, gy)`` (m) ->
        ``(dx, dy, factor)``, the unit direction and the speed factor."""
        tx, ty = gx - x, gy - y
        if len(obstacles) == 0:
            return (*_unit2(tx, ty), 1.0)
        obs = obstacles if obstacles.dtype == np.float64 else obstacles.astype(np.float64)
        mode, value, factor = _vfh_decide(
            x, y, tx, ty, obs, self.robot_radius, self.safety, self.window, self.sectors,
            self.threshold, self.slow_distance, math.nan if previous is None else float(previous),
            self.tie,
        )  # fmt: skip
        if mode == 0:
            return (*_unit2(tx, ty), factor)
        if mode == 1:
            ox, oy = obs[int(value), :2].tolist()
            return (*_unit2(x - ox, y - oy), factor)
        return math.cos(value), math.sin(value), factor

    def decide_numpy(
        self,
        position: ArrayLike,
        goal: ArrayLike,
        obstacles: np.ndarray,
        previous: float | None = None,
    ) -> tuple[np.ndarray, float]:
        """:meth:`__call__` in NumPy (the reference the compiled decision must match)."""
        p = np.asarray(position, dtype=np.float64)[:2]
        to_goal = np.asarray(goal, dtype=np.float64)[:2] - p
        dist = math.hypot(to_goal[0], to_goal[1])
        goal_dir = math.atan2(to_goal[1], to_goal[0])
        if len(obstacles) == 0:
            return _unit(to_goal), 1.0
        gaps = clearances(p, obstacles, self.robot_radius)
        factor = min(1.0, max(0.15, float(gaps.min()) / self.slow_distance))
        width = 2 * math.pi / self.sectors
        discs = self._discs(p, obstacles, min(self.window, dist + self.robot_radius))
        goal_sector = round(goal_dir / width) % self.sectors
        # the goal sector alone first: most ticks the way is clear and that is enough
        if self._density(np.array([goal_sector * width]), discs)[0] <= self.threshold:
            return _unit(to_goal), factor
        centres = self._centres
        free = self._density(centres, discs) <= self.threshold
        if not free.any():  # boxed in: back away from the nearest obstacle, slowly
            i = int(np.argmin(gaps))
            return _unit(p - obstacles[i, :2]), 0.15
        cost = np.abs((centres - goal_dir + math.pi) % (2 * math.pi) - math.pi)
        if previous is not None:
            cost = cost + 0.3 * np.abs((centres - previous + math.pi) % (2 * math.pi) - math.pi)
        cost[~free] = np.inf
        side = (centres - goal_dir + math.pi) % (2 * math.pi) - math.pi  # < 0: right
        right = np.where(side <= 0, cost, np.inf)
        left = np.where(side <= 0, np.inf, cost)
        i_right, i_left = int(np.argmin(right)), int(np.argmin(left))
        keep_right = right[i_right] <= left[i_left] + self.tie * width
        best = centres[i_right if keep_right else i_left]
        return np.array([math.cos(best), math.sin(best)]), factor


@njit(cache=True, inline="always")
def _wrap_abs(a: float) -> float:
    """``|(a + pi) mod 2 pi - pi|`` with Python's (and NumPy's) float modulo."""
    return abs((a + math.pi) % (2 * math.pi) - math.pi)


@njit(cache=True, inline="always")
def _round_half_even(x: float) -> int:
    f = math.floor(x)
    d = x - f
    if d > 0.5 or (d == 0.5 and f % 2 != 0):
        f += 1.0
    return int(f)


@njit(cache=True, inline="always")
def _covered(a, bearing, half, weight, m, width):  # type: ignore[no-untyped-def]
    total = 0.0
    for j in range(m):
        if _wrap_abs(a - bearing[j]) <= half[j] + width / 2:
            total += weight[j]
    return total


@njit(cache=True)
def _vfh_decide(px, py, tx, ty, obs, robot_radius, safety, window, sectors, threshold,
                slow_distance, previous, tie):  # type: ignore[no-untyped-def]  # fmt: skip
    """One VFH decision, the same arithmetic as :meth:`VFH.decide_numpy`.

    ``(tx, ty)`` = goal - position; ``previous`` NaN when there is none; ``tie`` in
    sector widths (keep right within it, see the module docstring). Returns
    ``(mode, value, factor)``: mode 0 = head for the goal, 1 = back away from obstacle
    ``int(value)`` (boxed in), 2 = head along angle ``value`` (rad).
    """
    n = obs.shape[0]
    dist = math.hypot(tx, ty)
    goal_dir = math.atan2(ty, tx)
    gmin = math.inf
    imin = 0
    for i in range(n):
        g = math.hypot(obs[i, 0] - px, obs[i, 1] - py) - obs[i, 2] - robot_radius
        if g < gmin:
            gmin = g
            imin = i
    factor = min(1.0, max(0.15, gmin / slow_distance))
    width = 2 * math.pi / sectors
    reach = min(window, dist + robot_radius)
    bearing = np.empty(n)
    half = np.empty(n)
    weight = np.empty(n)
    m = 0
    for i in range(n):
        rx = obs[i, 0] - px
        ry = obs[i, 1] - py
        dc = math.hypot(rx, ry)
        enlarged = obs[i, 2] + robot_radius + safety
        if dc - enlarged <= reach:
            bearing[m] = math.atan2(ry, rx)
            if dc <= enlarged:
                half[m] = math.pi / 2
            else:
                half[m] = math.asin(min(enlarged / max(dc, 1e-9), 1.0))
            weight[m] = 1.0 + max(0.0, reach - max(dc - enlarged, 0.0)) / reach
            m += 1
    goal_sector = _round_half_even(goal_dir / width) % sectors
    if _covered(goal_sector * width, bearing, half, weight, m, width) <= threshold:
        return 0, 0.0, factor
    best_right, best_left = -1, -1
    cost_right, cost_left = math.inf, math.inf
    for s in range(sectors):
        c = s * width
        if _covered(c, bearing, half, weight, m, width) > threshold:
            continue
        cost = _wrap_abs(c - goal_dir)
        if not math.isnan(previous):
            cost = cost + 0.3 * _wrap_abs(c - previous)
        if (c - goal_dir + math.pi) % (2 * math.pi) - math.pi <= 0:  # right of the goal
            if cost < cost_right:
                cost_right = cost
                best_right = s
        elif cost < cost_left:
            cost_left = cost
            best_left = s
    if best_right < 0 and best_left < 0:
        return 1, float(imin), 0.15
    if cost_right <= cost_left + tie * width:
        return 2, best_right * width, factor
    return 2, best_left * width, factor
