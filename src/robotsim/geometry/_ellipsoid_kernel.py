"""Compiled kernel for the signed distance between two ellipsoids.

Notation (all in world coordinates): ellipsoid ``E = {c + L u : |u| <= 1}`` with
``L = R diag(radii)``, so its support function is ``h(n) = n.c + |L^T n|``. With
``r = c_B - c_A`` define on unit vectors ``n``

    F(n) = h_A(n) + h_B(-n) - n.r = |L_A^T n| + |L_B^T n| - n.r,

the support function of the Minkowski difference ``A - B`` (centred). For any two
convex bodies the *signed distance* is ``s = -min_{|n|=1} F(n)``: the Euclidean gap
when they are apart, minus the minimum translation distance (penetration depth) when
they overlap. The minimiser ``n*`` is the unit normal from A to B and the witness
points are the support points ``p_A = c_A + L_A u_A / |u_A|`` (``u_A = L_A^T n*``) and
``p_B = c_B - L_B u_B / |u_B|``; they satisfy ``p_B - p_A = s n*``.

Separated pairs. ``F`` is convex and positively homogeneous, so its negative set is a
convex cone and on the sphere ``F`` has exactly one local minimum with ``F < 0``; its
Riemannian Hessian there is ``P grad^2 F P - F I``, positive definite. Any start with
``F < 0`` therefore leads Newton's method (with a monotone line search) to the global
minimum; the start is ``r/|r|`` or, when that is not negative, the contact normal of
the Perram-Wertheim function (its maximiser ``lam`` gives ``n ~ M(lam)^-1 r`` with
``F(n) < 0`` exactly when the pair is separated, a certificate).

Overlapping pairs (Perram-Wertheim maximum <= 1). ``F > 0`` on the sphere and may have
several local minima; Newton is started from the ellipsoids' axes and the centre line
and the smallest local minimum is kept. After each run a certified lower bound
(:mod:`robotsim.geometry._ellipsoid_bound`) may prove that ``F`` nowhere goes below the
smallest minimum found (less ``1e-10`` of the pair's scale, at most ``1e-6`` of the
minimum): the later starts, which could only find that minimum again or one within
that margin, are then skipped.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from robotsim.geometry._ellipsoid_bound import overlap_depth_bound_holds
from robotsim.geometry._sphere_frame import FASTMATH as _FM
from robotsim.geometry._sphere_frame import matT as _matT
from robotsim.geometry._sphere_frame import tangents as _tangents

__all__ = ["ellipsoid_pairs", "kernel_input"]

# numba caches these kernels keyed on this file's time stamp alone, but they compile in
# _ellipsoid_bound.py and _sphere_frame.py too: their SHA-1 is recorded here, and
# tests/geometry/test_ellipsoid_bound.py fails until it is updated after an edit there
# (which changes this file, so numba recompiles instead of loading a stale kernel)
COMPILED_IN_SHA1 = "38a9355938de0957e6e156e14e159157fa31155f"

_RUNS = 4  # Newton starts for overlapping pairs...
_RUNS_FLAT = 6  # ...and when an ellipsoid's axes differ more than _FLAT times
_FLAT = 20.0
# how far below the best minimum f the depth bound may be: 1e-10 of the pair's scale,
# at most 1e-6 of f (a shallow overlap, f ~ 1e-9 m, is left to every start)
_BOUND_MARGIN = 1e-10
_BOUND_MARGIN_REL = 1e-6


def kernel_input(x: np.ndarray) -> np.ndarray:
    """``x`` as :func:`ellipsoid_pairs` is compiled for: a read-only, C-contiguous
    float64 view (a copy only when ``x`` is not C-contiguous float64). numba compiles a
    kernel again for each new combination of writable and read-only arrays (they are
    different types to it: the pairs kernel once had five specialisations); every
    caller passes the six inputs through this, so it is compiled once."""
    a = np.ascontiguousarray(x, dtype=np.float64)
    if a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a


@njit(cache=True, inline="always", fastmath=_FM)
def _support(L, n0, n1, n2):  # type: ignore[no-untyped-def]
    """``s = |L^T n|`` and the support offset ``g = L L^T n / s``."""
    u0 = L[0, 0] * n0 + L[1, 0] * n1 + L[2, 0] * n2
    u1 = L[0, 1] * n0 + L[1, 1] * n1 + L[2, 1] * n2
    u2 = L[0, 2] * n0 + L[1, 2] * n1 + L[2, 2] * n2
    s = math.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
    g0 = (L[0, 0] * u0 + L[0, 1] * u1 + L[0, 2] * u2) / s
    g1 = (L[1, 0] * u0 + L[1, 1] * u1 + L[1, 2] * u2) / s
    g2 = (L[2, 0] * u0 + L[2, 1] * u1 + L[2, 2] * u2) / s
    return s, u0, u1, u2, g0, g1, g2


@njit(cache=True, inline="always", fastmath=_FM)
def _F(LA, LB, r0, r1, r2, n0, n1, n2):  # type: ignore[no-untyped-def]
    a0 = LA[0, 0] * n0 + LA[1, 0] * n1 + LA[2, 0] * n2
    a1 = LA[0, 1] * n0 + LA[1, 1] * n1 + LA[2, 1] * n2
    a2 = LA[0, 2] * n0 + LA[1, 2] * n1 + LA[2, 2] * n2
    b0 = LB[0, 0] * n0 + LB[1, 0] * n1 + LB[2, 0] * n2
    b1 = LB[0, 1] * n0 + LB[1, 1] * n1 + LB[2, 1] * n2
    b2 = LB[0, 2] * n0 + LB[1, 2] * n1 + LB[2, 2] * n2
    return (
        math.sqrt(a0 * a0 + a1 * a1 + a2 * a2)
        + math.sqrt(b0 * b0 + b1 * b1 + b2 * b2)
        - (n0 * r0 + n1 * r1 + n2 * r2)
    )


@njit(cache=True, fastmath=_FM)
def _newton(LA, LB, r0, r1, r2, n0, n1, n2, scale, abort_above, found, nfound):  # type: ignore[no-untyped-def]
    """Minimise F on the unit sphere from ``n``; returns ``(n, F, ok)``.

    Riemannian Newton in the tangent plane ``(t, v)`` with a monotone backtracking line
    search; an indefinite Hessian is shifted to positive definite. ``ok`` is False
    when the end point is not a strict local minimum (a saddle reached by symmetry).
    A step ``n' = (n + s1 t + s2 v)/k`` maps ``u = L^T n`` to ``(u + s1 L^T t + s2 L^T v)/k``,
    so trial points and the next iterate cost no matrix products beyond ``L^T t`` and
    ``L^T v`` (``u`` is recomputed exactly at the end).

    Early stop: a run stops when its basin cannot beat ``abort_above``: only once the
    quadratic model has proved itself (the last step's actual decrease within 0.9-1.1
    of the predicted one, positive definite Hessian) and the model's minimum with twice
    the predicted remaining decrease, ``f + g.s``, is still above it, or the iterate is
    within 0.01 rad of a minimum already found (``found[:nfound]``), which the
    converging iteration would reach again.
    """
    tol = 1e-15 * scale
    ok = False
    trust = 0
    ua0, ua1, ua2 = _matT(LA, n0, n1, n2)
    ub0, ub1, ub2 = _matT(LB, n0, n1, n2)
    for _ in range(60):
        sA = math.sqrt(ua0 * ua0 + ua1 * ua1 + ua2 * ua2)
        sB = math.sqrt(ub0 * ub0 + ub1 * ub1 + ub2 * ub2)
        nr = n0 * r0 + n1 * r1 + n2 * r2
        f = sA + sB - nr
        t0, t1, t2, v0, v1, v2 = _tangents(n0, n1, n2)
        wa0, wa1, wa2 = _matT(LA, t0, t1, t2)
        za0, za1, za2 = _matT(LA, v0, v1, v2)
        wb0, wb1, wb2 = _matT(LB, t0, t1, t2)
        zb0, zb1, zb2 = _matT(LB, v0, v1, v2)
        aA = (ua0 * wa0 + ua1 * wa1 + ua2 * wa2) / sA
        bA = (ua0 * za0 + ua1 * za1 + ua2 * za2) / sA
        aB = (ub0 * wb0 + ub1 * wb1 + ub2 * wb2) / sB
        bB = (ub0 * zb0 + ub1 * zb1 + ub2 * zb2) / sB
        tr = t0 * r0 + t1 * r1 + t2 * r2
        vr = v0 * r0 + v1 * r1 + v2 * r2
        g1 = aA + aB - tr
        g2 = bA + bB - vr
        h11 = (wa0 * wa0 + wa1 * wa1 + wa2 * wa2 - aA * aA) / sA
        h11 += (wb0 * wb0 + wb1 * wb1 + wb2 * wb2 - aB * aB) / sB - f
        h12 = (wa0 * za0 + wa1 * za1 + wa2 * za2 - aA * bA) / sA
        h12 += (wb0 * zb0 + wb1 * zb1 + wb2 * zb2 - aB * bB) / sB
        h22 = (za0 * za0 + za1 * za1 + za2 * za2 - bA * bA) / sA
        h22 += (zb0 * zb0 + zb1 * zb1 + zb2 * zb2 - bB * bB) / sB - f
        tr_h = 0.5 * (h11 + h22)
        disc = math.sqrt(0.25 * (h11 - h22) ** 2 + h12 * h12)
        lmin = tr_h - disc
        gn = math.sqrt(g1 * g1 + g2 * g2)
        hscale = tr_h + disc
        pd = lmin > 1e-12 * (abs(hscale) + scale)
        if gn <= tol:
            if pd:
                ok = True
                break
            # a saddle or maximum reached by symmetry: leave along negative curvature
            if abs(h12) > 1e-300:
                e1, e2 = h12, lmin - h11
            elif h11 <= h22:
                e1, e2 = 1.0, 0.0
            else:
                e1, e2 = 0.0, 1.0
            ke = 0.05 / math.sqrt(e1 * e1 + e2 * e2)
            n0, n1, n2 = (
                n0 + ke * (e1 * t0 + e2 * v0),
                n1 + ke * (e1 * t1 + e2 * v1),
                n2 + ke * (e1 * t2 + e2 * v2),
            )
            k = 1.0 / math.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
            n0, n1, n2 = n0 * k, n1 * k, n2 * k
            ua0, ua1, ua2 = _matT(LA, n0, n1, n2)
            ub0, ub1, ub2 = _matT(LB, n0, n1, n2)
            continue
        if not pd:
            shift = -lmin + 1e-3 * (abs(hscale) + scale) + gn
            h11 += shift
            h22 += shift
        det = h11 * h22 - h12 * h12
        s1 = -(h22 * g1 - h12 * g2) / det
        s2 = -(h11 * g2 - h12 * g1) / det
        sn = math.sqrt(s1 * s1 + s2 * s2)
        if trust >= 1 and pd:
            if f + (g1 * s1 + g2 * s2) > abort_above:
                return n0, n1, n2, f, False
            for m in range(nfound):
                if n0 * found[m, 0] + n1 * found[m, 1] + n2 * found[m, 2] > 0.99995:
                    return n0, n1, n2, f, False
        if sn > 0.7:
            s1 *= 0.7 / sn
            s2 *= 0.7 / sn
            sn = 0.7
        accepted = False
        for _k in range(60):
            k = 1.0 / math.sqrt(1.0 + s1 * s1 + s2 * s2)
            pa0 = ua0 + s1 * wa0 + s2 * za0
            pa1 = ua1 + s1 * wa1 + s2 * za1
            pa2 = ua2 + s1 * wa2 + s2 * za2
            pb0 = ub0 + s1 * wb0 + s2 * zb0
            pb1 = ub1 + s1 * wb1 + s2 * zb1
            pb2 = ub2 + s1 * wb2 + s2 * zb2
            fm = k * (
                math.sqrt(pa0 * pa0 + pa1 * pa1 + pa2 * pa2)
                + math.sqrt(pb0 * pb0 + pb1 * pb1 + pb2 * pb2)
                - (nr + s1 * tr + s2 * vr)
            )
            if fm <= f or (pd and sn < 1e-5):
                accepted = True
                break
            s1 *= 0.5
            s2 *= 0.5
            sn *= 0.5
        if not accepted:
            ok = pd
            break
        pred = -(g1 * s1 + g2 * s2) - 0.5 * (h11 * s1 * s1 + 2.0 * h12 * s1 * s2 + h22 * s2 * s2)
        good = pd and pred > 0.0 and 0.9 * pred <= f - fm <= 1.1 * pred
        trust = trust + 1 if good else 0
        n0 = k * (n0 + s1 * t0 + s2 * v0)
        n1 = k * (n1 + s1 * t1 + s2 * v1)
        n2 = k * (n2 + s1 * t2 + s2 * v2)
        ua0, ua1, ua2 = k * pa0, k * pa1, k * pa2
        ub0, ub1, ub2 = k * pb0, k * pb1, k * pb2
        if pd and sn < 1e-6:
            # quadratic convergence: the next correction is ~1e-12 rad
            ok = True
            break
    k = 1.0 / math.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
    n0, n1, n2 = n0 * k, n1 * k, n2 * k
    return n0, n1, n2, _F(LA, LB, r0, r1, r2, n0, n1, n2), ok


@njit(cache=True, inline="always", fastmath=_FM)
def _solve_sym(m00, m01, m02, m11, m12, m22, r0, r1, r2):  # type: ignore[no-untyped-def]
    c00 = m11 * m22 - m12 * m12
    c01 = m02 * m12 - m01 * m22
    c02 = m01 * m12 - m02 * m11
    c11 = m00 * m22 - m02 * m02
    c12 = m01 * m02 - m00 * m12
    c22 = m00 * m11 - m01 * m01
    det = m00 * c00 + m01 * c01 + m02 * c02
    x0 = (c00 * r0 + c01 * r1 + c02 * r2) / det
    x1 = (c01 * r0 + c11 * r1 + c12 * r2) / det
    x2 = (c02 * r0 + c12 * r1 + c22 * r2) / det
    return x0, x1, x2


@njit(cache=True, inline="always", fastmath=_FM)
def _pencil_solve(SA, SB, lam, r0, r1, r2):  # type: ignore[no-untyped-def]
    """``y = M^-1 r`` for the pencil ``M = (1-lam) S_A + lam S_B`` (symmetric 3x3)."""
    w = 1.0 - lam
    return _solve_sym(
        w * SA[0, 0] + lam * SB[0, 0],
        w * SA[0, 1] + lam * SB[0, 1],
        w * SA[0, 2] + lam * SB[0, 2],
        w * SA[1, 1] + lam * SB[1, 1],
        w * SA[1, 2] + lam * SB[1, 2],
        w * SA[2, 2] + lam * SB[2, 2],
        r0,
        r1,
        r2,
    )


@njit(cache=True, fastmath=_FM)
def _perram_wertheim(SA, SB, r0, r1, r2):  # type: ignore[no-untyped-def]
    """Decide overlap with the Perram-Wertheim function ``S(lam) = lam (1-lam) r^T y``,
    ``y = M^-1 r``, ``M = (1-lam) S_A + lam S_B`` (concave on [0, 1]).

    ``S(lam) > 1`` for some ``lam`` certifies separation, and ``n = y/|y|`` then has
    ``F(n) < 0``. The point ``x = c_A + (1-lam) S_A y`` has A-norm ``(1-lam)^2 y^T S_A y``
    and B-norm ``lam^2 y^T S_B y``; both <= 1 certify overlap. ``S'`` is decreasing, so
    a safeguarded secant search for ``S' = 0`` reaches one certificate or the other;
    returns ``(separated, n)``.
    """
    lo, hi = 0.0, 1.0
    d_lo, d_hi = 1.0, -1.0  # signs of S' at the bracket ends (S'(0) > 0 > S'(1))
    lam = 0.5
    side = 0
    for it in range(60):
        w = 1.0 - lam
        y0, y1, y2 = _pencil_solve(SA, SB, lam, r0, r1, r2)
        ry = y0 * r0 + y1 * r1 + y2 * r2
        if lam * w * ry > 1.0:
            k = math.sqrt(y0 * y0 + y1 * y1 + y2 * y2)
            return True, y0 / k, y1 / k, y2 / k
        qa = (
            y0 * (SA[0, 0] * y0 + SA[0, 1] * y1 + SA[0, 2] * y2)
            + y1 * (SA[1, 0] * y0 + SA[1, 1] * y1 + SA[1, 2] * y2)
            + y2 * (SA[2, 0] * y0 + SA[2, 1] * y1 + SA[2, 2] * y2)
        )
        qb = (
            y0 * (SB[0, 0] * y0 + SB[0, 1] * y1 + SB[0, 2] * y2)
            + y1 * (SB[1, 0] * y0 + SB[1, 1] * y1 + SB[1, 2] * y2)
            + y2 * (SB[2, 0] * y0 + SB[2, 1] * y1 + SB[2, 2] * y2)
        )
        if w * w * qa <= 1.0 and lam * lam * qb <= 1.0:
            return False, 1.0, 0.0, 0.0
        # S'(lam) = (1 - 2 lam) r.y - lam (1-lam) y^T (S_B - S_A) y
        d = (1.0 - 2.0 * lam) * ry - lam * w * (qb - qa)
        if d > 0.0:
            lo, d_lo = lam, d
            if side == 1:
                d_hi *= 0.5  # Illinois: keep the secant from stalling on one side
            side = 1
        else:
            hi, d_hi = lam, d
            if side == -1:
                d_lo *= 0.5
            side = -1
        if hi - lo < 1e-15:
            break
        if it < 2:
            lam = 0.5 * (lo + hi) if it == 0 else lo + (hi - lo) * d_lo / (d_lo - d_hi)
        else:
            lam = lo + (hi - lo) * d_lo / (d_lo - d_hi)
        if not (lo < lam < hi):
            lam = 0.5 * (lo + hi)
    return False, 1.0, 0.0, 0.0


@njit(cache=True, inline="always", fastmath=_FM)
def _pw_value(SA, SB, r0, r1, r2, lam):  # type: ignore[no-untyped-def]
    w = 1.0 - lam
    x0, x1, x2 = _pencil_solve(SA, SB, lam, r0, r1, r2)
    return lam * w * (x0 * r0 + x1 * r1 + x2 * r2)


@njit(cache=True, inline="always", fastmath=_FM)
def _fill_L(R, rad, i, L):  # type: ignore[no-untyped-def]
    for a in range(3):
        for b in range(3):
            L[a, b] = R[i, a, b] * rad[i, b]


@njit(cache=True, inline="always", fastmath=_FM)
def _fill_S(L, S):  # type: ignore[no-untyped-def]
    for a in range(3):
        for b in range(3):
            S[a, b] = L[a, 0] * L[b, 0] + L[a, 1] * L[b, 1] + L[a, 2] * L[b, 2]


@njit(cache=True, fastmath=_FM, nogil=True)
def ellipsoid_pairs(cA, RA, radA, cB, RB, radB, dist, pA, pB, normal, all_starts=False):  # type: ignore[no-untyped-def]
    """Signed distance of ``N`` ellipsoid pairs (see the module docstring).

    Inputs ``(N,3)``, ``(N,3,3)``, ``(N,3)`` per side (each through
    :func:`kernel_input`); outputs ``dist (N,)``, ``pA, pB, normal (N,3)`` (C-contiguous
    float64, writable) filled in place. Returns the number of overlapping pairs.
    ``all_starts``: run every Newton start of an overlapping pair even once the depth
    bound (:mod:`._ellipsoid_bound`) proves the minimum found global (the reference
    the tests compare the early stop against).
    """
    N = dist.shape[0]
    LA = np.empty((3, 3))
    LB = np.empty((3, 3))
    SA = np.empty((3, 3))
    SB = np.empty((3, 3))
    cand = np.empty((16, 3))
    fc = np.empty(16)
    used = np.zeros(16, dtype=np.bool_)
    found0 = np.empty((_RUNS_FLAT, 3))
    noverlap = 0
    for i in range(N):
        _fill_L(RA, radA, i, LA)
        _fill_L(RB, radB, i, LB)
        r0 = cB[i, 0] - cA[i, 0]
        r1 = cB[i, 1] - cA[i, 1]
        r2 = cB[i, 2] - cA[i, 2]
        rn = math.sqrt(r0 * r0 + r1 * r1 + r2 * r2)
        scale = rn + max(radA[i, 0], radA[i, 1], radA[i, 2])
        scale += max(radB[i, 0], radB[i, 1], radB[i, 2])
        found = False
        n0, n1, n2 = 1.0, 0.0, 0.0
        if rn > 0.0:
            n0, n1, n2 = r0 / rn, r1 / rn, r2 / rn
            if _F(LA, LB, r0, r1, r2, n0, n1, n2) < 0.0:
                found = True
        if not found:
            _fill_S(LA, SA)
            _fill_S(LB, SB)
            sep = False
            # the inscribed balls overlap: certainly overlapping, no test needed
            inner = min(radA[i, 0], radA[i, 1], radA[i, 2]) + min(
                radB[i, 0], radB[i, 1], radB[i, 2]
            )
            if rn > 0.0 and rn >= inner:
                sep, n0, n1, n2 = _perram_wertheim(SA, SB, r0, r1, r2)
            if sep and _F(LA, LB, r0, r1, r2, n0, n1, n2) < 0.0:
                found = True
        if found:
            # np.int64(0), not 0: a constant would compile _newton a second time, for
            # the type Literal[int](0) (_overlap and core_ellipsoid pass an int64)
            n0, n1, n2, f, _ = _newton(
                LA, LB, r0, r1, r2, n0, n1, n2, scale, np.inf, found0, np.int64(0)
            )
        else:
            noverlap += 1
            n0, n1, n2, f = _overlap(
                LA,
                LB,
                SA,
                SB,
                RA,
                RB,
                radA,
                radB,
                i,
                r0,
                r1,
                r2,
                rn,
                scale,
                cand,
                fc,
                used,
                found0,
                not all_starts,
            )
        _, _, _, _, ga0, ga1, ga2 = _support(LA, n0, n1, n2)
        _, _, _, _, gb0, gb1, gb2 = _support(LB, n0, n1, n2)
        dist[i] = -f
        pA[i, 0] = cA[i, 0] + ga0
        pA[i, 1] = cA[i, 1] + ga1
        pA[i, 2] = cA[i, 2] + ga2
        pB[i, 0] = cB[i, 0] - gb0
        pB[i, 1] = cB[i, 1] - gb1
        pB[i, 2] = cB[i, 2] - gb2
        normal[i, 0] = n0
        normal[i, 1] = n1
        normal[i, 2] = n2
    return noverlap


@njit(cache=True, inline="always", fastmath=_FM)
def _G(LA, LB, n0, n1, n2):  # type: ignore[no-untyped-def]
    """``|L_A^T n| + |L_B^T n|``."""
    a0, a1, a2 = _matT(LA, n0, n1, n2)
    b0, b1, b2 = _matT(LB, n0, n1, n2)
    return math.sqrt(a0 * a0 + a1 * a1 + a2 * a2) + math.sqrt(b0 * b0 + b1 * b1 + b2 * b2)


@njit(cache=True, inline="always", fastmath=_FM)
def _pair_cands(cand, fc, k, x0, x1, x2, g, r0, r1, r2):  # type: ignore[no-untyped-def]
    """Store candidates ``+x`` (index k) and ``-x`` (k+1) with ``F = g -+ x.r``."""
    xr = x0 * r0 + x1 * r1 + x2 * r2
    cand[k, 0], cand[k, 1], cand[k, 2] = x0, x1, x2
    cand[k + 1, 0], cand[k + 1, 1], cand[k + 1, 2] = -x0, -x1, -x2
    fc[k] = g - xr
    fc[k + 1] = g + xr


@njit(cache=True, fastmath=_FM)
def _overlap(
    LA, LB, SA, SB, RA, RB, radA, radB, i, r0, r1, r2, rn, scale, cand, fc, used, found0, prove
):  # type: ignore[no-untyped-def]
    """Global minimum of F > 0 on the sphere: Newton from the best start directions.

    Candidates are +-axes of both ellipsoids and +-r; Newton runs from the best
    candidate and from the best one at least 10 degrees away from every minimum found.
    """
    # F at +-c shares |L^T c|; along its own axis k an ellipsoid's |L^T c| is radius k
    for a in range(3):
        x0, x1, x2 = RA[i, 0, a], RA[i, 1, a], RA[i, 2, a]
        y0, y1, y2 = _matT(LB, x0, x1, x2)
        _pair_cands(
            cand,
            fc,
            2 * a,
            x0,
            x1,
            x2,
            radA[i, a] + math.sqrt(y0 * y0 + y1 * y1 + y2 * y2),
            r0,
            r1,
            r2,
        )
        x0, x1, x2 = RB[i, 0, a], RB[i, 1, a], RB[i, 2, a]
        y0, y1, y2 = _matT(LA, x0, x1, x2)
        _pair_cands(
            cand,
            fc,
            6 + 2 * a,
            x0,
            x1,
            x2,
            radB[i, a] + math.sqrt(y0 * y0 + y1 * y1 + y2 * y2),
            r0,
            r1,
            r2,
        )
    nc = 12
    if rn > 0.0:
        x0, x1, x2 = r0 / rn, r1 / rn, r2 / rn
        _pair_cands(cand, fc, 12, x0, x1, x2, _G(LA, LB, x0, x1, x2), r0, r1, r2)
        nc = 14
    # +-(smallest principal axis of S_A + S_B, the Minkowski sum's inner ellipsoid)
    # by inverse iteration from the thinnest of the axes above
    s00 = SA[0, 0] + SB[0, 0]
    s01 = SA[0, 1] + SB[0, 1]
    s02 = SA[0, 2] + SB[0, 2]
    s11 = SA[1, 1] + SB[1, 1]
    s12 = SA[1, 2] + SB[1, 2]
    s22 = SA[2, 2] + SB[2, 2]
    j = 0
    qmin = np.inf
    for k in range(0, 12, 2):
        x0, x1, x2 = cand[k, 0], cand[k, 1], cand[k, 2]
        q = (
            x0 * (s00 * x0 + s01 * x1 + s02 * x2)
            + x1 * (s01 * x0 + s11 * x1 + s12 * x2)
            + x2 * (s02 * x0 + s12 * x1 + s22 * x2)
        )
        if q < qmin:
            qmin = q
            j = k
    x0, x1, x2 = cand[j, 0], cand[j, 1], cand[j, 2]
    for _ in range(4):
        x0, x1, x2 = _solve_sym(s00, s01, s02, s11, s12, s22, x0, x1, x2)
        k = 1.0 / math.sqrt(x0 * x0 + x1 * x1 + x2 * x2)
        x0, x1, x2 = x0 * k, x1 * k, x2 * k
    _pair_cands(cand, fc, nc, x0, x1, x2, _G(LA, LB, x0, x1, x2), r0, r1, r2)
    nc += 2
    used[:] = False
    best_f = np.inf
    b0, b1, b2 = 1.0, 0.0, 0.0
    nfound = np.int64(0)  # not 0: typed Literal[int](0) at first, which compiles _newton for it
    runs = _RUNS
    if max(radA[i, 0], radA[i, 1], radA[i, 2]) > _FLAT * min(radA[i, 0], radA[i, 1], radA[i, 2]):
        runs = _RUNS_FLAT
    if max(radB[i, 0], radB[i, 1], radB[i, 2]) > _FLAT * min(radB[i, 0], radB[i, 1], radB[i, 2]):
        runs = _RUNS_FLAT
    for _run in range(runs):
        j = -1
        for k in range(nc):
            if used[k]:
                continue
            far = True
            for m in range(nfound):
                dot = (
                    cand[k, 0] * found0[m, 0]
                    + cand[k, 1] * found0[m, 1]
                    + cand[k, 2] * found0[m, 2]
                )
                if dot > 0.985:
                    far = False
                    break
            if far and (j < 0 or fc[k] < fc[j]):
                j = k
        if j < 0:
            break
        used[j] = True
        m0, m1, m2, f, _ = _newton(
            LA,
            LB,
            r0,
            r1,
            r2,
            cand[j, 0],
            cand[j, 1],
            cand[j, 2],
            scale,
            best_f + 1e-9 * scale,
            found0,
            nfound,
        )
        found0[nfound, 0] = m0
        found0[nfound, 1] = m1
        found0[nfound, 2] = m2
        nfound += 1
        if not f < best_f:
            continue  # same best minimum: the bound was already tried on it
        best_f = f
        b0, b1, b2 = m0, m1, m2
        if (
            prove
            and _run < runs - 1
            and best_f > 0.0
            and overlap_depth_bound_holds(
                LA,
                LB,
                r0,
                r1,
                r2,
                b0,
                b1,
                b2,
                best_f,
                best_f - min(_BOUND_MARGIN * scale, _BOUND_MARGIN_REL * best_f),
            )
        ):
            break  # F >= best_f - margin everywhere: no later start can do better
    return b0, b1, b2, best_f
