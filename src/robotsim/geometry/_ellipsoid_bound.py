"""A certified lower bound on the penetration depth of two ellipsoids.

For an overlapping pair the kernel minimises ``F(n) = |L_A^T n| + |L_B^T n| - n.r``
on the unit sphere from several starts, because ``F`` may have several local minima.
Once a local minimum ``f`` at ``n`` is known, :func:`overlap_depth_bound_holds` tries
to prove ``F >= rho`` everywhere (``rho`` a hair below ``f``); then no later start can
find a smaller minimum and the kernel stops.

The proof. For any orthogonal ``Q``, ``|L_B^T n| = |Q^T L_B^T n|``, so by the triangle
inequality ``F(n) >= G(n) = |M^T n| - n.r`` with ``M = L_A + L_B Q``: ``G`` is the
same function for the single ellipsoid ``E = M (unit ball)`` against the point ``r``.
``G >= rho`` on the sphere says the ball ``B(r, rho)`` lies inside
``E = {x : x^T T^-1 x <= 1}``, ``T = M M^T``, and the S-lemma proves that when, for some
``tau >= 0``, ``1 - x^T T^-1 x - tau (rho^2 - |x - r|^2) >= 0`` for every ``x``: with
``W = tau T - I``, ``W`` positive definite and the Schur complement
``1 + tau (|r|^2 - rho^2) - tau^2 r^T W^-1 T r``, which is ``1 - tau rho^2 -
tau r^T W^-1 r`` (``tau W^-1 T = I + W^-1``), not negative.

Choosing ``Q``. ``G = F`` at ``n`` exactly when ``Q`` carries ``a = L_A^T n`` onto the
direction of ``b = L_B^T n`` (a rotation about ``a x b``), and ``G`` then also curves
as much as ``F`` around ``n`` as the rotation about ``a`` allows: it is turned so that
``Q^T`` maps the derivatives of ``b/|b|`` along the sphere onto those of ``a/|a|`` as
well as possible (a 2-D Procrustes problem, one angle). ``tau = 1 / (f |M^T n|)`` is the
multiplier of the tangency of ``B(r, f)`` and ``E`` at the minimum. Every test is a
strict inequality with a rounding allowance that grows with ``W``'s condition number
(thin ellipsoids, shallow overlaps), so a borderline case is not certified and the
kernel simply runs its other starts.
"""

from __future__ import annotations

import math

from numba import njit

from robotsim.geometry._sphere_frame import FASTMATH, matT, tangents

__all__ = ["overlap_depth_bound_holds"]


@njit(cache=True, inline="always", fastmath=FASTMATH)
def _tangent_part(L, x0, x1, x2, h0, h1, h2, s):  # type: ignore[no-untyped-def]
    """``(L^T x)`` without its component along the unit ``h``, divided by ``s``."""
    p0, p1, p2 = matT(L, x0, x1, x2)
    d = p0 * h0 + p1 * h1 + p2 * h2
    return (p0 - d * h0) / s, (p1 - d * h1) / s, (p2 - d * h2) / s


@njit(cache=True, inline="always", fastmath=FASTMATH)
def _m_row(LA, LB, i, Q):  # type: ignore[no-untyped-def]
    """Row ``i`` of ``L_A + L_B Q`` (``Q`` row-major, 9 numbers)."""
    x, y, z = LB[i, 0], LB[i, 1], LB[i, 2]
    return (
        LA[i, 0] + x * Q[0] + y * Q[3] + z * Q[6],
        LA[i, 1] + x * Q[1] + y * Q[4] + z * Q[7],
        LA[i, 2] + x * Q[2] + y * Q[5] + z * Q[8],
    )


