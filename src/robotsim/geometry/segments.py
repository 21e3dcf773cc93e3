"""Closest points between points, segments and boxes (batched NumPy, exact).

Segments are ``(p, q)`` end points ``(..., 3)``. Boxes are given in their own frame
(centred, axis-aligned, half extents ``h`` ``(..., 3)``); callers transform into it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["point_box", "point_segment", "segment_segment"]


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("...i,...i->...", a, b)


def point_segment(x: np.ndarray, p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distance from points ``x`` to segments ``pq`` and the closest segment point."""
    d = q - p
    dd = _dot(d, d)
    s = np.clip(_dot(x - p, d) / np.where(dd > 0, dd, 1.0), 0.0, 1.0)
    c = p + s[..., None] * d
    return np.linalg.norm(x - c, axis=-1), c


def segment_segment(
    p1: np.ndarray, q1: np.ndarray, p2: np.ndarray, q2: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distance between segments ``p1q1`` and ``p2q2`` and the closest points.

    Minimises ``|p1 + s d1 - p2 - t d2|`` over ``[0,1]^2``: the unconstrained optimum
    clamped, then each edge of the square (a convex quadratic), exact in all cases
    (parallel and degenerate segments included).
    """
    p1, q1, p2, q2 = np.broadcast_arrays(p1, q1, p2, q2)
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a, e, f = _dot(d1, d1), _dot(d2, d2), _dot(d2, r)
    b, c = _dot(d1, d2), _dot(d1, r)
    safe_a = np.where(a > 0, a, 1.0)
    safe_e = np.where(e > 0, e, 1.0)
    den = a * e - b * b
    cands_s, cands_t = [], []
    with np.errstate(divide="ignore", invalid="ignore"):
        s0 = np.where(den > 1e-14 * a * e, (b * f - c * e) / np.where(den > 0, den, 1.0), 0.0)
    s0 = np.clip(s0, 0, 1)
    cands_s.append(s0)
    cands_t.append(np.clip((b * s0 + f) / safe_e, 0, 1))
    for s_fixed in (0.0, 1.0):  # edges s = 0, 1
        s = np.full_like(a, s_fixed)
        cands_s.append(s)
        cands_t.append(np.clip((b * s + f) / safe_e, 0, 1))
    for t_fixed in (0.0, 1.0):  # edges t = 0, 1
        t = np.full_like(a, t_fixed)
        cands_t.append(t)
        cands_s.append(np.clip((b * t - c) / safe_a, 0, 1))
    S = np.stack(cands_s, -1)
    T = np.stack(cands_t, -1)
    diff = r[..., None, :] + S[..., None] * d1[..., None, :] - T[..., None] * d2[..., None, :]
    dist = np.linalg.norm(diff, axis=-1)
    k = np.argmin(dist, axis=-1)[..., None]
    s = np.take_along_axis(S, k, -1)
    t = np.take_along_axis(T, k, -1)
    return np.take_along_axis(dist, k, -1)[..., 0], p1 + s * d1, p2 + t * d2


def point_box(x: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Signed distance from points ``x`` (box frame) to boxes with half extents ``h``
    (negative inside: minus the distance to the nearest face) and the closest surface
    point."""
    x, h = np.broadcast_arrays(x, h)
    clamped = np.clip(x, -h, h)
    outside = np.linalg.norm(x - clamped, axis=-1)
    gap = h - np.abs(x)  # > 0 inside along each axis
    inside = np.all(gap > 0, axis=-1)
    k = np.argmin(gap, axis=-1)
    surf = clamped.copy()
    idx = np.indices(k.shape)
    face = np.where(np.take_along_axis(x, k[..., None], -1)[..., 0] >= 0, 1.0, -1.0)
    hk = np.take_along_axis(h, k[..., None], -1)[..., 0]
    surf_in = x.copy()
    surf_in[(*idx, k)] = face * hk
    surf = np.where(inside[..., None], surf_in, surf)
    depth = np.take_along_axis(gap, k[..., None], -1)[..., 0]
    return np.where(inside, -depth, outside), surf
