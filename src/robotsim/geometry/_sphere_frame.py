"""Small inlined helpers shared by the ellipsoid kernels: ``L^T n`` and an orthonormal
tangent frame of a unit vector, and the fast-math flags every kernel compiles with."""

from __future__ import annotations

import math

from numba import njit

__all__ = ["FASTMATH", "matT", "tangents"]

FASTMATH = {"nsz", "arcp", "contract", "afn", "reassoc"}


@njit(cache=True, inline="always", fastmath=FASTMATH)
def tangents(n0, n1, n2):  # type: ignore[no-untyped-def]
    """Unit ``t`` orthogonal to the unit vector ``n`` and ``v = n x t``: ``(t, v)``."""
    if abs(n0) < 0.9:
        a0, a1, a2 = 1.0, 0.0, 0.0
    else:
        a0, a1, a2 = 0.0, 1.0, 0.0
    d = a0 * n0 + a1 * n1 + a2 * n2
    t0, t1, t2 = a0 - d * n0, a1 - d * n1, a2 - d * n2
    k = 1.0 / math.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
    t0, t1, t2 = t0 * k, t1 * k, t2 * k
    return t0, t1, t2, n1 * t2 - n2 * t1, n2 * t0 - n0 * t2, n0 * t1 - n1 * t0


@njit(cache=True, inline="always", fastmath=FASTMATH)
def matT(L, n0, n1, n2):  # type: ignore[no-untyped-def]
    """``L^T n``."""
    return (
        L[0, 0] * n0 + L[1, 0] * n1 + L[2, 0] * n2,
        L[0, 1] * n0 + L[1, 1] * n1 + L[2, 1] * n2,
        L[0, 2] * n0 + L[1, 2] * n1 + L[2, 2] * n2,
    )
