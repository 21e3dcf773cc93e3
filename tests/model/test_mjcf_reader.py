"""The linear MJCF reader against MuJoCo itself: for every MJCF we have (the shared
fixtures, our exports of the fixture URDFs and library robots, and a generated corpus of
defaults, classes, orientations, frames, includes, joints, inertias, materials and
meshes), the model ``load_mjcf`` reads without MuJoCo equals the one MuJoCo compiles,
item by item; files outside the reader's subset go through MuJoCo, with the reason."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from robotsim import load_robot
from robotsim.errors import ModelFileError
from robotsim.model import library_names
from robotsim.model.mjcf import load_mjcf, save_mjcf
from robotsim.model.mjcf_reader import Unsupported, read_mjcf
from robotsim.model.robot import RobotModel
from robotsim.model.urdf import load_urdf

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures"
FIXTURE_MJCF = sorted((FIXTURES / "mjcf").rglob("*.xml"))
FIXTURE_URDF = [  # the robots (common_properties.urdf is a xacro fragment)
    FIXTURES / "urdf" / "franka_panda" / "panda.urdf",
    FIXTURES / "urdf" / "turtlebot3_burger" / "turtlebot3_description" / "urdf"
    / "turtlebot3_burger.urdf",
]  # fmt: skip
SHIPPED_MJCF = sorted((Path(__file__).resolve().parents[2] / "src").rglob("*.xml"))

pytestmark = [
    pytest.mark.filterwarnings("ignore:obj_decoder"),
    pytest.mark.filterwarnings("ignore:compiler attribute 'settotalmass' is deprecated"),
]


def _both(path: Path) -> tuple[RobotModel, RobotModel]:
    ours = load_mjcf(path)
    assert ours.metadata["reader"] == "robotsim", ours.metadata["reader"]
    return ours, load_mjcf(path, reader="mujoco")


def assert_same_model(a: RobotModel, b: RobotModel, n_q: int = 20) -> None:
    """``a`` (our reader) equals ``b`` (MuJoCo's): names and order, joint types, limits,
    dynamics, mimics, FK of random ``q`` within 1e-12, inertials within 1e-9 relative,
    shapes (geometry, pose, colour, name), frames, poses, metadata."""
    assert (a.name, a.floating, a.root) == (b.name, b.floating, b.root)
    assert a.link_names == b.link_names
    assert [j.name for j in a.joints] == [j.name for j in b.joints]
    assert a.joint_names == b.joint_names and a.frame_names == b.frame_names
    for ja, jb in zip(a.joints, b.joints):
        assert (ja.type, ja.parent, ja.child, ja.mimic) == (jb.type, jb.parent, jb.child,
                                                            jb.mimic), ja.name  # fmt: skip
        lim_a, lim_b = ja.limits, jb.limits
        np.testing.assert_allclose([lim_a.lower, lim_a.upper, lim_a.velocity, lim_a.effort],
                                   [lim_b.lower, lim_b.upper, lim_b.velocity, lim_b.effort],
                                   rtol=1e-12, err_msg=ja.name)  # fmt: skip
        assert ja.dynamics == pytest.approx(jb.dynamics, rel=1e-12) or (
            np.allclose(list(vars(ja.dynamics).values()), list(vars(jb.dynamics).values()),
                        rtol=1e-12, atol=1e-15)), ja.name  # fmt: skip
        np.testing.assert_allclose(ja.axis, jb.axis, atol=1e-12, err_msg=ja.name)
        for fld in ("origin", "post"):
            np.testing.assert_allclose(getattr(ja, fld), getattr(jb, fld), atol=1e-12,
                                       err_msg=f"{ja.name} {fld}")  # fmt: skip
    for la, lb in zip(a.links, b.links):
        assert (la.inertial is None) == (lb.inertial is None), la.name
        if la.inertial is not None and lb.inertial is not None:
            ia, ib = la.inertial, lb.inertial
            assert ia.mass == pytest.approx(ib.mass, rel=1e-9), la.name
            scale = max(float(np.linalg.norm(ib.com)), 1e-3)
            np.testing.assert_allclose(ia.com, ib.com, rtol=0, atol=1e-9 * scale, err_msg=la.name)
            tol = 1e-9 * np.abs(ib.inertia).max()
            np.testing.assert_allclose(ia.inertia, ib.inertia, rtol=0, atol=tol, err_msg=la.name)
        for kind in ("visuals", "collisions"):
            sa, sb = getattr(la, kind), getattr(lb, kind)
            assert len(sa) == len(sb), (la.name, kind)
            for x, y in zip(sa, sb):
                assert (x.geometry, x.name, x.rgba) == (y.geometry, y.name, y.rgba), la.name
                np.testing.assert_allclose(x.T_link_shape, y.T_link_shape, atol=1e-12,
                                           err_msg=f"{la.name} {x.name}")  # fmt: skip
    for fa, fb in zip(a.frames, b.frames):
        assert fa.link == fb.link
        np.testing.assert_allclose(fa.T_link_frame, fb.T_link_frame, atol=1e-12)
    assert set(a.poses) == set(b.poses)
    for name in a.poses:
        assert a.poses[name].keys() == b.poses[name].keys()
        np.testing.assert_allclose(list(a.poses[name].values()), list(b.poses[name].values()),
                                   rtol=1e-12, atol=1e-12)  # fmt: skip
    meta_a = {k: v for k, v in a.metadata.items() if k not in ("reader", "T_world_root")}
    meta_b = {k: v for k, v in b.metadata.items() if k not in ("reader", "T_world_root")}
    assert meta_a == meta_b
    if "T_world_root" in b.metadata:
        np.testing.assert_allclose(a.metadata["T_world_root"], b.metadata["T_world_root"],
                                   atol=1e-12)  # fmt: skip
    rng = np.random.default_rng(3)
    lo = np.where(np.isfinite(b.lower), b.lower, -3.0)
    hi = np.where(np.isfinite(b.upper), b.upper, 3.0)
    for q in rng.uniform(lo, hi, size=(n_q, b.nq)):
        np.testing.assert_allclose(a.fk_all(q), b.fk_all(q), rtol=0, atol=1e-12)
        for fr in a.frame_names:
            np.testing.assert_allclose(a.fk(q, fr), b.fk(q, fr), rtol=0, atol=1e-12)


# ------------------------------------------------------------ files we have
@pytest.mark.parametrize("path", FIXTURE_MJCF + SHIPPED_MJCF, ids=lambda p: p.name)
def test_fixture_and_shipped_mjcf_read_as_mujoco_compiles_them(path: Path) -> None:
    assert_same_model(*_both(path))


@pytest.mark.parametrize("urdf", FIXTURE_URDF, ids=lambda p: p.stem)
def test_our_exports_of_the_fixture_urdfs(urdf: Path, tmp_path: Path) -> None:
    path = save_mjcf(load_urdf(urdf), tmp_path / "out" / "robot.xml")
    assert_same_model(*_both(path))


@pytest.mark.parametrize("name", library_names())
def test_our_exports_of_the_library_robots(name: str, tmp_path: Path) -> None:
    path = save_mjcf(load_robot(name), tmp_path / f"{name}.xml")
    assert_same_model(*_both(path), n_q=5)


# -------------------------------------------------------- a generated corpus
CUBE_OBJ = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 1 1 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n"


def _arm(seq: str, unit: str) -> str:
    k = 1.0 if unit == "radian" else 180 / math.pi
    return f"""
<mujoco model="arm_{seq}_{unit}">
  <compiler angle="{unit}" eulerseq="{seq}"/>
  <worldbody>
    <body name="base" euler="{0.3 * k} {-0.7 * k} {1.1 * k}" pos="0 0 0.1">
      <joint name="j0" range="{-1 * k} {1.5 * k}" ref="{0.2 * k}" springref="{0.1 * k}"
             stiffness="2" axis="1 2 3"/>
      <geom type="box" size="0.1 0.05 0.02" euler="{0.5 * k} 0 {0.25 * k}"/>
      <body name="l1" pos="0 0 0.2" axisangle="1 1 0 {0.8 * k}">
        <joint name="j1" type="ball" range="0 {0.9 * k}" damping="0.5"/>
        <geom type="capsule" fromto="0 0 0 0.1 0.2 0.3" size="0.02"/>
        <site name="s1" pos="0.1 0 0" euler="{0.1 * k} {0.2 * k} {0.3 * k}"/>
        <site name="ray" type="box" size="0.01" fromto="0.1 0 0.2 0 0.05 0.25"/>
        <site name="ray2" type="capsule" size="0.01" fromto="0 0 0 0 0 -0.1"/>
        <body name="l2" pos="0.1 0.2 0.3" xyaxes="0 1 0 -1 0.2 0.1">
          <joint name="j2" type="slide" axis="0 1 1" range="-0.2 0.3" ref="0.05"
                 frictionloss="0.3" armature="0.01" actuatorfrcrange="-5 7"/>
          <geom type="cylinder" size="0.03 0.1" zaxis="0 0 -1"/>
          <body name="l3" zaxis="0 -1 0.2" pos="0 0 0.1">
            <joint name="j3" limited="false" range="-1 1"/>
            <geom type="ellipsoid" size="0.03 0.02 0.01" quat="1 2 3 4"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <keyframe><key name="home" qpos="0.1 1 0 0 0 0.05"/><key name="short" qpos="0.3"/></keyframe>
</mujoco>"""


DEFAULTS = """
<mujoco model="classes">
  <default>
    <joint damping="0.1" range="-1 1"/>
    <geom type="capsule" size="0.02 0.1 0.3" rgba="0.1 0.2 0.3 1" density="500"/>
    <site size="0.01"/>
    <default class="big">
      <joint damping="2" armature="0.1" axis="0 1 0"/>
      <geom size="0.05" group="1"/>
      <default class="bigger">
        <joint stiffness="3" springref="10"/>
        <geom type="box" size="0.1 0.1 0.1" mass="2"/>
      </default>
    </default>
    <default class="visual">
      <geom contype="0" conaffinity="0" group="2" type="sphere" size="0.03"/>
    </default>
    <default class="collision">
      <geom group="3" type="cylinder" size="0.04 0.05"/>
    </default>
    <default class="tilted">
      <geom euler="30 0 0" type="box" size="0.01 0.02 0.03"/>
      <site euler="0 45 0"/>
    </default>
  </default>
  <worldbody>
    <body name="root" childclass="big">
      <freejoint name="free"/>
      <geom name="torso"/>
      <geom class="visual"/>
      <geom class="collision" pos="0 0 0.1"/>
      <geom class="tilted" quat="0 1 0 0"/>
      <site name="imu" class="tilted"/>
      <body name="a" pos="0.1 0 0">
        <joint name="ja"/>
        <geom class="bigger" name="a/box"/>
        <body name="b" pos="0 0.1 0" childclass="bigger">
          <joint name="jb" class="main"/>
          <geom size="0.02 0.03"/>
          <body name="c" pos="0 0 0.1">
            <joint name="jc"/>
            <geom/>
            <geom class="tilted"/>
            <site name="tip" class="tilted" pos="0 0 0.1"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>"""

FRAMES = """
<mujoco model="frames">
  <compiler angle="radian"/>
  <default><default class="f"><geom type="box" size="0.01 0.02 0.03" rgba="1 0 0 1"/></default>
  </default>
  <worldbody>
    <frame name="outer" pos="1 0 0" euler="0.1 0.2 0.3">
      <body name="base">
        <geom type="sphere" size="0.1"/>
        <frame pos="0 0.5 0" quat="0.9 0.1 0.3 0.2" childclass="f">
          <geom name="framed" pos="0 0 0.1"/>
          <site name="framed_site" pos="0.1 0 0"/>
          <site name="framed_ray" type="cylinder" size="0.01" fromto="0 0 0 1 1 0"/>
          <frame pos="0 0 0.2" axisangle="0 0 1 0.5">
            <body name="inner" pos="0.1 0 0" euler="0 0.4 0">
              <joint name="ji" axis="0 1 0" pos="0.01 0 0"/>
              <geom/>
            </body>
          </frame>
          <joint name="jbase" type="slide" axis="1 0 0" pos="0 0 1"/>
        </frame>
        <body name="after" pos="0 0 -0.3">
          <joint name="ja"/>
          <geom type="cylinder" fromto="0 0 0 0 0 -0.2" size="0.02"/>
        </body>
      </body>
    </frame>
    <body name="second" pos="0 2 0">
      <geom type="box" size="0.1 0.1 0.1"/>
    </body>
  </worldbody>
</mujoco>"""

INERTIA = """
<mujoco model="inertia">
  <compiler inertiagrouprange="0 2"/>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="explicit" pos="0 0 1">
      <joint name="j0" axis="1 0 0"/>
      <inertial pos="0.1 0.2 0.3" quat="0.7 0.1 0.5 0.2" mass="3" diaginertia="0.1 0.2 0.25"/>
      <geom type="box" size="0.1 0.2 0.3"/>
      <body name="full" pos="0 0 0.5">
        <joint name="j1" axis="0 1 0"/>
        <inertial pos="0 0 0.1" mass="1.5" fullinertia="0.3 0.4 0.5 0.01 -0.02 0.03"/>
        <body name="geoms" pos="0 0 0.5">
          <joint name="j2"/>
          <geom type="box" size="0.1 0.2 0.3" pos="0.1 0 0" euler="10 20 30"/>
          <geom type="sphere" size="0.05" pos="0 0.3 0" mass="0.7"/>
          <geom type="capsule" fromto="0 0 0 0.3 0.1 0.2" size="0.04" density="2000"/>
          <geom type="cylinder" size="0.05 0.2" pos="0 0 -0.2" quat="0.5 0.5 0.5 0.5"/>
          <geom type="ellipsoid" size="0.1 0.05 0.02" pos="-0.1 0 0"/>
          <geom type="sphere" size="0.5" group="3"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>"""

MIMIC_AND_MATERIALS = """
<mujoco>
  <compiler autolimits="false"/>
  <default><material rgba="0 1 0 1"/><equality solref="0.01 1"/></default>
  <asset>
    <material name="red" rgba="1 0 0 0.5"/>
    <material name="green"/>
  </asset>
  <worldbody>
    <body name="hand">
      <joint name="lead" limited="true" range="-1 1"/>
      <geom type="box" size="0.1 0.1 0.1" material="red"/>
      <geom type="box" size="0.1 0.1 0.1" material="green" pos="0 0 0.2"/>
      <geom type="box" size="0.1 0.1 0.1" material="red" rgba="0 0 1 1" pos="0 0 0.4"/>
      <body name="f1"><joint name="follow" ref="10"/><geom size="0.02"/></body>
      <body name="f2"><joint name="follow2" type="slide"/><geom size="0.02"/></body>
      <body name="f3"><joint name="quad"/><geom size="0.02"/></body>
      <body><joint/><geom size="0.02"/><body><geom size="0.01"/></body></body>
    </body>
  </worldbody>
  <equality>
    <joint joint1="follow" joint2="lead" polycoef="0.1 -1.5 0 0 0"/>
    <joint joint1="follow2" joint2="lead"/>
    <joint joint1="quad" joint2="lead" polycoef="0 1 0.5"/>
  </equality>
  <keyframe><key name="k" qpos="0.5 0.1 0.2 0.3 0.4"/></keyframe>
</mujoco>"""


def _write_includes(folder: Path) -> Path:
    (folder / "parts").mkdir()
    (folder / "parts" / "defaults.xml").write_text(
        '<mujoco><default><joint damping="1" range="-2 2"/><geom type="box"'
        ' size="0.1 0.1 0.1"/></default></mujoco>'
    )
    (folder / "parts" / "leg.xml").write_text(
        '<mujoco><body name="leg" pos="0 0 -0.5"><joint name="knee"/><geom/>'
        '<body name="foot" pos="0 0 -0.3"><joint name="ankle" axis="1 0 0"/><geom/></body>'
        "</body></mujoco>"
    )
    (folder / "meshes").mkdir()
    (folder / "meshes" / "cube.obj").write_text(CUBE_OBJ)
    main = folder / "robot.xml"
    main.write_text(
        '<mujoco model="included"><compiler meshdir="meshes"/>'
        '<include file="parts/defaults.xml"/>'
        '<asset><mesh file="cube.obj" scale="0.1 0.2 0.3"/>'
        '<mesh name="other" file="cube.obj"/></asset>'
        '<worldbody><body name="hip" pos="0 0 1"><joint name="hip"/>'
        '<inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.1"/>'
        '<geom type="mesh" mesh="cube" pos="0.1 0 0" euler="0 0 30" group="1"/>'
        '<geom type="mesh" mesh="other" contype="0" conaffinity="0"/>'
        '<include file="parts/leg.xml"/></body></worldbody></mujoco>'
    )
    return main


MENAGERIE_STYLE = """
<mujoco model="arm">
  <compiler angle="radian" meshdir="assets" autolimits="true"/>
  <option integrator="implicitfast"/>
  <default>
    <default class="arm">
      <material specular="0.5" shininess="0.25"/>
      <joint armature="0.1" damping="1" axis="0 0 1" range="-2.8973 2.8973"/>
      <general dyntype="none" biastype="affine" ctrlrange="-2.8973 2.8973" forcerange="-87 87"/>
      <default class="finger"><joint axis="0 1 0" type="slide" range="0 0.04"/></default>
      <default class="visual"><geom type="mesh" contype="0" conaffinity="0" group="2"/></default>
      <default class="collision">
        <geom type="mesh" group="3"/>
        <default class="pad"><geom type="box" size="0.0085 0.004 0.0085" pos="0 0.0055 0.04"/>
        </default>
      </default>
    </default>
  </default>
  <asset>
    <material class="arm" name="white" rgba="1 1 1 1"/>
    <material class="arm" name="black" rgba="0.25 0.25 0.25 1"/>
    <mesh name="link0_c" file="link0.obj"/>
    <mesh file="link0_0.obj"/>
    <mesh file="link1.obj" scale="0.5 0.5 0.5"/>
    <texture type="2d" name="tex" file="tex.png"/>
  </asset>
  <worldbody>
    <light name="top" pos="0 0 2" mode="trackcom"/>
    <body name="link0" childclass="arm">
      <inertial mass="0.629769" pos="-0.041018 -0.00014 0.049974"
          fullinertia="0.00315 0.00388 0.004285 8.2904e-7 0.00015 8.2299e-6"/>
      <geom mesh="link0_0" material="black" class="visual"/>
      <geom mesh="link0_c" class="collision"/>
      <body name="link1" pos="0 0 0.333">
        <inertial mass="4.970684" pos="0.003875 0.002081 -0.04762"
            fullinertia="0.70337 0.70661 0.0091170 -0.00013900 0.0067720 0.019169"/>
        <joint name="joint1"/>
        <geom material="white" mesh="link1" class="visual" euler="0.1 0.2 0.3"/>
        <body name="link2" quat="1 -1 0 0">
          <inertial mass="0.646926" pos="-0.003141 -0.02872 0.003495"
              fullinertia="0.0079620 2.8110e-2 2.5995e-2 -3.925e-3 1.0254e-2 7.04e-4"/>
          <joint name="joint2" range="-1.7628 1.7628"/>
          <body name="hand" pos="0 0 0.1" quat="0.9238795 0 0 -0.3826834">
            <inertial mass="0.73" pos="-0.01 0 0.03" diaginertia="0.001 0.0025 0.0017"/>
            <site name="tcp" pos="0 0 0.1"/>
            <body name="left_finger" pos="0 0 0.0584">
              <inertial mass="0.015" pos="0 0 0" diaginertia="2.375e-6 2.375e-6 7.5e-7"/>
              <joint name="finger_joint1" class="finger"/>
              <geom class="pad"/>
            </body>
            <body name="right_finger" pos="0 0 0.0584" quat="0 0 0 1">
              <inertial mass="0.015" pos="0 0 0" diaginertia="2.375e-6 2.375e-6 7.5e-7"/>
              <joint name="finger_joint2" class="finger"/>
              <geom class="pad"/>
            </body>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <contact><exclude body1="link0" body2="link1"/></contact>
  <tendon>
    <fixed name="split">
      <joint joint="finger_joint1" coef="0.5"/><joint joint="finger_joint2" coef="0.5"/>
    </fixed>
  </tendon>
  <equality>
    <joint joint1="finger_joint1" joint2="finger_joint2" solimp="0.95 0.99 0.001"
           solref="0.005 1"/>
  </equality>
  <actuator>
    <general class="arm" name="actuator1" joint="joint1" gainprm="4500" biasprm="0 -4500 -450"/>
    <general class="arm" name="actuator8" tendon="split" forcerange="-100 100" ctrlrange="0 255"
        gainprm="0.01568627451 0 0" biasprm="0 -100 -10"/>
  </actuator>
  <sensor><framepos name="tcp_pos" objtype="site" objname="tcp"/></sensor>
  <keyframe><key name="home" qpos="0.1 -0.2 0.04 0.04" ctrl="0.1 255"/></keyframe>
</mujoco>"""


CORPUS = {
    **{f"arm_{seq}_{unit}": _arm(seq, unit)
       for seq in ("xyz", "zyx", "XYZ", "zXy") for unit in ("degree", "radian")},
    "classes": DEFAULTS,
    "frames": FRAMES,
    "inertia": INERTIA,
    "mimic_materials": MIMIC_AND_MATERIALS,
    "inertiafromgeom_true": """
<mujoco><compiler inertiafromgeom="true"/><worldbody><body name="a"><joint/><geom size=".1"/>
  <inertial pos="0 0 0" mass="9" diaginertia="1 1 1"/>
  <body name="b" pos="0 0 1"><inertial pos="0 0 0.1" mass="3" diaginertia="1 2 2"/></body>
  <body name="c" pos="0 0 1"><inertial pos="0 0 0" mass="3" diaginertia="1 1 1"/>
    <geom size=".2" pos="1 0 0"/></body>
  <body name="d" pos="0 1 1"><joint/><geom type="box" size=".1 .2 .3"/></body>
</body></worldbody></mujoco>""",
    "inertiafromgeom_false": """
<mujoco><compiler inertiafromgeom="false"/><worldbody><body name="a"><joint/><geom size=".1"/>
  <inertial pos="0 0 0.2" mass="9" diaginertia="1 1 1"/>
  <body name="b" pos="0 0 1"><geom size=".1"/></body>
</body></worldbody></mujoco>""",
    "settotalmass": INERTIA.replace('<compiler inertiagrouprange="0 2"/>',
                                    '<compiler inertiagrouprange="0 2" settotalmass="14"/>'),
    "menagerie_style": MENAGERIE_STYLE,
}  # fmt: skip


@pytest.mark.parametrize("name", [*CORPUS, "includes_meshes"])
def test_generated_corpus_reads_as_mujoco_compiles_it(name: str, tmp_path: Path) -> None:
    if name == "includes_meshes":
        path = _write_includes(tmp_path)
    else:
        path = tmp_path / f"{name}.xml"
        path.write_text(CORPUS[name])
        (tmp_path / "assets").mkdir()
        for mesh in ("link0.obj", "link0_0.obj", "link1.obj"):
            (tmp_path / "assets" / mesh).write_text(CUBE_OBJ)
        _write_png(tmp_path / "tex.png")  # no texturedir: beside the file
    assert_same_model(*_both(path))


def _write_png(path: Path) -> None:
    from PIL import Image

    Image.new("RGB", (4, 4), (200, 100, 50)).save(path)


def test_linear_growth_model_equal_at_two_thousand_bodies(tmp_path: Path) -> None:
    from robotsim.bench.parsing import mjcf_wide

    path = tmp_path / "wide.xml"
    path.write_text(mjcf_wide(2_000))
    assert_same_model(*_both(path), n_q=2)


# -------------------------------------------------------------- fall backs
FALLBACKS = {
    "mesh inertia": (
        '<mujoco><asset><mesh file="cube.obj"/></asset><worldbody><body><joint/>'
        '<geom type="mesh" mesh="cube"/></body></worldbody></mujoco>',
        "inertia from a mesh",
    ),
    "replicate": (
        '<mujoco><worldbody><replicate count="3" offset="0.1 0 0"><body><joint/>'
        '<geom size="0.1"/></body></replicate></worldbody></mujoco>',
        "<replicate>",
    ),
    "fusestatic": (
        '<mujoco><compiler fusestatic="true"/><worldbody><body><joint/><geom size="0.1"/>'
        '<body pos="0 0 1"><geom size="0.1"/></body></body></worldbody></mujoco>',
        "fusestatic",
    ),
    "massless moving body": (  # MuJoCo bounds it (boundmass/boundinertia)
        '<mujoco><compiler boundmass="0.001" boundinertia="1e-6"/><worldbody><body><joint/>'
        '<body pos="0 0 1"><joint/><geom size="0.1"/></body></body></worldbody></mujoco>',
        "boundmass",
    ),
    "box fromto": (
        '<mujoco><worldbody><body><joint/><geom type="box" fromto="0 0 0 0 0 1" size="0.1"/>'
        "</body></worldbody></mujoco>",
        "fromto",
    ),
}


@pytest.mark.parametrize("name", FALLBACKS)
def test_files_outside_the_subset_go_through_mujoco(name: str, tmp_path: Path) -> None:
    xml, why = FALLBACKS[name]
    (tmp_path / "cube.obj").write_text(CUBE_OBJ)
    path = tmp_path / "robot.xml"
    path.write_text(xml)
    with pytest.raises(Unsupported, match=why):
        read_mjcf(path)
    model = load_mjcf(path)
    assert model.metadata["reader"].startswith("mujoco: ") and why in model.metadata["reader"]
    assert len(model.links) >= 2


BAD = ["<mujoco><worldbody><body>",
       "<mujoco><worldbody><body><joint range='a b'/></body></worldbody></mujoco>"]  # fmt: skip


@pytest.mark.parametrize("text", BAD)
def test_bad_files_get_mujocos_one_line_error_naming_the_file(text: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.xml"
    path.write_text(text)
    with pytest.raises(ModelFileError, match=r"bad\.xml.*MuJoCo cannot load it") as err:
        load_mjcf(path)
    assert "\n" not in str(err.value)


GLOBALS = INERTIA.replace(
    '<compiler inertiagrouprange="0 2"/>',
    '<compiler inertiagrouprange="0 2" angle="degree"/><option timestep="0.01" '
    'integrator="RK4" gravity="0 0 -1"><flag contact="disable"/></option><size njmax="50"/>'
    '<visual><global fovy="50"/><rgba haze="0 0 0 1"/></visual><statistic extent="2"/>',
)


def test_mutated_files_read_the_same_or_fall_back(tmp_path: Path) -> None:
    """Differential fuzz: wherever the reader accepts a mutated humanoid or corpus file,
    MuJoCo accepts it too and compiles the same model; where the reader refuses one
    itself (a ModelFileError, not a fall back), MuJoCo refuses it too (seeded, like
    tests/fuzz). ``tests/model/test_mjcf_globals.py`` mutates the model-wide sections
    alone."""
    import random
    import warnings

    from tests.fuzz.mutate import any_mutation

    from robotsim.model.mjcf import model_from_tables

    seeds = {"humanoid": FIXTURE_MJCF[0].read_bytes(), "classes": DEFAULTS.encode(),
             "frames": FRAMES.encode(), "inertia": INERTIA.encode(),
             "globals": GLOBALS.encode()}  # fmt: skip
    read = refused = 0
    for name, data in seeds.items():
        rng = random.Random(f"17:{name}")
        for i in range(12 if name != "globals" else 40):
            path = tmp_path / f"{name}_{i}.xml"
            path.write_bytes(any_mutation(rng, data, "xml"))
            try:
                tables = read_mjcf(path)
            except Unsupported:
                continue
            except ModelFileError:
                with pytest.raises(ModelFileError, match="MuJoCo cannot load it"):
                    load_mjcf(path, reader="mujoco")
                refused += 1
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # MuJoCo's NaN warnings
                theirs = load_mjcf(path, reader="mujoco")  # must not raise
            tables.model_name = theirs.name
            assert_same_model(model_from_tables(tables, source=path), theirs, n_q=2)
            read += 1
    assert read > 0 and refused > 0, (read, refused)


def test_reading_with_our_reader_does_not_load_mujoco(tmp_path: Path) -> None:
    """``load_robot``/``robotsim inspect`` of an MJCF the reader handles never imports
    MuJoCo (nothing compiles on the side); a fallback file does."""
    import subprocess
    import sys

    fallback = tmp_path / "fusestatic.xml"
    fallback.write_text(FALLBACKS["fusestatic"][0])
    code = (
        "import sys; from robotsim import load_robot; "
        f"m = load_robot({str(FIXTURE_MJCF[0])!r}); print('mujoco' in sys.modules); "
        f"load_robot({str(fallback)!r}); print('mujoco' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()  # fmt: skip
    assert out == ["False", "True"]


def test_the_reader_can_be_chosen(tmp_path: Path) -> None:
    from robotsim.errors import InputError

    path = FIXTURE_MJCF[0]
    assert load_mjcf(path).metadata["reader"] == "robotsim"
    assert load_mjcf(path, reader="mujoco").metadata["reader"] == "mujoco"
    with pytest.raises(InputError, match=r"reader 'fast'.*valid: 'auto', 'mujoco'"):
        load_mjcf(path, reader="fast")


def test_nested_includes_resolve_from_the_main_files_folder(tmp_path: Path) -> None:
    """As MuJoCo does: ``sub/a.xml`` including ``b.xml`` takes ``./b.xml``, not
    ``sub/b.xml`` (both exist here, with different bodies)."""
    (tmp_path / "sub").mkdir()
    main = tmp_path / "main.xml"
    main.write_text('<mujoco><worldbody><body name="r"><joint/><geom size="1"/>'
                    '<include file="sub/a.xml"/></body></worldbody></mujoco>')  # fmt: skip
    (tmp_path / "sub" / "a.xml").write_text('<mujoco><include file="b.xml"/></mujoco>')
    for folder, name in ((tmp_path, "main_dir"), (tmp_path / "sub", "sub_dir")):
        (folder / "b.xml").write_text(
            f'<mujoco><body name="{name}"><joint/><geom size="1"/></body></mujoco>'
        )
    ours, theirs = _both(main)
    assert ours.link_names == ("world", "r", "main_dir")
    assert_same_model(ours, theirs)
