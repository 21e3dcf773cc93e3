"""Distances, rays and surface samples on unions of convex pieces, against the closed
forms of a box and of two overlapping boxes."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from robotsim.objects.convex import hull_piece
from robotsim.objects.query import (
    PieceSet,
    ray_exit,
    sample_surface,
    signed_distance,
    surface_contact,
)


def _piece(size, at=(0, 0, 0)):  # type: ignore[no-untyped-def]
    m = trimesh.creation.box(extents=size)
    m.apply_translation(at)
    return hull_piece(np.asarray(m.vertices))


def _box_sdf(p: np.ndarray, half: np.ndarray) -> np.ndarray:
    q = np.abs(p) - half
    return np.linalg.norm(np.maximum(q, 0), axis=-1) + np.minimum(q.max(axis=-1), 0)


def test_box_distance_inside_and_over_faces_is_exact() -> None:
    half = np.array([0.05, 0.03, 0.02])
    ps = PieceSet.of([_piece(2 * half)])
    rng = np.random.default_rng(1)
    inside = rng.uniform(-half, half, size=(300, 3))
    d, _ = signed_distance(ps, inside)
    np.testing.assert_allclose(d, _box_sdf(inside, half), atol=1e-12)
    over = np.column_stack(
        [rng.uniform(-0.05, 0.05, 50), rng.uniform(-0.03, 0.03, 50), 0.02 + rng.uniform(0, 0.1, 50)]
    )
    d, n = signed_distance(ps, over)
    np.testing.assert_allclose(d, over[:, 2] - 0.02, atol=1e-12)
    np.testing.assert_allclose(n, np.tile([0, 0, 1.0], (50, 1)), atol=1e-12)
    corner = np.array([[0.06, 0.04, 0.03]])  # off a corner: a lower bound
    d, _ = signed_distance(ps, corner)
    assert 0 < d[0] <= _box_sdf(corner, half)[0]


def test_rays_cross_the_solid_and_hop_between_pieces() -> None:
    ps = PieceSet.of([_piece((0.1, 0.03, 0.03)), _piece((0.03, 0.03, 0.08), (0.035, 0, 0.025))])
    o = np.array([[0.0, 0.0, -0.015], [0.035, 0.0, -0.015], [0.0, 0.0, 0.2], [-0.05, 0, 0]])
    d = np.array([[0, 0, 1.0], [0, 0, 1.0], [0, 0, -1.0], [1.0, 0, 0]])
    t = ray_exit(ps, o, d)
    assert t[0] == pytest.approx(0.03)  # through the bar only
    assert t[1] == pytest.approx(0.08)  # bar, then up the post
    assert np.isnan(t[2])  # starts outside
    assert t[3] == pytest.approx(0.1)


def test_surface_samples_lie_on_the_outer_surface() -> None:
    pieces = [_piece((0.1, 0.03, 0.03)), _piece((0.03, 0.03, 0.08), (0.035, 0, 0.025))]
    ps = PieceSet.of(pieces)
    pts, nrm = sample_surface(pieces, 2000, np.random.default_rng(3))
    assert len(pts) > 1500
    d, _ = signed_distance(ps, pts)
    np.testing.assert_allclose(d, 0.0, atol=1e-7)
    np.testing.assert_allclose(np.linalg.norm(nrm, axis=1), 1.0)
    d_out, _ = signed_distance(ps, pts + 1e-4 * nrm)  # normals point out of the union
    assert np.all(d_out > 0)


def test_surface_contact_is_the_nearest_point_at_edges_and_corners() -> None:
    half = np.array([0.05, 0.05, 0.01])
    box = _piece(2 * half)
    ps = PieceSet.of([box])
    p = np.array([[0.06, 0.0, 0.02], [0.06, 0.07, 0.02], [0.0, 0.0, 0.03], [0.06, 0.0, 0.0]])
    near, n, d = surface_contact([box], ps, p)
    np.testing.assert_allclose(d, _box_sdf(p, half), atol=1e-12)  # exact everywhere outside
    ref = np.clip(p, -half, half)  # the box's nearest point, closed form
    np.testing.assert_allclose(near, ref, atol=1e-12)
    np.testing.assert_allclose(n, (p - ref) / np.linalg.norm(p - ref, axis=1, keepdims=True))
    # over the edge the plane test gives one face's normal; the true one is tilted 45 deg
    _, n_plane = signed_distance(ps, p[:1])
    assert abs(float(n_plane[0] @ n[0])) == pytest.approx(np.cos(np.pi / 4))
