"""Loading objects from shapes, mesh files and URDF/MJCF files made here, with scales,
placeholder inertias and bad input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import trimesh

from robotsim.errors import InputError, ModelFileError
from robotsim.model.geometry import Box
from robotsim.objects import ObjectSpec, load_object, parse_object_arg
from robotsim.objects.mass import primitive_inertial

BRICK = '<box size="0.05 0.04 0.03"/>'


def test_shapes_from_the_command_line() -> None:
    box = load_object("box:0.05,0.03,0.08")
    np.testing.assert_allclose(box.extents, [0.05, 0.03, 0.08])
    assert box.mass == pytest.approx(1000 * 0.05 * 0.03 * 0.08)
    assert box.collision == "primitive" and box.mass_source == "geometry" and not box.warnings
    cyl = load_object(parse_object_arg("cylinder:0.03,0.1", density=500.0, scale=2.0))
    np.testing.assert_allclose(cyl.extents, [0.12, 0.12, 0.2], rtol=1e-3)
    assert cyl.mass == pytest.approx(500 * np.pi * 0.06**2 * 0.2)


def test_a_scaled_mesh_file(tmp_path: Path) -> None:
    p = tmp_path / "bar.stl"
    trimesh.creation.box(extents=(100, 20, 10)).export(p)  # millimetres
    obj = load_object({"file": str(p), "scale": 0.001, "density": 800})
    np.testing.assert_allclose(obj.extents, [0.1, 0.02, 0.01], rtol=1e-9)
    assert obj.mass == pytest.approx(800 * 0.1 * 0.02 * 0.01)
    assert obj.collision == "hull" and obj.shapes[0].geometry.path.is_file()


def test_non_uniform_scale_of_primitives() -> None:
    obj = load_object({"type": "sphere", "radius": 0.02, "scale": [1, 1, 2]})
    np.testing.assert_allclose(obj.extents, [0.04, 0.04, 0.08], rtol=3e-2)
    assert obj.collision == "primitive" and obj.shapes[0].geometry.radii == (0.02, 0.02, 0.04)
    assert obj.mass == pytest.approx(1000 * 4 / 3 * np.pi * 0.02**3 * 2, rel=1e-12)
    cyl = load_object({"type": "cylinder", "radius": 0.02, "length": 0.1, "scale": [2, 1, 1]})
    assert cyl.collision == "hull"  # an elliptic cylinder: a mesh
    np.testing.assert_allclose(cyl.extents, [0.08, 0.04, 0.1], rtol=1e-2)


def test_placeholder_inertia_in_a_urdf_never_reaches_physics(make_urdf) -> None:  # type: ignore[no-untyped-def]
    p = make_urdf(
        "duck", BRICK, '<inertial><mass value="0.1"/><inertia ixx="1" iyy="1" izz="1"/></inertial>'
    )
    obj = load_object(str(p))
    assert obj.mass == pytest.approx(0.1) and obj.inertia_source == "geometry"
    ref = primitive_inertial(Box((0.05, 0.04, 0.03)), 1.0)
    np.testing.assert_allclose(obj.inertial.inertia, np.asarray(ref.inertia) * 0.1 / ref.mass)
    assert len(obj.warnings) == 1 and str(p) in obj.warnings[0]


def test_the_sdformat_default_inertial_is_no_mass_either(make_urdf) -> None:  # type: ignore[no-untyped-def]
    p = make_urdf(
        "mug", BRICK, '<inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1"/></inertial>'
    )
    obj = load_object(str(p))  # 1 kg and diag(1, 1, 1): nobody measured this object
    assert obj.mass_source == obj.inertia_source == "geometry"
    assert obj.mass == pytest.approx(1000 * 0.05 * 0.04 * 0.03)
    assert "SDFormat's default inertial" in obj.warnings[0] and str(p) in obj.warnings[0]
    q = make_urdf(  # 1 kg with a real inertia is a measurement: kept
        "heavy", BRICK,
        '<inertial><mass value="1"/><inertia ixx="2e-4" iyy="2.8e-4" izz="3.4e-4"/></inertial>',
    )  # fmt: skip
    heavy = load_object(str(q))
    assert heavy.mass == pytest.approx(1.0) and heavy.mass_source == "file"


def test_zero_inertia_is_a_warning_not_an_error(make_urdf) -> None:  # type: ignore[no-untyped-def]
    p = make_urdf(
        "zero", BRICK, '<inertial><mass value="0.05"/><inertia ixx="0" iyy="0" izz="0"/></inertial>'
    )
    obj = load_object(str(p))
    assert obj.mass == pytest.approx(0.05) and "inertia trace 0 kg m^2" in obj.warnings[0]


def test_a_plausible_urdf_inertia_is_used(make_urdf) -> None:  # type: ignore[no-untyped-def]
    p = make_urdf(
        "brick",
        BRICK,
        '<inertial><origin xyz="0.001 0 0"/><mass value="0.07"/>'
        '<inertia ixx="1.5e-5" iyy="2e-5" izz="2.4e-5"/></inertial>',
    )
    obj = load_object(str(p))
    assert obj.mass_source == obj.inertia_source == "file" and not obj.warnings
    np.testing.assert_allclose(np.diag(obj.inertial.inertia), [1.5e-5, 2e-5, 2.4e-5])
    np.testing.assert_allclose(obj.inertial.com, [0.001, 0, 0])
    big = load_object({"file": str(p), "scale": 2.0})  # same mass, twice the size
    assert big.mass == pytest.approx(0.07)
    np.testing.assert_allclose(np.diag(big.inertial.inertia), [6e-5, 8e-5, 9.6e-5])


def test_a_urdf_with_a_vhacd_collision_mesh(tmp_path: Path, make_urdf) -> None:  # type: ignore[no-untyped-def]
    a = trimesh.creation.box(extents=(0.1, 0.03, 0.03))
    b = trimesh.creation.box(extents=(0.03, 0.03, 0.08))
    b.apply_translation((0.035, 0, 0.055))
    trimesh.util.concatenate([a, b]).export(tmp_path / "part_vhacd.obj")
    p = make_urdf("part", '<mesh filename="part_vhacd.obj" scale="1 1 1"/>')
    obj = load_object(str(p))
    assert obj.collision == "pieces" and len(obj.pieces) == 2
    assert obj.mass_source == "geometry" and "no mass in the file" in obj.warnings[0]


def test_an_mjcf_object(tmp_path: Path) -> None:
    p = tmp_path / "thing.xml"
    p.write_text(
        '<mujoco><worldbody><body name="thing"><freejoint/>'
        '<geom type="box" size="0.02 0.02 0.05" mass="0.2"/></body></worldbody></mujoco>'
    )
    obj = load_object(str(p))
    assert obj.mass == pytest.approx(0.2) and obj.mass_source == "file" and not obj.warnings
    np.testing.assert_allclose(obj.extents, [0.04, 0.04, 0.1])


def test_an_mjcf_object_with_an_impossible_inertia(tmp_path: Path) -> None:
    p = tmp_path / "bad.xml"
    p.write_text(
        '<mujoco><worldbody><body name="thing"><freejoint/>'
        '<inertial pos="0 0 0" mass="0.1" diaginertia="1 1 5"/>'
        '<geom type="box" size="0.02 0.02 0.05"/></body></worldbody></mujoco>'
    )
    obj = load_object(str(p))
    assert obj.inertia_source == "geometry" and len(obj.warnings) == 1


def test_a_moving_joint_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "two.urdf"
    p.write_text(
        '<robot name="two"><link name="a"><collision><geometry><box size="0.1 0.1 0.1"/>'
        '</geometry></collision></link><link name="b"/><joint name="hinge" type="revolute">'
        '<parent link="a"/><child link="b"/><axis xyz="0 0 1"/>'
        '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>'
    )
    with pytest.raises(ModelFileError, match="one rigid body; joint 'hinge' is revolute"):
        load_object(str(p))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("box:0.05,0.03", "a box takes 3 number"),
        ("sphere:abc", "sizes must be numbers"),
        ("thing.txt", "give a file"),
        ("cylinder:0.03,-0.1", "length"),
    ],
)
def test_bad_object_text_is_one_line(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message) as err:
        load_object(text)
    assert "\n" not in str(err.value)


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match=r"nope\.obj: no such file"):
        load_object(str(tmp_path / "nope.obj"))


def test_schema_names_unknown_keys() -> None:
    with pytest.raises(InputError, match="colour"):
        load_object({"type": "box", "size": [0.1, 0.1, 0.1], "colour": "red"})
    with pytest.raises(InputError, match="a cylinder needs length"):
        load_object({"type": "cylinder", "radius": 0.1})
    assert ObjectSpec(file="a/b/mug.obj").label() == "mug"


def test_a_filled_collision_body_weighs_the_visual_material(tmp_path: Path) -> None:
    # a cup drawn with its cavity, colliding as the solid cylinder around it (as many
    # object files do), with SDFormat's default inertial: the mass is the cup's material
    wall = trimesh.creation.annulus(r_min=0.034, r_max=0.04, height=0.09, sections=32)
    wall.apply_translation([0, 0, 0.049])
    base = trimesh.creation.cylinder(radius=0.04, height=0.004, sections=32)
    base.apply_translation([0, 0, 0.002])
    trimesh.util.concatenate([wall, base]).export(tmp_path / "cup.obj")
    solid = trimesh.creation.cylinder(radius=0.04, height=0.094, sections=32)
    solid.apply_translation([0, 0, 0.047])
    solid.export(tmp_path / "cup_col.obj")
    default = '<inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1"/></inertial>'

    def urdf(name: str, visual: str) -> str:  # SDFormat's default inertial: replaced
        (tmp_path / f"{name}.urdf").write_text(
            f'<robot name="{name}"><link name="{name}">{default}'
            f'<visual><geometry><mesh filename="{visual}"/></geometry></visual>'
            '<collision><geometry><mesh filename="cup_col.obj"/></geometry></collision>'
            "</link></robot>"
        )
        return str(tmp_path / f"{name}.urdf")

    obj = load_object(urdf("cup", "cup.obj"))
    material = wall.volume + base.volume
    assert obj.mass == pytest.approx(1000 * material, rel=1e-6)
    assert obj.mass < 0.5 * 1000 * solid.volume
    assert obj.inertial.com[2] < 0.047  # the base weighs, the cavity does not
    assert "fills its cavities" in obj.warnings[0] and len(obj.warnings) == 1
    # the same visual as the collision shape: the collision's volume, no note
    full = load_object(urdf("full", "cup_col.obj"))
    assert full.mass == pytest.approx(1000 * solid.volume, rel=1e-6)
    assert "cavities" not in full.warnings[0]
