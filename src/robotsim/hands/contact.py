"""Sphere tests of the grasp algorithm: fingertip spheres against the ball, the
thumb–finger spread, and spheres against the floor and table boxes.

Pure functions over arrays (world coordinates, metres); the kinematic and physics
modes share them so both decide "touching" and "grasped" the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import InputError

__all__ = [
    "BoxObstacle",
    "grasp_ok",
    "move_joint_limited",
    "sphere_depth",
    "support_height",
    "thumb_spread",
    "tip_depths",
    "touching",
]


@dataclass(frozen=True)
class BoxObstacle:
    """An axis-aligned box in the world (a table): ``center`` and full ``size`` (m)."""

    name: str
    center: tuple[float, float, float]
    size: tuple[float, float, float]

    def __post_init__(self) -> None:
        if len(self.center) != 3 or len(self.size) != 3:
            raise InputError(f"box {self.name!r}: center and size need 3 numbers each")
        if not all(np.isfinite(v) for v in (*self.center, *self.size)):
            raise InputError(f"box {self.name!r}: center and size must be finite")
        if min(self.size) <= 0:
            raise InputError(f"box {self.name!r}: size must be > 0, got {self.size}")

    @property
    def top(self) -> float:
        """Height of the top face (m)."""
        return float(self.center[2] + 0.5 * self.size[2])

    def signed_distance(self, p: ArrayLike) -> np.ndarray:
        """Signed distance (m) of points ``(..., 3)`` to the box: > 0 outside."""
        d = np.abs(np.asarray(p, float) - self.center) - 0.5 * np.asarray(self.size)
        outside = np.linalg.norm(np.maximum(d, 0.0), axis=-1)
        inside = np.minimum(d.max(axis=-1), 0.0)
        return outside + inside


def tip_depths(
    tips: ArrayLike, tip_radius: float, ball: ArrayLike, ball_radius: float
) -> np.ndarray:
    """``r_tip + r_ball - |p_tip - c_ball|`` per tip ``(..., n)``: > 0 penetrating,
    0 exactly touching, < 0 apart (m). ``tips`` ``(..., n, 3)``, ``ball`` ``(..., 3)``."""
    d = np.linalg.norm(np.asarray(tips, float) - np.asarray(ball, float)[..., None, :], axis=-1)
    return (tip_radius + ball_radius) - d


def touching(depths: ArrayLike, tol: float) -> np.ndarray:
    """The paper's collflag per finger: distance <= sum of radii (+ ``tol`` m)."""
    return np.asarray(depths) >= -tol


def thumb_spread(tips: ArrayLike, thumb: int) -> float:
    """Smallest distance (m) between the thumb tip and another fingertip; the paper
    requires it above a threshold (fingers too close cannot hold the ball)."""
    t = np.asarray(tips, float)
    others = np.delete(t, thumb, axis=0)
    return float(np.linalg.norm(others - t[thumb], axis=-1).min())


def grasp_ok(touch: ArrayLike, spread: float, min_spread: float) -> bool:
    """The paper's fastenflag: all fingers touch and the thumb spread is large enough."""
    return bool(np.all(touch)) and spread > min_spread


def sphere_depth(
    centers: ArrayLike, radius: ArrayLike, boxes: tuple[BoxObstacle, ...], floor: float = 0.0
) -> np.ndarray:
    """Deepest penetration (m) of spheres ``(..., 3)`` (radii broadcast) into the floor
    half-space ``z < floor`` and the boxes; <= 0 when clear."""
    c = np.asarray(centers, float)
    r = np.asarray(radius, float)
    depth = floor - (c[..., 2] - r)
    for box in boxes:
        depth = np.maximum(depth, r - box.signed_distance(c))
    return depth


def support_height(
    xy: ArrayLike, below: float, boxes: tuple[BoxObstacle, ...], floor: float = 0.0
) -> tuple[float, str]:
    """The highest surface (height m, name) under the point ``xy`` at or below height
    ``below``: a box top whose footprint contains ``xy``, else the floor."""
    x, y = float(np.asarray(xy)[0]), float(np.asarray(xy)[1])
    best, name = floor, "floor"
    for box in boxes:
        cx, cy, _ = box.center
        sx, sy, _ = box.size
        inside = abs(x - cx) <= 0.5 * sx and abs(y - cy) <= 0.5 * sy
        if inside and best < box.top <= below + 1e-9:
            best, name = box.top, box.name
    return best, name


def move_joint_limited(
    q: np.ndarray,
    i: int,
    target: float,
    depth: Callable[[np.ndarray], float],
    tol: float = 1e-9,
    halvings: int = 40,
) -> tuple[np.ndarray, bool]:
    """Move joint ``i`` of ``q`` ``(nq,)`` towards ``target`` as far as it may go
    without pushing deeper into anything: ``depth(q)`` (m) may not grow beyond its value
    at ``q`` (or ``tol``). A blocked move is bisected ``halvings`` times. Returns the new
    configuration (a copy) and whether the move was cut short."""
    step = target - q[i]
    if step == 0.0:
        return q, False
    allowed = max(depth(q), tol)
    q_new = q.copy()
    q_new[i] = target
    if depth(q_new) <= allowed:
        return q_new, False
    lo, hi = 0.0, 1.0
    for _ in range(halvings):
        mid = 0.5 * (lo + hi)
        q_new[i] = q[i] + mid * step
        if depth(q_new) <= allowed:
            lo = mid
        else:
            hi = mid
    q_new[i] = q[i] + lo * step
    return q_new, True
