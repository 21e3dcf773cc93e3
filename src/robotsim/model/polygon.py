"""Triangulating polygon faces (mesh files store n-gons, concave ones included).

A fan from the first corner is only right for convex polygons; :func:`triangulate_polygon`
clips ears instead, so the triangles cover exactly the polygon (same area, same winding)
whether it is convex or not.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["polygon_area", "retriangulate_runs", "triangulate_polygon"]


def _newell_normal(p: np.ndarray) -> np.ndarray:
    """Newell's normal ``(3,)`` of a closed polygon ``(n, 3)``; its length is twice the
    area, its direction follows the right-hand rule of the corner order."""
    q = np.roll(p, -1, axis=0)
    return np.array(
        [
            np.sum((p[:, 1] - q[:, 1]) * (p[:, 2] + q[:, 2])),
            np.sum((p[:, 2] - q[:, 2]) * (p[:, 0] + q[:, 0])),
            np.sum((p[:, 0] - q[:, 0]) * (p[:, 1] + q[:, 1])),
        ]
    )


def polygon_area(points: ArrayLike) -> float:
    """Area (units^2) of a planar polygon ``(n, 3)`` given by its corners in order."""
    p = np.asarray(points, dtype=np.float64)
    return float(np.linalg.norm(_newell_normal(p)) / 2.0)


def _in_plane(p: np.ndarray) -> np.ndarray:
    """Corners ``(n, 3)`` -> ``(n, 2)`` in the polygon's plane, counter-clockwise."""
    nrm = _newell_normal(p)
    n = np.linalg.norm(nrm)
    if n == 0.0:  # degenerate (all corners on a line): any plane will do
        nrm = np.array([0.0, 0.0, 1.0])
    else:
        nrm = nrm / n
    a = np.eye(3)[int(np.argmin(np.abs(nrm)))]
    u = np.cross(nrm, a)
    u /= np.linalg.norm(u)
    v = np.cross(nrm, u)
    c = p - p.mean(axis=0)
    return np.stack([c @ u, c @ v], axis=1)


