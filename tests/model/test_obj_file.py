"""OBJ numbers read as assimp reads them (issue 22, item 7): assimp itself is the
reference, on the same files; the MJCF export inlines such files so MuJoCo gets the
same vertices."""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pytest

from robotsim.errors import ModelFileError
from robotsim.model import Mesh, RobotBuilder, Shape
from robotsim.model.meshes import load_mesh
from robotsim.model.mjcf_export import to_mjcf_string
from robotsim.model.obj_file import number, obj_read_here

# tokens assimp reads (and their values by its reader): plain, and not Python's float
TOKENS = ["1e+2", "2.e+1", "+3", "-.5", "5.", "1E2", "1.0e+002", "1.5f", "1_0", "1,5",
          "1.5.3", "1d2", "0x10"]  # fmt: skip


def _tetra(token: str, quad: bool) -> str:
    """A pyramid over a square whose x extent is ``token`` (quad base or two triangles)."""
    head = f"v 0 0 0\nv {token} 0 0\nv {token} 1 0\nv 0 1 0\nv 0 0 1\n"
    base = "f 1 4 3 2\n" if quad else "f 1 4 3\nf 1 3 2\n"
    return head + base + "f 1 2 5\nf 2 3 5\nf 3 4 5\nf 4 1 5\n"


def _assimp_x(path: Path) -> list[float]:
    import assimp_py

    scene = assimp_py.import_file(str(path), assimp_py.Process_Triangulate)
    v = np.frombuffer(scene.meshes[0].vertices, dtype=np.float32).reshape(-1, 3)
    return sorted({round(float(x), 6) for x in v[:, 0]})


@pytest.mark.parametrize("quad", [False, True], ids=["triangles", "quad"])
@pytest.mark.parametrize("token", TOKENS)
def test_numbers_as_assimp_reads_them(token: str, quad: bool, tmp_path: Path) -> None:
    path = tmp_path / "m.obj"
    path.write_text(_tetra(token, quad))
    mine = sorted({round(float(x), 6) for x in load_mesh(path).vertices[:, 0]})
    assert mine == _assimp_x(path)


def test_number_prefix_rules() -> None:
    assert [number(t) for t in ("1e+2", "2.e+1", "1,5", "1.5f", "-.5", "x1", "", "e3")] == [
        100.0, 20.0, 1.5, 1.5, -0.5, None, None, None]  # fmt: skip
    assert number("1.0e+002") == 100.0 and number("1e") == 1.0  # assimp refuses "1e"


def test_non_finite_or_missing_numbers_are_refused_naming_the_line(tmp_path: Path) -> None:
    for bad in ("inf", "nan", "abc"):
        path = tmp_path / f"{bad}.obj"
        path.write_text(_tetra("1", False).replace("v 0 0 1\n", f"v 0 0 {bad}\n"))
        with pytest.raises(ModelFileError, match=r"line 5: bad vertex .*3 finite numbers"):
            load_mesh(path)


def test_mjcf_export_inlines_such_files_so_mujoco_gets_the_same_mesh(tmp_path: Path) -> None:
    """MuJoCo's own OBJ reader takes ``1,5`` as 1 (assimp: 1.5): the exporter inlines
    the file read here, so MuJoCo's volume is ours (pyramid: base x 1 x height / 3)."""
    path = tmp_path / "comma.obj"
    path.write_text(_tetra("1,5", False))
    assert obj_read_here(path)
    plain = tmp_path / "plain.obj"
    plain.write_text(_tetra("1.5", False))
    assert not obj_read_here(plain)
    volumes = []
    for p in (path, plain):
        b = RobotBuilder("m")
        b.link("base")
        b.link("body", collisions=[Shape(Mesh(p))])
        b.joint("j", "continuous", "base", "body")
        mjm = mujoco.MjModel.from_xml_string(to_mjcf_string(b.build()))
        volumes.append(float(mjm.body_mass[-1]) / 1000.0)  # density 1000
    assert volumes[0] == pytest.approx(1.5 / 3, rel=1e-6) == volumes[1]
