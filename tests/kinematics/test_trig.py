"""The kernels' sine/cosine against libm (``math.sin``/``math.cos``): within one unit
in the last place everywhere, libm itself beyond the reduction limit and for NaN/inf,
and a vectorised loop equal to the scalar function bit for bit."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit

from robotsim.kinematics.kernels import REDUCE_LIMIT, sincos, sincos_fix, sincos_poly


@njit(cache=False)
def _scalar(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = np.empty_like(x)
    c = np.empty_like(x)
    for i in range(x.shape[0]):
        s[i], c[i] = sincos(x[i])
    return s, c


@njit(cache=False)
def _vector(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = np.empty_like(x)
    c = np.empty_like(x)
    for i in range(x.shape[0]):
        s[i], c[i] = sincos_poly(x[i])
    sincos_fix(x, s, c, x.shape[0])
    return s, c


def _angles() -> np.ndarray:
    rng = np.random.default_rng(3)
    k = np.arange(-40, 41) * (math.pi / 4)  # multiples of pi/4 and their neighbours
    special = np.concatenate([k, np.nextafter(k, np.inf), np.nextafter(k, -np.inf)])
    return np.concatenate(
        [
            rng.uniform(-4.0, 4.0, 100_000),
            rng.uniform(-100.0, 100.0, 50_000),
            rng.uniform(-REDUCE_LIMIT, REDUCE_LIMIT, 50_000),
            np.geomspace(1e-300, 1.0, 2_000) * rng.choice([-1.0, 1.0], 2_000),
            special,
            [0.0, -0.0, 5e-324, REDUCE_LIMIT, -REDUCE_LIMIT],
        ]
    )


def test_within_one_ulp_of_libm() -> None:
    x = _angles()
    s, c = _scalar(x)
    s_ref = np.array([math.sin(v) for v in x])
    c_ref = np.array([math.cos(v) for v in x])
    # one unit in the last place of the larger of the two values
    ulp_s = np.spacing(np.maximum(np.abs(s), np.abs(s_ref)))
    ulp_c = np.spacing(np.maximum(np.abs(c), np.abs(c_ref)))
    assert np.all(np.abs(s - s_ref) <= ulp_s)
    assert np.all(np.abs(c - c_ref) <= ulp_c)
    assert np.max(np.abs(s - s_ref)) <= 1.12e-16 and np.max(np.abs(c - c_ref)) <= 1.12e-16
    assert np.mean(s != s_ref) < 0.1  # most angles agree with libm exactly


def test_exact_values_and_signs() -> None:
    s, c = _scalar(np.array([0.0, -0.0]))
    assert s[0] == 0.0 and c[0] == 1.0
    assert math.copysign(1.0, s[1]) == -1.0 and c[1] == 1.0


@pytest.mark.parametrize("x", [REDUCE_LIMIT * 1.0001, -1e10, 1e300, math.inf, -math.inf, math.nan])
def test_beyond_the_limit_is_libm(x: float) -> None:
    s, c = _scalar(np.array([x]))
    vs, vc = _vector(np.array([x]))
    if math.isfinite(x):
        assert s[0] == math.sin(x) and c[0] == math.cos(x)
    else:
        assert math.isnan(s[0]) and math.isnan(c[0])
    assert np.array_equal(s, vs, equal_nan=True) and np.array_equal(c, vc, equal_nan=True)


def test_vectorised_loop_equals_scalar_bit_for_bit() -> None:
    x = np.concatenate([_angles(), [1e10, math.inf, math.nan, -3e6]])
    s, c = _scalar(x)
    vs, vc = _vector(x)
    assert np.array_equal(s, vs, equal_nan=True) and np.array_equal(c, vc, equal_nan=True)
