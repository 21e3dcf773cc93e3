"""Geometric questions about an object's collision shape, the union of its convex
pieces (:class:`robotsim.objects.convex.ConvexPiece`), answered in the object frame with
batched NumPy:

- :func:`signed_distance`: ``> 0`` outside, ``< 0`` inside (m). Inside, and outside
  over a face, it is exact; outside near an edge or a corner it is the largest plane
  distance, a lower bound of the true distance (at most ``1/cos`` of the angle between
  the faces off). The normal returned is that plane's.
- :func:`ray_exit`: where a ray that starts inside the solid (or on its surface,
  pointing in) leaves it, crossing from piece to piece while they overlap.
- :func:`surface_contact`: the nearest point of the surface to points outside it and
  the true outward normal there (near an edge or a corner it points from the edge to the
  point, where :func:`signed_distance` gives one face's normal).
- :func:`sample_surface`: points spread by area over the outer surface (points of a
  piece's face that lie inside another piece are dropped), with outward normals.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from robotsim.objects.convex import ConvexPiece

__all__ = ["PieceSet", "ray_exit", "sample_surface", "signed_distance", "surface_contact"]


@dataclass(frozen=True, eq=False)
class PieceSet:
    """The pieces' planes stacked ``(P, 4)`` with the piece each belongs to ``(P,)``."""

    planes: np.ndarray
    owner: np.ndarray
    starts: np.ndarray
    count: int
    centre: np.ndarray
    radius: float
    piece_centres: np.ndarray
    piece_radii: np.ndarray

    @classmethod
    def of(cls, pieces: Sequence[ConvexPiece]) -> PieceSet:
        planes = np.concatenate([p.planes for p in pieces])
        owner = np.concatenate([np.full(len(p.planes), i) for i, p in enumerate(pieces)])
        starts = np.concatenate([[0], np.cumsum([len(p.planes) for p in pieces])[:-1]])
        v = np.concatenate([p.vertices for p in pieces])
        c = 0.5 * (v.min(axis=0) + v.max(axis=0))
        r = float(np.max(np.linalg.norm(v - c, axis=1)))
        pc = np.array([0.5 * (p.vertices.min(axis=0) + p.vertices.max(axis=0)) for p in pieces])
        pr = np.array([np.max(np.linalg.norm(p.vertices - q, axis=1)) for p, q in zip(pieces, pc)])
        return cls(planes, owner, starts.astype(np.int64), len(pieces), c, r, pc, pr)


