"""Mesh materials and textures (issue 13 item 10): the diffuse colour, UVs and texture
image of a mesh file survive loading, the studio's mesh and MJCF export, and MuJoCo
loads the exported file with the texture."""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pytest
import trimesh
from PIL import Image

from robotsim.model.loader import load_robot
from robotsim.model.mesh_material import mesh_material
from robotsim.model.meshes import load_mesh
from robotsim.model.mjcf_export import save_mjcf, to_mjcf_string
from robotsim.studio.shapes import geometry_mesh

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures"
KD = (0.8, 0.6, 0.2)


def image() -> np.ndarray:
    """An 8x8 texture: red top half, blue bottom half (RGB uint8)."""
    img = np.zeros((8, 8, 3), np.uint8)
    img[:4] = (200, 30, 30)
    img[4:] = (30, 30, 200)
    return img


def textured_cube(folder: Path, image_name: str = "skin.png") -> Path:
    """A 0.1 m cube OBJ with per-vertex UVs, an MTL with ``Kd`` and ``map_Kd``, and the
    image beside them."""
    Image.fromarray(image()).save(folder / image_name)
    (folder / "cube.mtl").write_text(f"newmtl skin\nKd {KD[0]} {KD[1]} {KD[2]}\nd 1.0\n"
                                     f"map_Kd {image_name}\n")  # fmt: skip
    box = trimesh.creation.box(extents=(0.1, 0.1, 0.1))
    uv = (box.vertices[:, :2] / 0.1 + 0.5).clip(0.0, 1.0)
    lines = ["mtllib cube.mtl", "usemtl skin"]
    lines += [f"v {x:.6f} {y:.6f} {z:.6f}" for x, y, z in box.vertices]
    lines += [f"vt {u:.6f} {v:.6f}" for u, v in uv]
    lines += ["f " + " ".join(f"{i + 1}/{i + 1}" for i in f) for f in box.faces]
    path = folder / "cube.obj"
    path.write_text("\n".join(lines) + "\n")
    return path


def robot_urdf(folder: Path, mesh: Path, rgba: str | None = None) -> Path:
    material = "" if rgba is None else f'<material name="m"><color rgba="{rgba}"/></material>'
    urdf = folder / "textured.urdf"
    file = mesh.name if mesh.parent == folder else mesh
    inertia = 'ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"'
    urdf.write_text(f"""<robot name="textured">
  <link name="base">
    <visual><geometry><mesh filename="{file}"/></geometry>{material}</visual>
    <collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>
    <inertial><mass value="1"/><inertia {inertia}/></inertial>
  </link>
</robot>
""")  # fmt: skip
    return urdf


def test_obj_material_colour_uv_and_image_survive_load_and_studio(tmp_path):
    obj = textured_cube(tmp_path)
    mat = mesh_material(obj)
    assert mat is not None and mat.name == "skin"
    np.testing.assert_allclose(mat.rgba, (*KD, 1.0))
    assert mat.texture == (tmp_path / "skin.png").resolve()
    mesh = load_mesh(obj)
    assert isinstance(mesh.visual, trimesh.visual.TextureVisuals)
    assert mesh.visual.uv.shape == (len(mesh.vertices), 2)
    np.testing.assert_array_equal(np.asarray(mesh.visual.material.image.convert("RGB")), image())
    # the studio draws file meshes with their visual (add_mesh_trimesh) when the shape
    # keeps the default colour: its mesh carries the same texture
    model = load_robot(robot_urdf(tmp_path, obj))
    shown = geometry_mesh(model.links[0].visuals[0].geometry)
    assert shown.visual.kind == "texture"
    np.testing.assert_array_equal(np.asarray(shown.visual.material.image.convert("RGB")), image())


def test_mjcf_export_keeps_the_texture_and_mujoco_loads_it(tmp_path):
    obj = textured_cube(tmp_path)
    model = load_robot(robot_urdf(tmp_path, obj))
    out = save_mjcf(model, tmp_path / "out" / "textured.xml")
    text = out.read_text()
    assert "<texture" in text and "<material" in text and "skin.png" in text
    m = mujoco.MjModel.from_xml_path(str(out))
    assert m.ntex >= 1 and m.nmat >= 1
    assert m.mesh_texcoordnum[0] > 0  # MuJoCo read the OBJ's vt lines
    # the texture pixels are the image's (MuJoCo stores 2-D textures as given, RGB)
    w, h = int(m.tex_width[0]), int(m.tex_height[0])
    assert (w, h) == (8, 8)
    nc = int(m.tex_nchannel[0])
    px = m.tex_data[m.tex_adr[0] : m.tex_adr[0] + w * h * nc].reshape(h, w, nc)[..., :3]
    assert {tuple(c) for c in px.reshape(-1, 3)} == {(200, 30, 30), (30, 30, 200)}
    g = next(i for i in range(m.ngeom) if m.geom_type[i] == mujoco.mjtGeom.mjGEOM_MESH)
    assert m.geom_matid[g] >= 0 and m.mat_texid[m.geom_matid[g], 1] >= 0  # mjTEXROLE_RGB


