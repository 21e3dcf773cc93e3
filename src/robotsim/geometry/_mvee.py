"""Weights of the minimum-volume enclosing ellipsoid (MVEE) of points.

The MVEE of points ``x_i`` (``(n, d)``, affinely spanning ``R^d``) is found through
its dual: the weights ``u`` on the simplex that maximise ``log det V(u)``, where
``V(u) = sum_i u_i q_i q_i^T`` over the lifted points ``q_i = (x_i, 1)``. With
``w_i = q_i^T V(u)^-1 q_i`` (so that ``sum_i u_i w_i = d + 1``), ``u`` is optimal when
``w_i <= d + 1`` for every point, with equality where ``u_i > 0``. The weights give the
ellipsoid: centre ``c = sum_i u_i x_i``, shape ``M = sum_i u_i (x_i - c)(x_i - c)^T``,
``E(u) = {x : (x - c)^T (d M)^-1 (x - c) <= 1}``.

The iteration is the Wolfe-Atwood algorithm as analysed by Todd and Yildirim: at each
step either move weight towards the point of largest ``w`` (Khachiyan's step) or away
from the support point of smallest ``w`` (an away, or "drop", step, which may set its
weight to zero), whichever is further from optimal, with the exact line search on
``log det V``. Plain Khachiyan steps only ever add weight; the away steps remove the
weight it puts on points that are not on the final ellipsoid, and make the
convergence linear. ``V^-1`` and ``w`` are carried by Sherman-Morrison rank-one
updates, refreshed from scratch every ``REFRESH`` steps to bound rounding. The start
is Kumar and Yildirim's core set: the two extreme points along ``d`` directions, each
orthogonal to the span of the earlier pairs' differences, equally weighted (their
``V`` is nonsingular).

Stop: ``w_i <= (1 + tol)(d + 1)`` for every point and ``w_i >= (1 - tol)(d + 1)`` on
the support. The first makes ``u`` ``tol``-primal feasible: ``E(u)`` grown by
``sqrt(1 + tol (d + 1) / d)`` contains every point, while ``E(u)`` itself is never
larger than the MVEE (for an enclosing ellipsoid ``(x - z)^T H (x - z) <= d``,
``trace(H M) <= sum_i u_i (x_i - z)^T H (x_i - z) <= d`` gives ``det M <= det H^-1``);
so the grown ellipsoid is within ``(1 + tol (d + 1) / d)^(d / 2)`` of the minimum
volume.

References:

* L. G. Khachiyan, "Rounding of polytopes in the real number model of computation",
  Mathematics of Operations Research 21(2), 1996.
* P. Wolfe, "Convergence theory in nonlinear programming", in Integer and Nonlinear
  Programming, 1970; C. L. Atwood, "Sequences converging to D-optimal designs of
  experiments", Annals of Statistics 1(2), 1973.
* P. Kumar and E. A. Yildirim, "Minimum-volume enclosing ellipsoids and core sets",
  Journal of Optimization Theory and Applications 126(1), 2005.
* M. J. Todd and E. A. Yildirim, "On Khachiyan's algorithm for the computation of
  minimum-volume enclosing ellipsoids", Discrete Applied Mathematics 155(13), 2007.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

__all__ = ["MveeWeights", "dual_volume_bound", "mvee_weights"]

REFRESH = 64  # steps between recomputing V^-1 and w from the weights


@dataclass(frozen=True)
class MveeWeights:
    """The dual weights ``u (n,)`` (on the simplex), the steps taken, whether the
    stopping test held, and ``eps``: ``max_i w_i / (d + 1) - 1`` at the end (the
    relative optimality reached)."""

    u: np.ndarray
    iterations: int
    converged: bool
    eps: float


def mvee_weights(X: np.ndarray, tol: float = 1e-6, max_iter: int = 1_000_000) -> MveeWeights:
    """Dual weights of the MVEE of ``X (n, d)``; ``X`` must affinely span ``R^d``
    (``d >= 1``). ``tol`` is the relative optimality tolerance (see the module). After
    ``max_iter`` steps it stops with ``converged`` false (never seen: the slowest set
    met, a capsule's 446 hull points, took 430,000 steps, 0.4 s); the ellipsoid of the
    weights is then only further from the optimum."""
    n, d = X.shape
    Q = np.ascontiguousarray(np.hstack([X, np.ones((n, 1))]))  # (n, d+1) lifted points
    u = _core_set(X)
    iterations, converged = _wolfe_atwood(Q, u, float(tol), int(max_iter), REFRESH)
    u = np.maximum(u, 0.0)
    u /= u.sum()
    _, w = _refresh(Q, u)
    u.setflags(write=False)
    return MveeWeights(u, int(iterations), bool(converged), float(w.max() / (d + 1.0) - 1.0))


@njit(cache=True)
def _wolfe_atwood(
    Q: np.ndarray, u: np.ndarray, tol: float, max_iter: int, refresh: int
) -> tuple[int, bool]:  # pragma: no cover - compiled; exercised through mvee_weights
    """Steps ``u`` in place; returns ``(steps, converged)``."""
    n, p = Q.shape
    m = float(p)
    Vinv = np.empty((p, p))
    w = np.empty(n)
    z = np.empty(p)
    it = 0
    while True:
        if it % refresh == 0:  # V^-1 and w from the weights, without the updates' drift
            V = np.zeros((p, p))
            for i in range(n):
                if u[i] > 0.0:
                    for a in range(p):
                        for b in range(p):
                            V[a, b] += u[i] * Q[i, a] * Q[i, b]
            inv = np.linalg.inv(V)
            for a in range(p):  # element by element: an array assignment compiles its
                for b in range(p):  # shape check's error message (2 s in a cold run)
                    Vinv[a, b] = inv[a, b]
            for i in range(n):
                s = 0.0
                for a in range(p):
                    for b in range(p):
                        s += Q[i, a] * Vinv[a, b] * Q[i, b]
                w[i] = s
        j = 0
        k = -1
        for i in range(n):
            if w[i] > w[j]:
                j = i
            if u[i] > 0.0 and (k < 0 or w[i] < w[k]):
                k = i
        eps_plus = w[j] / m - 1.0
        eps_minus = 1.0 - w[k] / m
        if eps_plus <= tol and eps_minus <= tol:
            return it, True
        if it == max_iter:
            return it, False
        drop = False
        if eps_plus >= eps_minus:  # towards j
            i = j
            tau = (w[j] - m) / (m * (w[j] - 1.0))
        else:  # away from k, at most down to u_k = 0
            i = k
            limit = -u[k] / (1.0 - u[k])
            tau = (w[k] - m) / (m * (w[k] - 1.0)) if w[k] > 1.0 else limit
            if tau <= limit:
                tau = limit
                drop = True
        # V+ = (1 - tau) V + tau q q^T, by Sherman-Morrison
        a_ = tau / (1.0 - tau)
        f = a_ / (1.0 + a_ * w[i])
        scale = 1.0 / (1.0 - tau)
        for a in range(p):
            s = 0.0
            for b in range(p):
                s += Vinv[a, b] * Q[i, b]
            z[a] = s
        for a in range(p):
            for b in range(p):
                Vinv[a, b] = (Vinv[a, b] - f * z[a] * z[b]) * scale
        for r in range(n):
            g = 0.0
            for a in range(p):
                g += Q[r, a] * z[a]
            w[r] = (w[r] - f * g * g) * scale
        for r in range(n):
            u[r] *= 1.0 - tau
        u[i] += tau
        if drop:
            u[i] = 0.0
        it += 1


def dual_volume_bound(X: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``E(u)`` as ``(c (d,), d M (d, d))``: ``{x : (x - c)^T (d M)^-1 (x - c) <= 1}``,
    no larger than the MVEE of ``X`` for any weights ``u`` on the simplex."""
    c = u @ X
    Y = X - c
    return c, X.shape[1] * ((Y.T * u) @ Y)


def _refresh(Q: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    Vinv = np.linalg.inv((Q.T * u) @ Q)
    return Vinv, np.einsum("ij,jk,ik->i", Q, Vinv, Q)


def _core_set(X: np.ndarray) -> np.ndarray:
    """Kumar-Yildirim start: extreme pairs along ``d`` mutually independent directions
    (each the coordinate axis least inside the span of the earlier pairs' differences,
    made orthogonal to it)."""
    n, d = X.shape
    u = np.zeros(n)
    span = np.zeros((0, d))
    for _ in range(d):
        s = X @ _outside(span)
        hi, lo = int(np.argmax(s)), int(np.argmin(s))
        u[hi] += 1.0
        u[lo] += 1.0
        diff = X[hi] - X[lo]
        diff = diff - span.T @ (span @ diff)
        span = np.vstack([span, diff / np.linalg.norm(diff)])
    return u / u.sum()


def _outside(span: np.ndarray) -> np.ndarray:
    """A unit vector orthogonal to the orthonormal rows of ``span`` (fewer than d)."""
    resid = np.eye(span.shape[1]) - span.T @ span
    v = resid[int(np.argmax(np.linalg.norm(resid, axis=1)))]
    return v / np.linalg.norm(v)
