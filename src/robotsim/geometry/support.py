"""Support functions of the primitive volumes.

Every primitive is convex, so for any pair the signed distance is
``s = -min_{|n|=1} h_A(n) + h_B(-n)`` (support functions in world coordinates, see
:mod:`robotsim.geometry.ellipsoid`).

Shapes are packed as ``kind`` (0 sphere, 1 capsule, 2 box, 3 ellipsoid) and
``size (...,3)``: sphere ``(r, r, r)``, capsule ``(radius, radius, half length)`` along
local z, box half extents, ellipsoid semi-axes.
"""

from __future__ import annotations

import numpy as np

__all__ = ["BOX", "CAPSULE", "ELLIPSOID", "SPHERE", "support", "support_point"]

SPHERE, CAPSULE, BOX, ELLIPSOID = 0, 1, 2, 3


def support(kind: int, size: np.ndarray, R: np.ndarray, c: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``h(n)`` for directions ``n (..., K, 3)``; ``size, c (...,3)``, ``R (...,3,3)``."""
    local = np.einsum("...ji,...kj->...ki", R, n)  # n in the shape frame
    lin = np.einsum("...i,...ki->...k", c, n)
    s = size[..., None, :]
    if kind == SPHERE:
        return lin + s[..., 0]
    if kind == CAPSULE:
        return lin + s[..., 2] * np.abs(local[..., 2]) + s[..., 0]
    if kind == BOX:
        return lin + (s * np.abs(local)).sum(-1)
    return lin + np.linalg.norm(s * local, axis=-1)


def support_point(
    kind: int, size: np.ndarray, R: np.ndarray, c: np.ndarray, n: np.ndarray
) -> np.ndarray:
    """A point of the shape where ``n (...,3)`` is an outward normal."""
    local = np.einsum("...ji,...j->...i", R, n)
    if kind == SPHERE:
        p = size * local
    elif kind == CAPSULE:
        p = size[..., 0:1] * local
        p[..., 2] += size[..., 2] * np.sign(local[..., 2])
    elif kind == BOX:
        p = size * np.where(local >= 0, 1.0, -1.0)
    else:
        u = size * local
        p = size * u / np.linalg.norm(u, axis=-1, keepdims=True)
    return c + np.einsum("...ij,...j->...i", R, p)
