"""Robot profiles inferred from structure and geometry, overridden by profile files; the
names of links and joints in the robots built here are deliberately meaningless."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from robotsim.cli import main
from robotsim.errors import InputError
from robotsim.model import Box, Cylinder, RobotBuilder, Shape, load_robot
from robotsim.model.robot import Inertial
from robotsim.profile import Kind, infer_profile
from robotsim.profile.resolve import resolve_profile, with_frames
from robotsim.spatial import make_T, rot_z, trans

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures"
HUMANOID_XML = FIXTURES / "mjcf" / "mujoco_humanoid" / "humanoid.xml"
PANDA = FIXTURES / "urdf" / "franka_panda" / "panda.urdf"
TURTLEBOT = (FIXTURES / "urdf" / "turtlebot3_burger" / "turtlebot3_description" / "urdf"
             / "turtlebot3_burger.urdf")  # fmt: skip

pytestmark = pytest.mark.filterwarnings("ignore:obj_decoder")


def omni_base(n_wheels: int = 3, R: float = 0.2, r: float = 0.05) -> RobotBuilder:
    """A base with ``n_wheels`` continuous-joint wheels at equal angles, axles radial
    (the paper's three-omniwheel layout for n = 3); names carry no meaning."""
    b = RobotBuilder("q7", floating=True)
    b.link("a0", collisions=[Shape(Cylinder(R, 0.05), trans([0, 0, r + 0.05]))],
           inertial=Inertial(5.0, [0, 0, r + 0.05], np.diag([0.05, 0.05, 0.1])))  # fmt: skip
    for i in range(n_wheels):
        ang = 2 * np.pi * i / n_wheels
        # wheel frame: z along the radial axle
        T = trans([R * np.cos(ang), R * np.sin(ang), r]) @ make_T(rot_z(ang), np.zeros(3))
        T = T @ _z_to_x()
        b.link(f"a{i + 1}", collisions=[Shape(Cylinder(r, 0.02))],
               inertial=Inertial(0.3, np.zeros(3), np.diag([2e-4, 2e-4, 3e-4])))  # fmt: skip
        b.joint(f"j{i + 1}", "continuous", "a0", f"a{i + 1}", origin=T, axis=[0, 0, 1])
    return b


def _z_to_x() -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = [[0, 0, 1], [0, 1, 0], [-1, 0, 0]]  # z -> x
    return T


def test_three_omniwheels_give_the_papers_decomposition() -> None:
    R, r = 0.2, 0.05
    p = infer_profile(omni_base(3, R, r).build())
    assert p.kind is Kind.MOBILE_OMNI and p.drive is not None and p.drive.type == "omni"
    # Liu, Wang, Fu 2011: omega_i = (-vx sin a_i + vy cos a_i + wz R) / r, a_i the wheel angle
    for w, row in zip(p.wheels, p.drive.M):
        a = np.arctan2(w.position[1], w.position[0])
        expected = np.array([-np.sin(a), np.cos(a), R]) / r
        np.testing.assert_allclose(np.abs(row), np.abs(expected), atol=1e-12)
        np.testing.assert_allclose(row, np.sign(row @ expected) * expected, atol=1e-12)
        assert w.radius == pytest.approx(r)
    assert np.linalg.matrix_rank(p.drive.M) == 3  # holonomic


def test_turtlebot_is_a_differential_drive() -> None:
    p = infer_profile(load_robot(str(TURTLEBOT)))
    assert p.kind is Kind.MOBILE_DIFF and p.base_link == "base_link"
    assert p.drive.track == pytest.approx(0.16, abs=1e-6)
    assert sorted(w.joint for w in p.wheels) == ["wheel_left_joint", "wheel_right_joint"]
    for w in p.wheels:
        assert w.radius == pytest.approx(0.033)
    v, wz = 0.2, 0.0
    omega = p.drive.M @ [v, 0, wz]
    np.testing.assert_allclose(omega, v / 0.033, rtol=1e-5)  # straight ahead: both roll fwd
    # it rests on its two wheels and the back caster (a box 1.5 mm above the floor);
    # the chassis box (8.5 mm up) is not a caster
    assert p.drive.casters == ("caster_back_link",)


def test_mujoco_humanoid_legs_feet_and_soles() -> None:
    m = load_robot(str(HUMANOID_XML))
    p = infer_profile(m)
    assert p.kind is Kind.HUMANOID and len(p.legs) == 2 and len(p.arms) == 2
    for leg in p.legs:
        assert len(leg.joints) == 6
        assert leg.joints[0].startswith("hip_x") and leg.joints[-1].startswith("ankle_x")
    m2 = with_frames(m, p)
    T = m2.fk_all(m2.zero())
    zmin = min(float(np.min(m2.fk(m2.zero(), f.sole.name)[2, 3])) for f in p.feet)
    for f in p.feet:
        T_sole = m2.fk(m2.zero(), f.sole.name)
        assert T_sole[2, 3] == pytest.approx(zmin, abs=1e-9)  # both soles on one plane
        x, y = np.array(f.polygon).T
        area = 0.5 * abs(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))
        assert area > 0.002  # a foot-sized sole, not a line
    assert T.shape[0] == len(m2.links)
    sides = sorted(leg.name for leg in p.legs)
    assert sides == ["left_leg", "right_leg"]


