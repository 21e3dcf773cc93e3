"""Export that MuJoCo accepts: a root link called ``world``, inertias written exactly,
impossible inertias refused at load, and exact round trips of every fixture."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import mujoco
import numpy as np
import pytest

from robotsim.cli import main
from robotsim.errors import ModelError, ModelFileError
from robotsim.model import RobotBuilder
from robotsim.model.loader import library_names, load_robot
from robotsim.model.mjcf import full_qpos, load_mjcf, save_mjcf, to_mjcf_string, to_mjspec
from robotsim.model.principal_inertia import on_triangle_boundary, principal_inertia
from robotsim.model.robot import Inertial, RobotModel
from robotsim.model.urdf import parse_urdf_string, save_urdf
from robotsim.physics import RobotPlacement, Scene, World
from robotsim.spatial import quat_to_R

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


def arm_with_inertia(I: np.ndarray) -> RobotModel:
    """The ARM robot with link ``l1``'s tensor ``I`` (in its link axes) and a small
    mass on ``tip`` (MuJoCo's own URDF reader refuses a massless moving body)."""
    m = arm()
    given = {
        "l1": Inertial(1.0, np.array([0, 0, 0.1]), I),
        "tip": Inertial(0.1, np.zeros(3), np.eye(3) * 1e-4),
    }
    links = tuple(
        replace(lk, inertial=given[lk.name]) if lk.name in given else lk for lk in m.links
    )
    return replace(m, links=links)


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
def _file_inertia(xml: str, body: str) -> tuple[float, np.ndarray, str]:
    """(mass, tensor in the body axes, diaginertia text) of ``body``'s ``<inertial>``."""
    el = re.search(rf'<body name="{body}"[^>]*>\s*<inertial ([^>]*)/>', xml)
    assert el is not None, body
    attrs = dict(re.findall(r'(\w+)="([^"]*)"', el.group(1)))
    assert "fullinertia" not in attrs
    moments = np.array([float(v) for v in attrs["diaginertia"].split()])
    R = quat_to_R([float(v) for v in attrs.get("quat", "1 0 0 0").split()])
    return float(attrs["mass"]), (R * moments) @ R.T, attrs["diaginertia"]


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
        I = np.asarray(ine.inertia)
        mass, I_file, diag = _file_inertia(xml, lk.name)
        assert mass == ine.mass
        if np.count_nonzero(I - np.diag(np.diag(I))) == 0:
            assert diag == " ".join(repr(float(v)) for v in np.diag(I))  # bit for bit
        # the principal frame written to round-off
        np.testing.assert_allclose(I_file, I, rtol=0, atol=4e-15 * np.abs(I).max())
        b = mm.body(lk.name).id
        assert mm.body_mass[b] == ine.mass
        R = np.empty(9)
        mujoco.mju_quat2Mat(R, mm.body_iquat[b])
        R = R.reshape(3, 3)
        I_mj = R @ np.diag(mm.body_inertia[b]) @ R.T
        np.testing.assert_allclose(I_mj, I, rtol=0, atol=1e-12 * np.abs(I).max())
        checked += 1
    assert checked >= 8


def _boundary_tensors(n: int, seed: int = 0) -> list[np.ndarray]:
    """Tensors with principal moments exactly on ``A + B = C`` (flat bodies), turned
    by random rotations, plus the PUMA 560's degenerate link 1 as MJCF import gives it."""
    rng = np.random.default_rng(seed)
    out = [np.array([[0.175, -3.885780586188048e-17, 0], [-3.885780586188048e-17, 0.35, 0],
                     [0, 0, 0.175]])]  # fmt: skip
    for _ in range(n):
        a, b = rng.uniform(0.001, 0.5, 2)
        q = rng.normal(size=4)
        R = quat_to_R(q / np.linalg.norm(q))
        I = (R * [a, b, a + b]) @ R.T
        out.append((I + I.T) / 2.0)
    return out


def test_tensors_on_the_triangle_boundary_compile_in_mujoco(tmp_path: Path) -> None:
    """MJCF (principal frame) and URDF exports of flat-body tensors load in MuJoCo
    (its URDF reader too) without balanceinertia; tensors kept to round-off."""
    tensors = _boundary_tensors(60)
    for I in tensors:
        assert Inertial(1.0, np.zeros(3), I).problem() is None
        moments, _ = principal_inertia(I)
        a, b, c = np.sort(moments)
        assert a + b >= c  # exactly, as MuJoCo checks
        assert on_triangle_boundary(moments)
        ev = np.linalg.eigvalsh(I)
        np.testing.assert_allclose(np.sort(moments), ev, rtol=0, atol=1e-15 * ev[2])
        m = arm_with_inertia(I)
        mm = to_mjspec(m).compile()  # raises "inertia must satisfy A + B >= C" if not
        bid = mm.body("l1").id
        Rm = quat_to_R(mm.body_iquat[bid])
        np.testing.assert_allclose((Rm * mm.body_inertia[bid]) @ Rm.T, I, rtol=0,
                                   atol=1e-15 * ev[2] * 8)  # fmt: skip
        # URDF: MuJoCo's own URDF reader diagonalises the file's tensor again
        urdf = save_urdf(m, tmp_path / "b.urdf")
        mujoco.MjModel.from_xml_path(str(urdf))
        back = load_robot(str(urdf)).link("l1").inertial
        np.testing.assert_allclose(back.inertia, I, rtol=0, atol=4e-15 * ev[2])


def test_round_off_below_the_boundary_lowers_the_largest_moment_only() -> None:
    moments, R = principal_inertia(np.diag([0.1, 0.2, 0.30000000000000004 * (1 + 1e-12)]))
    assert R is None
    assert moments[0] == 0.1 and moments[1] == 0.2 and moments[2] == 0.1 + 0.2
    with pytest.raises(ModelError, match="link 'l9': inertia violates the triangle"):
        principal_inertia(np.diag([0.1, 0.2, 0.31]), link="l9")


def test_cli_puma560_to_mjcf_then_world_and_again(tmp_path: Path, capsys) -> None:
    """The reported bug: convert puma560 to MJCF, load it, place it in a World (and
    export that again): MuJoCo's inertia check passed on link 1 (0.175 + 0.175 = 0.35)."""
    out = tmp_path / "x.xml"
    assert main(["convert", "puma560", "--to", "mjcf", "--out", str(out)]) == 0
    m = load_robot(str(out))
    World(Scene(robots=(RobotPlacement("r", m),)))
    again = load_robot(str(save_mjcf(m, tmp_path / "y.xml")))
    World(Scene(robots=(RobotPlacement("r", again),)))
    assert main(["convert", str(out), "--to", "urdf", "--out", str(tmp_path / "x.urdf")]) == 0
    mujoco.MjModel.from_xml_path(str(tmp_path / "x.urdf"))
    I0 = np.asarray(load_robot("puma560").link("link1").inertial.inertia)
    np.testing.assert_allclose(again.link("link1").inertial.inertia, I0, rtol=0, atol=1e-15)
    capsys.readouterr()


@pytest.mark.parametrize(
    ("moments", "message"),
    [
        ((0.001, 0.001, 0.003), "violates the triangle inequality"),
        (
            (0.003, -0.001, 0.003),
            r"negative principal moment \(principal moments "
            r"\[-0.001, 0.003, 0.003\]",
        ),
    ],
    ids=["triangle", "negative"],
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
ROBOTS = [str(p) for p in URDF_FIXTURES + MJCF_FIXTURES] + library_names()


def _assert_same_inertias(a: RobotModel, b: RobotModel) -> None:
    for lk in a.links:
        if lk.inertial is None or lk.inertial.mass == 0 or lk.name not in b.link_names:
            continue
        other = b.link(lk.name).inertial
        I = np.asarray(lk.inertial.inertia)
        assert other is not None and other.mass == pytest.approx(lk.inertial.mass, rel=1e-15)
        np.testing.assert_allclose(other.inertia, I, rtol=0, atol=1e-12 * np.abs(I).max(),
                                   err_msg=lk.name)  # fmt: skip


def _assert_same_fk(a: RobotModel, b: RobotModel, q: np.ndarray) -> None:
    for name in a.link_names:
        if name in b.link_names:
            np.testing.assert_allclose(b.fk(q, name), a.fk(q, name), rtol=0, atol=1e-12,
                                       err_msg=name)  # fmt: skip


@pytest.mark.parametrize("robot", ROBOTS, ids=lambda r: Path(r).name)
def test_every_fixture_round_trips_through_mjcf(robot: str, tmp_path: Path) -> None:
    """URDF -> MJCF -> FK and MJCF -> MJCF -> FK agree to 1e-12 on every link (two
    generations of export), inertias are kept to 1e-12, and every exported model loads
    in MuJoCo and in a physics World (no 'inertia must satisfy A + B >= C')."""
    m = load_robot(robot)
    first = save_mjcf(m, tmp_path / "first.xml")
    mujoco.MjModel.from_xml_path(str(first))
    again = load_mjcf(first)
    assert again.joint_names == m.joint_names
    second_file = save_mjcf(again, tmp_path / "second.xml")
    mujoco.MjModel.from_xml_path(str(second_file))
    second = load_mjcf(second_file)
    q = random_q(m, 20, seed=3)
    for model in (again, second):
        _assert_same_fk(m, model, q)
        _assert_same_inertias(m, model)
    World(Scene(robots=(RobotPlacement("r", second),))).step(1)
    for qi in q[:3]:
        np.testing.assert_allclose(mujoco_link_poses(m, qi), m.fk_all(qi), rtol=0, atol=1e-12)
    # the URDF exporter too: what it writes loads back into a World
    via_urdf = load_robot(str(save_urdf(again, tmp_path / "again.urdf")))
    _assert_same_fk(m, via_urdf, q)
    _assert_same_inertias(m, via_urdf)
    World(Scene(robots=(RobotPlacement("r", via_urdf),))).step(1)