@njit(cache=True, fastmath=FASTMATH)
def overlap_depth_bound_holds(LA, LB, r0, r1, r2, n0, n1, n2, f, rho):  # type: ignore[no-untyped-def]
    """True when ``F >= rho`` on the whole unit sphere is proved (module docstring);
    ``n``: a local minimum of ``F`` with value ``f``, ``0 < rho < f``."""
    a0, a1, a2 = matT(LA, n0, n1, n2)
    b0, b1, b2 = matT(LB, n0, n1, n2)
    na = math.sqrt(a0 * a0 + a1 * a1 + a2 * a2)
    nb = math.sqrt(b0 * b0 + b1 * b1 + b2 * b2)
    ha0, ha1, ha2 = a0 / na, a1 / na, a2 / na
    hb0, hb1, hb2 = b0 / nb, b1 / nb, b2 / nb
    # Q0: a rotation carrying a/|a| onto b/|b| (any will do: the turn about a below
    # picks the best of them). Rodrigues about a x b when the angle is below 90
    # degrees; otherwise onto -b/|b| that way, then half a turn about an axis normal
    # to b (both steps well conditioned)
    c = ha0 * hb0 + ha1 * hb1 + ha2 * hb2
    sg = 1.0 if c >= 0.0 else -1.0
    c *= sg
    v0 = sg * (ha1 * hb2 - ha2 * hb1)
    v1 = sg * (ha2 * hb0 - ha0 * hb2)
    v2 = sg * (ha0 * hb1 - ha1 * hb0)
    k = 1.0 / (1.0 + c)
    q00, q01, q02 = c + k * v0 * v0, k * v0 * v1 - v2, k * v0 * v2 + v1
    q10, q11, q12 = k * v1 * v0 + v2, c + k * v1 * v1, k * v1 * v2 - v0
    q20, q21, q22 = k * v2 * v0 - v1, k * v2 * v1 + v0, c + k * v2 * v2
    if sg < 0.0:
        # H = 2 u u^T - I, u normal to b: H (-b) = b; Q0 <- H Q0
        u0, u1, u2, _, _, _ = tangents(hb0, hb1, hb2)
        w0 = 2.0 * (u0 * q00 + u1 * q10 + u2 * q20)
        w1 = 2.0 * (u0 * q01 + u1 * q11 + u2 * q21)
        w2 = 2.0 * (u0 * q02 + u1 * q12 + u2 * q22)
        q00, q01, q02 = u0 * w0 - q00, u0 * w1 - q01, u0 * w2 - q02
        q10, q11, q12 = u1 * w0 - q10, u1 * w1 - q11, u1 * w2 - q12
        q20, q21, q22 = u2 * w0 - q20, u2 * w1 - q21, u2 * w2 - q22
    # the turn about a: maximise sum_t x_t . R y_t over the sphere's tangents t of n,
    # x_t, y_t the normal parts of L_A^T t / |a| and Q0^T L_B^T t / |b| in a frame (e, g)
    t0, t1, t2, s0, s1, s2 = tangents(n0, n1, n2)
    e0, e1, e2, g0, g1, g2 = tangents(ha0, ha1, ha2)
    C = 0.0
    S = 0.0
    for j in range(2):
        x0, x1, x2 = (t0, t1, t2) if j == 0 else (s0, s1, s2)
        p0, p1, p2 = _tangent_part(LA, x0, x1, x2, ha0, ha1, ha2, na)
        y0, y1, y2 = _tangent_part(LB, x0, x1, x2, hb0, hb1, hb2, nb)
        z0 = q00 * y0 + q10 * y1 + q20 * y2
        z1 = q01 * y0 + q11 * y1 + q21 * y2
        z2 = q02 * y0 + q12 * y1 + q22 * y2
        xa = p0 * e0 + p1 * e1 + p2 * e2
        xg = p0 * g0 + p1 * g1 + p2 * g2
        ya = z0 * e0 + z1 * e1 + z2 * e2
        yg = z0 * g0 + z1 * g1 + z2 * g2
        C += xa * ya + xg * yg
        S += xg * ya - xa * yg
    h = math.sqrt(C * C + S * S)
    cp, sp = 1.0, 0.0
    if h > 0.0:
        cp, sp = C / h, S / h
    # R = cp I + sp [a]x + (1 - cp) a a^T turns about a; Q = Q0 R^T keeps Q a = b
    om = 1.0 - cp
    r00, r01, r02 = cp + om * ha0 * ha0, om * ha0 * ha1 - sp * ha2, om * ha0 * ha2 + sp * ha1
    r10, r11, r12 = om * ha1 * ha0 + sp * ha2, cp + om * ha1 * ha1, om * ha1 * ha2 - sp * ha0
    r20, r21, r22 = om * ha2 * ha0 - sp * ha1, om * ha2 * ha1 + sp * ha0, cp + om * ha2 * ha2
    Q00 = q00 * r00 + q01 * r01 + q02 * r02
    Q01 = q00 * r10 + q01 * r11 + q02 * r12
    Q02 = q00 * r20 + q01 * r21 + q02 * r22
    Q10 = q10 * r00 + q11 * r01 + q12 * r02
    Q11 = q10 * r10 + q11 * r11 + q12 * r12
    Q12 = q10 * r20 + q11 * r21 + q12 * r22
    Q20 = q20 * r00 + q21 * r01 + q22 * r02
    Q21 = q20 * r10 + q21 * r11 + q22 * r12
    Q22 = q20 * r20 + q21 * r21 + q22 * r22
    # T = M M^T, M = L_A + L_B Q
    Q = (Q00, Q01, Q02, Q10, Q11, Q12, Q20, Q21, Q22)
    x0, x1, x2 = _m_row(LA, LB, 0, Q)
    y0, y1, y2 = _m_row(LA, LB, 1, Q)
    z0, z1, z2 = _m_row(LA, LB, 2, Q)
    t00 = x0 * x0 + x1 * x1 + x2 * x2
    t01 = x0 * y0 + x1 * y1 + x2 * y2
    t02 = x0 * z0 + x1 * z1 + x2 * z2
    t11 = y0 * y0 + y1 * y1 + y2 * y2
    t12 = y0 * z0 + y1 * z1 + y2 * z2
    t22 = z0 * z0 + z1 * z1 + z2 * z2
    h_sum = na + nb
    if not f - rho > 1e-13 * h_sum:
        return False  # Q is orthogonal to rounding: F >= G holds to ~1e-16 (|a| + |b|)
    p = f * h_sum  # 1 / tau
    w00, w01, w02 = t00 - p, t01, t02  # W / tau = T - I / tau
    w11, w12, w22 = t11 - p, t12, t22 - p
    c00 = w11 * w22 - w12 * w12
    c01 = w02 * w12 - w01 * w22
    c02 = w01 * w12 - w02 * w11
    c11 = w00 * w22 - w02 * w02
    c12 = w01 * w02 - w00 * w12
    c22 = w00 * w11 - w01 * w01
    det = w00 * c00 + w01 * c01 + w02 * c02
    tr = w00 + w11 + w22
    if not (w00 > 0.0 and c22 > 0.0 and det > 0.0):
        return False  # W not positive definite
    # rounding: W^-1 carries the relative error of W's entries (~eps tr T) times
    # |W^-1| <= tr^2 / det, and its own solve's, eps times cond(W) <= tr^3 / det
    amp = 64.0 * 2.2e-16 * (tr + t00 + t11 + t22) * tr * tr / det
    if not amp < 1e-3:
        return False
    # Schur complement: tau W^-1 T = I + W^-1 turns it into 1 - tau rho^2 - q with
    # q = tau r^T W^-1 r = r^T (W / tau)^-1 r (no cancellation of tau |r|^2 terms);
    # times 1 / tau: p - rho^2 - p q >= 0
    q = (
        r0 * (c00 * r0 + c01 * r1 + c02 * r2)
        + r1 * (c01 * r0 + c11 * r1 + c12 * r2)
        + r2 * (c02 * r0 + c12 * r1 + c22 * r2)
    ) / det
    return p - rho * rho - p * q > amp * (p + rho * rho + p * abs(q))
