"""Grasp quality against closed forms: the Ferrari-Canny margin of wrench sets whose
hull is known, force closure saying yes and no for contact layouts, the reach of the
wrench space along gravity equal to the friction limit of an antipodal pinch."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.grasp.quality import approx_margins, contact_wrenches, gws_margin, wrench_reach


def test_margin_of_known_hulls() -> None:
    cross = np.concatenate([np.eye(6), -np.eye(6)])  # facets at 1/sqrt(6)
    assert gws_margin(cross) == pytest.approx(1 / np.sqrt(6), rel=1e-12)
    cube = np.array(np.meshgrid(*[[-1.0, 1.0]] * 6)).reshape(6, -1).T  # facets at 1
    assert gws_margin(cube) == pytest.approx(1.0, rel=1e-12)
    assert wrench_reach(cross, np.eye(6)[0]) == pytest.approx(1.0)
    assert wrench_reach(cube, np.ones(6)) == pytest.approx(np.sqrt(6))
    shifted = cube + np.array([1.5, 0, 0, 0, 0, 0])  # the origin outside: no closure
    assert gws_margin(shifted) == 0.0 and wrench_reach(shifted, np.eye(6)[0]) == 0.0


def test_estimate_is_an_upper_bound() -> None:
    rng = np.random.default_rng(4)
    W = rng.normal(size=(30, 20, 6))
    est = approx_margins(W)
    exact = np.array([gws_margin(w) for w in W])
    assert np.all(est >= exact - 1e-12)
    assert np.corrcoef(est, exact)[0, 1] > 0.5  # and ranks alike


def test_contact_wrenches_are_cone_edges_and_their_torques() -> None:
    p = np.array([[0.03, 0.01, 0.0]])
    n = np.array([[-1.0, 0.0, 0.0]])
    W = contact_wrenches(p, n, np.zeros(3), mu=0.5, rho=0.1, torsion=0.004, edges=8)
    assert W.shape == (10, 6)
    f = W[:8, :3]
    np.testing.assert_allclose(f @ n[0], 1.0)  # unit normal force, along the inward normal
    np.testing.assert_allclose(np.linalg.norm(f - f @ n[0][:, None] * n[0], axis=1), 0.5)
    np.testing.assert_allclose(W[:8, 3:], np.cross(p[0], f) / 0.1)
    np.testing.assert_allclose(
        W[8:, 3:], (np.cross(p[0], n[0]) + np.array([[1.0], [-1.0]]) * 0.004 * n[0]) / 0.1
    )


def _pinch(torsion: float, y: float = 0.0) -> np.ndarray:
    p = np.array([[0.03, y, 0.0], [-0.03, y, 0.0]])
    n = np.array([[-1.0, 0, 0], [1.0, 0, 0]])
    return contact_wrenches(p, n, np.zeros(3), mu=0.5, rho=0.05, torsion=torsion)


def test_force_closure_yes_and_no() -> None:
    assert gws_margin(_pinch(0.004)) > 0  # soft fingers hold
    assert gws_margin(_pinch(0.0)) == 0.0  # point contacts cannot resist a twist about their line
    p2 = np.array([[0.03, 0, 0], [0.03, 0.01, 0]])
    n2 = np.array([[-1.0, 0, 0], [-1.0, 0, 0]])
    same_side = contact_wrenches(p2, n2, np.zeros(3), 0.5, 0.05, 0.004)
    assert gws_margin(same_side) == 0.0
    a = np.radians([90, 210, 330])
    p3 = 0.03 * np.column_stack([np.cos(a), np.sin(a), np.zeros(3)])
    assert gws_margin(contact_wrenches(p3, -p3 / 0.03, np.zeros(3), 0.5, 0.03, 0.002)) > 0


def test_antipodal_pinch_holds_its_friction_limit() -> None:
    # L1 wrench space: unit total normal force; along +z it reaches mu (each contact's
    # friction is mu per unit normal force), so two fingers at F newtons hold 2 mu F
    assert wrench_reach(_pinch(0.004), np.array([0, 0, 1.0, 0, 0, 0])) == pytest.approx(
        0.5, rel=1e-9
    )
    # contacts above the centre of mass hold less: gravity twists the object about them
    assert wrench_reach(_pinch(0.004, y=0.02), np.array([0, 0, 1.0, 0, 0, 0])) < 0.5
