"""The preview controller's loop, compiled (numba): see :mod:`robotsim.walk.preview`."""

from __future__ import annotations

from numba import njit

__all__ = ["preview_step", "run_preview"]


@njit(cache=True, nogil=True)
def preview_step(x, sum_e, p_future, A, B, C, Gi, Gx, Gp):  # type: ignore[no-untyped-def]
    """One step for every axis: ``x`` (3, d) and ``sum_e`` (d,) are updated in place;
    ``p_future`` (>= N+1, d) holds the reference now (row 0) and the next N samples.
    Returns nothing; the ZMP of the state before the step is ``C x``."""
    d = x.shape[1]
    N = Gp.shape[0]
    for a in range(d):
        c0, c1, c2 = x[0, a], x[1, a], x[2, a]
        p = C[0] * c0 + C[1] * c1 + C[2] * c2
        sum_e[a] += p - p_future[0, a]
        u = -Gi * sum_e[a] - (Gx[0] * c0 + Gx[1] * c1 + Gx[2] * c2)
        for j in range(N):
            u -= Gp[j] * p_future[j + 1, a]
        x[0, a] = A[0, 0] * c0 + A[0, 1] * c1 + A[0, 2] * c2 + B[0] * u
        x[1, a] = A[1, 0] * c0 + A[1, 1] * c1 + A[1, 2] * c2 + B[1] * u
        x[2, a] = A[2, 0] * c0 + A[2, 1] * c1 + A[2, 2] * c2 + B[2] * u


@njit(cache=True, nogil=True)
def run_preview(p_ref, x, A, B, C, Gi, Gx, Gp, n, xs, ps):  # type: ignore[no-untyped-def]
    """``n`` steps along ``p_ref`` (n + N, d): states into ``xs`` (n, 3, d), the ZMP of
    each state into ``ps`` (n, d); ``x`` (3, d) is advanced in place."""
    d = x.shape[1]
    sum_e = x[0] * 0.0
    for k in range(n):
        for a in range(d):
            xs[k, 0, a] = x[0, a]
            xs[k, 1, a] = x[1, a]
            xs[k, 2, a] = x[2, a]
            ps[k, a] = C[0] * x[0, a] + C[1] * x[1, a] + C[2] * x[2, a]
        preview_step(x, sum_e, p_ref[k:], A, B, C, Gi, Gx, Gp)
