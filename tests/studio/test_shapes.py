from pathlib import Path

import numpy as np
import pytest
import trimesh

from robotsim.errors import ModelFileError
from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Mesh, Sphere
from robotsim.spatial import make_T, rot_z
from robotsim.studio.shapes import geometry_mesh, mesh_bounds

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures"


@pytest.mark.parametrize(
    ("geometry", "half_extent"),
    [
        (Box((0.2, 0.4, 0.6)), (0.1, 0.2, 0.3)),
        (Sphere(0.3), (0.3, 0.3, 0.3)),
        (Cylinder(0.1, 0.5), (0.1, 0.1, 0.25)),
        (Capsule(0.1, 0.5), (0.1, 0.1, 0.35)),
        (Ellipsoid((0.25, 0.12, 0.125)), (0.25, 0.12, 0.125)),
    ],
)
def test_primitive_meshes_have_the_shape_extent(geometry, half_extent):
    m = geometry_mesh(geometry)
    b = mesh_bounds(m, np.eye(4))
    # Tessellated round shapes lie inside their true extent, within 1 %.
    np.testing.assert_allclose(b[1], half_extent, rtol=0.01)
    np.testing.assert_allclose(b[0], -np.asarray(half_extent), rtol=0.01)
    # closed, each edge shared by two faces wound alike, pointing out (trimesh checks)
    t = trimesh.Trimesh(m.vertices, m.faces, process=False)
    assert t.is_watertight and t.is_winding_consistent and t.volume > 0


@pytest.mark.parametrize(
    ("geometry", "reference"),
    [
        (Box((0.2, 0.4, 0.6)), lambda: trimesh.creation.box(extents=(0.2, 0.4, 0.6))),
        (Sphere(0.3), lambda: trimesh.creation.icosphere(subdivisions=3, radius=0.3)),
        (Cylinder(0.1, 0.5), lambda: trimesh.creation.cylinder(0.1, 0.5, sections=32)),
        (Capsule(0.1, 0.5), lambda: trimesh.creation.capsule(0.5, 0.1, count=(32, 32))),
    ],
)
def test_primitives_match_trimeshs_tessellation(geometry, reference):
    """The studio tessellates primitives itself (no trimesh import at its start): the
    same detail and volume as trimesh's ``creation`` meshes it drew before."""
    m, ref = geometry_mesh(geometry), reference()
    assert (len(m.vertices), len(m.faces)) == (len(ref.vertices), len(ref.faces))
    t = trimesh.Trimesh(m.vertices, m.faces, process=False)
    assert t.volume == pytest.approx(ref.volume, rel=1e-9)
    np.testing.assert_allclose(m.bounds, ref.bounds, atol=1e-12)


def test_bounds_follow_the_placement():
    m = geometry_mesh(Box((2.0, 1.0, 1.0)))
    b = mesh_bounds(m, make_T(rot_z(np.pi / 2), [1.0, 0.0, 0.0]))
    np.testing.assert_allclose(b, [[0.5, -1.0, -0.5], [1.5, 1.0, 0.5]], atol=1e-12)


def test_mesh_file_with_scale():
    path = FIXTURES / "meshes" / "OBJ" / "box.obj"
    raw = geometry_mesh(Mesh(path))
    scaled = geometry_mesh(Mesh(path, scale=(2.0, 2.0, 2.0)))
    np.testing.assert_allclose(scaled.extents, 2 * raw.extents)
    assert geometry_mesh(Mesh(path)) is raw  # cached


def test_missing_mesh_file_names_the_path(tmp_path):
    with pytest.raises(ModelFileError, match=r"nothing\.stl"):
        geometry_mesh(Mesh(tmp_path / "nothing.stl"))


def test_primitives_are_tessellated_once_per_size():
    a = geometry_mesh(Capsule(0.05, 0.3))
    assert geometry_mesh(Capsule(0.05, 0.3)) is a  # an equal size: the cached mesh
    b = geometry_mesh(Capsule(0.05, 0.31))
    assert b is not a
    np.testing.assert_allclose(b.extents[2] - a.extents[2], 0.01, atol=1e-12)
    e = geometry_mesh(Ellipsoid((0.3, 0.2, 0.1)))
    assert geometry_mesh(Ellipsoid((0.3, 0.2, 0.1))) is e
    np.testing.assert_allclose(e.extents, [0.6, 0.4, 0.2], rtol=0.01)
