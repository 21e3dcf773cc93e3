"""Concave polygons in DirectX files triangulated exactly (issue 22, item 7): assimp's
own triangulation is wrong for some (a concave quad: area 1.26 for 0.289); robotsim
cuts every polygon again by ear clipping (polygon.retriangulate_runs)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from robotsim.model.meshes import load_mesh
from robotsim.model.polygon import retriangulate_runs

# a concave quad assimp (6.0, through assimp-py 1.1) cuts across its reflex corner
BAD_QUAD = [(-0.2116623412539378, -0.28212439503994835),
            (0.9499367910245702, 0.6796534769571883),
            (-0.8817358881783093, -0.6379717907777087),
            (0.8619378252838223, -0.2295826129446299)]  # fmt: skip
STAR = [(np.cos(a) * r, np.sin(a) * r)
        for a, r in zip(np.linspace(0, 2 * np.pi, 10, endpoint=False), [2, 0.7] * 5)]  # fmt: skip
COMB = [(0, 0), (5, 0), (5, 3), (4, 3), (4, 1), (3, 1), (3, 3), (2, 3), (2, 1), (1, 1),
        (1, 3), (0, 3)]  # fmt: skip


def shoelace(xy) -> float:
    xy = np.asarray(xy, float)
    return 0.5 * abs(float(np.sum(xy[:, 0] * np.roll(xy[:, 1], -1)
                                  - np.roll(xy[:, 0], -1) * xy[:, 1])))  # fmt: skip


def write_x(path: Path, vertices, faces) -> Path:
    """A text DirectX file of one mesh (vertices ``(n, 3)``, faces as corner lists)."""
    rows = np.asarray(vertices, float).tolist()
    v = ";,\n".join(f"{x!r};{y!r};{z!r}" for x, y, z in rows) + ";;"
    f = ",\n".join(f"{len(c)};" + ",".join(map(str, c)) + ";" for c in faces) + ";"
    path.write_text(f"xof 0303txt 0032\nFrame Root {{\n Mesh poly {{\n  {len(vertices)};\n"
                    f"  {v}\n  {len(faces)};\n  {f}\n }}\n}}\n")  # fmt: skip
    return path


def _assimp_area(path: Path) -> float:
    import assimp_py

    scene = assimp_py.import_file(str(path), assimp_py.Process_Triangulate)
    m = scene.meshes[0]
    v = np.frombuffer(m.vertices, dtype=np.float32).reshape(-1, 3).astype(float)
    t = np.frombuffer(m.indices, dtype=np.uint32).reshape(-1, 3)
    return float(np.linalg.norm(np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]]),
                                axis=1).sum() / 2)  # fmt: skip


def test_assimps_wrong_quad_gets_its_area(tmp_path: Path) -> None:
    xy = np.asarray(BAD_QUAD)
    path = write_x(tmp_path / "quad.x", np.column_stack([xy, np.zeros(4)]), [[0, 1, 2, 3]])
    true = shoelace(xy)
    assert _assimp_area(path) > 4 * true  # assimp's own cut (proves the case bites)
    assert load_mesh(path).area == pytest.approx(true, rel=1e-6)  # float32 corners


@pytest.mark.parametrize("name", ["star", "comb", "quad"])
def test_closed_prism_over_a_concave_polygon(name: str, tmp_path: Path) -> None:
    """Two n-gon caps and quad sides, tilted: closed, its volume area x height."""
    xy = np.asarray({"star": STAR, "comb": COMB, "quad": BAD_QUAD}[name], float)
    n, h = len(xy), 0.5
    rng = np.random.default_rng(4)
    Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    Q *= np.sign(np.linalg.det(Q))
    v = np.vstack([np.column_stack([xy, np.zeros(n)]), np.column_stack([xy, np.full(n, h)])])
    ccw = shoelace(xy) == 0.5 * float(np.sum(xy[:, 0] * np.roll(xy[:, 1], -1)
                                             - np.roll(xy[:, 0], -1) * xy[:, 1]))  # fmt: skip
    bottom, top = list(reversed(range(n))), list(range(n, 2 * n))
    sides = [[i, (i + 1) % n, n + (i + 1) % n, n + i] for i in range(n)]
    faces = [bottom, top, *sides] if ccw else [top[::-1], bottom[::-1], *[s[::-1] for s in sides]]
    mesh = load_mesh(write_x(tmp_path / f"{name}.x", v @ Q.T, faces))
    welded = mesh.copy()
    welded.merge_vertices()
    assert welded.is_watertight
    assert abs(welded.volume) == pytest.approx(shoelace(xy) * h, rel=1e-5)


def test_retriangulate_runs_keeps_triangles_and_unknown_runs() -> None:
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [5, 5, 5], [6, 5, 5], [6, 6, 5],
                  [5.2, 5.2, 5]], float)  # fmt: skip
    given = np.array([[0, 1, 2], [3, 4, 6], [3, 6, 5], [4, 5, 6]])  # a run of 4, 3 triangles
    out = retriangulate_runs(v, given)
    assert out[:1].tolist() == [[0, 1, 2]]
    assert sorted(map(sorted, out[1:].tolist())) == sorted(map(sorted, given[1:].tolist()))


def test_tiny_polygons_assimp_drops_are_kept(tmp_path: Path) -> None:
    """assimp leaves out polygons of 5+ corners about 1 mm across (convex ones too): a
    0.1 m pentagon and a 1 mm one (concave) beside a triangle keep all their area."""
    pent = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0.5, 0.3, 0], [0, 1, 0]], float)
    tri = np.array([[0, 0, 1], [1, 0, 1], [0, 1, 1]], float)
    v = np.vstack([pent * 0.1, pent * 1e-3 + [0, 0, 2], tri])
    path = write_x(tmp_path / "tiny.x", v, [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12]])
    a = shoelace(pent[:, :2])
    assert _assimp_area(path) == pytest.approx(a * 0.01 + 0.5, rel=1e-6)  # 1 mm one lost
    assert load_mesh(path).area == pytest.approx(a * 0.01 + a * 1e-6 + 0.5, rel=1e-7)
