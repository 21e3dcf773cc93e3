"""Sweep-and-prune against brute force; AABBs contain their primitives."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from robotsim.geometry import support as sp
from robotsim.geometry.broadphase import aabb, aabb_gap, sweep_and_prune


@pytest.mark.parametrize("margin", [0.0, 0.3])
def test_sweep_and_prune_equals_brute_force(margin: float) -> None:
    rng = np.random.default_rng(0)
    lo = rng.uniform(0, 10, (300, 3))
    hi = lo + rng.uniform(0.05, 0.8, (300, 3))
    got = {tuple(p) for p in sweep_and_prune(lo, hi, margin)}
    want = set()
    for i in range(300):
        for j in range(i + 1, 300):
            if np.all((lo[j] <= hi[i] + margin) & (lo[i] <= hi[j] + margin)):
                want.add((i, j))
    assert got == want


@pytest.mark.parametrize("kind", [sp.SPHERE, sp.CAPSULE, sp.BOX, sp.ELLIPSOID])
def test_aabb_is_tight_and_contains_the_shape(kind: int) -> None:
    R = Rotation.random(50, random_state=1).as_matrix()
    c = np.random.default_rng(2).normal(size=(50, 3))
    size = np.tile([0.3, 0.1, 0.2] if kind != sp.SPHERE else [0.2] * 3, (50, 1))
    if kind == sp.CAPSULE:
        size[:, 1] = size[:, 0]
    lo, hi = aabb(kind, size, R, c)
    axes = np.broadcast_to(np.vstack([np.eye(3), -np.eye(3)]), (50, 6, 3))
    h = sp.support(kind, size, R, c, axes)  # the box faces are the support values
    np.testing.assert_allclose(hi, h[:, :3], atol=1e-12)
    np.testing.assert_allclose(lo, -h[:, 3:], atol=1e-12)
    assert np.all(aabb_gap(lo, hi, lo + 5, hi + 5) > 0)