def test_panda_arm_gripper_and_fingertips() -> None:
    m = load_robot(str(PANDA))
    p = infer_profile(m)
    assert p.kind is Kind.ARM and len(p.arms) == 1
    assert p.arms[0].joints == tuple(f"panda_joint{i}" for i in range(1, 8))
    (g,) = p.grippers
    assert g.link == "panda_hand" and len(g.fingertips) == 2
    m2 = with_frames(m, p)
    q = m2.zero()
    tips = [m2.fk(q, t.name)[:3, 3] for t in g.fingertips]
    hand = m2.fk(q, "panda_hand")
    # the tips lie ~5.8 + 4.5 cm out along the hand's z, left and right of its axis
    for t in tips:
        local = np.linalg.inv(hand) @ np.append(t, 1)
        assert 0.09 < local[2] < 0.115
    # the tool: the file's TCP link (welded, shapeless, massless), 7 mm beyond the
    # fingertips' midpoint on the hand's axis (tests/profile/test_profile_heads.py: the
    # midpoint itself when the file has no such link)
    assert p.arms[0].tool.name == "panda_grasptarget"
    tool = m2.fk(q, p.arms[0].tool.name)[:3, 3]
    assert np.linalg.norm(tool - np.mean(tips, axis=0)) < 0.01


@pytest.mark.parametrize(
    ("robot", "kind"),
    [("humanoid17", Kind.HUMANOID), ("dual_arm_hands", Kind.DUAL_ARM), ("puma560", Kind.ARM),
     ("omni3", Kind.MOBILE_OMNI), ("diffdrive", Kind.MOBILE_DIFF)],
)  # fmt: skip
def test_library_robots(robot: str, kind: Kind) -> None:
    p = infer_profile(load_robot(robot))
    assert p.kind is kind
    assert p.mass > 0


def test_mass_and_com_match_a_hand_computation() -> None:
    b = RobotBuilder("x")
    b.link("p", inertial=Inertial(2.0, [0.1, 0, 0], np.eye(3) * 0.01))
    b.link("c", inertial=Inertial(1.0, [0, 0, 0.3], np.eye(3) * 0.01))
    b.joint("j", "revolute", "p", "c", origin=trans([0, 0.5, 0]), axis=[0, 0, 1],
            lower=-1, upper=1)  # fmt: skip
    p = infer_profile(b.build())
    assert p.mass == 3.0
    np.testing.assert_allclose(p.com, [0.2 / 3, 0.5 / 3, 0.1], atol=1e-15)


def test_box_feet_biped_without_names(tmp_path: Path) -> None:
    """A minimal biped with box feet and meaningless names: two legs, flat box soles."""
    b = RobotBuilder("zz", floating=True)
    b.link("k0", collisions=[Shape(Box((0.2, 0.3, 0.2)), trans([0, 0, 0.7]))],
           inertial=Inertial(10.0, [0, 0, 0.7], np.eye(3) * 0.1))  # fmt: skip
    for side, y in (("m", 0.1), ("n", -0.1)):
        prev = "k0"
        z = 0.6
        for i, axis in enumerate(([1, 0, 0], [0, 1, 0], [0, 1, 0], [0, 1, 0], [1, 0, 0])):
            link = f"{side}{i}"
            dz = 0.12 if i < 4 else 0.05
            b.link(link, collisions=[Shape(Box((0.04, 0.04, dz)), trans([0, 0, -dz / 2]))],
                   inertial=Inertial(0.5, [0, 0, -dz / 2], np.eye(3) * 1e-3))  # fmt: skip
            b.joint(f"{side}j{i}", "revolute", prev, link,
                    origin=trans([0, y if i == 0 else 0, (z if i == 0 else -0.12)]),
                    axis=axis, lower=-1, upper=1)  # fmt: skip
            prev = link
        b.link(f"{side}f", collisions=[Shape(Box((0.16, 0.08, 0.02)), trans([0.02, 0, 0.01]))],
               inertial=Inertial(0.3, [0, 0, 0.01], np.eye(3) * 1e-4))  # fmt: skip
        b.joint(f"{side}fix", "fixed", prev, f"{side}f", origin=trans([0, 0, -0.07]))
    m = b.build()
    p = infer_profile(m)
    assert p.kind is Kind.LEGGED and len(p.legs) == 2 and len(p.feet) == 2
    for f in p.feet:
        xy = np.array(f.polygon)
        np.testing.assert_allclose(np.ptp(xy, axis=0), [0.16, 0.08], atol=1e-12)


