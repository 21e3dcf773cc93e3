"""Export that MuJoCo accepts: a root link called ``world``, inertias written exactly,
impossible inertias refused at load, and exact round trips of every fixture."""

from __future__ import annotations

import re
from pathlib import Path

import mujoco
import numpy as np
import pytest

from robotsim.cli import main
from robotsim.errors import ModelError, ModelFileError
from robotsim.model import RobotBuilder
from robotsim.model.loader import load_robot
from robotsim.model.mjcf import full_qpos, load_mjcf, save_mjcf, to_mjcf_string, to_mjspec
from robotsim.model.robot import Inertial, RobotModel
from robotsim.model.urdf import parse_urdf_string
from robotsim.physics import RobotPlacement, Scene, World

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures"
# robots only (the TurtleBot's common_properties.urdf is a xacro fragment of materials)
URDF_FIXTURES = [p for p in sorted(FIXTURES.glob("urdf/**/*.urdf")) if "<joint" in p.read_text()]
MJCF_FIXTURES = sorted(FIXTURES.glob("mjcf/**/*.xml"))

pytestmark = pytest.mark.filterwarnings("ignore:obj_decoder")

ARM = """<robot name="warm">
  <link name="world"/>
  <joint name="fix" type="fixed"><parent link="world"/><child link="base"/>
    <origin xyz="0 0 0.1"/></joint>
  <link name="base"><inertial><mass value="2"/>
    <inertia ixx="0.01" iyy="0.02" izz="0.015" ixy="0.001" ixz="0" iyz="0.0005"/></inertial>
    <collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <origin xyz="0 0 0.2" rpy="0.1 0 0.3"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="10" velocity="2"/></joint>
  <link name="l1"><inertial><origin xyz="0 0 0.1" rpy="0.2 0.3 0.4"/><mass value="1"/>
    <inertia ixx="{ixx}" iyy="{iyy}" izz="{izz}" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="tip"/>
    <origin xyz="0 0 0.3"/><axis xyz="1 0 0"/>
    <limit lower="-2" upper="2" effort="10" velocity="2"/></joint>
  <link name="tip"/>
</robot>"""


def arm(ixx: float = 0.003, iyy: float = 0.003, izz: float = 0.001) -> RobotModel:
    return parse_urdf_string(ARM.format(ixx=ixx, iyy=iyy, izz=izz))


def random_q(model: RobotModel, n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    lo = np.where(np.isfinite(model.lower), model.lower, -3.0)
    hi = np.where(np.isfinite(model.upper), model.upper, 3.0)
    return rng.uniform(lo, hi, size=(n, model.nq))


def mujoco_link_poses(model: RobotModel, q: np.ndarray) -> np.ndarray:
    """MuJoCo's body poses ``(nlinks, 4, 4)`` of ``to_mjspec(model)`` at ``q``."""
    mm = to_mjspec(model).compile()
    d = mujoco.MjData(mm)
    free = 7 if model.floating else 0
    d.qpos[:free] = [0, 0, 0, 1, 0, 0, 0][:free]
    d.qpos[free:] = full_qpos(model, q)
    mujoco.mj_kinematics(mm, d)
    out = np.tile(np.eye(4), (len(model.links), 1, 1))
    for i, name in enumerate(model.link_names):
        b = mm.body(name if name != "world" or i == 0 else "world_link").id
        out[i, :3, :3] = d.xmat[b].reshape(3, 3)
        out[i, :3, 3] = d.xpos[b]
    return out


# ----------------------------------------------------------------- 'world' links
def test_fixed_root_called_world_becomes_the_world_body(tmp_path: Path) -> None:
    m = arm()
    xml = to_mjcf_string(m)
    assert 'name="world"' not in xml
    for q in random_q(m, 5, seed=1):
        np.testing.assert_allclose(mujoco_link_poses(m, q), m.fk_all(q), rtol=0, atol=1e-12)
    again = load_mjcf(save_mjcf(m, tmp_path / "warm.xml"))
    q = random_q(m, 20, seed=2)
    for name in ("base", "l1", "tip"):
        np.testing.assert_allclose(again.fk(q, name), m.fk(q, name), rtol=0, atol=1e-12)


def test_other_links_called_world_are_renamed() -> None:
    b = RobotBuilder("flyer", floating=True)
    b.link("world", inertial=Inertial(1.0, np.zeros(3), np.eye(3) * 0.01))
    b.link("arm", inertial=Inertial(0.5, [0, 0, 0.1], np.diag([0.002, 0.002, 0.001])))
    b.joint("j", "revolute", "world", "arm", origin=np.eye(4), axis=[0, 0, 1], lower=-1, upper=1)
    m = b.build()
    xml = to_mjcf_string(m)
    assert '<body name="world_link"' in xml and '<body name="world"' not in xml
    np.testing.assert_allclose(mujoco_link_poses(m, np.array([0.4])), m.fk_all([0.4]), atol=1e-12)
    # with a prefix the name is legal and kept
    assert '<body name="r/world"' in to_mjcf_string(m, prefix="r/")


def test_world_with_a_world_rooted_robot_steps() -> None:
    m = arm()
    w = World(Scene(robots=(RobotPlacement("r", m, q0={"j1": 0.3}),)))
    w.step(50)
    pose = w.state().pose("r/l1")
    assert np.all(np.isfinite(pose))


# --------------------------------------------------------------------- inertias
def test_inertias_are_written_exactly_and_mujoco_keeps_them() -> None:
    m = load_robot(str(FIXTURES / "urdf" / "franka_panda" / "panda.urdf"))
    xml = to_mjcf_string(m)
    assert "balanceinertia" not in xml and "boundmass" not in xml
    mm = to_mjspec(m).compile()
    checked = 0
    for lk in m.links:
        ine = lk.inertial
        if ine is None or ine.mass == 0:
            continue
        el = re.search(rf'<body name="{lk.name}"[^>]*>\s*<inertial pos="([^"]+)" '
                       rf'mass="([^"]+)" fullinertia="([^"]+)"', xml)  # fmt: skip
        assert el is not None, lk.name
        I = np.asarray(ine.inertia)
        full = [I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]]
        assert [float(v) for v in el.group(3).split()] == full  # bit for bit
        assert float(el.group(2)) == ine.mass
        b = mm.body(lk.name).id
        assert mm.body_mass[b] == ine.mass
        R = np.empty(9)
        mujoco.mju_quat2Mat(R, mm.body_iquat[b])
        R = R.reshape(3, 3)
        I_mj = R @ np.diag(mm.body_inertia[b]) @ R.T
        np.testing.assert_allclose(I_mj, I, rtol=0, atol=1e-12 * np.abs(I).max())
        checked += 1
    assert checked >= 8


