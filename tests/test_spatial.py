"""Property tests of ``robotsim.spatial`` over random inputs and batch shapes.

Reference facts: a rotation matrix is orthonormal with det +1; ``q`` and ``-q`` are the
same rotation; ``exp([w]x)`` (Rodrigues) inverts the rotation vector ``rot_log``. The
tolerance 1e-9 is ~1e6 double-precision epsilons: a handful of 3x3 products and a
square root, far above round-off, far below any real error.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from robotsim import spatial as sp

TOL = 1e-9
# few examples each (the suite stays fast); no deadline (a loaded machine is not a bug)
PROPERTY = settings(max_examples=40, deadline=None)
finite = st.floats(-10.0, 10.0, allow_nan=False, allow_infinity=False)
batch_shapes = array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3)


@st.composite
def quaternions(draw, shape=()):
    """Unit quaternions (w, x, y, z), shape ``(*shape, 4)``, away from zero norm."""
    q = draw(arrays(np.float64, (*shape, 4), elements=st.floats(-1, 1)))
    n = np.linalg.norm(q, axis=-1, keepdims=True)
    q = np.where(n > 0.1, q, np.array([1.0, 0.0, 0.0, 0.0]))
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


@st.composite
def transforms(draw, shape=()):
    q = draw(quaternions(shape))
    p = draw(arrays(np.float64, (*shape, 3), elements=finite))
    return sp.make_T(sp.quat_to_R(q), p)


def is_rotation(R: np.ndarray) -> bool:
    eye = np.broadcast_to(np.eye(3), R.shape)
    return bool(np.allclose(R @ np.swapaxes(R, -1, -2), eye, atol=TOL)
                and np.allclose(np.linalg.det(R), 1.0, atol=TOL))  # fmt: skip


@PROPERTY
@given(batch_shapes.flatmap(lambda s: st.tuples(st.just(s), transforms(s))))
def test_inverse_composes_to_identity(case) -> None:
    shape, T = case
    Ti = sp.inv_T(T)
    assert Ti.shape == (*shape, 4, 4)
    eye = np.broadcast_to(np.eye(4), T.shape)
    assert np.allclose(T @ Ti, eye, atol=TOL)
    assert np.allclose(Ti @ T, eye, atol=TOL)
    assert np.allclose(sp.inv_T(Ti), T, atol=TOL)


@PROPERTY
@given(transforms(), transforms(), arrays(np.float64, (5, 3), elements=finite))
def test_composition_acts_like_applying_in_turn(A, B, pts) -> None:
    """``(A @ B)`` applied to points = ``A`` applied to ``B`` applied to them, and the
    inverse of a product is the product of inverses in reverse order."""
    assert np.allclose(sp.transform_points(A @ B, pts),
                       sp.transform_points(A, sp.transform_points(B, pts)), atol=1e-8)  # fmt: skip
    assert np.allclose(sp.inv_T(A @ B), sp.inv_T(B) @ sp.inv_T(A), atol=TOL)
    assert is_rotation((A @ B)[:3, :3])


@PROPERTY
@given(batch_shapes.flatmap(lambda s: st.tuples(st.just(s), quaternions(s))))
def test_quaternion_round_trip(case) -> None:
    shape, q = case
    R = sp.quat_to_R(q)
    assert R.shape == (*shape, 3, 3)
    assert is_rotation(R)
    q2 = sp.R_to_quat(R)
    assert q2.shape == (*shape, 4)
    assert np.all(q2[..., 0] >= 0)
    # same rotation: q2 = +-q
    same = np.minimum(np.linalg.norm(q2 - q, axis=-1), np.linalg.norm(q2 + q, axis=-1))
    assert np.all(same < 1e-8)
    assert np.allclose(sp.quat_to_R(-q), R, atol=TOL)


@PROPERTY
@given(quaternions(), quaternions())
def test_quaternion_product_is_matrix_product(q1, q2) -> None:
    """Hamilton product (w, x, y, z) written out here, against ``R1 @ R2``."""
    w1, v1 = q1[0], q1[1:]
    w2, v2 = q2[0], q2[1:]
    q12 = np.concatenate([[w1 * w2 - v1 @ v2], w1 * v2 + w2 * v1 + np.cross(v1, v2)])
    assert np.allclose(sp.quat_to_R(q12), sp.quat_to_R(q1) @ sp.quat_to_R(q2), atol=TOL)


@PROPERTY
@given(arrays(np.float64, 3, elements=st.floats(-3.0, 3.0)))
def test_rpy_round_trip_away_from_the_singularity(rpy) -> None:
    rpy = rpy.copy()
    rpy[1] = np.clip(rpy[1], -1.5, 1.5)  # |pitch| < pi/2
    R = sp.rpy_to_R(rpy)
    assert is_rotation(R)
    assert np.allclose(sp.R_to_rpy(R), rpy, atol=1e-8)
    assert np.allclose(R, sp.rot_z(rpy[2]) @ sp.rot_y(rpy[1]) @ sp.rot_x(rpy[0]), atol=TOL)


@PROPERTY
@given(st.floats(-3.0, 3.0))
def test_rpy_at_the_pitch_singularity_is_the_same_rotation(yaw) -> None:
    R = sp.rpy_to_R([0.4, np.pi / 2, yaw])
    rpy = sp.R_to_rpy(R)
    assert rpy[0] == 0.0
    assert np.allclose(sp.rpy_to_R(rpy), R, atol=1e-8)


@PROPERTY
@given(arrays(np.float64, 3, elements=st.floats(-1, 1)), st.floats(0.0, 3.1))
def test_rot_log_inverts_axis_angle(axis, angle) -> None:
    if np.linalg.norm(axis) < 0.1:
        axis = np.array([0.0, 0.0, 1.0])
    k = axis / np.linalg.norm(axis)
    w = sp.rot_log(sp.axis_angle_to_R(axis, angle))
    assert np.allclose(w, k * angle, atol=1e-8)


@PROPERTY
@given(arrays(np.float64, 3, elements=finite), arrays(np.float64, 3, elements=finite))
def test_skew_is_the_cross_product(a, b) -> None:
    assert np.allclose(sp.skew(a) @ b, np.cross(a, b), atol=1e-9)
    assert np.allclose(sp.skew(a), -sp.skew(a).T)


@pytest.mark.parametrize("shape", [(), (4,), (2, 3)])
def test_batch_shapes_are_kept(shape) -> None:
    rng = np.random.default_rng(0)
    a = rng.uniform(-3, 3, shape)
    for f in (sp.rot_x, sp.rot_y, sp.rot_z):
        assert f(a).shape == (*shape, 3, 3)
    v = rng.normal(size=(*shape, 3))
    assert sp.skew(v).shape == (*shape, 3, 3)
    assert sp.rpy_to_R(v).shape == (*shape, 3, 3)
    assert sp.R_to_rpy(sp.rpy_to_R(v)).shape == (*shape, 3)
    assert sp.trans(v).shape == (*shape, 4, 4)
    assert sp.axis_angle_to_R(v, a).shape == (*shape, 3, 3)
    assert sp.rot_log(sp.rot_z(a)).shape == (*shape, 3)
    T = sp.make_T(sp.rot_x(a), v)
    assert T.shape == (*shape, 4, 4)
    pts = rng.normal(size=(*shape, 5, 3))
    assert sp.transform_points(T, pts).shape == (*shape, 5, 3)
    # batched = one at a time
    flat_T, flat_p = T.reshape(-1, 4, 4), pts.reshape(-1, 5, 3)
    one_by_one = np.stack([sp.transform_points(t, p) for t, p in zip(flat_T, flat_p)])
    assert np.allclose(sp.transform_points(T, pts).reshape(-1, 5, 3), one_by_one)


def test_elementary_rotations_match_their_definitions() -> None:
    """Rz(90 deg) maps x to y; Rx(90 deg) maps y to z; Ry(90 deg) maps z to x."""
    c = np.pi / 2
    assert np.allclose(sp.rot_z(c) @ [1, 0, 0], [0, 1, 0], atol=1e-15)
    assert np.allclose(sp.rot_x(c) @ [0, 1, 0], [0, 0, 1], atol=1e-15)
    assert np.allclose(sp.rot_y(c) @ [0, 0, 1], [1, 0, 0], atol=1e-15)
    assert np.allclose(sp.trans([1, 2, 3]) @ [0, 0, 0, 1], [1, 2, 3, 1])
