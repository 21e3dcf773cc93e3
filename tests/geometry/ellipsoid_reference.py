"""A slow, obviously correct signed distance between two ellipsoids (test reference).

Signed distance ``s = -min_{|n|=1} F(n)``, ``F(n) = |L_A^T n| + |L_B^T n| - n.(c_B-c_A)``
(the support function of the Minkowski difference; exact for any convex pair, both
when apart and when overlapping). The global minimum is located by brute force:

1. ``F`` on a dense Fibonacci grid of directions (default 40,000 points, covering
   radius ``rho`` measured once). ``F`` is Lipschitz on the sphere with constant
   ``K = |r| + |L_A| + |L_B|``, so the global minimum lies within ``K rho`` below the
   best grid value, and every direction whose grid neighbourhood can hold it is a
   grid point with ``F <= min_grid + 2 K rho``.
2. Every grid local minimum among those is refined to 40 significant digits with
   mpmath (Riemannian Newton, monotone line search); the smallest refined value is
   the answer.

This shares no code with the fast kernel (global search by brute force instead of
start heuristics, arbitrary precision instead of float64).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
from scipy.spatial import cKDTree

mpmath.mp.dps = 40


def fibonacci_sphere(n: int) -> np.ndarray:
    k = np.arange(n) + 0.5
    z = 1 - 2 * k / n
    phi = math.pi * (1 + 5**0.5) * k
    s = np.sqrt(1 - z * z)
    return np.stack([s * np.cos(phi), s * np.sin(phi), z], axis=1)


_GRID = fibonacci_sphere(40_000)
# covering radius of the grid (angle, rad): conservative estimate for Fibonacci grids
_RHO = 2.0 * math.sqrt(4 * math.pi / len(_GRID))
_TREE = cKDTree(_GRID)


def _F_grid(LA, LB, r, dirs):  # type: ignore[no-untyped-def]
    return np.linalg.norm(dirs @ LA, axis=1) + np.linalg.norm(dirs @ LB, axis=1) - dirs @ r


def _mp_F(LA, LB, r, n):  # type: ignore[no-untyped-def]
    u = LA.T * n
    v = LB.T * n
    return mpmath.sqrt((u.T * u)[0]) + mpmath.sqrt((v.T * v)[0]) - (r.T * n)[0]


def _refine(LA, LB, r, n0: np.ndarray):  # type: ignore[no-untyped-def]
    """Riemannian Newton for F from n0 in 40-digit arithmetic (ambient formulas:
    grad F = -r + S_A n/s_A + S_B n/s_B, Hess F = sum (S - g g^T)/s, tangent part
    P Hess P - (n.grad F) P), with a monotone backtracking line search."""
    mLA = mpmath.matrix(LA.tolist())
    mLB = mpmath.matrix(LB.tolist())
    SA = mLA * mLA.T
    SB = mLB * mLB.T
    mr = mpmath.matrix(r.tolist())
    n = mpmath.matrix([mpmath.mpf(float(x)) for x in n0])
    n = n / mpmath.norm(n)
    eye = mpmath.eye(3)
    for _ in range(60):
        sa = mpmath.sqrt((n.T * SA * n)[0])
        sb = mpmath.sqrt((n.T * SB * n)[0])
        ga = SA * n / sa
        gb = SB * n / sb
        f = sa + sb - (mr.T * n)[0]
        g = ga + gb - mr
        P = eye - n * n.T
        H = P * ((SA - ga * ga.T) / sa + (SB - gb * gb.T) / sb) * P - f * P
        # solve in the tangent plane: (H + n n^T) d = -P g keeps d tangent
        d = mpmath.lu_solve(H + n * n.T, -(P * g))
        ev = min(mpmath.eigsy(H + n * n.T * mpmath.mpf(10) ** 6)[0])
        if ev <= 0:  # not a convex point: a short gradient step
            d = -(P * g) * mpmath.mpf("0.01")
        step = mpmath.mpf(1)
        while True:
            m = n + step * d
            m = m / mpmath.norm(m)
            fm = mpmath.sqrt((m.T * SA * m)[0]) + mpmath.sqrt((m.T * SB * m)[0]) - (mr.T * m)[0]
            if fm <= f or step < mpmath.mpf(2) ** -60:
                break
            step /= 2
        n = m
        if mpmath.norm(d) * step < mpmath.mpf(10) ** -32:
            break
    f = mpmath.sqrt((n.T * SA * n)[0]) + mpmath.sqrt((n.T * SB * n)[0]) - (mr.T * n)[0]
    return f, np.array([float(v) for v in n])


def reference_distance(cA, RA, rA, cB, RB, rB):  # type: ignore[no-untyped-def]
    """Certified signed distance (float) and the unit normal from A to B."""
    LA = np.asarray(RA, float) * np.asarray(rA, float)
    LB = np.asarray(RB, float) * np.asarray(rB, float)
    r = np.asarray(cB, float) - np.asarray(cA, float)
    vals = _F_grid(LA, LB, r, _GRID)
    K = np.linalg.norm(r) + np.linalg.norm(LA, 2) + np.linalg.norm(LB, 2)
    fmin = vals.min()
    cand = np.flatnonzero(vals <= fmin + 2 * K * _RHO)
    starts = []
    for j in cand[np.argsort(vals[cand])]:
        near = _TREE.query_ball_point(_GRID[j], 2.5 * _RHO)
        if vals[j] <= vals[near].min():
            starts.append(j)
    best = (mpmath.inf, None)
    for j in starts:
        fv, n = _refine(LA, LB, r, _GRID[j])
        if fv < best[0]:
            best = (fv, n)
    return -float(best[0]), best[1]