@pytest.mark.parametrize(
    ("moments", "message"),
    [
        ((0.001, 0.001, 0.003), "violates the triangle inequality"),
        ((0.003, -0.001, 0.003), "not positive definite"),
        ((0.0, 0.0, 0.0), "not positive definite"),
    ],
    ids=["triangle", "negative", "zero-with-mass"],
)
def test_impossible_inertias_are_refused_naming_the_link(moments, message: str) -> None:
    with pytest.raises(ModelFileError, match=rf"link 'l1': inertia .*{message}"):
        arm(*moments)


def test_impossible_inertia_in_builder_and_robot_yaml(tmp_path: Path) -> None:
    b = RobotBuilder("bad")
    b.link("base", inertial=Inertial(1.0, np.zeros(3), np.diag([1.0, 1.0, 3.0])))
    with pytest.raises(ModelError, match="link 'base': inertia violates the triangle"):
        b.build()
    f = tmp_path / "bad.yaml"
    f.write_text(
        "format: robotsim-robot/1\nname: bad\nlinks:\n"
        "  - {name: base, inertial: {mass: 1, inertia: [1, 1, 3]}}\n"
    )
    with pytest.raises(ModelFileError, match=r"bad.yaml: .*link 'base': inertia"):
        load_robot(str(f))


def test_cli_bad_inertia_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "bad.urdf"
    f.write_text(ARM.format(ixx=0.001, iyy=0.001, izz=0.003))
    for argv in (["inspect", str(f)], ["serve", str(f), "--udp", "127.0.0.1:0"]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and "link 'l1'" in err and "Traceback" not in err


def test_cli_convert_world_root_then_inspect(tmp_path: Path, capsys) -> None:
    src = tmp_path / "warm.urdf"
    src.write_text(ARM.format(ixx=0.003, iyy=0.003, izz=0.001))
    out = tmp_path / "warm.xml"
    assert main(["convert", str(src), "--to", "mjcf", "--out", str(out)]) == 0
    assert main(["inspect", str(out)]) == 0
    capsys.readouterr()


# ------------------------------------------------------------------ round trips
@pytest.mark.parametrize("path", URDF_FIXTURES + MJCF_FIXTURES, ids=lambda p: p.name)
def test_every_fixture_round_trips_through_mjcf(path: Path, tmp_path: Path) -> None:
    """URDF -> MJCF -> FK and MJCF -> MJCF -> FK agree to 1e-12 on every link."""
    m = load_robot(str(path))
    again = load_mjcf(save_mjcf(m, tmp_path / "again.xml"))
    assert again.joint_names == m.joint_names
    q = random_q(m, 20, seed=3)
    for name in m.link_names:
        if name in again.link_names:
            np.testing.assert_allclose(again.fk(q, name), m.fk(q, name), rtol=0, atol=1e-12,
                                       err_msg=name)  # fmt: skip
    for qi in q[:3]:
        np.testing.assert_allclose(mujoco_link_poses(m, qi), m.fk_all(qi), rtol=0, atol=1e-12)
