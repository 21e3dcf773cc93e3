"""The paper's level-set method: where it equals the exact distance, where it does not."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from robotsim.geometry import ellipsoid_distance, paper_ellipsoid_distance, paper_polynomial

I3 = np.eye(3)
PUMA = [0.250, 0.120, 0.125]  # the paper's end-link ellipsoid semi-axes (m)


def separated_pairs(n: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    R = Rotation.random(2 * n, random_state=seed).as_matrix()
    rad = rng.uniform(0.05, 0.4, (2 * n, 3))
    d = rng.normal(size=(n, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    cB = d * (rad[:n].max(1) + rad[n:].max(1) + rng.uniform(0.01, 0.5, n))[:, None]
    return np.zeros((n, 3)), R[:n], rad[:n], cB, R[n:], rad[n:]


def test_exact_when_a_is_a_sphere() -> None:
    cA, RA, _, cB, RB, rB = separated_pairs(50, seed=1)
    rA = np.full((50, 3), 0.2)
    paper = paper_ellipsoid_distance(cA, RA, rA, cB, RB, rB)
    exact = ellipsoid_distance(cA, RA, rA, cB, RB, rB)
    np.testing.assert_allclose(paper.distance, exact.distance, atol=1e-9)
    np.testing.assert_allclose(paper.point_b, exact.point_b, atol=1e-6)


def test_exact_for_aligned_ellipsoids_along_an_axis() -> None:
    paper = paper_ellipsoid_distance([0, 0, 0], I3, PUMA, [0.8, 0, 0], I3, PUMA)
    assert paper.distance == pytest.approx(0.8 - 0.5, abs=1e-12)
    assert paper.level == pytest.approx(0.55 / 0.25, rel=1e-12)


def test_upper_bound_and_approximation_in_general() -> None:
    pairs = separated_pairs(300, seed=2)
    paper = paper_ellipsoid_distance(*pairs)
    exact = ellipsoid_distance(*pairs)
    err = paper.distance - exact.distance
    assert np.all(err >= -1e-12)  # a distance between two surface points: never below
    assert err.max() > 0.01  # ...but centimetres off for elongated, rotated pairs
    # witness points are on the surfaces, as in the paper's construction
    for c, R, r, p in (
        (pairs[0], pairs[1], pairs[2], paper.point_a),
        (pairs[3], pairs[4], pairs[5], paper.point_b),
    ):
        local = np.einsum("nji,nj->ni", R, p - c) / r
        np.testing.assert_allclose(np.linalg.norm(local, axis=1), 1.0, atol=1e-9)


def test_puma_end_links_crossing_at_45_degrees() -> None:
    R = Rotation.from_euler("z", 45, degrees=True).as_matrix()
    ab = paper_ellipsoid_distance([0, 0, 0], R, PUMA, [0.45, 0.25, 0.05], I3, PUMA)
    ba = paper_ellipsoid_distance([0.45, 0.25, 0.05], I3, PUMA, [0, 0, 0], R, PUMA)
    exact = ellipsoid_distance([0, 0, 0], R, PUMA, [0.45, 0.25, 0.05], I3, PUMA).distance
    assert ab.distance > exact + 1e-3 and ba.distance > exact + 1e-3
    assert abs(ab.distance - ba.distance) > 1e-4  # depends on which one is "A"


def test_the_negative_root_of_the_degree_six_polynomial() -> None:
    R = Rotation.from_euler("zyx", [40, 10, -20], degrees=True).as_matrix()
    args = ([0.1, 0, 0.2], R, PUMA, [0.6, 0.3, 0.1], I3, [0.2, 0.15, 0.1])
    coef = paper_polynomial(*args)
    assert len(coef) == 7
    roots = np.roots(coef)
    negative = roots[(np.abs(roots.imag) < 1e-9) & (roots.real < 0)].real
    assert len(negative) == 1
    assert paper_ellipsoid_distance(*args).t == pytest.approx(negative[0], rel=1e-9)


def test_overlap_gives_a_negative_value_that_is_not_the_depth() -> None:
    paper = paper_ellipsoid_distance([0, 0, 0], I3, PUMA, [0.3, 0.1, 0], I3, PUMA)
    exact = ellipsoid_distance([0, 0, 0], I3, PUMA, [0.3, 0.1, 0], I3, PUMA)
    assert paper.level < 1 and paper.distance < 0 and exact.distance < 0
    assert abs(paper.distance - exact.distance) > 0.01
