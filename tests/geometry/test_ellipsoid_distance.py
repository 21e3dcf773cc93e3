"""Exact signed ellipsoid distance against a certified reference, analytic cases,
symmetry, rigid-motion invariance, witness points, degenerate shapes, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from robotsim.errors import InputError
from robotsim.geometry import ellipsoid_distance
from tests.geometry.ellipsoid_reference import reference_distance

I3 = np.eye(3)


def random_pairs(n: int, seed: int, overlap: bool) -> tuple[np.ndarray, ...]:
    """Random ellipsoid pairs (radii 0.05..0.5 m), all separated or all overlapping."""
    rng = np.random.default_rng(seed)
    out: list[tuple[np.ndarray, ...]] = []
    while len(out) < n:
        R = Rotation.random(2, random_state=rng.integers(1 << 31)).as_matrix()
        rad = rng.uniform(0.05, 0.5, (2, 3))
        c = rng.normal(size=(2, 3)) * 0.35
        d = ellipsoid_distance(c[0], R[0], rad[0], c[1], R[1], rad[1]).distance
        if (d < -1e-3) == overlap and abs(d) > 1e-3:
            out.append((c[0], R[0], rad[0], c[1], R[1], rad[1]))
    return tuple(np.array(x) for x in zip(*out, strict=True))


def check_against_reference(pairs: tuple[np.ndarray, ...], tol: float) -> None:
    res = ellipsoid_distance(*pairs)
    for i in range(len(pairs[0])):
        ref, _ = reference_distance(*(p[i] for p in pairs))
        assert abs(res.distance[i] - ref) <= tol, (i, res.distance[i], ref)


def test_separated_pairs_match_certified_reference_to_1e9() -> None:
    check_against_reference(random_pairs(14, seed=1, overlap=False), tol=1e-9)


def test_penetration_depth_matches_certified_reference_to_1e7() -> None:
    check_against_reference(random_pairs(14, seed=2, overlap=True), tol=1e-7)


def test_flat_and_needle_pairs_match_reference() -> None:
    R = Rotation.random(8, random_state=3).as_matrix()
    flat = [1.0, 0.8, 0.001]  # 1000:1
    needle = [0.001, 0.001, 0.6]
    cases = [
        ([0, 0, 0], R[0], flat, [0.3, 0.2, 0.5], R[1], flat),  # crossing disks
        ([0, 0, 0], R[2], flat, [1.5, 0.9, 0.4], R[3], flat),  # apart
        ([0, 0, 0], R[4], flat, [0.1, 0.0, 0.2], R[5], needle),  # needle through a disk
        ([0, 0, 0], R[6], needle, [0.2, 0.3, 0.05], R[7], [0.3, 0.2, 0.25]),
    ]
    pairs = tuple(np.array(x, dtype=float) for x in zip(*cases, strict=True))
    res = ellipsoid_distance(*pairs)
    assert np.all(np.isfinite(res.distance))
    for i in range(len(cases)):
        ref, _ = reference_distance(*cases[i])
        tol = 1e-9 if ref > 0 else 1e-7
        assert abs(res.distance[i] - ref) <= tol, (i, res.distance[i], ref)


@pytest.mark.parametrize("gap", [0.3, 0.0, -0.05])
def test_spheres_analytic(gap: float) -> None:
    u = np.array([2.0, -1.0, 0.5]) / np.linalg.norm([2.0, -1.0, 0.5])
    cB = np.array([0.1, 0.2, 0.3]) + u * (0.2 + 0.35 + gap)
    res = ellipsoid_distance([0.1, 0.2, 0.3], I3, [0.2] * 3, cB, I3, [0.35] * 3)
    assert res.distance == pytest.approx(gap, abs=1e-14)
    np.testing.assert_allclose(res.normal, u, atol=1e-12)


@pytest.mark.parametrize("x", [1.0, 0.6, 0.3])
def test_axis_aligned_ellipsoids_along_x(x: float) -> None:
    # thin along x: the gap (or overlap) along x is the answer
    rA, rB = [0.2, 0.9, 0.8], [0.25, 0.7, 1.1]
    res = ellipsoid_distance([0, 0, 0], I3, rA, [x, 0, 0], I3, rB)
    assert res.distance == pytest.approx(x - 0.45, abs=1e-14)
    np.testing.assert_allclose(res.point_a, [0.2, 0, 0], atol=1e-12)
    np.testing.assert_allclose(res.point_b, [x - 0.25, 0, 0], atol=1e-12)


def test_identical_concentric_and_touching_cases_have_no_nan() -> None:
    rad = np.array([0.3, 0.2, 0.1])
    R = Rotation.from_euler("xyz", [0.3, -0.2, 1.1]).as_matrix()
    same = ellipsoid_distance([1, 2, 3], R, rad, [1, 2, 3], R, rad)
    assert same.distance == pytest.approx(-0.2, abs=1e-12)  # push out along the 0.1 axis
    conc = ellipsoid_distance([0, 0, 0], I3, [0.5, 0.4, 0.3], [0, 0, 0], R, [0.1, 0.1, 0.1])
    ref, _ = reference_distance([0, 0, 0], I3, [0.5, 0.4, 0.3], [0, 0, 0], R, [0.1] * 3)
    assert conc.distance == pytest.approx(ref, abs=1e-7)
    touch = ellipsoid_distance([0, 0, 0], I3, [0.3, 0.2, 0.1], [0, 0, 0.25], I3, [0.4, 0.5, 0.15])
    assert touch.distance == pytest.approx(0.0, abs=1e-14)
    sphere_like = ellipsoid_distance(
        [0, 0, 0], R, [0.2, 0.2, 0.2 + 1e-13], [0.5, 0, 0], I3, [0.1, 0.1, 0.1]
    )
    assert sphere_like.distance == pytest.approx(0.2, abs=1e-12)
    for r in (same, conc, touch, sphere_like):
        assert np.all(np.isfinite(r.point_a)) and np.all(np.isfinite(r.normal))


def test_symmetry_and_rigid_motion_invariance() -> None:
    pairs = random_pairs(20, seed=4, overlap=False)
    ov = random_pairs(20, seed=5, overlap=True)
    for cA, RA, rA, cB, RB, rB in (pairs, ov):
        ab = ellipsoid_distance(cA, RA, rA, cB, RB, rB)
        ba = ellipsoid_distance(cB, RB, rB, cA, RA, rA)
        np.testing.assert_allclose(ab.distance, ba.distance, atol=1e-12)
        Q = Rotation.random(random_state=6).as_matrix()
        p = np.array([0.4, -2.0, 1.3])
        moved = ellipsoid_distance(cA @ Q.T + p, Q @ RA, rA, cB @ Q.T + p, Q @ RB, rB)
        np.testing.assert_allclose(moved.distance, ab.distance, atol=1e-12)
        sep = ab.distance > 0
        np.testing.assert_allclose(moved.point_a[sep], ab.point_a[sep] @ Q.T + p, atol=1e-9)


def test_witness_points_on_surfaces_and_along_the_normal() -> None:
    for overlap in (False, True):
        cA, RA, rA, cB, RB, rB = random_pairs(30, seed=7 + overlap, overlap=overlap)
        res = ellipsoid_distance(cA, RA, rA, cB, RB, rB)
        for c, R, r, p in ((cA, RA, rA, res.point_a), (cB, RB, rB, res.point_b)):
            local = np.einsum("nji,nj->ni", R, p - c) / r
            np.testing.assert_allclose(np.linalg.norm(local, axis=1), 1.0, atol=1e-12)
        np.testing.assert_allclose(
            res.point_b - res.point_a, res.distance[:, None] * res.normal, atol=1e-12
        )
        # the normal is A's outward surface normal at point_a (and -normal is B's)
        gA = np.einsum("nij,nj->ni", RA, np.einsum("nji,nj->ni", RA, res.point_a - cA) / rA**2)
        gA /= np.linalg.norm(gA, axis=1, keepdims=True)
        np.testing.assert_allclose(gA, res.normal, atol=1e-9)


def test_batch_shapes_and_broadcasting() -> None:
    cB = np.zeros((4, 5, 3))
    cB[..., 0] = np.linspace(1, 2, 5)
    res = ellipsoid_distance([0, 0, 0], I3, [0.1, 0.2, 0.3], cB, I3, [0.2, 0.2, 0.2])
    assert res.distance.shape == (4, 5) and res.point_a.shape == (4, 5, 3)
    np.testing.assert_allclose(res.distance[2], np.linspace(1, 2, 5) - 0.3, atol=1e-14)
    with pytest.raises(ValueError):
        res.distance[0, 0] = 1.0  # read-only


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"radii_a": [0.1, 0.0, 0.2]}, "radii must be > 0"),
        ({"center_b": [np.nan, 0, 0]}, "center contains NaN"),
        ({"rot_a": np.diag([1.0, 2.0, 1.0])}, "not a rotation"),
        ({"radii_b": [0.1, 0.2]}, "expected center"),
    ],
)
def test_bad_input_is_a_clear_error(kwargs: dict, match: str) -> None:
    args = {
        "center_a": [0, 0, 0],
        "rot_a": I3,
        "radii_a": [0.1, 0.2, 0.3],
        "center_b": [1, 0, 0],
        "rot_b": I3,
        "radii_b": [0.1, 0.2, 0.3],
    }
    args.update(kwargs)
    with pytest.raises(InputError, match=match):
        ellipsoid_distance(**args)


@pytest.mark.parametrize("family", ["random", "flat", "disks", "needles", "round"])
def test_no_direction_of_a_dense_grid_beats_the_depth(family: str) -> None:
    """Overlapping pairs from hard families: the depth is F's global minimum, so no
    direction of an 8000-point grid may give a smaller F (a miss would show here)."""
    from tests.geometry.ellipsoid_reference import fibonacci_sphere

    rng = np.random.default_rng(21)
    n = 400
    R = Rotation.random(2 * n, random_state=22).as_matrix()
    rad = {
        "random": lambda: rng.uniform(0.05, 0.5, (2 * n, 3)),
        "flat": lambda: np.exp(rng.uniform(np.log(1e-3), 0.0, (2 * n, 3))),
        "disks": lambda: np.array([1.0, 0.7, 0.001]) * rng.uniform(0.5, 1.5, (2 * n, 1)),
        "needles": lambda: np.array([0.002, 0.002, 0.8]) * rng.uniform(0.5, 1.5, (2 * n, 1)),
        "round": lambda: rng.uniform(0.3, 0.33, (2 * n, 3)),
    }[family]()
    u = rng.normal(size=(n, 3))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    reach = 0.01 if family == "needles" else 0.6  # needles must cross to overlap
    cB = u * (rng.uniform(0, reach, n) * (rad[:n].max(1) + rad[n:].max(1)))[:, None]
    res = ellipsoid_distance(np.zeros((n, 3)), R[:n], rad[:n], cB, R[n:], rad[n:])
    grid = fibonacci_sphere(8000)
    LA = R[:n] * rad[:n, None, :]
    LB = R[n:] * rad[n:, None, :]
    F = (
        np.linalg.norm(np.einsum("kj,nji->nki", grid, LA), axis=2)
        + np.linalg.norm(np.einsum("kj,nji->nki", grid, LB), axis=2)
        - np.einsum("kj,nj->nk", grid, cB)
    )
    assert np.sum(res.distance < 0) >= 100
    assert np.all(-res.distance <= F.min(axis=1) + 1e-12)


@pytest.mark.parametrize("threads", [2, 3])
def test_threads_give_the_one_thread_result(threads) -> None:
    from robotsim.bench.clearance import bench_pairs

    pairs = bench_pairs(6_000, seed=11)  # half overlapping, half separated
    one = ellipsoid_distance(*pairs, threads=1)
    many = ellipsoid_distance(*pairs, threads=threads)
    for field in ("distance", "point_a", "point_b", "normal"):
        assert np.array_equal(getattr(one, field), getattr(many, field))