def _cross(o: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    return float((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))


def triangulate_polygon(points: ArrayLike) -> np.ndarray:
    """Triangles ``(n - 2, 3)`` (indices into ``points``) covering a simple planar
    polygon ``(n, 3)``, convex or concave, wound like the polygon.

    Ear clipping: repeatedly cut off a convex corner whose triangle holds no other
    corner. O(n^2) per polygon, which is plenty for mesh faces. A corner on a straight
    edge is clipped as a zero-area triangle, so the count is always ``n - 2``.
    """
    p = np.asarray(points, dtype=np.float64)
    n = len(p)
    if n < 3:
        return np.zeros((0, 3), dtype=np.int64)
    if n == 3:
        return np.array([[0, 1, 2]], dtype=np.int64)
    xy = _in_plane(p)
    scale = float(np.max(np.ptp(xy, axis=0))) or 1.0
    eps = 1e-12 * scale * scale
    idx = list(range(n))
    out: list[tuple[int, int, int]] = []
    while len(idx) > 3:
        m = len(idx)
        clipped = False
        for k in range(m):
            i0, i1, i2 = idx[k - 1], idx[k], idx[(k + 1) % m]
            a, b, c = xy[i0], xy[i1], xy[i2]
            turn = _cross(a, b, c)
            if turn < -eps:
                continue  # reflex corner
            if turn <= eps:  # straight corner: a zero-area sliver, safe to clip
                out.append((i0, i1, i2))
                idx.pop(k)
                clipped = True
                break
            inside = False
            for j in idx:
                if j in (i0, i1, i2):
                    continue
                q = xy[j]
                if (_cross(a, b, q) >= -eps and _cross(b, c, q) >= -eps
                        and _cross(c, a, q) >= -eps):  # fmt: skip
                    inside = True
                    break
            if not inside:
                out.append((i0, i1, i2))
                idx.pop(k)
                clipped = True
                break
        if not clipped:  # self-intersecting input: finish with a fan
            out.extend((idx[0], idx[t], idx[t + 1]) for t in range(1, len(idx) - 1))
            idx = []
    if len(idx) == 3:
        out.append((idx[0], idx[1], idx[2]))
    return np.array(out, dtype=np.int64)


def _simple_planar(p: np.ndarray) -> bool:
    """Corners ``(n, 3)`` of one plane (within 1e-6 of their extent) forming a simple
    polygon: no repeated corner, no two edges crossing or touching (but neighbours)."""
    c = p - p.mean(axis=0)
    size = float(np.ptp(p, axis=0).max())
    if size == 0.0 or np.linalg.svd(c, compute_uv=False)[-1] > 1e-6 * size * np.sqrt(len(p)):
        return False
    xy = _in_plane(p)
    n = len(xy)
    if len(np.unique(np.round(xy / size, 9), axis=0)) < n:
        return False
    eps = 1e-12 * size * size
    for i in range(n):
        a, b = xy[i], xy[(i + 1) % n]
        for j in range(i + 2, n):
            if i == 0 and j == n - 1:
                continue  # neighbours through the closing edge
            c0, d = xy[j], xy[(j + 1) % n]
            d1, d2 = _cross(a, b, c0), _cross(a, b, d)
            d3, d4 = _cross(c0, d, a), _cross(c0, d, b)
            if d1 * d2 <= eps and d3 * d4 <= eps:
                return False
    return True


def retriangulate_runs(vertices: ArrayLike, triangles: ArrayLike) -> np.ndarray:
    """Triangles ``(m, 3)`` of the same polygons as ``triangles``, ear-clipped here.

    For meshes whose every polygon owns a run of consecutive vertices, its corners in
    order (assimp's DirectX importer makes one vertex per face corner) and whose
    polygons were triangulated by someone else: assimp cuts some concave polygons
    wrongly (a concave quad, or 11 of 300 random star-shaped polygons, covered up to
    3 times their area). A polygon is found as a run of vertices its triangles connect
    (runs never share vertices); a run whose triangle count is not ``corners - 2`` is
    kept as given. A run of 5 or more corners no triangle uses (assimp drops such
    polygons when they are about 1 mm across) is cut here when it is one plane, simple
    polygon. Each polygon's triangles are wound like the given ones (the sign of
    their summed normal).
    """
    v = np.asarray(vertices, dtype=np.float64)
    t = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    if len(t) == 0:
        return t
    lo, hi = t.min(axis=1), t.max(axis=1)
    order = np.argsort(lo, kind="stable")
    out: list[np.ndarray] = []
    runs: list[tuple[int, int, list[int]]] = []  # first vertex, last vertex, triangles
    for k in order:
        if runs and lo[k] <= runs[-1][1]:
            a, b, members = runs[-1]
            members.append(int(k))
            runs[-1] = (a, max(b, int(hi[k])), members)
        else:
            runs.append((int(lo[k]), int(hi[k]), [int(k)]))
    # a run of corners no triangle uses: a polygon assimp dropped (it drops polygons of
    # 5+ corners about 1 mm across, convex ones too), taken back when it is one plane,
    # simple polygon; several dropped in a row cannot be told apart and stay out
    starts = [0] + [b + 1 for _, b, _ in runs]
    ends = [a for a, _, _ in runs] + [len(v)]
    taken = set()
    for k, (a, b) in enumerate(zip(starts, ends)):
        if b - a >= 5 and _simple_planar(v[a:b]):
            out.append(triangulate_polygon(v[a:b]) + a)
            taken.add(k)
    for i, (a, hi, members) in enumerate(runs):
        # corners no triangle uses after the run are its own (a collinear corner left
        # out), unless they made a polygon of their own above
        end = hi + 1 if i + 1 in taken else ends[i + 1]
        given = t[members]
        n = end - a
        if n <= 3 or len(members) != n - 2:
            out.append(given)
            continue
        mine = triangulate_polygon(v[a:end]) + a
        g = np.cross(v[given[:, 1]] - v[given[:, 0]], v[given[:, 2]] - v[given[:, 0]]).sum(0)
        if g @ _newell_normal(v[a:end]) < 0:
            mine = mine[:, ::-1]
        out.append(mine)
    return np.concatenate(out)
