"""MJCF import/export: our FK against MuJoCo's ``mj_kinematics`` on the same model,
exact round trips, worlds of several robots, and clear errors."""

from __future__ import annotations

import warnings
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
from robotsim.model.mjcf import full_qpos, load_mjcf, save_mjcf, to_mjcf_string, to_mjspec
from robotsim.model.robot import RobotModel
from robotsim.model.urdf import load_urdf
from robotsim.spatial import make_T, rot_x, rot_y, rot_z, trans

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures"
PANDA = FIXTURES / "urdf" / "franka_panda" / "panda.urdf"
TURTLEBOT = (
    FIXTURES / "urdf" / "turtlebot3_burger" / "turtlebot3_description" / "urdf"
    / "turtlebot3_burger.urdf"
)  # fmt: skip

# MuJoCo warns about the Panda OBJs' missing texture coordinates; not our concern here.
pytestmark = pytest.mark.filterwarnings("ignore:obj_decoder")


def random_q(model: RobotModel, n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    lo = np.where(np.isfinite(model.lower), model.lower, -3.0)
    hi = np.where(np.isfinite(model.upper), model.upper, 3.0)
    return rng.uniform(lo, hi, size=(n, model.nq))


def mj_pose(d: mujoco.MjData, kind: str, i: int) -> np.ndarray:
    T = np.eye(4)
    if kind == "body":
        T[:3, :3], T[:3, 3] = d.xmat[i].reshape(3, 3), d.xpos[i]
    else:
        T[:3, :3], T[:3, 3] = d.site_xmat[i].reshape(3, 3), d.site_xpos[i]
    return T


def assert_fk_equal(a: RobotModel, b: RobotModel, names: list[str], q: np.ndarray) -> None:
    for name in names:
        np.testing.assert_allclose(b.fk(q, name), a.fk(q, name), rtol=0, atol=1e-12,
                                   err_msg=name)  # fmt: skip


# ------------------------------------------------------------- to_mjspec vs ours
@pytest.mark.parametrize("source", ["puma560", "panda", "turtlebot3"])
def test_to_mjspec_bodies_and_sites_match_our_fk(source: str) -> None:
    model = {"puma560": lambda: load_robot("puma560"), "panda": lambda: load_urdf(PANDA),
             "turtlebot3": lambda: load_urdf(TURTLEBOT)}[source]()  # fmt: skip
    mm = to_mjspec(model).compile()
    d = mujoco.MjData(mm)
    for q in random_q(model, 5, seed=7):
        d.qpos[:] = full_qpos(model, q)
        mujoco.mj_kinematics(mm, d)
        ours = model.fk_all(q)
        for i, name in enumerate(model.link_names):
            np.testing.assert_allclose(mj_pose(d, "body", mm.body(name).id), ours[i],
                                       atol=1e-12, err_msg=name)  # fmt: skip
        for fr in model.frame_names:
            np.testing.assert_allclose(mj_pose(d, "site", mm.site(fr).id), model.fk(q, fr),
                                       atol=1e-12, err_msg=fr)  # fmt: skip


def test_to_mjspec_mimic_is_an_equality_and_physics_respects_it() -> None:
    model = load_urdf(PANDA)
    mm = to_mjspec(model).compile()
    assert mm.neq == 1 and mm.eq_type[0] == mujoco.mjtEq.mjEQ_JOINT
    assert mm.joint(mm.eq_obj1id[0]).name == "panda_finger_joint2"
    assert mm.joint(mm.eq_obj2id[0]).name == "panda_finger_joint1"
    np.testing.assert_array_equal(mm.eq_data[0][:5], [0, 1, 0, 0, 0])
    assert mm.jnt_limited[mm.joint("panda_joint4").id]
    np.testing.assert_allclose(mm.jnt_range[mm.joint("panda_joint4").id], [-3.1416, 0.0])
    np.testing.assert_allclose(mm.jnt_actfrcrange[mm.joint("panda_joint1").id], [-87, 87])
    assert mm.body_mass[mm.body("panda_link1").id] == pytest.approx(2.7)


def test_several_robots_in_one_world_with_prefixes() -> None:
    puma = load_robot("puma560")
    world = mujoco.MjSpec()
    for i, x in enumerate([0.0, 1.5]):
        frame = world.worldbody.add_frame(pos=[x, 0, 0])
        world.attach(to_mjspec(puma), prefix=f"r{i}/", frame=frame)
    spec3 = to_mjspec(puma, prefix="r2/")
    world.worldbody.add_frame(pos=[0, 2, 0]).attach_body(spec3.body("r2/base_link"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MuJoCo warns about attach_body's empty prefix
        mm = world.compile()
    d = mujoco.MjData(mm)
    q = np.array([0.1, -0.4, 0.3, 0.2, 0.5, -0.6])
    d.qpos[:] = np.tile(q, 3)
    mujoco.mj_kinematics(mm, d)
    for prefix, offset in (("r0/", [0, 0, 0]), ("r1/", [1.5, 0, 0]), ("r2/", [0, 2, 0])):
        np.testing.assert_allclose(mj_pose(d, "site", mm.site(prefix + "tool").id),
                                   trans(offset) @ puma.fk(q), atol=1e-12)  # fmt: skip


# ----------------------------------------------------------------- round trips
def test_dh_to_mjcf_round_trip_exact(tmp_path: Path) -> None:
    m = load_robot("puma560")
    m2 = load_mjcf(save_mjcf(m, tmp_path / "puma.xml"))
    assert m2.joint_names == m.joint_names and m2.frame_names == m.frame_names
    np.testing.assert_array_equal(m2.lower, m.lower)
    q = random_q(m, 100, seed=2)
    assert_fk_equal(m, m2, [*m.link_names, *m.frame_names], q)
    assert set(m2.poses) == set(m.poses)  # named poses travel as keyframes
    np.testing.assert_allclose(m2.pose("qn"), m.pose("qn"))


@pytest.mark.parametrize("urdf", [PANDA, TURTLEBOT], ids=["panda", "turtlebot3"])
def test_urdf_to_mjcf_round_trip_exact(urdf: Path, tmp_path: Path) -> None:
    m = load_urdf(urdf)
    m2 = load_mjcf(save_mjcf(m, tmp_path / "out" / "robot.xml"))
    assert m2.joint_names == m.joint_names and m2.link_names == m.link_names
    assert_fk_equal(m, m2, list(m.link_names), random_q(m, 50, seed=4))
    for lk in m.links:
        lk2 = m2.link(lk.name)
        assert len(lk2.visuals) == len(lk.visuals) and len(lk2.collisions) == len(lk.collisions)
        for a, b in zip((*lk.visuals, *lk.collisions), (*lk2.visuals, *lk2.collisions)):
            assert a.geometry == b.geometry
            np.testing.assert_allclose(b.T_link_shape, a.T_link_shape, atol=1e-12)
        if lk.inertial is not None and lk.inertial.mass > 0:
            assert lk2.inertial.mass == pytest.approx(lk.inertial.mass, rel=1e-12)
            np.testing.assert_allclose(lk2.inertial.com, lk.inertial.com, atol=1e-12)
    for j in m.joints:
        if not j.movable:
            continue  # MJCF has no fixed joints: they come back as <child>_fixed
        j2 = m2.joint(j.name)
        assert j2.mimic == j.mimic
        if j.type is JointType.REVOLUTE:
            assert (j2.limits.lower, j2.limits.upper) == (j.limits.lower, j.limits.upper)


def test_primitive_shapes_floating_root_and_colours_survive(tmp_path: Path) -> None:
    b = RobotBuilder("shapes", floating=True)
    shapes = [Shape(Box((0.1, 0.2, 0.3)), rgba=(1, 0, 0, 1)), Shape(Sphere(0.05)),
              Shape(Cylinder(0.02, 0.3), make_T(rot_x(0.3), [0, 0.1, 0])),
              Shape(Capsule(0.03, 0.2)), Shape(Ellipsoid((0.1, 0.2, 0.05)))]  # fmt: skip
    b.link("body", visuals=shapes, collisions=[Shape(Box((0.4, 0.4, 0.1)))])
    b.link("arm")
    b.joint("slide", "prismatic", "body", "arm", origin=trans([0, 0, 0.2]), axis=(1, 1, 0),
            lower=-0.1, upper=0.3)  # fmt: skip
    m = b.build()
    m2 = load_mjcf(save_mjcf(m, tmp_path / "shapes.xml"))
    assert m2.floating and m2.root == "body"
    got = m2.link("body")
    assert [s.geometry for s in got.visuals] == [s.geometry for s in shapes]
    assert got.visuals[0].rgba == (1, 0, 0, 1)
    assert [s.geometry for s in got.collisions] == [Box((0.4, 0.4, 0.1))]
    assert_fk_equal(m, m2, ["arm"], np.array([[0.2], [-0.05]]))
    xml = to_mjcf_string(m)
    assert "<freejoint" in xml and 'group="2"' in xml and 'group="3"' in xml


# ------------------------------------------------- hand-written MJCF vs MuJoCo
TRICKY = """
<mujoco model="tricky">
  <compiler angle="degree"/>
  <default><joint damping="0.1"/><geom rgba="0.2 0.3 0.4 1"/></default>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="base" pos="0.1 0.2 0.3" euler="10 20 30">
      <geom type="box" size="0.1 0.1 0.05"/>
      <body name="upper" pos="0 0 0.2" axisangle="1 1 0 40">
        <joint name="shoulder" axis="0 1 0" pos="0.05 0 -0.1" range="-90 90" ref="15"/>
        <geom type="capsule" fromto="0 0 0 0 0 0.4" size="0.03"/>
        <body name="fore" pos="0 0 0.4">
          <joint name="ex" axis="1 0 0" pos="0 0.02 0"/>
          <joint name="ey" axis="0 1 1" pos="0.01 0 0" range="-30 60"/>
          <joint name="slide" type="slide" axis="0 0 1" range="-0.1 0.1" ref="0.05"/>
          <geom type="cylinder" size="0.02 0.1" pos="0 0 0.1"/>
          <site name="tip" pos="0 0 0.25" zaxis="1 0 1"/>
          <body name="wrist" pos="0 0 0.3">
            <joint name="ball" type="ball" pos="0 0 0.01"/>
            <geom type="ellipsoid" size="0.03 0.02 0.01"/>
            <body name="finger" pos="0.02 0 0.05">
              <joint name="f1" axis="0 0 1" range="0 90"/>
              <geom type="sphere" size="0.01"/>
              <body name="finger2" pos="0 0 0.04">
                <joint name="f2" axis="0 0 1" range="0 180"/>
                <geom type="sphere" size="0.01"/>
                <site name="fingertip" pos="0 0 0.03"/>
              </body>
            </body>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <equality><joint joint1="f2" joint2="f1" polycoef="0.1 2 0 0 0"/></equality>
  <keyframe><key name="home" qpos="0.3 0.1 0.2 0.04 1 0 0 0 0.5 1.1"/></keyframe>
</mujoco>
"""


def _mujoco_qpos(mm: mujoco.MjModel, model: RobotModel, q: np.ndarray) -> np.ndarray:
    """MuJoCo qpos for our q: hinges/slides by name, the ball from our x-y-z chain."""
    qpos = np.array(mm.qpos0)
    vals = dict(zip(model.joint_names, q))
    for j in range(mm.njnt):
        name = mm.joint(j).name
        adr = mm.jnt_qposadr[j]
        if mm.jnt_type[j] == mujoco.mjtJoint.mjJNT_BALL:
            R = rot_x(vals[name + "_x"]) @ rot_y(vals[name + "_y"]) @ rot_z(vals[name + "_z"])
            quat = np.zeros(4)
            mujoco.mju_mat2Quat(quat, R.ravel())
            qpos[adr : adr + 4] = quat
        elif name in vals:
            qpos[adr] = vals[name]
        else:  # a mimic joint
            mim = model.joint(name).mimic
            qpos[adr] = mim.multiplier * vals[mim.joint] + mim.offset
    return qpos


def test_hand_written_mjcf_matches_mj_kinematics(tmp_path: Path) -> None:
    path = tmp_path / "tricky.xml"
    path.write_text(TRICKY)
    m = load_robot(str(path))
    assert m.root == "world" and m.link("world").visuals == ()  # the plane is skipped
    assert any("plane" in s for s in m.metadata["skipped"])
    assert m.joint_names == ("shoulder", "ex", "ey", "slide", "ball_x", "ball_y", "ball_z", "f1")
    assert m.joint("ex").type is JointType.CONTINUOUS
    assert "fore__ex" in m.link_names and "wrist__ball_x" in m.link_names
    mim = m.joint("f2").mimic
    assert (mim.joint, mim.multiplier, mim.offset) == ("f1", 2.0, pytest.approx(0.1))
    np.testing.assert_allclose([m.joint("shoulder").limits.lower, m.joint("ey").limits.upper],
                               np.deg2rad([-90, 60]))  # fmt: skip
    assert m.pose("home")[m.joint_index("slide")] == pytest.approx(0.04)
    mm = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(mm)
    for q in random_q(m, 8, seed=11):
        d.qpos[:] = _mujoco_qpos(mm, m, q)
        mujoco.mj_kinematics(mm, d)
        for b in range(1, mm.nbody):
            name = mm.body(b).name
            np.testing.assert_allclose(m.fk(q, name), mj_pose(d, "body", b), atol=1e-12,
                                       err_msg=name)  # fmt: skip
        for s in ("tip", "fingertip"):
            np.testing.assert_allclose(m.fk(q, s), mj_pose(d, "site", mm.site(s).id),
                                       atol=1e-12, err_msg=s)  # fmt: skip
    # q equals MuJoCo's qpos for hinges and slides, even with a non-zero ref
    d.qpos[:] = mm.qpos0
    mujoco.mj_kinematics(mm, d)
    q0 = m.q_from({"shoulder": np.deg2rad(15), "slide": 0.05})
    np.testing.assert_allclose(m.fk(q0, "fore"), mj_pose(d, "body", mm.body("fore").id),
                               atol=1e-12)  # fmt: skip


def test_mjcf_meshes_resolve_through_meshdir(tmp_path: Path) -> None:
    (tmp_path / "assets").mkdir()
    src = FIXTURES / "urdf" / "turtlebot3_burger" / "turtlebot3_description" / "meshes"
    (tmp_path / "assets" / "lds.stl").write_bytes((src / "sensors" / "lds.stl").read_bytes())
    path = tmp_path / "m.xml"
    path.write_text("""<mujoco><compiler meshdir="assets"/>
      <asset><mesh name="lds" file="lds.stl" scale="0.001 0.001 0.001"/></asset>
      <worldbody><body name="scanner"><geom type="mesh" mesh="lds" pos="0.01 0 0.02"
        contype="0" conaffinity="0"/></body></worldbody></mujoco>""")
    m = load_mjcf(path)
    lk = m.link("scanner")
    assert lk.collisions == () and len(lk.visuals) == 1
    g = lk.visuals[0]
    assert g.geometry == Mesh((tmp_path / "assets" / "lds.stl"), (0.001, 0.001, 0.001))
    np.testing.assert_allclose(g.T_link_shape, trans([0.01, 0, 0.02]), atol=1e-12)


# ----------------------------------------------------------------------- errors
BAD = {
    "malformed": ("<mujoco><worldbody><body></worldbody></mujoco>", "MuJoCo cannot load it"),
    "free_not_root": ("<mujoco><worldbody><body name='a'><geom size='1'/><body name='b'>"
                      "<freejoint/><geom size='1'/></body></body></worldbody></mujoco>",
                      "free joint can only be used on top level"),
    "free_object_beside_robot": ("<mujoco><worldbody><body name='arm'><geom size='1'/></body>"
                                 "<body name='ball'><freejoint/><geom size='1'/></body>"
                                 "</worldbody></mujoco>", "free joint on body 'ball'"),
    "missing_mesh": ("<mujoco><asset><mesh file='gone.stl'/></asset><worldbody><body>"
                     "<geom type='mesh' mesh='gone'/></body></worldbody></mujoco>", "gone.stl"),
    "empty": ("<mujoco><worldbody/></mujoco>", "the worldbody has no bodies"),
    "nan": ("<mujoco><worldbody><body name='b' pos='0 nan 0'><geom size='1'/></body>"
            "</worldbody></mujoco>", "body 'b': pos contains NaN"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_mjcf_gives_clear_error(case: str, tmp_path: Path) -> None:
    text, expected = BAD[case]
    path = tmp_path / f"{case}.xml"
    path.write_text(text)
    with pytest.raises(ModelFileError) as info:
        load_mjcf(path)
    msg = str(info.value)
    assert msg.startswith(str(path)) and expected in msg and "\n" not in msg, msg


def test_flat_meshes_are_left_out_of_mujoco_with_a_warning(tmp_path: Path) -> None:
    quad = tmp_path / "quad.obj"
    quad.write_text("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n")
    cube = FIXTURES / "meshes" / "OBJ" / "box.obj"
    b = RobotBuilder("flat")
    b.link("base", visuals=[Shape(Mesh(quad)), Shape(Mesh(cube), name="cube")])
    with pytest.warns(UserWarning, match="mesh is flat"):
        mm = to_mjspec(b.build()).compile()
    assert [mm.geom(i).name for i in range(mm.ngeom)] == ["base/cube"]


@pytest.mark.parametrize("seed", range(8))
def test_random_trees_through_mjcf_and_mujoco(seed: int) -> None:
    """Random trees (every joint kind, random axes, post transforms, mimics): the MJCF
    round trip is exact and MuJoCo's kinematics of to_mjspec equal ours."""
    from tests.kinematics.random_trees import random_tree

    m = random_tree(seed, n_links=10)
    xml = to_mjcf_string(m)
    m2 = load_mjcf_string(xml)
    q = random_q(m, 10, seed=seed)
    assert m2.joint_names == m.joint_names
    assert_fk_equal(m, m2, [*m.link_names, *m.frame_names], q)
    mm = to_mjspec(m).compile()
    d = mujoco.MjData(mm)
    for qi in q:
        d.qpos[:] = full_qpos(m, qi)
        mujoco.mj_kinematics(mm, d)
        ours = m.fk_all(qi)
        for i, name in enumerate(m.link_names):
            np.testing.assert_allclose(mj_pose(d, "body", mm.body(name).id), ours[i],
                                       atol=1e-12, err_msg=name)  # fmt: skip


def load_mjcf_string(xml: str) -> RobotModel:
    from robotsim.model.mjcf import model_from_mjmodel

    return model_from_mjmodel(mujoco.MjModel.from_xml_string(xml), name="from_string")


@pytest.mark.parametrize("name", library_names())
def test_every_library_robot_through_mjcf_and_mujoco(name: str) -> None:
    m = load_robot(name)
    m2 = load_mjcf_string(to_mjcf_string(m))
    assert m2.joint_names == m.joint_names and m2.floating == m.floating
    q = random_q(m, 5, seed=6)
    assert_fk_equal(m, m2, [*m.link_names, *m.frame_names], q)
    mm = to_mjspec(m).compile()
    d = mujoco.MjData(mm)
    free = 7 if m.floating else 0
    for qi in q:
        d.qpos[:free] = [0, 0, 0, 1, 0, 0, 0][:free]
        d.qpos[free:] = full_qpos(m, qi)
        mujoco.mj_kinematics(mm, d)
        for fr in m.frame_names:
            np.testing.assert_allclose(mj_pose(d, "site", mm.site(fr).id), m.fk(qi, fr),
                                       atol=1e-12, err_msg=fr)  # fmt: skip


def test_material_colours_and_single_offset_root(tmp_path: Path) -> None:
    path = tmp_path / "m.xml"
    path.write_text(
        '<mujoco><asset><material name="red" rgba="1 0 0 1"/></asset><worldbody>'
        '<body name="a" pos="0 0 1"><geom size="0.1" material="red"/>'
        '<geom size="0.1" rgba="0 1 0 1"/></body></worldbody></mujoco>'
    )
    m = load_mjcf(path)
    assert [s.rgba for s in m.link("a").visuals] == [(1, 0, 0, 1), (0, 1, 0, 1)]
    # a fixed root away from the origin hangs from an added 'world' link
    assert m.root == "world"
    np.testing.assert_allclose(m.joint("a_fixed").origin, trans([0, 0, 1]))


_OPENED: list[str] | None = None  # paths opened while a test listens (audit hook)


def _audit(event: str, args: tuple) -> None:
    if _OPENED is not None and event == "open" and isinstance(args[0], str | Path):
        _OPENED.append(str(args[0]))


def test_a_scoped_load_reads_each_file_once(tmp_path: Path) -> None:
    """Under a workspace scope every file an MJCF names is checked before anything
    reads it, and the check's parse is the reader's: the main file and the included
    one are each opened once (seen through Python's audit hook, not a mock)."""
    import sys

    from robotsim.file_scope import confined

    global _OPENED
    (tmp_path / "arm.xml").write_text(
        '<mujoco><body name="b"><joint/><geom size=".1"/></body></mujoco>'
    )
    main = tmp_path / "robot.xml"
    main.write_text('<mujoco><worldbody><include file="arm.xml"/></worldbody></mujoco>')
    sys.addaudithook(_audit)
    _OPENED = []
    try:
        with confined(tmp_path):
            model = load_mjcf(main)
        opened = [Path(p).name for p in _OPENED if Path(p).suffix == ".xml"]
    finally:
        _OPENED = None
    assert model.metadata["reader"] == "robotsim" and model.link_names == ("world", "b")
    assert sorted(opened) == ["arm.xml", "robot.xml"]


def test_a_scoped_load_refuses_what_it_cannot_parse(tmp_path: Path) -> None:
    """Under a scope, a file our XML parser cannot read is refused (MuJoCo's parser
    might read it and open files nobody checked); one line naming the file."""
    from robotsim.file_scope import confined

    path = tmp_path / "robot.xml"
    path.write_text("<mujoco><worldbody><body></worldbody></mujoco>")
    with confined(tmp_path), pytest.raises(ModelFileError, match=r"robot\.xml: not well-formed"):
        load_mjcf(path)


_ACTUATED = """<mujoco model="actuated">
  <compiler autolimits="true"/>
  <default>
    <default class="servo"><general biastype="affine" forcerange="-100 100"/></default>
    <default class="arm"><position kp="300" forcerange="-7 7"/>
      <default class="geared"><motor gear="4" ctrlrange="-2 2"/></default>
    </default>
  </default>
  <worldbody>
    <body name="base">
      <joint name="lift" type="slide" axis="0 0 1" range="0 0.3"/>
      <geom type="box" size="0.05 0.05 0.05"/>
      <body name="left" pos="0 0.05 0">
        <joint name="f1" type="slide" axis="0 1 0" range="0 0.04"/>
        <geom type="box" size="0.01 0.01 0.03"/>
      </body>
      <body name="right" pos="0 -0.05 0">
        <joint name="f2" type="slide" axis="0 -1 0" range="0 0.04"/>
        <geom type="box" size="0.01 0.01 0.03"/>
      </body>
      <body name="wrist" pos="0 0 0.1">
        <joint name="turn" axis="0 0 1" range="-3 3" actuatorfrcrange="-4 4"/>
        <joint name="tilt" axis="1 0 0" range="-1 1"/>
        <joint name="roll" axis="0 1 0" range="-1 1"/>
        <joint name="yaw" axis="0 0 1" range="-1 1"/>
        <geom type="capsule" size="0.01 0.03"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="split"><joint joint="f1" coef="0.5"/><joint joint="f2" coef="0.5"/></fixed>
  </tendon>
  <actuator>
    <general class="servo" name="grip" tendon="split" ctrlrange="0 255"
             gainprm="0.0156862745" biasprm="0 -100 -10"/>
    <motor name="lift" joint="lift" gear="2" ctrlrange="-30 30"/>
    <motor name="turn" joint="turn" gear="3" ctrlrange="-5 5"/>
    <position name="tilt" joint="tilt" kp="50" ctrlrange="-1 1"/>
    <general name="roll" class="arm" joint="roll"/>
    <general name="yaw" class="geared" joint="yaw" gainprm="1.5"/>
  </actuator>
</mujoco>
"""


@pytest.mark.parametrize("reader", ["auto", "mujoco"])
def test_joint_efforts_come_from_the_actuators_and_tendons_that_drive_them(
    tmp_path: Path, reader: str
) -> None:
    """The effort read is what MuJoCo's actuators put on each joint at their limits:
    a tendon's 100 N split 0.5/0.5 (50 N per finger), a motor's gear x ctrl (60 N),
    capped by the joint's own actuatorfrcrange (4, not 15 N m); a servo without a
    forcerange is not bounded by its controller's gain (NO: infinite); defaults resolved
    as MuJoCo does (a class's position servo's forcerange: 7; a nested class's motor
    gear 4 x ctrl 2 x the element's gain 1.5: 12)."""
    path = tmp_path / "actuated.xml"
    path.write_text(_ACTUATED)
    m = load_mjcf(path, reader=reader)
    assert m.metadata["reader"] == {"auto": "robotsim", "mujoco": "mujoco"}[reader]
    eff = {j: m.joint(j).limits.effort for j in ("lift", "f1", "f2", "turn", "tilt", "roll", "yaw")}
    # reference: MuJoCo's own generalized actuator forces with the controls saturated
    mjm = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(mjm)
    d.qpos[:] = [0.0, 0.04, 0.04, 0.0, 0.0, -1.0, 0.0]  # the grip servo's error is largest
    d.ctrl[:] = [0.0, 30.0, 5.0, 1.0, 1.0, 2.0]
    mujoco.mj_forward(mjm, d)
    ref = {mujoco.mj_id2name(mjm, mujoco.mjtObj.mjOBJ_JOINT, k): abs(d.qfrc_actuator[k])
           for k in range(mjm.njnt)}  # fmt: skip
    # the tendon servo: -100 * 0.04 = 4 N of its 100 N: the file's gains reach less
    # than the forcerange, so its limit is read from forcerange, not from a pose
    assert ref["f1"] == pytest.approx(2.0, abs=1e-6)
    assert eff["f1"] == eff["f2"] == pytest.approx(50.0)
    assert eff["lift"] == pytest.approx(ref["lift"]) == pytest.approx(60.0)
    assert eff["turn"] == pytest.approx(ref["turn"]) == pytest.approx(4.0)  # cap: 4 < 15
    assert not np.isfinite(eff["tilt"])
    assert eff["roll"] == pytest.approx(ref["roll"]) == pytest.approx(7.0)
    assert eff["yaw"] == pytest.approx(ref["yaw"]) == pytest.approx(12.0)
    # saturating the tendon servo (a far target, in a stiffer copy) puts 0.5 x 100 N on each
    stiff = _ACTUATED.replace('gainprm="0.0156862745" biasprm="0 -100 -10"',
                              'gainprm="1" biasprm="0 -10000 0"')  # fmt: skip
    mjm2 = mujoco.MjModel.from_xml_string(stiff)
    d2 = mujoco.MjData(mjm2)
    d2.qpos[:] = [0.0, 0.04, 0.04, 0.0, 0.0, 0.0, 0.0]
    mujoco.mj_forward(mjm2, d2)
    assert abs(d2.qfrc_actuator[1]) == pytest.approx(eff["f1"])
