"""Every material's texture of a multi-material 3DS or DirectX file reaches the studio and
the MJCF export (issue 22, item 7; seed 002's texture import): assimp's test1.3ds (three
textured materials; the images it names are made here) and a DirectX cube given two
textured materials."""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pytest
from PIL import Image
from tests.multi_material import robot, three_ds, two_material_x

from robotsim.model.loader import load_robot
from robotsim.model.mesh_parts import mesh_parts
from robotsim.model.meshes import load_mesh
from robotsim.model.mjcf_export import save_mjcf
from robotsim.studio.shapes import geometry_parts


def _texture_rgb(visual) -> tuple[int, ...]:
    return tuple(int(c) for c in np.asarray(visual.material.image.convert("RGB"))[0, 0])


@pytest.mark.parametrize("make", [three_ds, two_material_x], ids=["3ds", "x"])
def test_each_material_is_a_part_with_its_own_texture(make, tmp_path: Path) -> None:
    path = make(tmp_path)
    parts = mesh_parts(path)
    whole = load_mesh(path)
    assert len(parts) == (3 if path.suffix == ".3ds" else 2)
    assert sum(len(p.mesh.faces) for p in parts) == len(whole.faces)
    textures = [p.material.texture.name for p in parts]
    assert len(set(textures)) == len(parts)  # every material's own image
    for p in parts:
        assert p.mesh.visual.kind == "texture"
        want = Image.open(p.material.texture).convert("RGB").getpixel((0, 0))
        assert _texture_rgb(p.mesh.visual) == tuple(want)
    # the studio draws the same parts (scaled as the shape says)
    shown = geometry_parts(load_robot(robot(tmp_path, path, False)).links[0].visuals[0].geometry)
    assert len(shown) == len(parts)
    np.testing.assert_allclose(shown[0].vertices, parts[0].mesh.vertices * 0.01)


@pytest.mark.parametrize("both", [False, True], ids=["visual", "visual+collision"])
def test_mjcf_export_has_every_texture_and_mujoco_loads_it(tmp_path: Path, both: bool) -> None:
    model = load_robot(robot(tmp_path, three_ds(tmp_path), both))
    m = mujoco.MjModel.from_xml_path(str(save_mjcf(model, tmp_path / "out" / "t.xml")))
    assert m.ntex == 3
    visual = [g for g in range(m.ngeom) if m.geom_group[g] == 2]
    assert len(visual) == 3
    tex = {int(m.mat_texid[m.geom_matid[g], 1]) for g in visual}
    assert tex == {0, 1, 2}  # each part its own texture
    # the parts are visual only; a visual+collision shape keeps the whole mesh to touch
    assert all(m.geom_contype[g] == 0 and m.geom_conaffinity[g] == 0 for g in visual)
    touching = [g for g in range(m.ngeom) if m.geom_contype[g] or m.geom_conaffinity[g]]
    assert len(touching) == (1 if both else 0)
