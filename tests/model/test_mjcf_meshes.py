"""Mesh files of an MJCF are opened at load time, as MuJoCo opens them: a missing or
unreadable mesh is refused with one line naming the MJCF file, the mesh and its path,
and exactly where MuJoCo refuses it too; a flat or degenerate mesh gets MuJoCo's own
verdict."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from tests.mujoco_verdict import mujoco_accepts, robotsim_reader

from robotsim.cli import main
from robotsim.errors import ModelFileError
from robotsim.model.mjcf import load_mjcf

_TET = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float)
_FACES = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]


def _stl(points: np.ndarray, faces: list[list[int]]) -> bytes:
    rec = np.zeros(len(faces), [("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")])
    rec["v"] = points[np.array(faces)]
    return b"\0" * 80 + struct.pack("<I", len(faces)) + rec.tobytes()


def _msh(points: np.ndarray, faces: list[list[int]]) -> bytes:
    head = struct.pack("<4i", len(points), 0, 0, len(faces))
    return head + points.astype("<f4").tobytes() + np.array(faces, "<i4").tobytes()


GOOD_STL = _stl(_TET, _FACES)
MESHES = {  # file name -> bytes (None: no file), and whether MuJoCo's verdict is ours
    "missing.stl": None,
    "empty.stl": b"",
    "truncated.stl": GOOD_STL[:-7],
    "no_faces.stl": GOOD_STL[:80] + b"\0\0\0\0",
    "ascii.stl": b"solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nendloop\nendfacet\n",
    "nan.stl": _stl(_TET * [[1, 1, 1], [np.nan, 1, 1], [1, 1, 1], [1, 1, 1]], _FACES),
    "three_points.stl": _stl(_TET[:3], [[0, 1, 2], [0, 2, 1]]),
    "garbage.obj": b"\x00\x01binary junk\xff\xfe",
    "empty_words.obj": b"# a comment\nhello world\n",
    "no_header.msh": b"\1\0\0\0",
    "short.msh": _msh(_TET, _FACES)[:-4],
    "folder.stl": "dir",
    "three_far_apart.obj": b"v 0 0 0\nv 1 0 0\n" + b"# padding\n" * 150_000 + b"v 0 1 0\n",
}
LEFT_TO_MUJOCO = {  # flat, tiny: MuJoCo computes volume and area and refuses them
    "flat.stl": _stl(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], float),
                     [[0, 1, 2], [1, 3, 2]]),
    "tiny.stl": _stl(_TET * 1e-12, _FACES),
    "tiny_scale.stl": GOOD_STL,
    "mixed_case.Stl": GOOD_STL,  # MuJoCo 4.0 has no decoder for it
    "tiny_scale.obj": b"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n",
}  # fmt: skip
GOOD = {"tet.stl": GOOD_STL, "tet.msh": _msh(_TET, _FACES), "TET.STL": GOOD_STL,
        "tet.Msh": _msh(_TET, _FACES),
        "tet.obj": b"v 0 0 0\nv 1 0 0\nv 0 1 0\n\tv 0 0 1\n"
                   b"f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n",
        "late.obj": b"# padding\r\n" * 150_000 + b"v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\n"
                    b"v 0 0 1\r\nf 1 3 2\r\nf 1 2 4\r\nf 1 4 3\r\nf 2 3 4\r\n"}  # fmt: skip


def _model(tmp_path: Path, name: str, data: bytes | str | None, scale: str = "1 1 1") -> Path:
    if data == "dir":
        (tmp_path / "meshes" / name).mkdir(parents=True)
    elif data is not None:
        (tmp_path / "meshes").mkdir(exist_ok=True)
        (tmp_path / "meshes" / name).write_bytes(data)  # type: ignore[arg-type]
    path = tmp_path / "robot.xml"
    path.write_text(
        f'<mujoco><compiler meshdir="meshes"/><asset><mesh name="shell" file="{name}" '
        f'scale="{scale}"/>'
        '</asset><worldbody><body name="b"><joint/><inertial pos="0 0 0" mass="1" '
        'diaginertia=".1 .1 .1"/><geom type="mesh" mesh="shell" contype="0" '
        'conaffinity="0" group="2"/></body></worldbody></mujoco>'
    )
    return path


@pytest.mark.parametrize("name", MESHES)
def test_a_bad_mesh_is_refused_at_load_naming_the_file_mesh_and_path(
    name: str, tmp_path: Path
) -> None:
    path = _model(tmp_path, name, MESHES[name])
    assert not mujoco_accepts(path)
    mesh = tmp_path / "meshes" / name
    with pytest.raises(ModelFileError) as err:
        load_mjcf(path)
    msg = str(err.value)
    assert msg.startswith(f"{path}: <mesh name='shell'>: mesh file '{mesh}': "), msg
    assert "\n" not in msg


@pytest.mark.parametrize("name", LEFT_TO_MUJOCO)
def test_a_degenerate_mesh_gets_mujocos_verdict(name: str, tmp_path: Path) -> None:
    scale = "1e-6 1e-6 1e-6" if name.startswith("tiny_scale") else "1 1 1"
    path = _model(tmp_path, name, LEFT_TO_MUJOCO[name], scale)
    assert not mujoco_accepts(path)
    with pytest.raises(ModelFileError, match=r"robot\.xml: MuJoCo cannot load it: .*shell"):
        load_mjcf(path)


@pytest.mark.parametrize("name", GOOD)
def test_a_good_mesh_reads_without_mujoco(name: str, tmp_path: Path) -> None:
    path = _model(tmp_path, name, GOOD[name])
    assert mujoco_accepts(path)
    model = load_mjcf(path)
    assert model.metadata["reader"] == "robotsim"
    (shape,) = model.link("b").visuals
    assert Path(shape.geometry.path).name == name


def test_the_cli_exits_2_on_a_missing_mesh(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = _model(tmp_path, "missing.stl", None)
    assert main(["inspect", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert "robot.xml" in err and "'shell'" in err and "missing.stl" in err


FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "urdf"
ROBOTS = [FIXTURES / "franka_panda" / "panda.urdf",  # OBJ meshes
          FIXTURES / "turtlebot3_burger" / "turtlebot3_description" / "urdf"
          / "turtlebot3_burger.urdf"]  # binary STL meshes  # fmt: skip


@pytest.mark.filterwarnings("ignore:obj_decoder")
@pytest.mark.parametrize("urdf", ROBOTS, ids=lambda p: p.stem)
def test_real_robots_meshes_are_opened_and_a_missing_one_is_named(
    urdf: Path, tmp_path: Path
) -> None:
    """The fixture robots exported to MJCF (their meshes named by path, not copied)
    read without MuJoCo; with one mesh renamed to a file that does not exist, the load
    fails as MuJoCo's does, naming the MJCF file, the mesh and the path."""
    import re

    from robotsim.model.mjcf import save_mjcf
    from robotsim.model.urdf import load_urdf

    path = tmp_path / "robot.xml"
    save_mjcf(load_urdf(urdf), path)
    assert load_mjcf(path).metadata["reader"] == "robotsim"
    text = path.read_text()
    m = re.search(r'<mesh name="([^"]+)"[^>]* file="([^"]+)"', text)
    assert m is not None
    name, first = m.groups()
    gone = first[:-4] + "_gone" + first[-4:]
    path.write_text(text.replace(f'file="{first}"', f'file="{gone}"', 1))
    assert not mujoco_accepts(path)
    with pytest.raises(ModelFileError) as err:
        load_mjcf(path)
    assert str(err.value) == f"{path}: <mesh name={name!r}>: mesh file {gone!r}: no such file"


