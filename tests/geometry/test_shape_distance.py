"""Sphere/capsule/box/ellipsoid pairs: analytic cases and a dense-direction check.

For any convex pair, ``-distance = min_n F(n)`` with ``F`` the support function of the
Minkowski difference. A solver's answer is certified from both sides: ``F`` at the
returned normal equals ``-distance`` (so the value is attained) and no direction of a
dense grid gives a smaller ``F`` (so nothing was missed beyond the grid's resolution).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from robotsim.errors import InputError
from robotsim.geometry import shape_distance
from robotsim.geometry import support as sp
from robotsim.geometry.shapes import pack_shape
from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Sphere
from tests.geometry.ellipsoid_reference import fibonacci_sphere

SHAPES = {
    "sphere": Sphere(0.2),
    "capsule": Capsule(0.1, 0.4),
    "box": Box((0.3, 0.2, 0.5)),
    "ellipsoid": Ellipsoid((0.3, 0.1, 0.2)),
}
GRID = fibonacci_sphere(6000)


def poses(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    T = np.tile(np.eye(4), (n, 1, 1))
    T[:, :3, :3] = Rotation.random(n, random_state=seed).as_matrix()
    T[:, :3, 3] = rng.normal(size=(n, 3)) * 0.3
    return T


def F(shape_a, Ta, shape_b, Tb, dirs):  # type: ignore[no-untyped-def]
    ka, sa = pack_shape(shape_a)
    kb, sb = pack_shape(shape_b)
    n = len(Ta)
    d = np.broadcast_to(dirs, (n, *dirs.shape[-2:])) if dirs.ndim == 2 else dirs
    return sp.support(ka, np.tile(sa, (n, 1)), Ta[:, :3, :3], Ta[:, :3, 3], d) + sp.support(
        kb, np.tile(sb, (n, 1)), Tb[:, :3, :3], Tb[:, :3, 3], -d
    )


@pytest.mark.parametrize(("a", "b"), list(itertools.combinations_with_replacement(SHAPES, 2)))
def test_every_pair_attains_its_value_and_beats_a_dense_grid(a: str, b: str) -> None:
    n = 40
    Ta, Tb = poses(n, 1), poses(n, 2)
    res = shape_distance(SHAPES[a], Ta, SHAPES[b], Tb)
    assert np.all(np.isfinite(res.distance))
    at_normal = F(SHAPES[a], Ta, SHAPES[b], Tb, res.normal[:, None, :])[:, 0]
    np.testing.assert_allclose(at_normal, -res.distance, atol=1e-12)
    grid_min = F(SHAPES[a], Ta, SHAPES[b], Tb, GRID).min(axis=1)
    assert np.all(-res.distance <= grid_min + 1e-12)
    np.testing.assert_allclose(
        res.point_b - res.point_a, res.distance[:, None] * res.normal, atol=1e-12
    )
    swapped = shape_distance(SHAPES[b], Tb, SHAPES[a], Ta)
    np.testing.assert_allclose(swapped.distance, res.distance, atol=1e-9)
    assert 0 < np.mean(res.distance < 0) < 1  # both cases were exercised


def T_at(xyz, rpy=(0.0, 0.0, 0.0)) -> np.ndarray:  # type: ignore[no-untyped-def]
    T = np.eye(4)
    T[:3, :3] = Rotation.from_euler("xyz", rpy).as_matrix()
    T[:3, 3] = xyz
    return T


@pytest.mark.parametrize(
    ("a", "Ta", "b", "Tb", "expected"),
    [
        (Box((0.2, 0.2, 0.2)), T_at([0, 0, 0]), Sphere(0.1), T_at([0.5, 0, 0]), 0.3),
        (Box((0.2, 0.2, 0.2)), T_at([0, 0, 0]), Sphere(0.1), T_at([0.15, 0, 0]), -0.05),
        (Capsule(0.1, 1.0), T_at([0, 0, 0]), Capsule(0.05, 1.0), T_at([0.4, 0, 0.2]), 0.25),
        (
            Capsule(0.1, 1.0),
            T_at([0, 0, 0]),
            Capsule(0.1, 1.0),
            T_at([0, 0, 0], [1.5707963, 0, 0]),
            -0.2,
        ),
        (Box((0.2, 0.4, 0.6)), T_at([0, 0, 0]), Box((0.2, 0.2, 0.2)), T_at([0.5, 0.1, 0]), 0.3),
        (Box((0.2, 0.4, 0.6)), T_at([0, 0, 0]), Box((0.2, 0.2, 0.2)), T_at([0.15, 0, 0]), -0.05),
        (Box((0.2, 0.4, 0.6)), T_at([0, 0, 0]), Ellipsoid((0.3, 0.2, 0.1)), T_at([0, 0, 0.8]), 0.4),
        (
            Box((0.2, 0.4, 0.6)),
            T_at([0, 0, 0]),
            Ellipsoid((0.3, 0.2, 0.1)),
            T_at([0, 0, 0.35]),
            -0.05,
        ),
        (Capsule(0.05, 0.4), T_at([0, 0, 0]), Ellipsoid((0.3, 0.2, 0.1)), T_at([0.5, 0, 0]), 0.15),
        (Capsule(0.05, 0.4), T_at([0, 0, 0]), Ellipsoid((0.1, 0.2, 0.3)), T_at([0, 0, 0.6]), 0.05),
    ],
)
def test_analytic_cases(a, Ta, b, Tb, expected) -> None:  # type: ignore[no-untyped-def]
    assert shape_distance(a, Ta, b, Tb).distance == pytest.approx(expected, abs=1e-9)


def test_unsupported_shape_is_a_clear_error() -> None:
    with pytest.raises(InputError, match="sphere, capsule, box or ellipsoid"):
        shape_distance(Cylinder(0.1, 0.2), np.eye(4), Sphere(0.1), np.eye(4))
