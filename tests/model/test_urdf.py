"""URDF import/export: the real fixtures against MuJoCo's own URDF compiler, exact round
trips, and one clear error per kind of bad file."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import mujoco
import numpy as np
import pytest

from robotsim import load_robot
from robotsim.errors import ModelFileError
from robotsim.model import (
    Box,
    Capsule,
    Cylinder,
    Ellipsoid,
    JointType,
    Mesh,
    RobotBuilder,
    Shape,
    Sphere,
    library_names,
)
from robotsim.model.robot import RobotModel
from robotsim.model.urdf import load_urdf, parse_urdf_string, save_urdf, to_urdf_string
from robotsim.spatial import trans

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures"
PANDA = FIXTURES / "urdf" / "franka_panda" / "panda.urdf"
TURTLEBOT = (
    FIXTURES / "urdf" / "turtlebot3_burger" / "turtlebot3_description" / "urdf"
    / "turtlebot3_burger.urdf"
)  # fmt: skip


def random_q(model: RobotModel, n: int, seed: int = 0) -> np.ndarray:
    """Random configurations inside the limits (+-3 rad/m where a joint has none)."""
    rng = np.random.default_rng(seed)
    lo = np.where(np.isfinite(model.lower), model.lower, -3.0)
    hi = np.where(np.isfinite(model.upper), model.upper, 3.0)
    return rng.uniform(lo, hi, size=(n, model.nq))


def mujoco_urdf_poses(urdf: Path, model: RobotModel, q: np.ndarray) -> dict[str, np.ndarray]:
    """Link poses from MuJoCo's own URDF compiler (geometry stripped: MuJoCo drops mesh
    folders, and only the kinematics is compared; static bodies kept unfused)."""
    root = ET.parse(urdf).getroot()
    for link in root.findall("link"):
        for tag in ("visual", "collision"):
            for el in link.findall(tag):
                link.remove(el)
    ET.SubElement(ET.SubElement(root, "mujoco"), "compiler", fusestatic="false",
                  balanceinertia="true")  # fmt: skip
    mm = mujoco.MjModel.from_xml_string(ET.tostring(root, encoding="unicode"))
    d = mujoco.MjData(mm)
    values = dict(zip(model.joint_names, q))
    for j in model.joints:
        if j.movable:
            v = values[j.name] if j.mimic is None else (
                j.mimic.multiplier * values[j.mimic.joint] + j.mimic.offset)  # fmt: skip
            d.qpos[mm.jnt_qposadr[mm.joint(j.name).id]] = v
    mujoco.mj_kinematics(mm, d)
    out = {}
    for name in model.link_names:
        b = mm.body(name).id
        T = np.eye(4)
        T[:3, :3] = d.xmat[b].reshape(3, 3)
        T[:3, 3] = d.xpos[b]
        out[name] = T
    return out


# ------------------------------------------------------------------ real fixtures
def test_panda_loads_with_meshes_and_mimic() -> None:
    m = load_urdf(PANDA)
    assert m.name == "panda"
    assert m.nq == 8  # 7 arm joints + finger 1; finger 2 mimics finger 1
    assert m.joint("panda_finger_joint2").mimic.joint == "panda_finger_joint1"
    assert m.joint("panda_joint4").limits.upper == 0.0
    assert m.joint("panda_joint1").limits.velocity == pytest.approx(2.175)
    meshes = [s.geometry for lk in m.links for s in (*lk.visuals, *lk.collisions)
              if isinstance(s.geometry, Mesh)]  # fmt: skip
    assert len(meshes) == 22  # 11 links x (visual + collision)
    assert all(g.path.is_file() and g.path.suffix == ".obj" for g in meshes)
    assert m.link("panda_link1").visuals[0].geometry.path.parent.name == "visual"
    assert m.link("panda_link1").collisions[0].geometry.path.parent.name == "collision"
    assert m.link("panda_link0").inertial.mass == pytest.approx(2.9)


def test_turtlebot_loads_package_paths_scale_and_continuous() -> None:
    m = load_urdf(TURTLEBOT)
    assert m.joint_names == ("wheel_left_joint", "wheel_right_joint")
    assert m.joint("wheel_left_joint").type is JointType.CONTINUOUS
    base = m.link("base_link")
    mesh = base.visuals[0].geometry
    assert isinstance(mesh, Mesh) and mesh.path.name == "burger_base.stl" and mesh.path.is_file()
    assert mesh.scale == (0.001, 0.001, 0.001)
    assert base.visuals[0].rgba == (0.4, 0.4, 0.4, 1.0)  # top-level named material
    assert base.collisions[0].geometry.size == (0.14, 0.14, 0.143)
    assert isinstance(m.link("wheel_left_link").collisions[0].geometry, Cylinder)
    assert np.allclose(base.inertial.inertia[0, 1], -1.2294101e-05)


@pytest.mark.parametrize("urdf", [PANDA, TURTLEBOT], ids=["panda", "turtlebot3"])
def test_fixture_fk_matches_mujoco_urdf_compiler(urdf: Path) -> None:
    m = load_urdf(urdf)
    for q in random_q(m, 5, seed=3):
        ref = mujoco_urdf_poses(urdf, m, q)
        ours = m.fk_all(q)
        for i, name in enumerate(m.link_names):
            np.testing.assert_allclose(ours[i], ref[name], atol=1e-12, err_msg=name)


def test_load_robot_dispatches_urdf() -> None:
    m = load_robot(str(PANDA))
    assert m.source == PANDA and m.nq == 8


# ------------------------------------------------------------------- round trips
def test_dh_to_urdf_round_trip_exact(tmp_path: Path) -> None:
    m = load_robot("puma560")
    m2 = load_urdf(save_urdf(m, tmp_path / "puma.urdf"))
    assert m2.joint_names == m.joint_names
    np.testing.assert_array_equal(m2.lower, m.lower)
    np.testing.assert_array_equal(m2.upper, m.upper)
    q = random_q(m, 200, seed=1)
    for name in (*m.link_names, *m.frame_names):
        np.testing.assert_allclose(m2.fk(q, name), m.fk(q, name), rtol=0, atol=1e-12,
                                   err_msg=name)  # fmt: skip
    # standard DH links go through an empty intermediate link <child>__joint
    assert "link2__joint" in m2.link_names
    assert m2.link("link2").inertial.mass == pytest.approx(17.4)


def test_fixture_urdf_round_trip_is_exact(tmp_path: Path) -> None:
    m = load_urdf(PANDA)
    m2 = load_urdf(save_urdf(m, tmp_path / "sub" / "panda.urdf"))
    q = random_q(m, 50)
    np.testing.assert_allclose(m2.fk_all(q), m.fk_all(q), rtol=0, atol=1e-12)
    assert m2.joint("panda_finger_joint2").mimic == m.joint("panda_finger_joint2").mimic
    g = m2.link("panda_hand").visuals[0].geometry
    assert isinstance(g, Mesh) and g.path == m.link("panda_hand").visuals[0].geometry.path


def test_floating_capsule_ellipsoid_and_unlimited_export(tmp_path: Path) -> None:
    b = RobotBuilder("blob", floating=True)
    cap = Shape(Capsule(0.05, 0.2), trans([0, 0, 0.1]))
    b.link("body", visuals=[cap, Shape(Ellipsoid((0.1, 0.2, 0.3)))])
    b.link("slider")
    b.joint("s", "prismatic", "body", "slider", axis=(0, 1, 0))
    m = b.build()
    text = to_urdf_string(m)
    m2 = parse_urdf_string(text)
    assert m2.floating and m2.root == "body" and "world" not in m2.link_names
    np.testing.assert_array_equal(m2.metadata["T_world_root"], np.eye(4))
    vis = m2.link("body").visuals
    kinds = [type(s.geometry) for s in vis]
    assert kinds == [Cylinder, Sphere, Sphere, Sphere]  # capsule = 3, ellipsoid = 1
    np.testing.assert_allclose(vis[1].T_link_shape[:3, 3], [0, 0, 0.0])  # lower cap centre
    np.testing.assert_allclose(vis[2].T_link_shape[:3, 3], [0, 0, 0.2])
    assert vis[3].geometry.radius == 0.3
    s = m2.joint("s")
    assert s.type is JointType.PRISMATIC and np.isinf(s.limits.lower) and np.isinf(s.limits.upper)
    assert np.isinf(s.limits.velocity) and np.isinf(s.limits.effort)


def _sphere(xyz: str, r: float) -> str:
    return (
        f'<collision><origin xyz="{xyz}"/><geometry><sphere radius="{r}"/></geometry></collision>'
    )


def test_a_capsule_written_to_urdf_reads_back_as_a_capsule(tmp_path: Path) -> None:
    """URDF has no capsule: export writes a cylinder and a sphere on each end cap; read
    back, a collision cylinder with spheres of its radius centred on both caps is the
    capsule again (three shapes touched the floor on the rims and the spheres: a
    humanoid's capsule foot bars, written to URDF, spun it round on its toes), while a
    cylinder whose spheres are of another radius or off its caps stays three shapes."""
    b = RobotBuilder("foot", floating=True)
    tilted = trans([0.02, 0, -0.05]) @ np.array(
        [[0, 0, 1, 0], [0, 1, 0, 0], [-1, 0, 0, 0], [0, 0, 0, 1]], dtype=float
    )  # along x, as a foot bar lies
    b.link("sole", collisions=[Shape(Capsule(0.014, 0.1), tilted), Shape(Box((0.1, 0.1, 0.01)))])
    m = b.build()
    back = parse_urdf_string(to_urdf_string(m)).link("sole").collisions
    assert [type(sh.geometry) for sh in back] == [Capsule, Box]
    assert back[0].geometry == Capsule(0.014, 0.1)
    np.testing.assert_allclose(back[0].T_link_shape, tilted, atol=1e-12)
    cyl = '<cylinder radius="0.014" length="0.1"/>'
    text = (
        '<robot name="r"><link name="a">'
        f"<collision><geometry>{cyl}</geometry></collision>"
        f"{_sphere('0 0 0.05', 0.02)}{_sphere('0 0 -0.05', 0.02)}"
        f'<collision><origin xyz="1 0 0"/><geometry>{cyl}</geometry></collision>'
        f"{_sphere('1 0 0.05', 0.014)}"
        "</link></robot>"
    )
    kept = parse_urdf_string(text).link("a").collisions
    assert [type(sh.geometry) for sh in kept] == [Cylinder, Sphere, Sphere, Cylinder, Sphere]


# ------------------------------------------------------------------------ errors
GOOD_LINKS = '<link name="a"/><link name="b"/>'


def _joint(jtype: str = "revolute", parent: str = "a", child: str = "b", extra: str = "") -> str:
    return (f'<joint name="j" type="{jtype}"><parent link="{parent}"/><child link="{child}"/>'
            f'<limit lower="-1" upper="1" effort="1" velocity="1"/>{extra}</joint>')  # fmt: skip


BAD = {
    "malformed": ('<robot name="x"><link name="a"></robot>', "malformed XML"),
    "unknown_type": (f'<robot name="x">{GOOD_LINKS}{_joint("hinge")}</robot>',
                     "joint 'j': unknown joint type 'hinge'"),
    "dangling_parent": (f'<robot name="x">{GOOD_LINKS}{_joint(parent="nope")}</robot>',
                        "joint 'j': parent link 'nope' is not defined"),
    "dangling_child": (f'<robot name="x">{GOOD_LINKS}{_joint(child="zz")}</robot>',
                       "joint 'j': child link 'zz' is not defined"),
    "cycle": ('<robot name="x">' + GOOD_LINKS
              + '<joint name="j1" type="fixed"><parent link="a"/><child link="b"/></joint>'
              + '<joint name="j2" type="fixed"><parent link="b"/><child link="a"/></joint>'
              + "</robot>", "joint 'j1': joints 'j1' -> 'j2' form a cycle"),
    "two_parents": ('<robot name="x"><link name="a"/><link name="b"/><link name="c"/>'
                    '<joint name="j1" type="fixed"><parent link="a"/><child link="c"/></joint>'
                    '<joint name="j2" type="fixed"><parent link="b"/><child link="c"/></joint>'
                    "</robot>", "joint 'j2': link 'c' is already the child of joint 'j1'"),
    "missing_mesh": ('<robot name="x"><link name="a"><visual><geometry>'
                     '<mesh filename="package://nopkg/meshes/gone.stl"/></geometry></visual>'
                     "</link></robot>", "link 'a'/visual[0]/mesh: mesh file not found"),
    "nan_origin": (f'<robot name="x">{GOOD_LINKS}'
                   + _joint(extra='<origin xyz="0 nan 0"/>') + "</robot>",
                   "joint 'j'/origin: xyz='0 nan 0' contains NaN"),
    "non_numeric": ('<robot name="x"><link name="a"><inertial><mass value="heavy"/>'
                    "</inertial></link></robot>", "mass: value='heavy' is not a number"),
    "planar": (f'<robot name="x">{GOOD_LINKS}{_joint("planar")}</robot>',
               "planar joints are not supported"),
    "floating_mid_tree": (f'<robot name="x">{GOOD_LINKS}{_joint("floating")}</robot>',
                          "floating joints are not supported"),
    "bad_limits": (f'<robot name="x">{GOOD_LINKS}<joint name="j" type="revolute">'
                   '<parent link="a"/><child link="b"/><limit lower="2" upper="1"/></joint>'
                   "</robot>", "joint 'j': joint limits: lower 2.0 > upper 1.0"),
    "not_robot": ("<sdf/>", "the root element must be <robot>"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_urdf_gives_clear_error(case: str, tmp_path: Path) -> None:
    text, expected = BAD[case]
    path = tmp_path / f"{case}.urdf"
    path.write_text(text)
    with pytest.raises(ModelFileError) as info:
        load_urdf(path)
    msg = str(info.value)
    assert msg.startswith(str(path)), msg
    assert expected in msg, msg
    assert "\n" not in msg


def test_missing_file_and_relative_mesh(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="no such file"):
        load_urdf(tmp_path / "none.urdf")
    (tmp_path / "m").mkdir()
    stl = FIXTURES / "meshes" / "STL" / "triangle.stl"
    (tmp_path / "m" / "t.stl").write_bytes(stl.read_bytes())
    path = tmp_path / "r.urdf"
    mesh = '<mesh filename="m/t.stl" scale="2"/>'
    path.write_text(f'<robot name="r"><link name="a"><visual><geometry>{mesh}</geometry>'
                    "</visual></link></robot>")  # fmt: skip
    g = load_urdf(path).link("a").visuals[0].geometry
    assert g.path == (tmp_path / "m" / "t.stl").resolve() and g.scale == (2.0, 2.0, 2.0)


@pytest.mark.parametrize("seed", range(8))
def test_random_trees_round_trip_through_urdf(seed: int) -> None:
    """Random trees with every joint kind, random axes, post transforms and mimics."""
    from tests.kinematics.random_trees import random_tree

    m = random_tree(seed, n_links=10)
    m2 = parse_urdf_string(to_urdf_string(m))
    assert m2.joint_names == m.joint_names
    q = random_q(m, 20, seed=seed)
    for name in (*m.link_names, *m.frame_names):
        np.testing.assert_allclose(m2.fk(q, name), m.fk(q, name), rtol=0, atol=1e-12,
                                   err_msg=name)  # fmt: skip


@pytest.mark.parametrize("name", library_names())
def test_every_library_robot_round_trips_through_urdf(name: str) -> None:
    m = load_robot(name)
    m2 = parse_urdf_string(to_urdf_string(m))
    assert m2.joint_names == m.joint_names and m2.floating == m.floating
    q = random_q(m, 10, seed=5)
    for link in (*m.link_names, *m.frame_names):
        np.testing.assert_allclose(m2.fk(q, link), m.fk(q, link), rtol=0, atol=1e-12,
                                   err_msg=link)  # fmt: skip


def test_inertial_origin_rotates_the_tensor_and_ros_package_path(
    tmp_path: Path, monkeypatch
) -> None:
    pkg = tmp_path / "ws" / "my_pkg" / "meshes"
    pkg.mkdir(parents=True)
    (pkg / "box.obj").write_bytes((FIXTURES / "meshes" / "OBJ" / "box.obj").read_bytes())
    monkeypatch.setenv("ROS_PACKAGE_PATH", str(tmp_path / "ws"))
    text = (
        '<robot name="r"><link name="a"><inertial>'
        '<origin xyz="0.1 0 0" rpy="0 0 1.5707963267948966"/>'
        '<mass value="2"/><inertia ixx="1" iyy="2" izz="3" ixy="0" ixz="0" iyz="0"/></inertial>'
        '<visual><geometry><mesh filename="package://my_pkg/meshes/box.obj"/></geometry>'
        "</visual></link></robot>"
    )
    m = parse_urdf_string(text, tmp_path / "elsewhere" / "r.urdf")
    ine = m.link("a").inertial
    assert ine.mass == 2.0
    np.testing.assert_allclose(ine.com, [0.1, 0, 0])
    np.testing.assert_allclose(ine.inertia, np.diag([2.0, 1.0, 3.0]), atol=1e-15)
    assert m.link("a").visuals[0].geometry.path == (pkg / "box.obj").resolve()
