"""Compiled kernels for capsules and boxes against ellipsoids (see :mod:`.core_ellipsoid`).

Per batch of ``N`` pairs: :func:`capsule_search` / :func:`box_search` take the vertex
candidates (the exact ellipsoid kernel's results, computed beforehand), scan and refine
every arc and pick the best candidate; for an overlapping pair they also pick the start
of the vertex-cone search. :func:`finish_pairs` turns the minimiser into distances and
witness points.

The arithmetic is written in the order NumPy's array expressions evaluate it (this
``einsum`` sums ``n.r`` as ``(n0 r0 + n2 r2) + n1 r1`` and ``L^T n`` from the first
term, ``norm`` adds the squares left to right; no fused multiply-adds, no fast-math),
so the kernels agree bit for bit with the former NumPy implementation
(``tests/geometry/core_ellipsoid_reference.py``): the golden section compares the same
numbers and takes the same steps. The exact ellipsoid kernel and its Newton method are
*not* compiled in here but called as they are (:mod:`.core_ellipsoid`): they are built
with fast-math, so a copy compiled into another kernel may round differently.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["DELTA", "box_search", "capsule_search", "finish_pairs"]

DELTA = 1e-3  # m, radius given to a vertex before calling the ellipsoid kernel (added back)
_GR = (math.sqrt(5.0) - 1.0) / 2.0
_GOLDEN_STEPS = 64  # bracket of two scan steps times 0.618**64 ~ 4e-14 of it


@njit(cache=True, error_model="numpy", nogil=True, inline="always")
def _Gcs(LE, u0, u1, u2, w0, w1, w2, a, b, r0, r1, r2, c, s):  # type: ignore[no-untyped-def]
    """``a c + b s + |L_E^T n| - n.r`` at ``n = c u + s w``."""
    n0 = c * u0 + s * w0
    n1 = c * u1 + s * w1
    n2 = c * u2 + s * w2
    m0 = LE[0, 0] * n0 + LE[1, 0] * n1 + LE[2, 0] * n2
    m1 = LE[0, 1] * n0 + LE[1, 1] * n1 + LE[2, 1] * n2
    m2 = LE[0, 2] * n0 + LE[1, 2] * n1 + LE[2, 2] * n2
    return a * c + b * s + math.sqrt(m0 * m0 + m1 * m1 + m2 * m2) - (n0 * r0 + n2 * r2 + n1 * r1)


@njit(cache=True, error_model="numpy", nogil=True, inline="always")
def _G(LE, u0, u1, u2, w0, w1, w2, a, b, r0, r1, r2, th):  # type: ignore[no-untyped-def]
    """:func:`_Gcs` at the angle ``th``."""
    return _Gcs(LE, u0, u1, u2, w0, w1, w2, a, b, r0, r1, r2, math.cos(th), math.sin(th))


@njit(cache=True, error_model="numpy", nogil=True)
def _arc_scan(LE, u0, u1, u2, w0, w1, w2, a, b, r0, r1, r2, cs):  # type: ignore[no-untyped-def]
    """The scan of :func:`_Gcs` at ``cs (M, 2)`` (the grid's cosines and sines): index
    and value of its first smallest sample."""
    k = 0
    fk = _Gcs(LE, u0, u1, u2, w0, w1, w2, a, b, r0, r1, r2, cs[0, 0], cs[0, 1])
    for m in range(1, cs.shape[0]):
        f = _Gcs(LE, u0, u1, u2, w0, w1, w2, a, b, r0, r1, r2, cs[m, 0], cs[m, 1])
        if f < fk:
            k, fk = m, f
    return k, fk


@njit(cache=True, error_model="numpy", nogil=True)
def _arc_refine(LE, u0, u1, u2, w0, w1, w2, a, b, r0, r1, r2, grid, k, closed):  # type: ignore[no-untyped-def]
    """Golden section of :func:`_G` in the two steps of ``grid`` around sample ``k``,
    compared with the ends (``0``, and ``grid[-1]`` when ``closed``: an arc, not the
    whole circle). Returns ``(value, theta)``."""
    theta_max = grid[grid.shape[0] - 1]
    step = grid[1] - grid[0]
    lo = grid[k] - step
    hi = grid[k] + step
    if closed:
        lo = max(lo, 0.0)
        hi = min(hi, theta_max)
    x1 = hi - _GR * (hi - lo)
    x2 = lo + _GR * (hi - lo)
    f1 = _G(LE, u0, u1, u2, w0, w1, w2, a, b, r0, r1, r2, x1)
    f2 = _G(LE, u0, u1, u2, w0, w1, w2, a, b, r0, r1, r2, x2)
    for _ in range(_GOLDEN_STEPS):
        if f1 < f2:  # the minimum is in [lo, x2]
            hi = x2
            x2 = x1
            x1 = hi - _GR * (hi - lo)
            f2 = f1
            f1 = _G(LE, u0, u1, u2, w0, w1, w2, a, b, r0, r1, r2, x1)
        else:
            lo = x1
            x1 = x2
            x2 = lo + _GR * (hi - lo)
            f1 = f2
            f2 = _G(LE, u0, u1, u2, w0, w1, w2, a, b, r0, r1, r2, x2)
    t = 0.5 * (lo + hi)
    best_t = t
    best_v = _G(LE, u0, u1, u2, w0, w1, w2, a, b, r0, r1, r2, t)
    f = _G(LE, u0, u1, u2, w0, w1, w2, a, b, r0, r1, r2, 0.0)
    if f < best_v:
        best_v, best_t = f, 0.0
    if closed:
        f = _G(LE, u0, u1, u2, w0, w1, w2, a, b, r0, r1, r2, theta_max)
        if f < best_v:
            best_v, best_t = f, theta_max
    return best_v, best_t


@njit(cache=True, error_model="numpy", nogil=True, inline="always")
def _arc_slope(LE, u0, u1, u2, w0, w1, w2, a, b, r0, r1, r2):  # type: ignore[no-untyped-def]
    """A bound on ``|dG/dtheta|`` along the arc: ``sqrt(a^2 + b^2) + (|L_E|_F + |r|)
    (|u| + |w|)`` (``|dn/dtheta| <= |u| + |w|``, and ``|L_E^T n|`` changes at most
    ``|L_E|`` times as fast as ``n``)."""
    le = 0.0
    for i in range(3):
        for j in range(3):
            le += LE[i, j] * LE[i, j]
    uw = math.sqrt(u0 * u0 + u1 * u1 + u2 * u2) + math.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
    rn = math.sqrt(r0 * r0 + r1 * r1 + r2 * r2)
    return math.sqrt(a * a + b * b) + (math.sqrt(le) + rn) * uw


@njit(cache=True, error_model="numpy", nogil=True, inline="always")
def _fill_LE(RE, sE, i, LE):  # type: ignore[no-untyped-def]
    for r in range(3):
        for c in range(3):
            LE[r, c] = RE[i, r, c] * sE[i, c]


@njit(cache=True, error_model="numpy", nogil=True)
def finish_pairs(F, n, sE, RE, cE, d, pa, pE, nrm):  # type: ignore[no-untyped-def]
    """From the minimum ``F (N,)`` of the support function at ``n (N,3)``: the signed
    distance ``-F`` into ``d``, the ellipsoid's support point at ``-n`` into ``pE``,
    its translate on the other shape into ``pa``, the normal into ``nrm``."""
    for i in range(F.shape[0]):
        n0, n1, n2 = n[i, 0], n[i, 1], n[i, 2]
        dist = -F[i]
        u0 = (RE[i, 0, 0] * n0 + RE[i, 1, 0] * n1 + RE[i, 2, 0] * n2) * sE[i, 0]
        u1 = (RE[i, 0, 1] * n0 + RE[i, 1, 1] * n1 + RE[i, 2, 1] * n2) * sE[i, 1]
        u2 = (RE[i, 0, 2] * n0 + RE[i, 1, 2] * n1 + RE[i, 2, 2] * n2) * sE[i, 2]
        nu = math.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
        q0 = sE[i, 0] * u0 / nu
        q1 = sE[i, 1] * u1 / nu
        q2 = sE[i, 2] * u2 / nu
        for j in range(3):
            p = cE[i, j] - (RE[i, j, 0] * q0 + RE[i, j, 2] * q2 + RE[i, j, 1] * q1)
            pE[i, j] = p
            pa[i, j] = p - dist * n[i, j]
            nrm[i, j] = n[i, j]
        d[i] = dist


@njit(cache=True, error_model="numpy", nogil=True)
def capsule_search(sa, Ra, ca, sE, RE, cE, vd, vn, grid, cs, dirs, best, best_n, start, vi):  # type: ignore[no-untyped-def]
    """``N`` capsules (``sa = (radius, radius, half length)`` along local z, ``Ra``,
    ``ca``) against ellipsoids (radii ``sE``, ``RE``, ``cE``). ``vd (2N,)``, ``vn
    (2N,3)``: the ellipsoid kernel's distance (less ``DELTA``) and normal for the ends
    ``c + h z`` (row ``2i``) and ``c - h z`` (row ``2i+1``). ``grid (M,)`` the scan of
    the circle ``[0, 2 pi]`` and ``cs (M,2)`` its cosines and sines, ``dirs (K,3)`` the
    directions that start an overlapping pair's vertex search.

    Fills ``best (N,)``: the smallest candidate of the core segment (the capsule's
    value less its radius), ``best_n (N,3)`` its normal, and for a pair still
    overlapping then the best of ``dirs`` into ``start (N,3)`` and its end (0 or 1)
    into ``vi (N,)``, which is -1 for the other pairs."""
    LE = np.empty((3, 3))
    for i in range(sa.shape[0]):
        _fill_LE(RE, sE, i, LE)
        a0, a1, a2 = Ra[i, 0, 2], Ra[i, 1, 2], Ra[i, 2, 2]
        rho = sa[i, 0]
        b = np.inf
        b0 = b1 = b2 = 0.0
        for e in range(2):
            m = 2 * i + e
            n0, n1, n2 = vn[m, 0], vn[m, 1], vn[m, 2]
            sgn = 1.0 if e == 0 else -1.0
            if sgn * (n0 * a0 + n1 * a1 + n2 * a2) >= 0:
                F = -(vd[m] + DELTA) + rho
                if F < b:
                    b, b0, b1, b2 = F, n0, n1, n2
        r0, r1, r2 = cE[i, 0] - ca[i, 0], cE[i, 1] - ca[i, 1], cE[i, 2] - ca[i, 2]
        u0, u1, u2 = Ra[i, 0, 0], Ra[i, 1, 0], Ra[i, 2, 0]
        w0, w1, w2 = Ra[i, 0, 1], Ra[i, 1, 1], Ra[i, 2, 1]
        k, _ = _arc_scan(LE, u0, u1, u2, w0, w1, w2, 0.0, 0.0, r0, r1, r2, cs)
        # np.bool_: a constant would compile _arc_refine once per value (Literal[bool])
        fa, t = _arc_refine(
            LE, u0, u1, u2, w0, w1, w2, 0.0, 0.0, r0, r1, r2, grid, k, np.bool_(False)
        )
        fa += rho
        if fa < b:
            c, s = math.cos(t), math.sin(t)
            b, b0, b1, b2 = fa, c * u0 + s * w0, c * u1 + s * w1, c * u2 + s * w2
        b -= rho
        best[i] = b
        best_n[i, 0], best_n[i, 1], best_n[i, 2] = b0, b1, b2
        vi[i] = -1
        if b > 0:  # overlapping: a local minimum inside a vertex cone may be lower
            h = sa[i, 2]
            kbest = 0
            fbest = np.inf
            for k in range(dirs.shape[0]):
                x0, x1, x2 = dirs[k, 0], dirs[k, 1], dirs[k, 2]
                m0 = LE[0, 0] * x0 + LE[1, 0] * x1 + LE[2, 0] * x2
                m1 = LE[0, 1] * x0 + LE[1, 1] * x1 + LE[2, 1] * x2
                m2 = LE[0, 2] * x0 + LE[1, 2] * x1 + LE[2, 2] * x2
                core = (x0 * ca[i, 0] + x2 * ca[i, 2] + x1 * ca[i, 1]) + h * abs(
                    x0 * a0 + x2 * a2 + x1 * a1
                )
                f = (
                    core
                    + math.sqrt(m0 * m0 + m1 * m1 + m2 * m2)
                    - (x0 * cE[i, 0] + x2 * cE[i, 2] + x1 * cE[i, 1])
                )
                if f < fbest:
                    kbest, fbest = k, f
            s0, s1, s2 = dirs[kbest, 0], dirs[kbest, 1], dirs[kbest, 2]
            start[i, 0], start[i, 1], start[i, 2] = s0, s1, s2
            vi[i] = 0 if s0 * a0 + s2 * a2 + s1 * a1 >= 0 else 1


@njit(cache=True, error_model="numpy", nogil=True, inline="always")
def _box_cone(R, i, n0, n1, n2):  # type: ignore[no-untyped-def]
    """Index (into the vertex signs, ``x`` slowest) of the box vertex whose normal cone
    holds ``n``."""
    k = 0
    for j in range(3):
        if R[i, 0, j] * n0 + R[i, 1, j] * n1 + R[i, 2, j] * n2 >= 0:
            k += 4 >> j
    return k


@njit(cache=True, error_model="numpy", nogil=True, inline="always")
def _argsort12(f, order):  # type: ignore[no-untyped-def]
    """``order[:] = np.argsort(f)`` for the twelve arc values: the same order as numba's
    ``argsort``, which sorts fewer than 16 values by this insertion sort (stable, NaN
    last), without compiling its quicksort (a second in a cold first run)."""
    for q in range(12):
        v = f[q]
        j = q
        while j > 0:
            w = f[order[j - 1]]
            if not (v < w or (math.isnan(w) and not math.isnan(v))):
                break
            order[j] = order[j - 1]
            j -= 1
        order[j] = q


@njit(cache=True, error_model="numpy", nogil=True)
def box_search(
    sb, Rb, cb, sE, RE, cE, vd, vn, signs, arcs, grid, cs, dirs, best, best_n, start, vi
):  # type: ignore[no-untyped-def]
    """``N`` boxes (half extents ``sb``, ``Rb``, ``cb``) against ellipsoids; ``vd (8N,)``,
    ``vn (8N,3)`` as for capsules, row ``8i+v`` the vertex of sign pattern ``signs[v]``
    (``signs (8,3)``); ``arcs (12,4)`` the edge arcs ``(j, k, s_j, s_k)`` (normals in
    the quadrant of ``s_j e_j`` and ``s_k e_k``), ``grid`` and ``cs`` the scan of
    ``[0, pi/2]``, ``dirs`` as for capsules. Fills ``best``, ``best_n``, ``start`` and
    ``vi`` (the vertex, an index into ``signs``) as :func:`capsule_search` does."""
    LE = np.empty((3, 3))
    U = np.empty((12, 3))
    W = np.empty((12, 3))
    kq = np.empty(12, dtype=np.int64)
    fq = np.empty(12)
    lower = np.empty(12)
    order = np.empty(12, dtype=np.int64)
    step = grid[1] - grid[0]
    for i in range(sb.shape[0]):
        _fill_LE(RE, sE, i, LE)
        b = np.inf
        b0 = b1 = b2 = 0.0
        for v in range(8):
            m = 8 * i + v
            n0, n1, n2 = vn[m, 0], vn[m, 1], vn[m, 2]
            valid = True
            for j in range(3):
                loc = Rb[i, 0, j] * n0 + Rb[i, 1, j] * n1 + Rb[i, 2, j] * n2
                if not signs[v, j] * loc >= 0:
                    valid = False
            F = -(vd[m] + DELTA)
            if valid and F < b:
                b, b0, b1, b2 = F, n0, n1, n2
        r0, r1, r2 = cE[i, 0] - cb[i, 0], cE[i, 1] - cb[i, 1], cE[i, 2] - cb[i, 2]
        # every arc's scan first; the golden section only where it can beat the best
        # arc refined so far (its value is at least the scan's minimum less the slope
        # times half a step): the same winner as refining all twelve in order
        for q in range(12):
            j, k = int(arcs[q, 0]), int(arcs[q, 1])
            sj, sk = arcs[q, 2], arcs[q, 3]
            U[q, 0], U[q, 1], U[q, 2] = sj * Rb[i, 0, j], sj * Rb[i, 1, j], sj * Rb[i, 2, j]
            W[q, 0], W[q, 1], W[q, 2] = sk * Rb[i, 0, k], sk * Rb[i, 1, k], sk * Rb[i, 2, k]
            kq[q], fq[q] = _arc_scan(
                LE, U[q, 0], U[q, 1], U[q, 2], W[q, 0], W[q, 1], W[q, 2],
                sb[i, j], sb[i, k], r0, r1, r2, cs,
            )  # fmt: skip
            slope = _arc_slope(
                LE, U[q, 0], U[q, 1], U[q, 2], W[q, 0], W[q, 1], W[q, 2],
                sb[i, j], sb[i, k], r0, r1, r2,
            )  # fmt: skip
            lower[q] = fq[q] - slope * (0.5 * step) - 1e-12 * (1.0 + slope + abs(fq[q]))
        fa = np.inf
        ta = 0.0
        qa = 0
        _argsort12(fq, order)
        for q in order:
            if lower[q] > fa:
                continue
            j, k = int(arcs[q, 0]), int(arcs[q, 1])
            f, t = _arc_refine(
                LE, U[q, 0], U[q, 1], U[q, 2], W[q, 0], W[q, 1], W[q, 2],
                sb[i, j], sb[i, k], r0, r1, r2, grid, kq[q], np.bool_(True),
            )  # fmt: skip
            if f < fa or (f == fa and q < qa):  # ties: the first arc, as in order
                fa, ta, qa = f, t, q
        if fa < b:
            c, s = math.cos(ta), math.sin(ta)
            b = fa
            b0 = c * U[qa, 0] + s * W[qa, 0]
            b1 = c * U[qa, 1] + s * W[qa, 1]
            b2 = c * U[qa, 2] + s * W[qa, 2]
        best[i] = b
        best_n[i, 0], best_n[i, 1], best_n[i, 2] = b0, b1, b2
        vi[i] = -1
        if b > 0:  # overlapping: a local minimum inside a vertex cone may be lower
            kbest = 0
            fbest = np.inf
            for k in range(dirs.shape[0]):
                x0, x1, x2 = dirs[k, 0], dirs[k, 1], dirs[k, 2]
                m0 = LE[0, 0] * x0 + LE[1, 0] * x1 + LE[2, 0] * x2
                m1 = LE[0, 1] * x0 + LE[1, 1] * x1 + LE[2, 1] * x2
                m2 = LE[0, 2] * x0 + LE[1, 2] * x1 + LE[2, 2] * x2
                l0 = Rb[i, 0, 0] * x0 + Rb[i, 1, 0] * x1 + Rb[i, 2, 0] * x2
                l1 = Rb[i, 0, 1] * x0 + Rb[i, 1, 1] * x1 + Rb[i, 2, 1] * x2
                l2 = Rb[i, 0, 2] * x0 + Rb[i, 1, 2] * x1 + Rb[i, 2, 2] * x2
                core = (x0 * cb[i, 0] + x2 * cb[i, 2] + x1 * cb[i, 1]) + (
                    abs(l0) * sb[i, 0] + abs(l1) * sb[i, 1] + abs(l2) * sb[i, 2]
                )
                f = (
                    core
                    + math.sqrt(m0 * m0 + m1 * m1 + m2 * m2)
                    - (x0 * cE[i, 0] + x2 * cE[i, 2] + x1 * cE[i, 1])
                )
                if f < fbest:
                    kbest, fbest = k, f
            s0, s1, s2 = dirs[kbest, 0], dirs[kbest, 1], dirs[kbest, 2]
            start[i, 0], start[i, 1], start[i, 2] = s0, s1, s2
            vi[i] = _box_cone(Rb, i, s0, s1, s2)
