"""Mesh files: the legacy .3ds/.x fixtures (assimp) and modern formats (trimesh), their
descriptions, axes, errors, and use as robot parts in URDF and MuJoCo."""

from __future__ import annotations

import json
from pathlib import Path

import mujoco
import numpy as np
import pytest
import trimesh

from robotsim.cli import main
from robotsim.errors import ModelFileError
from robotsim.model import Mesh, RobotBuilder, Shape
from robotsim.model.meshes import describe_mesh, load_mesh
from robotsim.model.mjcf import to_mjspec
from robotsim.model.urdf import parse_urdf_string, to_urdf_string

MESHES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "meshes"

# (file, vertices, faces, extents) -- counts after assimp joins identical vertices
# (a cube keeps 24 corners: each face has its own normals/UVs).
FIXTURE_MESHES = [
    ("3DS/RotatingCube.3DS", 24, 12, None),
    ("3DS/test1.3ds", 216, 108, None),
    ("X/test_cube_text.x", 24, 12, (2.0, 2.0, 2.0)),
    ("X/test_cube_binary.x", 24, 12, (2.0, 2.0, 2.0)),
    ("OBJ/box.obj", 8, 12, (1.0, 1.0, 1.0)),
    ("STL/triangle.stl", 3, 1, (2.0, 2.0, 0.0)),
]


@pytest.mark.parametrize(("rel", "nv", "nf", "extents"), FIXTURE_MESHES,
                         ids=[r[0] for r in FIXTURE_MESHES])  # fmt: skip
def test_fixture_meshes_load_with_plausible_counts(rel: str, nv: int, nf: int, extents) -> None:
    mesh = load_mesh(MESHES / rel)
    assert isinstance(mesh, trimesh.Trimesh)
    assert (len(mesh.vertices), len(mesh.faces)) == (nv, nf)
    assert np.all(np.isfinite(mesh.vertices))
    assert mesh.faces.min() >= 0 and mesh.faces.max() < nv
    if extents is not None:
        np.testing.assert_allclose(mesh.extents, extents, atol=1e-5)
    assert np.all(mesh.area_faces > 0)


def test_text_and_binary_x_agree_and_cubes_are_closed() -> None:
    a = load_mesh(MESHES / "X" / "test_cube_text.x")
    b = load_mesh(MESHES / "X" / "test_cube_binary.x")
    np.testing.assert_allclose(a.vertices, b.vertices, atol=1e-6)
    np.testing.assert_array_equal(a.faces, b.faces)
    info = describe_mesh(MESHES / "X" / "test_cube_text.x")
    assert info["watertight"] and info["volume"] == pytest.approx(8.0, rel=1e-5)
    cube = describe_mesh(MESHES / "3DS" / "RotatingCube.3DS")
    assert cube["watertight"] and cube["volume"] > 0


def test_directx_y_up_becomes_z_up(tmp_path: Path) -> None:
    """A triangle 5 units 'up' (+y) in a DirectX file lands 5 units up (+z) here."""
    path = tmp_path / "tri.x"
    path.write_text(
        "xof 0303txt 0032\nMesh tri {\n 3;\n 0.0;5.0;0.0;,\n 1.0;5.0;0.0;,\n 0.0;5.0;2.0;;\n"
        " 1;\n 3;0,1,2;;\n}\n"
    )
    v = load_mesh(path).vertices
    np.testing.assert_allclose(sorted(map(tuple, v)), [(0, 0, 5), (0, 2, 5), (1, 0, 5)])


@pytest.mark.parametrize("ext", ["glb", "ply", "dae", "off"])
def test_modern_formats_through_trimesh(ext: str, tmp_path: Path) -> None:
    box = trimesh.creation.box((0.1, 0.2, 0.3))
    path = tmp_path / f"box.{ext}"
    data = box.export(file_type=ext)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    mesh = load_mesh(path)
    assert len(mesh.faces) == 12
    np.testing.assert_allclose(mesh.extents, [0.1, 0.2, 0.3], atol=1e-7)
    info = describe_mesh(path)
    assert info["format"] == ext and info["reader"] == "trimesh" and info["faces"] == 12


def test_describe_mesh_fields() -> None:
    info = describe_mesh(MESHES / "OBJ" / "box.obj")
    assert info["vertices"] == 8 and info["faces"] == 12
    assert info["bounds_min"] == [-0.5, -0.5, -0.5] and info["bounds_max"] == [0.5, 0.5, 0.5]
    assert info["extents"] == [1.0, 1.0, 1.0] and info["format"] == "obj"
    assert "metres" in info["units"]


def test_inspect_mesh_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["inspect", str(MESHES / "3DS" / "test1.3ds"), "--json"])
    info = json.loads(capsys.readouterr().out)
    assert code == 0 and info["vertices"] == 216 and info["faces"] == 108
    assert info["reader"] == "assimp" and len(info["bounds_min"]) == 3


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("gone.3ds", None, "no such file"),
        ("junk.3ds", b"not a 3ds file at all" * 4, "cannot read mesh"),
        ("junk.x", b"xof 0303txt 0032\nMesh {\n 3;\n", "cannot read mesh"),
        ("empty.stl", b"", "file holds no triangles"),
        ("model.fbx2", b"x", "unknown mesh format '.fbx2'"),
    ],
)
def test_bad_mesh_files(name: str, content: bytes | None, expected: str, tmp_path: Path) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ModelFileError) as info:
        load_mesh(path)
    assert str(info.value).startswith(str(path)) and expected in str(info.value)


def test_legacy_meshes_as_robot_parts_in_urdf_and_mujoco() -> None:
    b = RobotBuilder("legacy")
    x_mesh = Shape(Mesh(MESHES / "X" / "test_cube_binary.x", (0.05, 0.05, 0.05)))
    ds_mesh = Shape(Mesh(MESHES / "3DS" / "RotatingCube.3DS", (0.001, 0.001, 0.001)))
    b.link("base", visuals=[x_mesh])
    b.link("arm", visuals=[ds_mesh])
    b.joint("j", "revolute", "base", "arm", lower=-1, upper=1)
    model = b.build()
    again = parse_urdf_string(to_urdf_string(model))
    got = again.link("arm").visuals[0].geometry
    assert isinstance(got, Mesh) and got.scale == ds_mesh.geometry.scale
    assert Path(got.path).resolve() == Path(ds_mesh.geometry.path).resolve()  # links resolved
    mm = to_mjspec(model).compile()  # .x/.3ds are inlined as vertex/face lists
    assert mm.nmesh == 2
    assert mm.mesh_vertnum.sum() > 0
    d = mujoco.MjData(mm)
    mujoco.mj_forward(mm, d)
    # the x cube (2 units, scale 0.05) is 0.1 m wide in MuJoCo
    g = mm.geom("base/visual0").id
    np.testing.assert_allclose(mm.geom_aabb[g][3:], [0.05, 0.05, 0.05], atol=1e-6)
