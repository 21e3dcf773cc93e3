"""Multi-material mesh files for the tests (issue 22, item 7): assimp's test1.3ds with
the three images its materials name made beside it, and a DirectX cube given two
textured materials; a one-link URDF drawing one of them."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
from PIL import Image

from tests.paths import FIXTURES

COLOURS = {"IMAGE1.JPG": (200, 30, 30), "CWALL02.JPG": (30, 200, 30), "IMAGE2.JPG": (30, 30, 200)}


def _image(path: Path, rgb: tuple[int, int, int]) -> None:
    Image.fromarray(np.full((8, 8, 3), rgb, np.uint8)).save(path)


def three_ds(folder: Path) -> Path:
    """test1.3ds with the three images its materials name, each one plain colour."""
    path = folder / "test1.3ds"
    shutil.copy(FIXTURES / "meshes" / "3DS" / "test1.3ds", path)
    for name, rgb in COLOURS.items():
        _image(folder / name, rgb)
    return path


def two_material_x(folder: Path) -> Path:
    """The fixture cube (12 triangles, UVs) with its first six faces in material
    ``Red`` and the other six in ``Blue``, each naming a PNG."""
    src = (FIXTURES / "meshes" / "X" / "test_cube_text.x").read_text()
    head = src.index("Material Material {")
    end = src.index("}", src.index("0.000000;0.000000;0.000000;;", head)) + 1
    mats = "".join(
        f"Material {n} {{\n 1.0;1.0;1.0;1.0;;\n 1.0;\n 0.0;0.0;0.0;;\n 0.0;0.0;0.0;;\n"
        f' TextureFilename {{\n  "{n.lower()}.png";\n }}\n}}\n'
        for n in ("Red", "Blue")
    )
    src = src[:head] + mats + src[end:]
    src = re.sub(r"MeshMaterialList \{.*?\{ Material \}\s*\}",
                 "MeshMaterialList {\n 2;\n 12;\n " + ",".join(["0"] * 6 + ["1"] * 6)
                 + ";\n { Red }\n { Blue }\n }", src, flags=re.S)  # fmt: skip
    _image(folder / "red.png", (220, 20, 20))
    _image(folder / "blue.png", (20, 20, 220))
    path = folder / "cube2.x"
    path.write_text(src)
    return path


def robot(folder: Path, mesh: Path, both: bool) -> Path:
    """A one-link URDF drawing ``mesh`` (as a visual, or as visual and collision)."""
    geo = f'<geometry><mesh filename="{mesh.name}" scale="0.01 0.01 0.01"/></geometry>'
    coll = f"<collision>{geo}</collision>" if both else ""
    path = folder / "textured.urdf"
    path.write_text(f"""<robot name="textured"><link name="base"><visual>{geo}</visual>{coll}
      <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0"
      iyz="0"/></inertial></link></robot>""")  # fmt: skip
    return path
