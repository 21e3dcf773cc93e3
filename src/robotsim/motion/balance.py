"""Centre of mass and support polygon (static balance of a walking robot).

The CoM is the mass-weighted mean of the link CoMs (links without inertia count as
massless). The support polygon is the convex hull of the sole corners of every foot
touching the floor; the *margin* is the signed distance from the CoM's ground
projection to the polygon's boundary (m, positive inside).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import ModelError
from robotsim.model.robot import RobotModel

__all__ = ["com_world", "convex_hull", "deepest_point", "polygon_margin", "total_mass"]


def _mass_arrays(model: RobotModel) -> tuple[np.ndarray, np.ndarray]:
    m = np.array([lk.inertial.mass if lk.inertial is not None else 0.0 for lk in model.links])
    c = np.array(
        [
            np.append(lk.inertial.com, 1.0) if lk.inertial is not None else [0.0, 0.0, 0.0, 1.0]
            for lk in model.links
        ]
    )
    if m.sum() <= 0:
        raise ModelError(f"robot {model.name!r} has no mass (no link has an inertial)")
    return m, c


def total_mass(model: RobotModel) -> float:
    return float(_mass_arrays(model)[0].sum())


def com_world(model: RobotModel, link_poses: ArrayLike) -> np.ndarray:
    """CoM ``(..., 3)`` (m) from world link poses ``(..., L, 4, 4)``."""
    m, c = _mass_arrays(model)
    P = np.asarray(link_poses)
    pts = (P @ c[:, :, None])[..., :3, 0]  # (..., L, 3)
    return np.einsum("...lk,l->...k", pts, m) / m.sum()


def convex_hull(points: ArrayLike) -> np.ndarray:
    """Counter-clockwise convex hull ``(H, 2)`` of 2D points ``(N, 2)`` (monotone chain)."""
    pts = sorted({(float(x), float(y)) for x, y in np.asarray(points)[:, :2]})
    if len(pts) <= 2:
        return np.array(pts)

    def cross(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, float]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[tuple[float, float]] = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1])


def polygon_margin(hull: np.ndarray, point: ArrayLike) -> float:
    """Signed distance (m) from ``point`` (x, y) to the boundary of the CCW convex
    polygon ``hull`` ``(H, 2)``: positive inside, negative outside."""
    p = np.asarray(point, dtype=np.float64)[:2]
    if len(hull) < 3:
        return -float(np.min(np.linalg.norm(hull - p, axis=1))) if len(hull) else -np.inf
    a = hull
    b = np.roll(hull, -1, axis=0)
    e = b - a
    n = np.stack([-e[:, 1], e[:, 0]], axis=1) / np.linalg.norm(e, axis=1)[:, None]
    d = np.einsum("ij,ij->i", p - a, n)  # inward distances to each edge line
    if np.all(d >= 0):
        return float(np.min(d))
    # outside: distance to the nearest edge segment
    t = np.clip(np.einsum("ij,ij->i", p - a, e) / np.einsum("ij,ij->i", e, e), 0, 1)
    closest = a + t[:, None] * e
    return -float(np.min(np.linalg.norm(closest - p, axis=1)))


def deepest_point(hull: np.ndarray, x: float | None = None) -> tuple[np.ndarray, float]:
    """``(point (2,), depth m)``: the point of the CCW convex polygon ``hull`` ``(H, 2)``
    farthest from its boundary (the centre of its largest inscribed circle, a linear
    programme: maximise ``r`` with ``n_i . (p - a_i) >= r`` for every edge), or with
    ``x`` the deepest point on the line at that ``x``. A statically balanced body keeps
    its CoM there: the most room for the centre of pressure."""
    from scipy.optimize import linprog

    a = np.asarray(hull, dtype=np.float64)
    e = np.roll(a, -1, axis=0) - a
    n = np.stack([-e[:, 1], e[:, 0]], axis=1) / np.linalg.norm(e, axis=1)[:, None]
    # variables (x, y, r): minimise -r subject to -n_i . p + r <= -n_i . a_i
    A = np.column_stack([-n, np.ones(len(a))])
    b = -np.einsum("ij,ij->i", n, a)
    free = [(None, None) if x is None else (x, x), (None, None)]
    res = linprog([0.0, 0.0, -1.0], A_ub=A, b_ub=b, bounds=[*free, (0, None)])
    c = a.mean(axis=0)
    if x is not None:
        c[0] = x
    if not res.success:  # a degenerate polygon: its vertex mean
        return c, 0.0
    r = float(res.x[2])
    # many deepest points (a rectangle's lie on a segment): the one nearest the vertex
    # mean (L1), so symmetric soles give their centre; variables (x, y, tx, ty)
    A2 = np.vstack(
        [
            np.column_stack([-n, np.zeros((len(a), 2))]),
            [[1, 0, -1, 0], [-1, 0, -1, 0], [0, 1, 0, -1], [0, -1, 0, -1]],
        ]
    )
    b2 = np.concatenate([b - r * (1 - 1e-9), [c[0], -c[0], c[1], -c[1]]])
    res2 = linprog([0, 0, 1, 1], A_ub=A2, b_ub=b2, bounds=[*free, (0, None), (0, None)])
    p = np.asarray(res2.x[:2]) if res2.success else np.asarray(res.x[:2])
    if np.linalg.norm(p - c) < 1e-7:
        p = c
    return p, r