def test_a_jpeg_texture_is_converted_to_png_beside_the_export(tmp_path):
    obj = textured_cube(tmp_path, "skin.jpg")
    model = load_robot(robot_urdf(tmp_path, obj))
    out = save_mjcf(model, tmp_path / "out" / "textured.xml")
    pngs = list((tmp_path / "out").glob("*.png"))
    assert len(pngs) == 1 and pngs[0].name in out.read_text()
    assert mujoco.MjModel.from_xml_path(str(out)).ntex == 1
    with pytest.warns(UserWarning, match="PNG textures only"):
        text = to_mjcf_string(model)  # no output folder: colour only
    assert "<texture" not in text and "<material" in text


def test_own_colour_wins_over_the_file_material(tmp_path):
    obj = textured_cube(tmp_path)
    model = load_robot(robot_urdf(tmp_path, obj, rgba="0 1 0 1"))
    m = mujoco.MjModel.from_xml_path(str(save_mjcf(model, tmp_path / "o" / "t.xml")))
    g = next(i for i in range(m.ngeom) if m.geom_type[i] == mujoco.mjtGeom.mjGEOM_MESH)
    assert m.geom_matid[g] == -1
    np.testing.assert_allclose(m.geom_rgba[g], (0, 1, 0, 1))


@pytest.mark.parametrize("name", ["3DS/test1.3ds", "X/test_cube_text.x"])
def test_legacy_mesh_diffuse_colour_in_studio_and_mjcf(tmp_path, name):
    """3DS and X files (read through assimp) keep their diffuse colour: face colours on
    the loaded mesh, a material in MJCF (the images they name are not shipped)."""
    path = FIXTURES / "meshes" / name
    mat = mesh_material(path)
    assert mat is not None and mat.texture is None
    mesh = load_mesh(path)
    assert mesh.visual.kind == "face"
    want = np.round(np.asarray(mat.rgba) * 255)
    np.testing.assert_allclose(mesh.visual.face_colors[0], want, atol=1)
    model = load_robot(robot_urdf(tmp_path, path))
    m = mujoco.MjModel.from_xml_path(str(save_mjcf(model, tmp_path / "o" / "t.xml")))
    g = next(i for i in range(m.ngeom) if m.geom_type[i] == mujoco.mjtGeom.mjGEOM_MESH)
    np.testing.assert_allclose(m.mat_rgba[m.geom_matid[g]], mat.rgba, atol=1e-6)


def test_missing_texture_image_keeps_the_colour():
    """The Franka Panda's MTL names colors.png, which is not shipped: no texture, the
    diffuse colour stays."""
    mat = mesh_material(FIXTURES / "urdf/franka_panda/meshes/visual/link1.obj")
    assert mat is not None and mat.texture is None and len(mat.rgba) == 4


def textured_dae(folder: Path) -> Path:
    """The textured cube as COLLADA: ``<diffuse><texture>`` -> sampler -> surface ->
    ``<image><init_from>skin.png``, UVs as a TEXCOORD input (written with pycollada)."""
    import collada
    from collada import geometry, material, scene, source

    Image.fromarray(image()).save(folder / "skin.png")
    box = trimesh.creation.box(extents=(0.1, 0.1, 0.1))
    uv = (box.vertices[:, :2] / 0.1 + 0.5).clip(0.0, 1.0)
    dae = collada.Collada()
    img = material.CImage("skin-img", "skin.png")
    surface = material.Surface("skin-surface", img)
    sampler = material.Sampler2D("skin-sampler", surface)
    effect = material.Effect("skin-effect", [surface, sampler], "phong",
                             diffuse=material.Map(sampler, "UVSET0"))  # fmt: skip
    mat = material.Material("skin-material", "skin", effect)
    dae.images.append(img)
    dae.effects.append(effect)
    dae.materials.append(mat)
    geom = geometry.Geometry(dae, "g", "cube", [
        source.FloatSource("v", box.vertices.ravel(), ("X", "Y", "Z")),
        source.FloatSource("t", uv.ravel(), ("S", "T")),
    ])  # fmt: skip
    inputs = source.InputList()
    inputs.addInput(0, "VERTEX", "#v")
    inputs.addInput(1, "TEXCOORD", "#t", set="0")
    geom.primitives.append(geom.createTriangleSet(np.repeat(box.faces.ravel(), 2), inputs, "m"))
    dae.geometries.append(geom)
    node = scene.Node("n", children=[scene.GeometryNode(geom, [scene.MaterialNode("m", mat, [])])])
    dae.scenes.append(scene.Scene("s", [node]))
    dae.scene = dae.scenes[0]
    path = folder / "cube.dae"
    dae.write(str(path))
    return path


