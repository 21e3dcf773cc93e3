"""Concave polygon faces in OBJ and COLLADA files: ear clipping keeps each polygon's
area and winding (a fan from the first corner does not), and MuJoCo gets the same mesh."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from robotsim.cli import main
from robotsim.model import Mesh, RobotBuilder, Shape
from robotsim.model.meshes import load_mesh
from robotsim.model.mjcf import to_mjcf_string, to_mjspec
from robotsim.model.polygon import polygon_area, triangulate_polygon

# An L (6 corners), an arrow (7), a comb (12) and a star (10): all concave.
L_SHAPE = [(0, 0), (3, 0), (3, 1), (1, 1), (1, 2), (0, 2)]
ARROW = [(0, 0), (2, 1), (4, 0), (4, 3), (2, 2), (0, 3), (1, 1.5)]
COMB = [(0, 0), (5, 0), (5, 3), (4, 3), (4, 1), (3, 1), (3, 3), (2, 3), (2, 1), (1, 1),
        (1, 3), (0, 3)]  # fmt: skip
STAR = [
    (np.cos(a) * r, np.sin(a) * r)
    for a, r in zip(np.linspace(0, 2 * np.pi, 10, endpoint=False), [2, 0.7] * 5)
]
POLYGONS = {"L": L_SHAPE, "arrow": ARROW, "comb": COMB, "star": STAR}


def shoelace(xy: np.ndarray) -> float:
    x, y = xy[:, 0], xy[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def tri_area(p: np.ndarray, f: np.ndarray) -> np.ndarray:
    return 0.5 * np.linalg.norm(np.cross(p[f[:, 1]] - p[f[:, 0]], p[f[:, 2]] - p[f[:, 0]]), axis=1)


def tilted(xy, seed: int = 0) -> np.ndarray:
    """The 2D polygon placed in a random plane in 3D (rotation + offset)."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    Q *= np.sign(np.linalg.det(Q))
    p = np.column_stack([np.asarray(xy, float), np.zeros(len(xy))])
    return p @ Q.T + rng.normal(size=3)


@pytest.mark.parametrize("name", POLYGONS)
def test_ear_clipping_keeps_area_and_winding(name: str) -> None:
    xy = np.asarray(POLYGONS[name], float)
    for seed, order in ((0, 1), (1, -1)):  # both windings, random planes
        p = tilted(xy[::order], seed)
        f = triangulate_polygon(p)
        assert f.shape == (len(p) - 2, 3)
        area = abs(shoelace(xy))
        assert tri_area(p, f).sum() == pytest.approx(area, rel=1e-9)
        assert polygon_area(p) == pytest.approx(area, rel=1e-12)
        # every triangle's normal points the polygon's way (no flipped triangles)
        n_poly = np.cross(p[1] - p[0], p[2] - p[0]) if name == "L" else None
        normals = np.cross(p[f[:, 1]] - p[f[:, 0]], p[f[:, 2]] - p[f[:, 0]])
        ref = normals[np.argmax(np.linalg.norm(normals, axis=1))]
        assert np.all(normals @ ref >= -1e-9)
        if n_poly is not None:
            assert normals[0] @ n_poly > 0
    # a fan is wrong for these (proves the test can fail)
    fan = np.array([[0, k, k + 1] for k in range(1, len(xy) - 1)])
    p = tilted(xy)
    signed = np.cross(p[fan[:, 1]] - p[fan[:, 0]], p[fan[:, 2]] - p[fan[:, 0]])
    if name in ("arrow", "comb", "star"):
        assert np.linalg.norm(signed, axis=1).sum() / 2 > abs(shoelace(xy)) * (1 + 1e-6)


def prism_obj(xy, height: float = 0.5) -> str:
    """A closed prism over a concave polygon: two n-gon caps, quad sides."""
    n = len(xy)
    lines = [f"v {x} {y} 0" for x, y in xy] + [f"v {x} {y} {height}" for x, y in xy]
    lines.append("f " + " ".join(str(i + 1) for i in reversed(range(n))))  # bottom, down
    lines.append("f " + " ".join(f"{n + i + 1}/1/1" for i in range(n)))  # top, with vt/vn
    for i in range(n):
        j = (i + 1) % n
        lines.append(f"f {i + 1} {j + 1} {n + j + 1} {n + i + 1}")
    return "vt 0 0\nvn 0 0 1\n" + "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", POLYGONS)