# -------------------------------------------------------------------- overrides
def test_profile_file_next_to_the_robot_overrides_parts(tmp_path: Path) -> None:
    src = tmp_path / "tb.urdf"
    text = TURTLEBOT.read_text().replace("package://turtlebot3_description",
                                         str(TURTLEBOT.parents[1]))  # fmt: skip
    src.write_text(text)
    (tmp_path / "tb.profile.yaml").write_text(
        "format: robotsim-profile/1\nwheels:\n"
        "  - {joint: wheel_left_joint, radius: 0.04}\n"
        "  - {joint: wheel_right_joint, radius: 0.04}\n"
    )
    p = resolve_profile(load_robot(str(src)))
    assert [w.radius for w in p.wheels] == [0.04, 0.04] and p.drive.type == "diff"
    np.testing.assert_allclose(p.drive.M[:, 0], 1 / 0.04)
    assert p.drive.casters == ("caster_back_link",)  # kept from the inferred drive
    f = tmp_path / "other.profile.yaml"
    f.write_text("format: robotsim-profile/1\ndrive: {type: diff, casters: [base_link]}\n")
    assert resolve_profile(load_robot(str(src)), f).drive.casters == ("base_link",)
    f.write_text("format: robotsim-profile/1\ndrive: {type: diff, casters: [wheel]}\n")
    with pytest.raises(InputError, match=r"drive.casters\[0\]: unknown link 'wheel'"):
        resolve_profile(load_robot(str(src)), f)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("kind: tank\n", "kind: 'tank' is not allowed; input should be 'humanoid'"),
        ("legs:\n  - {name: l, joints: [hip_x_right, nope], foot: right_foot}\n",
         "legs[0].joints[1]: unknown joint 'nope'"),
        ("arms:\n  - {name: a, joints: [elbow_left], tool: no_frame}\n",
         "arms[0].tool: unknown frame 'no_frame'"),
        ("drive: {type: diff}\n", "drive.type: 'diff' needs 2 wheels, found 0"),
        ("feet:\n  - {name: f, link: foot_left, frame: foot_left}\n",
         "feet[0]: give the sole 'polygon' or its 'size'"),
        ("colour: red\n", "colour: unknown key 'colour'; valid: format, robot, kind"),
    ],
    ids=["kind", "leg-joint", "arm-tool", "drive", "foot", "unknown-key"],
)  # fmt: skip
def test_bad_overrides_name_the_field(text: str, message: str, tmp_path: Path) -> None:
    f = tmp_path / "bad.profile.yaml"
    f.write_text("format: robotsim-profile/1\n" + text)
    with pytest.raises(InputError) as info:
        resolve_profile(load_robot(str(HUMANOID_XML)), f)
    assert str(info.value).startswith(str(f)) and message in str(info.value)


def test_cli_profile_json(capsys) -> None:
    assert main(["profile", str(HUMANOID_XML), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["kind"] == "humanoid" and len(d["legs"]) == 2 and len(d["feet"]) == 2
    assert d["mass"] == pytest.approx(40.84, abs=0.01)
    assert main(["profile", "omni3"]) == 0
    out = capsys.readouterr().out
    assert "drive omni" in out and "m (root link frame, zero pose)" in out.splitlines()[0]
    assert all(ln.endswith("m (base link frame)") for ln in out.splitlines() if "wheel " in ln)
    assert main(["profile", "nowhere/robot.urdf"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_profile_timestep_field_is_the_physics_one() -> None:
    """profile/file.py writes out physics.timestep's default and range (no import back)."""
    from robotsim.physics.timestep import DEFAULT_TIMESTEP, MAX_TIMESTEP
    from robotsim.profile.file import PhysicsSpec

    f = PhysicsSpec.model_fields["timestep"]
    assert f.default == DEFAULT_TIMESTEP
    assert {type(m).__name__: m for m in f.metadata}["Le"].le == MAX_TIMESTEP
