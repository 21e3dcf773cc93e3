"""The compiled capsule/box-ellipsoid kernels against the former NumPy implementation.

Same mathematics, same arithmetic order: the kernels must reproduce the reference
(``core_ellipsoid_reference.py``) to 1e-12 in the distance, both witness points and the
normal, over random pairs that are apart, overlapping and touching, with thin, flat and
degenerate shapes, whatever the memory layout of the inputs.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from robotsim.geometry.core_ellipsoid import box_ellipsoid, capsule_ellipsoid
from tests.geometry import core_ellipsoid_reference as ref

TOL = 1e-12  # m (distances, points) and unit-vector components (normals)


def random_pairs(n: int, seed: int, kind: str) -> tuple[np.ndarray, ...]:
    """``n`` pairs; rotations and centres as views of ``(n,4,4)`` poses (strided, as
    ``shape_distance`` passes them). Centres ~0.3 m apart: about a quarter overlap."""
    rng = np.random.default_rng(seed)
    Ta = np.tile(np.eye(4), (n, 1, 1))
    Tb = Ta.copy()
    Ta[:, :3, :3] = Rotation.random(n, random_state=seed).as_matrix()
    Tb[:, :3, :3] = Rotation.random(n, random_state=seed + 1).as_matrix()
    Ta[:, :3, 3] = rng.normal(size=(n, 3)) * 0.3
    Tb[:, :3, 3] = rng.normal(size=(n, 3)) * 0.3
    if kind == "capsule":
        r = rng.uniform(0.01, 0.2, n)
        h = rng.uniform(0.0, 0.4, n)
        h[::17] = 0.0  # a ball
        s = np.stack([r, r, h], axis=1)
    else:
        s = rng.uniform(0.01, 0.4, (n, 3))
        s[::13, 0] = 1e-4  # a plate
    sE = rng.uniform(0.02, 0.5, (n, 3))
    sE[::7, 1] = sE[::7, 0] / 40  # flat ellipsoids
    sE[::11] = sE[::11, :1]  # balls
    Tb[::19, :3, 3] = Ta[::19, :3, 3]  # concentric
    return s, Ta[:, :3, :3], Ta[:, :3, 3], sE, Tb[:, :3, :3], Tb[:, :3, 3]


def touching(pairs: tuple[np.ndarray, ...], fn) -> tuple[np.ndarray, ...]:  # type: ignore[no-untyped-def]
    """The same pairs with the ellipsoid moved along the normal to within 1e-9 m of
    contact (both sides), where the normal is least well conditioned."""
    s, Ra, ca, sE, RE, cE = pairs
    d, _, _, n = fn(*pairs)
    eps = np.where(np.arange(len(d)) % 2 == 0, 1e-9, -1e-9)
    return s, Ra, ca, sE, RE, cE + (eps - d)[:, None] * n


CASES = [
    ("capsule", capsule_ellipsoid, ref.capsule_ellipsoid, 1500),
    ("box", box_ellipsoid, ref.box_ellipsoid, 500),
]


@pytest.mark.parametrize(("kind", "fast", "slow", "n"), CASES, ids=[c[0] for c in CASES])
def test_the_kernels_reproduce_the_numpy_implementation(kind, fast, slow, n) -> None:  # type: ignore[no-untyped-def]
    pairs = random_pairs(n, 5, kind)
    d = slow(*pairs)[0]
    assert (d > 1e-3).sum() > n / 4 and (d < -1e-3).sum() > n / 10
    for p in (pairs, touching(pairs, slow)):
        got, want = fast(*p), slow(*p)
        for name, g, w in zip(("distance", "point_a", "point_b", "normal"), got, want):
            err = np.abs(g - w).max()
            assert err <= TOL, f"{kind} {name}: max difference {err:.3g}"


@pytest.mark.parametrize(("kind", "fast", "slow", "n"), CASES, ids=[c[0] for c in CASES])
def test_symmetric_pairs_break_ties_as_the_reference(kind, fast, slow, n) -> None:  # type: ignore[no-untyped-def]
    """Axis-aligned shapes with centres on the axes, face and edge diagonals: several
    arcs and vertices reach the same minimum, the first one wins in both."""
    dirs = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1]])
    dirs = (
        np.concatenate([dirs, -dirs])
        / np.linalg.norm(np.concatenate([dirs, -dirs]), axis=1)[:, None]
    )
    dist = np.array([0.05, 0.2, 0.35, 0.6])
    m = len(dirs) * len(dist)
    s = np.tile([0.1, 0.1, 0.2] if kind == "capsule" else [0.1, 0.15, 0.2], (m, 1))
    sE = np.tile([0.2, 0.1, 0.15], (m, 1))
    R = np.tile(np.eye(3), (m, 1, 1))
    c = (dirs[:, None, :] * dist[None, :, None]).reshape(m, 3)
    pairs = (s, R, np.zeros((m, 3)), sE, R.copy(), c)
    for g, w in zip(fast(*pairs), slow(*pairs)):
        assert np.abs(g - w).max() <= TOL


@pytest.mark.parametrize(("kind", "fast", "slow", "n"), CASES, ids=[c[0] for c in CASES])
def test_contiguous_and_strided_inputs_agree_and_batches_are_independent(  # type: ignore[no-untyped-def]
    kind, fast, slow, n
) -> None:
    pairs = random_pairs(40, 9, kind)
    whole = fast(*pairs)
    contiguous = fast(*(np.ascontiguousarray(p) for p in pairs))
    one_by_one = [fast(*(p[i : i + 1] for p in pairs)) for i in range(40)]
    for k in range(4):
        np.testing.assert_array_equal(whole[k], contiguous[k])
        np.testing.assert_array_equal(whole[k], np.concatenate([o[k] for o in one_by_one]))
    empty = fast(*(p[:0] for p in pairs))
    assert [e.shape for e in empty] == [(0,), (0, 3), (0, 3), (0, 3)]