def test_mutated_mesh_files_get_mujocos_decision(tmp_path: Path) -> None:
    """Differential fuzz (seeded): flipped, truncated and spliced STL and MSH bytes;
    ``load_mjcf`` accepts each file exactly when MuJoCo does, and a refusal of its own
    names the mesh. OBJ files are checked for their vertex lines only (a full parse
    would cost more than the load): there the reader never refuses what MuJoCo
    accepts, but it may accept an OBJ whose faces MuJoCo refuses (a known gap)."""
    import random

    from tests.fuzz.mutate import byte_mutation

    counts = {"robotsim": 0, "mujoco": 0, "refused": 0, "obj gap": 0}
    for name in ("tet.stl", "tet.msh", "tet.obj"):
        rng = random.Random(f"mesh:{name}")
        for i in range(60):
            sub = tmp_path / f"{i}_{name}"
            sub.mkdir()
            path = _model(sub, name, byte_mutation(rng, GOOD[name]))
            theirs = mujoco_accepts(path)
            try:
                reader = robotsim_reader(path)
            except ModelFileError as exc:
                assert not theirs, (name, i)
                assert "'shell'" in str(exc) or "MuJoCo cannot load it" in str(exc), str(exc)
                counts["refused"] += 1
                continue
            if name.endswith(".obj") and not theirs:
                counts["obj gap"] += 1
                continue
            assert theirs, (name, i, reader)
            counts["robotsim" if reader == "robotsim" else "mujoco"] += 1
    assert counts["robotsim"] > 10 and counts["refused"] > 10, counts
