"""Capsules and boxes against ellipsoids, by splitting the support function.

A capsule is a segment plus a ball of radius ``rho``, a box a polytope (``rho = 0``).
Its support function is the maximum of the vertices' linear supports, so on the unit
sphere ``F(n) = h_core(n) + rho + h_E(-n)`` equals, inside the normal cone of vertex
``v``, the function of the *point* ``v`` against the ellipsoid, and on the great-circle
arcs between cones (the normals of an edge; the circle ``n.a = 0`` of a segment) a
smooth function of one angle. So

    min F = min( vertex candidates whose minimiser lies in their own cone,
                 1-D minima over every arc ).

Vertex candidates use the exact ellipsoid kernel (a point is a sphere of radius
``delta`` with ``delta`` added back, exact for Minkowski sums with a ball); arcs use a
dense scan (64 samples) refined by golden section to 1e-13 of the bracket. Exact for
separated pairs (``F`` is then convex on the relevant cone); for overlapping pairs
the arcs are searched globally and the vertex candidates are the kernel's global
minima, verified against a dense search in ``tests/geometry``.

Per batch: one call of the ellipsoid kernel for every vertex of every pair, one compiled
search (:mod:`._core_kernel`: the arcs, the best candidate, the starts of the vertex-cone
search), one Newton run per overlapping pair that needs it, one compiled finish.
"""

from __future__ import annotations

import math

import numpy as np

from robotsim.geometry._core_kernel import DELTA, box_search, capsule_search, finish_pairs
from robotsim.geometry._ellipsoid_kernel import _newton, ellipsoid_pairs, kernel_input
from robotsim.geometry.sphere_points import fibonacci_sphere

__all__ = ["box_ellipsoid", "capsule_ellipsoid"]

_SCAN = 64  # samples of an arc before the golden section
_CIRCLE = np.linspace(0.0, 2 * math.pi, _SCAN)  # a capsule's circle of normals
_QUADRANT = np.linspace(0.0, math.pi / 2, _SCAN + 1)  # a box edge's arc
_CIRCLE_CS = np.stack([np.cos(_CIRCLE), np.sin(_CIRCLE)], axis=1)
_QUADRANT_CS = np.stack([np.cos(_QUADRANT), np.sin(_QUADRANT)], axis=1)
_DIRS = fibonacci_sphere(2000)  # starts of an overlapping pair's vertex search
_BALL = np.eye(3) * DELTA  # a vertex as a ball of radius DELTA
_NO_FOUND = np.zeros((1, 3))
_SIGNS = np.array([[i, j, k] for i in (-1, 1) for j in (-1, 1) for k in (-1, 1)], float)
# edge arcs (j, k, s_j, s_k): normals perpendicular to axis i, in the quadrant of
# (s_j e_j, s_k e_k)
_ARCS = np.array(
    [
        (j, k, sj, sk)
        for i in range(3)
        for (j, k) in [tuple(x for x in range(3) if x != i)]
        for sj in (-1.0, 1.0)
        for sk in (-1.0, 1.0)
    ]
)


def _c(x: np.ndarray) -> np.ndarray:
    """A C-contiguous, writeable float64 array: one compiled signature for every caller."""
    return np.require(x, np.float64, ["C", "W"])


def _vertices(verts: np.ndarray, sE, RE, cE):  # type: ignore[no-untyped-def]
    """The ellipsoid kernel for every vertex ``verts (N, V, 3)`` (a ball of radius
    ``DELTA``) against its pair's ellipsoid, in one call: distance (less ``DELTA``)
    ``(N*V,)`` and normal ``(N*V, 3)``, row ``V i + v``."""
    N, V = verts.shape[:2]
    M = N * V
    d, pa, pb, nrm = np.empty(M), np.empty((M, 3)), np.empty((M, 3)), np.empty((M, 3))
    ellipsoid_pairs(
        kernel_input(verts.reshape(M, 3)),
        kernel_input(np.tile(np.eye(3), (M, 1, 1))),
        kernel_input(np.full((M, 3), DELTA)),
        kernel_input(np.repeat(cE, V, axis=0)),
        kernel_input(np.repeat(RE, V, axis=0)),
        kernel_input(np.repeat(sE, V, axis=0)),
        d,
        pa,
        pb,
        nrm,
    )
    return d, nrm


