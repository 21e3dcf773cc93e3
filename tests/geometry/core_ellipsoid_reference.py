"""The NumPy capsule/box-against-ellipsoid distance (test reference).

The implementation :mod:`robotsim.geometry.core_ellipsoid` had before its search moved
into compiled kernels (:mod:`robotsim.geometry._core_kernel`), kept verbatim: the same
mathematics evaluated through NumPy array expressions, batched over pairs. The tests
hold the kernels to it within 1e-12 (distances, witness points, normals).
"""

from __future__ import annotations

import math

import numpy as np

from robotsim.geometry._ellipsoid_kernel import _newton, ellipsoid_pairs, kernel_input
from robotsim.geometry.sphere_points import fibonacci_sphere

_DELTA = 1e-3  # m, radius given to a vertex before calling the kernel (added back)
_GR = (math.sqrt(5.0) - 1.0) / 2.0


def _point_ellipsoid(v, sE, RE, cE):  # type: ignore[no-untyped-def]
    """Signed distance point->ellipsoid and the normal, for ``v (N,3)``."""
    n = len(v)
    d, pa, pb, nrm = np.empty(n), np.empty((n, 3)), np.empty((n, 3)), np.empty((n, 3))
    R0 = np.broadcast_to(np.eye(3), (n, 3, 3))
    # the kernel as core_ellipsoid calls it (read-only inputs): the same compiled copy
    c = kernel_input
    ellipsoid_pairs(c(v), c(R0), c(np.full((n, 3), _DELTA)), c(cE), c(RE), c(sE), d, pa, pb, nrm)
    return d + _DELTA, nrm


def _arc_min(u, w, a, b, sE, RE, r, theta_max):  # type: ignore[no-untyped-def]
    """min over theta in [0, theta_max] of ``a cos + b sin + |L_E^T n| - n.r`` with
    ``n = cos u + sin w``; arrays ``(N, K, ...)``. Returns value and ``n``."""
    LE = RE * sE[:, None, :]

    def G(th):  # type: ignore[no-untyped-def]
        c, s = np.cos(th)[..., None], np.sin(th)[..., None]
        n = c * u + s * w
        val = (
            a * c[..., 0]
            + b * s[..., 0]
            + np.linalg.norm(np.einsum("nji,nkj->nki", LE, n), axis=-1)
            - np.einsum("nkj,nj->nk", n, r)
        )
        return val

    M = 64
    grid = np.linspace(0.0, theta_max, M + 1 if theta_max < 2 * math.pi else M)
    th = np.broadcast_to(grid, (*u.shape[:2], len(grid))).transpose(2, 0, 1)
    vals = np.stack([G(t) for t in th])  # (M, N, K)
    k = np.argmin(vals, axis=0)
    step = grid[1] - grid[0]
    lo = grid[k] - step
    hi = grid[k] + step
    if theta_max < 2 * math.pi:
        lo = np.maximum(lo, 0.0)
        hi = np.minimum(hi, theta_max)
    x1 = hi - _GR * (hi - lo)
    x2 = lo + _GR * (hi - lo)
    f1, f2 = G(x1), G(x2)
    for _ in range(64):
        left = f1 < f2  # the minimum is in [lo, x2]
        hi = np.where(left, x2, hi)
        lo = np.where(left, lo, x1)
        x1n = np.where(left, hi - _GR * (hi - lo), x2)
        x2n = np.where(left, x1, lo + _GR * (hi - lo))
        g = G(np.where(left, x1n, x2n))
        f1, f2 = np.where(left, g, f2), np.where(left, f1, g)
        x1, x2 = x1n, x2n
    t = 0.5 * (lo + hi)
    ends = [t, np.zeros_like(t)] + ([np.full_like(t, theta_max)] if theta_max < 2 * math.pi else [])
    best_v = np.full(t.shape, np.inf)
    best_t = t
    for cand in ends:
        v = G(cand)
        upd = v < best_v
        best_v = np.where(upd, v, best_v)
        best_t = np.where(upd, cand, best_t)
    n = np.cos(best_t)[..., None] * u + np.sin(best_t)[..., None] * w
    return best_v, n


_DIRS = fibonacci_sphere(2000)
_NO_FOUND = np.zeros((1, 3))


def _local_vertex_minima(best, best_n, verts, cone, h_core, sE, RE, cE):  # type: ignore[no-untyped-def]
    """For overlapping pairs (``best > 0``): F restricted to one vertex cone may have a
    local minimum that is not the global minimum of that vertex's function. Start
    Newton for the vertex owning the best of 2000 directions, keep it if it stays in
    the cone. ``verts (N, V, 3)``, ``cone(n (N,3)) -> vertex index``, ``h_core(dirs)``
    the core support ``(N, K)``."""
    idx = np.flatnonzero(best > 0)
    if idx.size == 0:
        return best, best_n
    LE = RE[idx] * sE[idx, None, :]
    dirs = np.broadcast_to(_DIRS, (idx.size, *_DIRS.shape))
    F = (
        h_core(idx, dirs)
        + np.linalg.norm(np.einsum("nji,nkj->nki", LE, dirs), axis=-1)
        - np.einsum("nkj,nj->nk", dirs, cE[idx])
    )
    start = _DIRS[np.argmin(F, axis=1)]
    vi = cone(idx, start)
    LA = np.eye(3) * _DELTA
    for m, i in enumerate(idx):
        v = verts[i, vi[m]]
        r = cE[i] - v
        scale = float(np.linalg.norm(r) + sE[i].max() + _DELTA)
        n0, n1, n2, f, _ = _newton(
            LA,
            np.ascontiguousarray(LE[m]),
            r[0],
            r[1],
            r[2],
            start[m, 0],
            start[m, 1],
            start[m, 2],
            scale,
            np.inf,
            _NO_FOUND,
            0,
        )
        n = np.array([n0, n1, n2])
        if cone(np.array([i]), n[None])[0] == vi[m] and f - _DELTA < best[i]:
            best[i] = f - _DELTA
            best_n[i] = n
    return best, best_n


