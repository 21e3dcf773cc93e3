"""Convex pieces: hulls with outward planes, the convexity test saying yes and no, a
V-HACD-style file keeping its parts, a torus decomposed once and then read from the
cache."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import trimesh

from robotsim.errors import InputError
from robotsim.objects.convex import convex_pieces, hull_piece, is_convex, split_components


def _box(size, at=(0, 0, 0)) -> trimesh.Trimesh:  # type: ignore[no-untyped-def]
    m = trimesh.creation.box(extents=size)
    m.apply_translation(at)
    return m


def test_hull_planes_contain_the_points_and_face_out() -> None:
    rng = np.random.default_rng(0)
    pts = rng.normal(size=(200, 3))
    h = hull_piece(pts)
    assert np.all(pts @ h.planes[:, :3].T - h.planes[:, 3] <= 1e-9)
    np.testing.assert_allclose(np.linalg.norm(h.planes[:, :3], axis=1), 1.0)
    assert h.volume == pytest.approx(trimesh.convex.convex_hull(pts).volume, rel=1e-9)
    c = h.vertices.mean(axis=0)
    v, f = h.vertices, h.faces
    outward = np.einsum(
        "ij,ij->i", np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]]), v[f[:, 0]] - c
    )
    assert np.all(outward > 0)


def test_flat_points_have_no_hull() -> None:
    with pytest.raises(InputError, match="no volume"):
        hull_piece(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0.0]]))


def test_convexity_says_yes_and_no() -> None:
    box = _box((0.1, 0.05, 0.02))
    assert is_convex(np.asarray(box.vertices), np.asarray(box.faces))
    sphere = trimesh.creation.icosphere(subdivisions=2, radius=0.05)
    assert is_convex(np.asarray(sphere.vertices), np.asarray(sphere.faces))
    torus = trimesh.creation.torus(0.04, 0.012)
    assert not is_convex(np.asarray(torus.vertices), np.asarray(torus.faces))
    ell = (
        _box((0.1, 0.03, 0.03)).union(_box((0.03, 0.03, 0.08), (0.035, 0, 0.055)), engine=None)
        if False
        else None
    )
    v, f = _l_shape()
    assert ell is None and not is_convex(v, f)


def _l_shape() -> tuple[np.ndarray, np.ndarray]:
    """One closed L-shaped prism (a concave outline extruded), 0.1 x 0.08 x 0.03 m."""
    outline = np.array([[0, 0], [0.1, 0], [0.1, 0.03], [0.03, 0.03], [0.03, 0.08], [0, 0.08]])
    m = trimesh.creation.extrude_triangulation(
        outline, np.array([[0, 1, 2], [0, 2, 3], [0, 3, 5], [3, 4, 5]]), height=0.03
    )
    return np.asarray(m.vertices), np.asarray(m.faces)


def test_a_file_of_convex_parts_keeps_them(tmp_path: Path) -> None:
    parts = trimesh.util.concatenate(
        [_box((0.1, 0.03, 0.03)), _box((0.03, 0.03, 0.08), (0.035, 0, 0.055))]
    )
    assert len(split_components(np.asarray(parts.vertices), np.asarray(parts.faces))) == 2
    pieces, how = convex_pieces(np.asarray(parts.vertices), np.asarray(parts.faces), cache=tmp_path)
    assert how == "pieces" and len(pieces) == 2
    assert sorted(round(p.volume, 9) for p in pieces) == pytest.approx(
        [0.03**2 * 0.08, 0.03**2 * 0.1]
    )
    assert all(p.file is not None and p.file.is_file() for p in pieces)


def test_a_convex_mesh_collides_as_its_hull(tmp_path: Path) -> None:
    s = trimesh.creation.icosphere(subdivisions=2, radius=0.04)
    pieces, how = convex_pieces(np.asarray(s.vertices), np.asarray(s.faces), cache=tmp_path)
    assert how == "hull" and len(pieces) == 1
    assert pieces[0].volume == pytest.approx(s.volume, rel=1e-9)


def test_concave_mesh_is_decomposed_once_then_cached(tmp_path: Path) -> None:
    v, f = _l_shape()
    pieces, how = convex_pieces(v, f, cache=tmp_path)
    assert how == "coacd" and len(pieces) >= 2
    # the pieces cover the L (within 5 % of its volume)
    assert sum(p.volume for p in pieces) == pytest.approx(
        0.1 * 0.03 * 0.03 + 0.03 * 0.05 * 0.03, rel=0.05
    )
    files = sorted(p.file for p in pieces)  # type: ignore[type-var]
    again, how2 = convex_pieces(v, f, cache=tmp_path)
    assert how2 == "coacd" and sorted(p.file for p in again) == files  # type: ignore[type-var]
    for a, b in zip(
        sorted(pieces, key=lambda p: str(p.file)), sorted(again, key=lambda p: str(p.file))
    ):
        np.testing.assert_allclose(a.planes, b.planes, atol=1e-8)


def test_forced_hull_of_a_concave_mesh(tmp_path: Path) -> None:
    v, f = _l_shape()
    pieces, how = convex_pieces(v, f, method="hull", cache=tmp_path)
    assert how == "hull" and len(pieces) == 1


def test_unknown_method_is_named(tmp_path: Path) -> None:
    v, f = _l_shape()
    with pytest.raises(InputError, match="decomposition 'voxels': valid: auto, vhacd, coacd, hull"):
        convex_pieces(v, f, method="voxels", cache=tmp_path)


def test_vhacd_on_request(tmp_path: Path) -> None:
    v, f = _l_shape()
    pieces, how = convex_pieces(v, f, method="vhacd", cache=tmp_path)
    assert how == "vhacd" and len(pieces) >= 2
    assert sum(p.volume for p in pieces) == pytest.approx(
        0.1 * 0.03 * 0.03 + 0.03 * 0.05 * 0.03, rel=0.1
    )


def _capped_at_t_junctions(a: float) -> tuple[np.ndarray, np.ndarray]:
    """A cube of side ``a`` whose top cap is a fan around its centre through the
    midpoints of its edges: the cap shares corners with the sides but no edge (T
    junctions, as modelling tools write bevelled parts)."""
    h = a / 2
    c = [(-h, -h), (h, -h), (h, h), (-h, h)]
    v = [(x, y, -h) for x, y in c] + [(x, y, h) for x, y in c]
    mids = [
        ((c[i][0] + c[(i + 1) % 4][0]) / 2, (c[i][1] + c[(i + 1) % 4][1]) / 2) for i in range(4)
    ]
    v += [(x, y, h) for x, y in mids]
    v.append((0.0, 0.0, h))  # 12: the cap's centre
    f = [(0, 2, 1), (0, 3, 2)]  # bottom, outward -z
    for i in range(4):
        j = (i + 1) % 4
        f += [(i, j, 4 + j), (i, 4 + j, 4 + i)]  # side i: the full top edge 4+i .. 4+j
        f += [(12, 4 + i, 8 + i), (12, 8 + i, 4 + j)]  # cap: through the edge's midpoint
    return np.array(v, float), np.array(f, np.int64)


def test_a_piece_joined_at_t_junctions_stays_one(tmp_path: Path) -> None:
    import trimesh

    v, f = _capped_at_t_junctions(0.04)
    by_edges = trimesh.Trimesh(v, f, process=False).split(only_watertight=False)
    assert len(by_edges) == 2  # what an edge-connected split makes of it
    comps = split_components(v, f)
    assert len(comps) == 1 and len(comps[0][0]) == 13
    pieces, how = convex_pieces(v, f, cache=tmp_path)
    assert how == "hull" and len(pieces) == 1
    assert pieces[0].volume == pytest.approx(0.04**3, rel=1e-9)
