"""The seed paper's ellipsoid distance (level sets of A's metric), kept as an alternative.

Method (seed ``004``, section 2): ellipsoid A with centre ``c_A`` and shape ``Q``
(``(x-c_A)^T Q (x-c_A) = 1``) defines level sets ``(x-c_A)^T Q (x-c_A) = d^2``. The
level set tangent to B touches it at ``x_t`` where the normals are opposite,
``Q (x_t - c_A) = t M (x_t - c_B)`` (``M`` is B's shape). Solving for ``x_t(t)`` and
putting it into B's equation gives ``f(t) = 0``, a degree-6 polynomial after clearing
denominators; its negative root gives the tangency point and the level ``d``. The
level is not a Euclidean distance, so the paper converts it: scale A to the unit
sphere, take the point ``x_0`` of A on the ray from ``c_A`` through ``x_t`` in the
scaled coordinates, and report ``|x_t - x_0|``.

What that computes: the Euclidean distance between ``x_t`` (the point of B that is
"closest" in A's metric) and its radial projection ``x_0`` onto A. It is exactly the
Euclidean distance when A is a sphere, and when the closest points lie on a common
principal axis of A through B's centre (e.g. axis-aligned ellipsoids placed along an
axis). Otherwise it is only an upper bound of the true gap (it is the distance of one
particular pair of surface points) and it depends on which ellipsoid is called A.
For overlapping pairs ``d < 1`` and the value returned is ``-|x_t - x_0|``, which is
not the penetration depth. See ``docs/clearance.md`` for measured differences.

Here the root is found on the equivalent secular equation in A's unit-sphere
coordinates (same ``t``): ``g(t) = sum_i s_i^2 b_i^2 / (s_i^2 - t)^2 = 1``, increasing on
``t < min s_i^2``, so the root is unique and bracketed; :func:`paper_polynomial` gives
the explicit polynomial for one pair.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from robotsim.geometry.ellipsoid import prepare_ellipsoids

__all__ = ["PaperDistance", "paper_ellipsoid_distance", "paper_polynomial"]


@dataclass(frozen=True)
class PaperDistance:
    """Result of :func:`paper_ellipsoid_distance`, batch shape ``(...)``.

    Attributes:
        distance: ``|x_t - x_0|`` (m), negative when ``level < 1`` ``(...)``.
        point_a: ``x_0`` on A ``(..., 3)``.
        point_b: ``x_t`` on B ``(..., 3)``.
        level: ``d``, the A-metric level of ``x_t`` (1 = on A) ``(...)``.
        t: the root of the paper's ``f(t)`` ``(...)``.
    """

    distance: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    level: np.ndarray
    t: np.ndarray


def _frame(cA, RA, rA, cB, RB, rB):  # type: ignore[no-untyped-def]
    """B in A's unit-sphere coordinates, diagonalised: eigenvalues ``s2``, eigenvectors
    ``V`` and B's centre ``beta`` in that basis."""
    LA = RA * rA[..., None, :]
    LA_inv = np.swapaxes(RA, -1, -2) / rA[..., :, None]
    b = np.einsum("...ij,...j->...i", LA_inv, cB - cA)
    K = LA_inv @ (RB * rB[..., None, :])
    s2, V = np.linalg.eigh(K @ np.swapaxes(K, -1, -2))
    beta = np.einsum("...ji,...j->...i", V, b)
    return LA, s2, V, beta


def paper_polynomial(center_a, rot_a, radii_a, center_b, rot_b, radii_b) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Coefficients (highest power first) of the paper's degree-6 polynomial in ``t``
    for one pair: ``prod_j (s_j^2-t)^2 - sum_i s_i^2 b_i^2 prod_{j!=i} (s_j^2-t)^2``."""
    cA, RA, rA = prepare_ellipsoids(center_a, rot_a, radii_a, "A")
    cB, RB, rB = prepare_ellipsoids(center_b, rot_b, radii_b, "B")
    _, s2, _, beta = _frame(cA, RA, rA, cB, RB, rB)
    sq = [np.polynomial.Polynomial([v, -1.0]) ** 2 for v in s2]
    p = sq[0] * sq[1] * sq[2]
    for i in range(3):
        others = [sq[j] for j in range(3) if j != i]
        p = p - s2[i] * beta[i] ** 2 * others[0] * others[1]
    return p.coef[::-1].copy()


def paper_ellipsoid_distance(
    center_a: ArrayLike,
    rot_a: ArrayLike,
    radii_a: ArrayLike,
    center_b: ArrayLike,
    rot_b: ArrayLike,
    radii_b: ArrayLike,
) -> PaperDistance:
    """The paper's distance from A to B (same arguments as
    :func:`robotsim.geometry.ellipsoid_distance`); an approximation, see the module."""
    cA, RA, rA = prepare_ellipsoids(center_a, rot_a, radii_a, "A")
    cB, RB, rB = prepare_ellipsoids(center_b, rot_b, radii_b, "B")
    cA, RA, rA, cB, RB, rB = _broadcast(cA, RA, rA, cB, RB, rB)
    LA, s2, V, beta = _frame(cA, RA, rA, cB, RB, rB)
    w = s2 * beta**2
    smin = s2[..., 0]
    lo = smin - np.sqrt(w.sum(-1)) - 1e-300
    hi = smin.copy()
    for _ in range(200):  # bisection down to adjacent floats (g is increasing)
        mid = 0.5 * (lo + hi)
        g = (w / (s2 - mid[..., None]) ** 2).sum(-1)
        big = g > 1.0
        hi = np.where(big, mid, hi)
        lo = np.where(big, lo, mid)
        if np.all(hi - lo <= 4e-16 * np.maximum(np.abs(hi), np.abs(lo)) + 1e-300):
            break
    t = 0.5 * (lo + hi)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = -t[..., None] * beta / (s2 - t[..., None])
    y = np.einsum("...ij,...j->...i", V, z)
    level = np.linalg.norm(y, axis=-1)
    x_t = cA + np.einsum("...ij,...j->...i", LA, y)
    y0 = y / np.maximum(level, 1e-300)[..., None]
    x_0 = cA + np.einsum("...ij,...j->...i", LA, y0)
    gap = np.linalg.norm(x_t - x_0, axis=-1)
    dist = np.where(level >= 1.0, gap, -gap)
    return PaperDistance(dist, x_0, x_t, level, t)


def _broadcast(cA, RA, rA, cB, RB, rB):  # type: ignore[no-untyped-def]
    batch = np.broadcast_shapes(
        cA.shape[:-1], RA.shape[:-2], rA.shape[:-1], cB.shape[:-1], RB.shape[:-2], rB.shape[:-1]
    )
    return (
        np.broadcast_to(cA, (*batch, 3)),
        np.broadcast_to(RA, (*batch, 3, 3)),
        np.broadcast_to(rA, (*batch, 3)),
        np.broadcast_to(cB, (*batch, 3)),
        np.broadcast_to(RB, (*batch, 3, 3)),
        np.broadcast_to(rB, (*batch, 3)),
    )