def _finish(F, n, sE, RE, cE):  # type: ignore[no-untyped-def]
    d = -F
    u = np.einsum("nji,nj->ni", RE, n) * sE  # L_E^T n
    pE = cE - np.einsum("nij,nj->ni", RE, sE * u / np.linalg.norm(u, axis=-1, keepdims=True))
    return d, pE - d[:, None] * n, pE, n


def capsule_ellipsoid(sa, Ra, ca, sE, RE, cE):  # type: ignore[no-untyped-def]
    """Capsule (``(radius, radius, half length)`` along local z) against ellipsoid;
    returns ``(d, p_capsule, p_ellipsoid, n)``, all ``(N, ...)``."""
    N = len(sa)
    axis = Ra[:, :, 2]
    rho = sa[:, 0]
    best = np.full(N, np.inf)
    best_n = np.zeros((N, 3))
    for sgn in (1.0, -1.0):
        v = ca + sgn * sa[:, 2:3] * axis
        sd, nrm = _point_ellipsoid(v, sE, RE, cE)
        valid = sgn * np.einsum("ni,ni->n", nrm, axis) >= 0
        F = np.where(valid, -sd + rho, np.inf)
        upd = F < best
        best = np.where(upd, F, best)
        best_n = np.where(upd[:, None], nrm, best_n)
    u = Ra[:, :, 0][:, None]
    w = Ra[:, :, 1][:, None]
    zero = np.zeros((N, 1))
    Fa, na = _arc_min(u, w, zero, zero, sE, RE, cE - ca, 2 * math.pi)
    Fa = Fa[:, 0] + rho
    upd = Fa < best
    best = np.where(upd, Fa, best)
    best_n = np.where(upd[:, None], na[:, 0], best_n)
    verts = np.stack([ca + sa[:, 2:3] * axis, ca - sa[:, 2:3] * axis], axis=1)

    def cone(i, n):  # type: ignore[no-untyped-def]
        return np.where(np.einsum("ni,ni->n", n, axis[i]) >= 0, 0, 1)

    def h_core(i, dirs):  # type: ignore[no-untyped-def]
        return np.einsum("nkj,nj->nk", dirs, ca[i]) + sa[i, 2:3] * np.abs(
            np.einsum("nkj,nj->nk", dirs, axis[i])
        )

    best, best_n = _local_vertex_minima(best - rho, best_n, verts, cone, h_core, sE, RE, cE)
    return _finish(best + rho, best_n, sE, RE, cE)


_SIGNS = np.array([[i, j, k] for i in (-1, 1) for j in (-1, 1) for k in (-1, 1)], float)
# edge arcs: normals perpendicular to axis i, in the quadrant (s_j e_j, s_k e_k)
_ARCS = [
    (i, j, k, sj, sk)
    for i in range(3)
    for (j, k) in [tuple(x for x in range(3) if x != i)]
    for sj in (-1.0, 1.0)
    for sk in (-1.0, 1.0)
]


def box_ellipsoid(sb, Rb, cb, sE, RE, cE):  # type: ignore[no-untyped-def]
    """Box (half extents ``sb``) against ellipsoid; returns ``(d, p_box, p_ell, n)``."""
    N = len(sb)
    best = np.full(N, np.inf)
    best_n = np.zeros((N, 3))
    for sg in _SIGNS:
        v = cb + np.einsum("nij,nj->ni", Rb, sg * sb)
        sd, nrm = _point_ellipsoid(v, sE, RE, cE)
        local = np.einsum("nji,nj->ni", Rb, nrm)
        valid = np.all(sg * local >= 0, axis=1)
        F = np.where(valid, -sd, np.inf)
        upd = F < best
        best = np.where(upd, F, best)
        best_n = np.where(upd[:, None], nrm, best_n)
    u = np.stack([sj * Rb[:, :, j] for (_, j, _, sj, _) in _ARCS], axis=1)
    w = np.stack([sk * Rb[:, :, k] for (_, _, k, _, sk) in _ARCS], axis=1)
    a = np.stack([sb[:, j] for (_, j, _, _, _) in _ARCS], axis=1)
    b = np.stack([sb[:, k] for (_, _, k, _, _) in _ARCS], axis=1)
    Fa, na = _arc_min(u, w, a, b, sE, RE, cE - cb, math.pi / 2)
    k = np.argmin(Fa, axis=1)
    Fk = Fa[np.arange(N), k]
    upd = Fk < best
    best = np.where(upd, Fk, best)
    best_n = np.where(upd[:, None], na[np.arange(N), k], best_n)
    verts = cb[:, None, :] + np.einsum("nij,nvj->nvi", Rb, _SIGNS[None] * sb[:, None, :])
    pow2 = np.array([4, 2, 1])

    def cone(i, n):  # type: ignore[no-untyped-def]
        local = np.einsum("nji,nj->ni", Rb[i], n)
        return ((local >= 0).astype(int) * pow2).sum(-1)  # index into _SIGNS

    def h_core(i, dirs):  # type: ignore[no-untyped-def]
        local = np.einsum("nji,nkj->nki", Rb[i], dirs)
        return np.einsum("nkj,nj->nk", dirs, cb[i]) + (np.abs(local) * sb[i, None, :]).sum(-1)

    best, best_n = _local_vertex_minima(best, best_n, verts, cone, h_core, sE, RE, cE)
    return _finish(best, best_n, sE, RE, cE)