def test_dae_texture_survives_load_and_inline_mjcf(tmp_path):
    """COLLADA is written inline into MJCF: the loaded UVs go in as ``texcoord``."""
    dae = textured_dae(tmp_path)
    mat = mesh_material(dae)
    assert mat is not None and mat.texture == (tmp_path / "skin.png").resolve()
    mesh = load_mesh(dae)
    assert mesh.visual.kind == "texture" and mesh.visual.uv.shape == (len(mesh.vertices), 2)
    tex = mesh.visual.material.baseColorTexture  # trimesh reads DAE effects as PBR
    np.testing.assert_array_equal(np.asarray(tex.convert("RGB")), image())
    model = load_robot(robot_urdf(tmp_path, dae))
    out = save_mjcf(model, tmp_path / "out" / "t.xml")
    assert "texcoord=" in out.read_text()
    m = mujoco.MjModel.from_xml_path(str(out))
    assert m.ntex == 1 and m.mesh_texcoordnum[0] > 0
    g = next(i for i in range(m.ngeom) if m.geom_type[i] == mujoco.mjtGeom.mjGEOM_MESH)
    assert m.mat_texid[m.geom_matid[g], 1] == 0


def test_inspect_reports_the_material(tmp_path):
    from robotsim.model.meshes import describe_mesh

    info = describe_mesh(textured_cube(tmp_path))
    assert info["material"]["name"] == "skin"
    assert info["material"]["texture"].endswith("skin.png")
    np.testing.assert_allclose(info["material"]["rgba"], (*KD, 1.0))


def test_polygon_obj_keeps_its_uvs_and_texture(tmp_path):
    """An OBJ of quads (ear-clipped here, not by trimesh) keeps a UV per corner and the
    texture; MJCF gets them inline (texcoord) and MuJoCo loads the texture."""
    Image.fromarray(image()).save(tmp_path / "skin.png")
    (tmp_path / "cube.mtl").write_text("newmtl skin\nKd 1 1 1\nmap_Kd skin.png\n")
    corners = [(x, y, z) for x in (-0.05, 0.05) for y in (-0.05, 0.05) for z in (-0.05, 0.05)]
    quads = [(1, 3, 4, 2), (5, 6, 8, 7), (1, 2, 6, 5), (3, 7, 8, 4), (1, 5, 7, 3), (2, 4, 8, 6)]
    lines = ["mtllib cube.mtl", "usemtl skin", *(f"v {x} {y} {z}" for x, y, z in corners),
             "vt 0 0", "vt 1 0", "vt 1 1", "vt 0 1"]  # fmt: skip
    lines += ["f " + " ".join(f"{v}/{k + 1}" for k, v in enumerate(q)) for q in quads]
    obj = tmp_path / "cube.obj"
    obj.write_text("\n".join(lines) + "\n")
    mesh = load_mesh(obj)
    assert len(mesh.faces) == 12 and mesh.visual.kind == "texture"
    pairs = {(v, k) for q in quads for k, v in enumerate(q)}
    assert len(mesh.vertices) == len(pairs)  # every (position, uv) pair once
    # each quad's corners carry the UVs 0,0 / 1,0 / 1,1 / 0,1 given in the file
    assert {tuple(r) for r in mesh.visual.uv} == {(0, 0), (1, 0), (1, 1), (0, 1)}
    np.testing.assert_array_equal(np.asarray(mesh.visual.material.image.convert("RGB")), image())
    model = load_robot(robot_urdf(tmp_path, obj))
    out = save_mjcf(model, tmp_path / "out" / "t.xml")
    assert "texcoord=" in out.read_text()
    m = mujoco.MjModel.from_xml_path(str(out))
    assert m.ntex == 1 and m.mesh_texcoordnum[0] == len(pairs)


def test_directx_texture_filename_gives_a_textured_mesh(tmp_path):
    """A DirectX file whose material names an image (``TextureFilename``) and whose mesh
    has ``MeshTextureCoords``: assimp's UVs and the image reach the loaded mesh, and the
    inlined MJCF mesh carries them (the fixture cube, its material given the image in
    the test's folder)."""
    src = (FIXTURES / "meshes" / "X" / "test_cube_text.x").read_text()
    block = " 0.000000;0.000000;0.000000;;\n}"
    assert block in src and "MeshTextureCoords" in src
    Image.fromarray(image()).save(tmp_path / "skin.png")
    x = tmp_path / "cube.x"
    x.write_text(src.replace(block, ' 0.000000;0.000000;0.000000;;\n TextureFilename {\n'
                                    '  "skin.png";\n }\n}', 1))  # fmt: skip
    assert mesh_material(x).texture == (tmp_path / "skin.png").resolve()
    mesh = load_mesh(x)
    assert mesh.visual.kind == "texture" and mesh.visual.uv.shape == (len(mesh.vertices), 2)
    np.testing.assert_array_equal(np.asarray(mesh.visual.material.image.convert("RGB")), image())
    m = mujoco.MjModel.from_xml_path(str(save_mjcf(load_robot(robot_urdf(tmp_path, x)),
                                                   tmp_path / "out" / "t.xml")))  # fmt: skip
    assert m.ntex == 1 and m.mesh_texcoordnum[0] == len(mesh.vertices)
