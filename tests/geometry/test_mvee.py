"""The minimum-volume enclosing ellipsoid fit (``fit.min_volume_ellipsoid``, weights by
``geometry._mvee``): every point inside, within the stated factor of the optimum
(proved by the dual bound), no larger than the previous plain-Khachiyan fit, and
independent of the points' order."""

from __future__ import annotations

import math

import numpy as np
import pytest

from robotsim.geometry import fit
from robotsim.geometry._mvee import dual_volume_bound, mvee_weights
from robotsim.model import load_robot
from tests.geometry.khachiyan_reference import khachiyan

TOL = 1e-6


def cloud(seed: int, n: int) -> np.ndarray:
    """Anisotropic (30:10:2), rotated and shifted Gaussian or uniform points."""
    rng = np.random.default_rng(seed)
    R = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    raw = rng.normal(size=(n, 3)) if seed % 2 else rng.uniform(-1, 1, size=(n, 3))
    return raw * [3.0, 1.0, 0.2] @ R.T + [0.5, -1.0, 2.0]


def semi_axes_product(A: np.ndarray) -> float:
    """``prod(radii)`` of ``(x - c)^T A (x - c) <= 1`` (volume / (4 pi / 3))."""
    return 1.0 / math.sqrt(np.linalg.det(A))


def lower_bound(P: np.ndarray, u: np.ndarray) -> float:
    """``prod(radii)`` of ``E(u)``: no ellipsoid holding ``P`` is smaller (any ``u``)."""
    _, dM = dual_volume_bound(P, u)
    return math.sqrt(np.linalg.det(dM))


def contained(P: np.ndarray, c: np.ndarray, R: np.ndarray, radii: np.ndarray) -> bool:
    return bool(np.linalg.norm((P - c) @ R / radii, axis=1).max() <= 1 + 1e-9)


@pytest.mark.parametrize("n", [10, 100, 1000, 5000])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fit_contains_every_point_and_is_within_tol_of_the_optimum(seed: int, n: int) -> None:
    P = cloud(seed, n)
    c, R, radii = fit.min_volume_ellipsoid(P, tol=TOL)
    assert contained(P, c, R, radii)
    np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-12)
    assert np.linalg.det(R) > 0
    # the certificate: weights on all the points (no hull, raw coordinates) bound the
    # optimum from below; the fit is at most (1 + tol (d+1)/d)^(d/2) above it
    w = mvee_weights(P, tol=TOL)
    assert w.converged and w.eps <= TOL and np.all(w.u >= 0) and np.isclose(w.u.sum(), 1)
    best = lower_bound(P, w.u)
    assert best <= np.prod(radii) <= best * (1 + TOL * 4 / 3) ** 1.5 * (1 + 1e-12)


@pytest.mark.parametrize("n", [10, 40])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fit_is_no_larger_than_plain_khachiyan(seed: int, n: int) -> None:
    P = cloud(seed, n)
    _, _, radii = fit.min_volume_ellipsoid(P, tol=TOL)
    # the previous algorithm at its settings (it stops at the cap, unconverged) and
    # with five times as many steps: the new fit is smaller than both, and above the
    # lower bound its weights prove
    for cap in (20_000, 100_000):
        _, A, u, _ = khachiyan(P, TOL, cap)
        assert np.prod(radii) <= semi_axes_product(A)
        assert lower_bound(P, u) <= np.prod(radii)


def test_fits_of_the_puma_links_converge_and_beat_the_previous_fit() -> None:
    puma = load_robot("puma560")
    for link in ("link2", "link3"):  # the shipped two_puma_fitted_volumes ellipsoids
        P = fit.shape_points(puma.link(link).visuals)
        w = mvee_weights(np.unique(P, axis=0) - P.mean(axis=0), tol=TOL)
        assert w.converged and w.eps <= TOL
        _, _, radii = fit.min_volume_ellipsoid(P)
        _, A, _, _ = khachiyan(P, TOL, 20_000)
        assert np.prod(radii) < semi_axes_product(A)


def test_fit_does_not_depend_on_the_points_order() -> None:
    P = cloud(3, 500)
    P = np.vstack([P, P[:50]])  # with duplicates
    ref = fit.min_volume_ellipsoid(P)
    rng = np.random.default_rng(7)
    for _ in range(3):
        got = fit.min_volume_ellipsoid(P[rng.permutation(len(P))])
        for a, b in zip(ref, got):
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-9)


def test_fits_of_regular_polytopes_are_their_circumscribed_spheres() -> None:
    # by symmetry the minimum ellipsoid of a regular octahedron / icosahedron is the
    # sphere through its vertices (radius 1 here)
    g = (1 + math.sqrt(5)) / 2
    ico = np.array([[0, s, t * g] for s in (-1, 1) for t in (-1, 1)], dtype=float)
    ico = np.vstack([ico, np.roll(ico, 1, axis=1), np.roll(ico, 2, axis=1)])
    ico /= np.linalg.norm(ico[0])
    octa = np.vstack([np.eye(3), -np.eye(3)])
    for P in (octa, ico):
        c, _, radii = fit.min_volume_ellipsoid(P + np.array([1.0, 2.0, 3.0]), tol=1e-9)
        np.testing.assert_allclose(c, [1.0, 2.0, 3.0], atol=1e-8)
        np.testing.assert_allclose(radii, 1.0, rtol=1e-8)


def test_flat_and_collinear_sets_keep_the_degenerate_handling() -> None:
    # a planar ring: the flat direction gets min_radius, the circle is recovered
    t = np.linspace(0, 2 * np.pi, 64, endpoint=False)
    ring = np.c_[2 * np.cos(t), np.sin(t), np.ones_like(t)]
    c, R, radii = fit.min_volume_ellipsoid(ring)
    np.testing.assert_allclose(np.sort(radii), [1e-6, 1.0, 2.0], rtol=1e-4)
    np.testing.assert_allclose(c, [0, 0, 1], atol=1e-9)
    assert contained(ring, c, R, radii)
    # collinear with repeats: the segment's half length along its direction
    line = np.outer([0.0, 1.0, 3.0, 3.0, 2.0], [1.0, 2.0, 2.0])
    c, R, radii = fit.min_volume_ellipsoid(line)
    np.testing.assert_allclose(np.sort(radii), [1e-6, 1e-6, 4.5], rtol=1e-12)
    np.testing.assert_allclose(c, [1.5, 3.0, 3.0], atol=1e-12)
    # repeated single point
    c, _, radii = fit.min_volume_ellipsoid([[1.0, 2.0, 3.0]] * 4)
    np.testing.assert_allclose(c, [1, 2, 3])
    np.testing.assert_allclose(radii, 1e-6)