def _per_piece(ps: PieceSet, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Largest plane distance per piece ``(n, K)`` and that plane's index ``(n, K)``."""
    D = points @ ps.planes[:, :3].T - ps.planes[:, 3]
    best = np.maximum.reduceat(D, ps.starts, axis=1)
    # index of the max plane inside each piece's block
    idx = np.empty(best.shape, dtype=np.int64)
    bounds = [*ps.starts.tolist(), D.shape[1]]
    for k in range(ps.count):
        idx[:, k] = bounds[k] + np.argmax(D[:, bounds[k] : bounds[k + 1]], axis=1)
    return best, idx


CHUNK_VALUES = 1 << 21  # point-plane values per block (16 MB)


def signed_distance(
    ps: PieceSet, points: np.ndarray, far: float = np.inf
) -> tuple[np.ndarray, np.ndarray]:
    """Signed distance ``(...)`` (m) of ``points`` ``(..., 3)`` to the union of the
    pieces and the outward unit normal ``(..., 3)`` of the face that decides it.

    Points more than ``far`` outside the pieces' bounding sphere get that sphere's
    distance instead (a lower bound, with the normal away from its centre): callers that
    only ask "within ``far``?" skip the plane tests for them. Work is done in blocks of
    ``CHUNK_VALUES`` point-plane values, so memory stays bounded for any batch."""
    p = np.asarray(points, float)
    flat = p.reshape(-1, 3)
    d = np.empty(len(flat))
    n = np.empty((len(flat), 3))
    rel = flat - ps.centre
    dist_c = np.linalg.norm(rel, axis=1)
    out = dist_c - ps.radius > far
    d[out] = dist_c[out] - ps.radius
    n[out] = rel[out] / dist_c[out, None]
    near = np.flatnonzero(~out)
    bounds = [*ps.starts.tolist(), len(ps.planes)]
    widest = max(b - a for a, b in itertools.pairwise(bounds))
    step = max(1, CHUNK_VALUES // max(1, widest))
    for a0 in range(0, len(near), step):
        rows_i = near[a0 : a0 + step]
        q = flat[rows_i]
        best = np.full(len(rows_i), np.inf)
        bn = np.zeros((len(rows_i), 3))
        for k in range(ps.count):
            # a piece whose bounding sphere lies farther than the best so far cannot win
            lb = np.linalg.norm(q - ps.piece_centres[k], axis=1) - ps.piece_radii[k]
            sel = np.flatnonzero(lb < best)
            if not len(sel):
                continue
            P = ps.planes[bounds[k] : bounds[k + 1]]
            D = q[sel] @ P[:, :3].T - P[:, 3]
            j = np.argmax(D, axis=1)
            m = D[np.arange(len(sel)), j]
            win = m < best[sel]
            best[sel[win]] = m[win]
            bn[sel[win]] = P[j[win], :3]
        d[rows_i] = best
        n[rows_i] = bn
    return d.reshape(p.shape[:-1]), n.reshape(p.shape)


def surface_contact(
    pieces: Sequence[ConvexPiece], ps: PieceSet, points: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For ``points`` ``(n, 3)``: the nearest point of the pieces' surface ``(n, 3)``, the
    outward unit normal there ``(n, 3)`` and the distance ``(n,)`` (m). Outside, exact
    (the nearest point of each candidate piece's triangles: an edge or a corner gives the
    direction from it to the point); inside, the face that decides
    :func:`signed_distance`."""
    import trimesh

    q = np.asarray(points, float).reshape(-1, 3)
    d, n = signed_distance(ps, q)
    near = q - d[:, None] * n
    out = np.flatnonzero(d > 1e-9)
    if not len(out):
        return near, n, d
    per, _ = _per_piece(ps, q[out])  # a lower bound of the distance to each piece
    best = np.full(len(out), np.inf)
    bp = near[out].copy()
    for k in np.argsort(per.min(axis=0)):
        sel = np.flatnonzero(per[:, k] < best)
        if not len(sel):
            continue
        v, f = pieces[k].vertices, pieces[k].faces
        tri = v[f]  # (m, 3, 3)
        m = len(tri)
        cp = trimesh.triangles.closest_point(
            np.tile(tri, (len(sel), 1, 1)), np.repeat(q[out][sel], m, axis=0)
        ).reshape(len(sel), m, 3)
        dist = np.linalg.norm(cp - q[out][sel][:, None], axis=2)
        j = np.argmin(dist, axis=1)
        dj = dist[np.arange(len(sel)), j]
        win = dj < best[sel]
        best[sel[win]] = dj[win]
        bp[sel[win]] = cp[np.arange(len(sel)), j][win]
    rel = q[out] - bp
    ok = best > 1e-9
    n = n.copy()
    n[out[ok]] = rel[ok] / best[ok, None]
    near[out] = bp
    d = d.copy()
    d[out] = best
    return near, n, d


def ray_exit(ps: PieceSet, origins: np.ndarray, dirs: np.ndarray, tol: float = 1e-6) -> np.ndarray:
    """Distance ``(n,)`` (m) along unit ``dirs`` ``(n, 3)`` from ``origins`` ``(n, 3)``
    to where each ray leaves the solid; ``nan`` for a ray that does not start inside
    (within ``tol``)."""
    o = np.asarray(origins, float).reshape(-1, 3)
    d = np.asarray(dirs, float).reshape(-1, 3)
    num = ps.planes[:, 3][None, :] - o @ ps.planes[:, :3].T  # (n, P)
    den = d @ ps.planes[:, :3].T
    with np.errstate(divide="ignore", invalid="ignore"):
        t = num / den
    upper = np.where(den > 1e-12, t, np.inf)
    lower = np.where(den < -1e-12, t, -np.inf)
    parallel_out = (np.abs(den) <= 1e-12) & (num < -tol)
    lower = np.where(parallel_out, np.inf, lower)  # never inside this piece
    t_in = np.maximum.reduceat(lower, ps.starts, axis=1)
    t_out = np.minimum.reduceat(upper, ps.starts, axis=1)
    ok = t_in <= t_out
    reach = np.full(len(o), -np.inf)
    start = ok & (t_in <= tol) & (t_out >= -tol)
    reach = np.where(start.any(axis=1), np.max(np.where(start, t_out, -np.inf), axis=1), np.nan)
    for _ in range(ps.count):  # hop through overlapping pieces
        nxt = ok & (t_in <= reach[:, None] + tol) & (t_out > reach[:, None])
        if not nxt.any():
            break
        reach = np.where(nxt.any(axis=1), np.max(np.where(nxt, t_out, -np.inf), axis=1), reach)
    return reach


def sample_surface(
    pieces: Sequence[ConvexPiece], n: int, rng: np.random.Generator, inside_tol: float = 1e-7
) -> tuple[np.ndarray, np.ndarray]:
    """About ``n`` points ``(k, 3)`` on the outer surface and their outward normals."""
    tris, normals = [], []
    for p in pieces:
        v, f = p.vertices, p.faces
        a, b, c = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
        cr = np.cross(b - a, c - a)
        tris.append(np.stack([a, b, c], axis=1))
        normals.append(cr / np.maximum(np.linalg.norm(cr, axis=1, keepdims=True), 1e-300))
    T = np.concatenate(tris)
    N = np.concatenate(normals)
    owner = np.concatenate([np.full(len(t), i) for i, t in enumerate(tris)])
    area = 0.5 * np.linalg.norm(np.cross(T[:, 1] - T[:, 0], T[:, 2] - T[:, 0]), axis=1)
    m = 2 * n if len(pieces) > 1 else n
    pick = rng.choice(len(T), size=m, p=area / area.sum())
    r1, r2 = rng.random(m), rng.random(m)
    s = np.sqrt(r1)
    w = np.column_stack([1 - s, s * (1 - r2), s * r2])
    pts = np.einsum("ij,ijk->ik", w, T[pick])
    nrm = N[pick]
    if len(pieces) > 1:
        ps = PieceSet.of(pieces)
        best, _ = _per_piece(ps, pts)
        best[np.arange(m), owner[pick]] = np.inf  # a point is on its own piece
        keep = best.min(axis=1) > -inside_tol
        pts, nrm = pts[keep][:n], nrm[keep][:n]
    return pts, nrm
