"""Plain Khachiyan iterations for the minimum-volume enclosing ellipsoid: the slow,
obvious reference the fast fit (``robotsim.geometry._mvee``) is checked against (the
algorithm ``fit.min_volume_ellipsoid`` used before, with the iteration cap a
parameter and the dual weights returned)."""

from __future__ import annotations

import numpy as np


def khachiyan(
    X: np.ndarray, tol: float, max_iter: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """``(c (d,), A (d, d), u (n,), iterations)`` for full-rank ``X (n, d)``: the
    ellipsoid ``(x - c)^T A (x - c) <= 1`` scaled to contain every point, and the
    weights. Stops when Khachiyan's step is at most ``tol``."""
    n, d = X.shape
    Q = np.vstack([X.T, np.ones(n)])
    u = np.full(n, 1.0 / n)
    it = 0
    for it in range(max_iter):  # noqa: B007
        V = (Q * u) @ Q.T
        M = np.einsum("ij,ji->i", Q.T, np.linalg.solve(V, Q))
        j = int(np.argmax(M))
        step = (M[j] - d - 1.0) / ((d + 1.0) * (M[j] - 1.0))
        if step <= tol:
            break
        u *= 1.0 - step
        u[j] += step
    c = X.T @ u
    A = np.linalg.inv((X.T * u) @ X - np.outer(c, c)) / d
    worst = float(np.einsum("ni,ij,nj->n", X - c, A, X - c).max())
    return c, A / max(1.0, worst), u, it