def _vertex_minima(best, best_n, start, vi, verts, cone, sE, RE, cE) -> None:  # type: ignore[no-untyped-def]
    """For the overlapping pairs the search marked (``vi >= 0``): Newton for vertex
    ``verts[i, vi]`` from ``start``, kept (in ``best``, ``best_n``) if it ends in that
    vertex's cone (``cone(idx, n (k,3)) -> (k,)``) below the best so far. Through the
    ellipsoid kernel's own ``_newton``, as the NumPy implementation called it."""
    idx = np.flatnonzero(vi >= 0)
    if idx.size == 0:
        return
    LE = RE[idx] * sE[idx, None, :]
    r = cE[idx] - verts[idx, vi[idx]]
    scale = np.linalg.norm(r, axis=-1) + sE[idx].max(axis=1) + DELTA
    n = np.empty((idx.size, 3))
    f = np.empty(idx.size)
    for m, (r0, r1, r2, s0, s1, s2, sc) in enumerate(
        np.column_stack([r, start[idx], scale]).tolist()
    ):
        n0, n1, n2, f[m], _ = _newton(
            _BALL, LE[m], r0, r1, r2, s0, s1, s2, sc, np.inf, _NO_FOUND, 0
        )
        n[m] = n0, n1, n2
    keep = (cone(idx, n) == vi[idx]) & (f - DELTA < best[idx])
    best[idx[keep]] = f[keep] - DELTA
    best_n[idx[keep]] = n[keep]


def _finish(F, n, sE, RE, cE):  # type: ignore[no-untyped-def]
    N = len(F)
    out = np.empty(N), np.empty((N, 3)), np.empty((N, 3)), np.empty((N, 3))
    finish_pairs(F, n, sE, RE, cE, *out)
    return out


def capsule_ellipsoid(sa, Ra, ca, sE, RE, cE):  # type: ignore[no-untyped-def]
    """Capsule (``(radius, radius, half length)`` along local z) against ellipsoid;
    sizes ``(N,3)``, rotations ``(N,3,3)``, centres ``(N,3)`` (m). Returns
    ``(d (N,), p_capsule, p_ellipsoid, n (N,3))``."""
    N = len(sa)
    sa, Ra, ca, sE, RE, cE = (_c(x) for x in (sa, Ra, ca, sE, RE, cE))
    axis = Ra[:, :, 2]
    verts = np.stack([ca + sa[:, 2:3] * axis, ca - sa[:, 2:3] * axis], axis=1)
    vd, vn = _vertices(verts, sE, RE, cE)
    best, best_n, start = np.empty(N), np.empty((N, 3)), np.empty((N, 3))
    vi = np.empty(N, dtype=np.int64)
    capsule_search(
        sa, Ra, ca, sE, RE, cE, vd, vn, _CIRCLE, _CIRCLE_CS, _DIRS, best, best_n, start, vi
    )

    def cone(i, n):  # type: ignore[no-untyped-def]
        return np.where(np.einsum("ni,ni->n", n, axis[i]) >= 0, 0, 1)

    _vertex_minima(best, best_n, start, vi, verts, cone, sE, RE, cE)
    return _finish(best + sa[:, 0], best_n, sE, RE, cE)


def box_ellipsoid(sb, Rb, cb, sE, RE, cE):  # type: ignore[no-untyped-def]
    """Box (half extents ``sb``) against ellipsoid, shapes as for
    :func:`capsule_ellipsoid`; returns ``(d, p_box, p_ellipsoid, n)``."""
    N = len(sb)
    sb, Rb, cb, sE, RE, cE = (_c(x) for x in (sb, Rb, cb, sE, RE, cE))
    verts = cb[:, None, :] + np.einsum("nij,nvj->nvi", Rb, _SIGNS[None] * sb[:, None, :])
    vd, vn = _vertices(verts, sE, RE, cE)
    best, best_n, start = np.empty(N), np.empty((N, 3)), np.empty((N, 3))
    vi = np.empty(N, dtype=np.int64)
    box_search(
        sb, Rb, cb, sE, RE, cE, vd, vn, _SIGNS, _ARCS, _QUADRANT, _QUADRANT_CS, _DIRS,
        best, best_n, start, vi,
    )  # fmt: skip
    pow2 = np.array([4, 2, 1])

    def cone(i, n):  # type: ignore[no-untyped-def]
        local = np.einsum("nji,nj->ni", Rb[i], n)
        return ((local >= 0).astype(int) * pow2).sum(-1)

    _vertex_minima(best, best_n, start, vi, verts, cone, sE, RE, cE)
    return _finish(best, best_n, sE, RE, cE)
