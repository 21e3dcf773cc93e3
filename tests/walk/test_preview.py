"""ZMP preview control (Kajita et al. 2003): the cart-table model's ZMP tracks the
reference, and the controller's trajectory is the optimum of its cost, checked against
the same cost minimised directly (batch least squares over the whole horizon)."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.errors import InputError
from robotsim.walk.preview import G, preview_gains, preview_track


def _steps_reference(dt: float, t_end: float, quiet: float) -> np.ndarray:
    """A walk's ZMP: still for ``quiet`` s (at least the preview horizon, so the
    controller starts as if it had always been running), then shifting between
    footholds every 0.8 s with 0.1 s ramps."""
    t = np.arange(0, t_end, dt)
    q = quiet
    knots_t = [0, q, q + 0.1, q + 0.9, q + 1.0, q + 1.8, q + 1.9, t_end]
    knots_p = [0, 0, 0.1, 0.1, -0.05, -0.05, 0.0, 0.0]
    return np.interp(t, knots_t, knots_p)


def test_cart_table_zmp_is_c_minus_height_times_acceleration() -> None:
    g = preview_gains(0.005, 0.8, 1.6)
    p_ref = _steps_reference(0.005, 6.0, 1.6)
    x, p = preview_track(g, p_ref)
    np.testing.assert_allclose(p[:, 0], x[:, 0, 0] - 0.8 / G * x[:, 2, 0], atol=1e-15)
    # the state is integrated with constant jerk: position from velocity and acceleration
    c, v, a = x[:, 0, 0], x[:, 1, 0], x[:, 2, 0]
    j = (a[1:] - a[:-1]) / 0.005
    np.testing.assert_allclose(
        c[1:], c[:-1] + v[:-1] * 0.005 + a[:-1] * 0.005**2 / 2 + j * 0.005**3 / 6, atol=1e-12
    )


def test_zmp_tracks_the_reference_and_the_com_settles() -> None:
    g = preview_gains(0.005, 0.8, 1.6)
    p_ref = _steps_reference(0.005, 7.0, 1.6)
    x, p = preview_track(g, p_ref)
    # Kajita's weights track a walking ZMP within a few millimetres
    assert np.max(np.abs(p[:, 0] - p_ref)) < 0.005
    assert abs(x[-1, 0, 0]) < 1e-3 and abs(x[-1, 1, 0]) < 1e-3


def _batch_optimum(dt: float, zc: float, p_ref: np.ndarray, qe: float, r: float) -> np.ndarray:
    """argmin sum qe (p - p_ref)^2 + r du^2 over the increments of the jerk, the ZMP
    written as a linear function of them (the cost the preview controller minimises)."""
    n = len(p_ref)
    A = np.array([[1, dt, dt * dt / 2], [0, 1, dt], [0, 0, 1.0]])
    B = np.array([dt**3 / 6, dt * dt / 2, dt])
    C = np.array([1.0, 0.0, -zc / G])
    # p[k] = C x[k], x[k] = A^k x0 + sum_{i<k} A^(k-1-i) B u[i], u[i] = sum_{j<=i} du[j]
    Phi = np.zeros((n, n))
    powers = [np.eye(3)]
    for _ in range(n):
        powers.append(A @ powers[-1])
    for k in range(1, n):
        for i in range(k):
            Phi[k, i] = C @ powers[k - 1 - i] @ B
    S = np.tril(np.ones((n, n)))  # u = S du
    M = Phi @ S
    p0 = np.array([C @ powers[k] @ np.array([p_ref[0], 0, 0]) for k in range(n)])
    lhs = np.vstack([np.sqrt(qe) * M, np.sqrt(r) * np.eye(n)])
    rhs = np.concatenate([np.sqrt(qe) * (p_ref - p0), np.zeros(n)])
    du = np.linalg.lstsq(lhs, rhs, rcond=None)[0]
    return p0 + M @ du


def test_matches_the_batch_optimum_of_the_same_cost() -> None:
    dt, zc, qe, r = 0.02, 0.6, 1.0, 1e-5
    p_ref = _steps_reference(dt, 9.0, 3.0)
    g = preview_gains(dt, zc, 3.0, qe, r)
    _, p = preview_track(g, p_ref)
    best = _batch_optimum(dt, zc, p_ref, qe, r)
    # the preview controller is the infinite-horizon optimum seeing 3 s ahead; over the
    # walk (not the last preview horizon, where the batch problem knows the end) they agree
    k = int(6.0 / dt)
    assert np.max(np.abs(p[:k, 0] - best[:k])) < 1e-4
    assert np.max(np.abs(p[:k, 0] - p_ref[:k])) > 1e-3  # (and neither simply copies p_ref)


def test_bad_arguments_are_one_line_errors() -> None:
    with pytest.raises(InputError, match="dt"):
        preview_gains(0.0, 0.8, 1.6)