def test_obj_with_concave_caps_is_a_closed_solid(name: str, tmp_path: Path) -> None:
    xy = np.asarray(POLYGONS[name], float)
    f = tmp_path / f"{name}.obj"
    f.write_text(prism_obj(xy))
    mesh = load_mesh(f)
    a = abs(shoelace(xy))
    cap = mesh.area_faces[np.abs(mesh.face_normals[:, 2]) > 0.5].sum()
    assert cap == pytest.approx(2 * a, rel=1e-9)
    mesh.merge_vertices()
    assert mesh.is_watertight and mesh.is_winding_consistent
    assert mesh.volume == pytest.approx(0.5 * a, rel=1e-9)  # outward normals: positive


COLLADA = """<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><up_axis>Z_UP</up_axis></asset>
  <library_geometries><geometry id="g"><mesh>
    <source id="p"><float_array id="pa" count="{nf}">{floats}</float_array>
      <technique_common><accessor source="#pa" count="{nv}" stride="3">
        <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
      </accessor></technique_common></source>
    <vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
    <polylist count="1"><input semantic="VERTEX" source="#v" offset="0"/>
      <vcount>{nv}</vcount><p>{idx}</p></polylist>
  </mesh></geometry></library_geometries>
  <library_visual_scenes><visual_scene id="s"><node id="n">
    <matrix>1 0 0 0.5  0 1 0 0  0 0 1 2  0 0 0 1</matrix>
    <instance_geometry url="#g"/></node></visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#s"/></scene>
</COLLADA>"""


@pytest.mark.parametrize("name", POLYGONS)
def test_dae_polylist_concave_face(name: str, tmp_path: Path) -> None:
    # in the z = 0 plane with float32 coordinates (pycollada reads float32): exactly planar
    xy = np.asarray(POLYGONS[name], np.float32).astype(np.float64)
    p = np.column_stack([xy, np.zeros(len(xy))])
    f = tmp_path / f"{name}.dae"
    f.write_text(COLLADA.format(nf=p.size, nv=len(p), floats=" ".join(repr(float(v)) for v in
                                p.ravel()), idx=" ".join(map(str, range(len(p))))))  # fmt: skip
    mesh = load_mesh(f)
    assert len(mesh.faces) == len(p) - 2
    read = mesh.vertices[:, :2]  # the corners as read (float32, node matrix applied)
    np.testing.assert_allclose(read, xy + np.array([0.5, 0.0]), atol=1e-6)
    assert mesh.area == pytest.approx(abs(shoelace(read)), rel=1e-9)
    up = mesh.face_normals[mesh.area_faces > 0]
    assert np.all(up[:, 2] > 0)  # counter-clockwise corners: every triangle faces up
    # the node's matrix is applied (translation 0.5, 0, 2)
    np.testing.assert_allclose(mesh.vertices.mean(axis=0), p.mean(axis=0) + np.array([0.5, 0, 2]),
                               atol=1e-6)  # fmt: skip


def test_concave_obj_reaches_mujoco_inline_with_its_area(tmp_path: Path) -> None:
    xy = np.asarray(COMB, float) * 0.1
    f = tmp_path / "comb.obj"
    f.write_text(prism_obj(xy, height=0.05))
    b = RobotBuilder("comb")
    b.link("base", collisions=[Shape(Mesh(str(f)))])
    m = b.build()
    assert "vertex=" in to_mjcf_string(m)  # inlined: MuJoCo does not split our n-gons
    mm = to_mjspec(m).compile()
    v = mm.mesh_vert.astype(np.float64)  # MuJoCo recentres and rotates the mesh: compare areas
    area = tri_area(v, mm.mesh_face.astype(np.int64)).sum()
    perimeter = np.linalg.norm(np.roll(xy, -1, axis=0) - xy, axis=1).sum()
    assert area == pytest.approx(2 * abs(shoelace(xy)) + perimeter * 0.05, rel=1e-6)  # float32


def test_inspect_missing_mesh_says_no_such_file(tmp_path: Path, capsys) -> None:
    for name in ("gone.obj", "gone.dae", "gone.stl"):
        assert main(["inspect", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        assert "no such file" in err and "unknown robot" not in err


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("v 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n", "line 1: bad vertex"),
        ("v 0 0 nan\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n", "3 finite numbers"),
        ("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2\nf 1 2 3 4\n", "at least 3 corners"),
    ],
)
def test_malformed_polygon_obj_is_a_one_line_error(text: str, needle: str, tmp_path: Path) -> None:
    from robotsim.errors import RobotsimError

    path = tmp_path / "bad.obj"
    path.write_text(text)
    with pytest.raises(RobotsimError, match=needle):
        load_mesh(path)
