"""Geometric Jacobians against central finite differences of FK."""

from __future__ import annotations

import numpy as np
import pytest

import robotsim
from robotsim.spatial import rot_log
from tests.kinematics.random_trees import random_tree


def fd_jacobian(model: robotsim.RobotModel, q: np.ndarray, link: str | None,
                h: float = 1e-6) -> np.ndarray:  # fmt: skip
    """World-aligned Jacobian by central differences: linear rows from the origin,
    angular rows from log(R(q+h) R(q-h)^T) / 2h."""
    J = np.zeros((6, model.nq))
    for i in range(model.nq):
        dq = np.zeros(model.nq)
        dq[i] = h
        Tp, Tm = model.fk(q + dq, link), model.fk(q - dq, link)
        J[:3, i] = (Tp[:3, 3] - Tm[:3, 3]) / (2 * h)
        J[3:, i] = rot_log(Tp[:3, :3] @ Tm[:3, :3].T) / (2 * h)
    return J


# Central differences with h = 1e-6 have truncation error ~h^2 and round-off ~1e-16/h:
# 1e-7 leaves a margin of about 10x over both for these link lengths (<= 2 m).
TOL = 1e-7


@pytest.mark.parametrize("seed", range(10))
def test_random_tree_jacobian(seed) -> None:
    model = random_tree(seed)
    rng = np.random.default_rng(seed)
    for _ in range(3):
        q = rng.uniform(-2, 2, model.nq)
        for link in (None, model.link_names[-2]):
            assert np.allclose(model.jacobian(q, link), fd_jacobian(model, q, link), atol=TOL)


def test_puma_jacobian_and_local() -> None:
    puma = robotsim.load_robot("puma560")
    rng = np.random.default_rng(0)
    for _ in range(5):
        q = rng.uniform(puma.lower, puma.upper)
        Jw = puma.jacobian(q)
        assert np.allclose(Jw, fd_jacobian(puma, q, None), atol=TOL)
        R = puma.fk(q)[:3, :3]
        Jl = puma.jacobian(q, local=True)
        assert np.allclose(Jl[:3], R.T @ Jw[:3], atol=1e-12)
        assert np.allclose(Jl[3:], R.T @ Jw[3:], atol=1e-12)


def test_batched_jacobian_matches_single() -> None:
    model = random_tree(4)
    q = np.random.default_rng(2).uniform(-2, 2, (3, 2, model.nq))
    J = model.jacobian(q)
    assert J.shape == (3, 2, 6, model.nq)
    assert np.array_equal(J[1, 1], model.jacobian(q[1, 1]))
