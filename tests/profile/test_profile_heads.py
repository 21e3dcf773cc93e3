"""Heads told from arms by where they are (issue 22.4): on the body's middle, on top,
rising, with no mirror twin; and the profile's tool is what ``fk``/``ik`` place by
default."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from robotsim.cli import main
from robotsim.model import Box, RobotBuilder, Shape, load_robot
from robotsim.model.robot import Inertial
from robotsim.profile.resolve import default_tool, resolve_profile
from robotsim.spatial import trans
from tests.humanoid_files import write_nao_like_urdf, write_op3_like_mjcf
from tests.paths import FIXTURES

PANDA = FIXTURES / "urdf" / "franka_panda" / "panda.urdf"
pytestmark = pytest.mark.filterwarnings("ignore:obj_decoder")


def test_op3_two_joint_head_with_its_camera_is_not_an_arm(tmp_path: Path) -> None:
    prof = resolve_profile(load_robot(str(write_op3_like_mjcf(tmp_path / "op3.xml"))))
    assert [(a.name, a.joints) for a in prof.arms] == [
        ("left_arm", ("l_sho_pitch", "l_sho_roll", "l_el")),
        ("right_arm", ("r_sho_pitch", "r_sho_roll", "r_el")),
    ]
    assert [(h.name, h.joints, h.link) for h in prof.heads] == [
        ("head", ("head_pan", "head_tilt"), "head_tilt_link")
    ]
    assert prof.kind.value == "humanoid" and len(prof.legs) == 2


def test_nao_head_and_five_joint_arms(tmp_path: Path) -> None:
    prof = resolve_profile(load_robot(str(write_nao_like_urdf(tmp_path / "nao.urdf"))))
    assert [h.joints for h in prof.heads] == [("HeadYaw", "HeadPitch")]
    assert sorted(len(a.joints) for a in prof.arms) == [5, 5]


def _torso_with(limb_at: tuple[float, float, float], down: bool) -> RobotBuilder:
    """A torso with two mirrored 2-joint arms at the shoulders and a third 2-joint limb
    at ``limb_at`` pointing up (a head) or ``down`` (a tail); names mean nothing."""
    b = RobotBuilder("z9")
    b.link("b0", [Shape(Box((0.2, 0.3, 0.4)))], inertial=Inertial(5.0))
    for i, (at, d) in enumerate((((0, 0.2, 0.15), (0, 0.2, 0)), ((0, -0.2, 0.15), (0, -0.2, 0)),
                                 (limb_at, (0, 0, -0.2 if down else 0.2)))):  # fmt: skip
        b.link(f"b{i}1", inertial=Inertial(0.1))
        b.link(f"b{i}2", [Shape(Box((0.05, 0.05, 0.05)), trans(d))], inertial=Inertial(0.5))
        b.joint(f"j{i}1", "revolute", "b0", f"b{i}1", origin=trans(at), axis=(0, 0, 1),
                lower=-1, upper=1)  # fmt: skip
        b.joint(f"j{i}2", "revolute", f"b{i}1", f"b{i}2", axis=(0, 1, 0), lower=-1, upper=1)
    return b


def test_a_limb_hanging_below_the_middle_is_no_head() -> None:
    head = resolve_profile(_torso_with((0.0, 0.0, 0.2), down=False).build())
    assert [h.joints for h in head.heads] == [("j21", "j22")] and len(head.arms) == 2
    tail = resolve_profile(_torso_with((0.0, 0.0, -0.2), down=True).build())
    assert tail.heads == () and len(tail.arms) == 3
    aside = resolve_profile(_torso_with((0.0, 0.12, 0.2), down=False).build())
    assert aside.heads == () and len(aside.arms) == 3  # off the middle: an arm


def test_a_lone_arm_on_its_base_is_an_arm() -> None:
    prof = resolve_profile(load_robot("puma560"))
    assert prof.heads == () and len(prof.arms) == 1


def test_fk_and_ik_place_the_profiles_tool_by_default(capsys) -> None:
    """The Panda's file names no default frame: fk and ik place the profile's tool (its
    TCP link between the fingers), not merely the last link in the file."""
    panda = load_robot(str(PANDA))
    model, tool = default_tool(panda)
    assert tool == resolve_profile(panda).arms[0].tool.name == "panda_grasptarget"
    assert main(["fk", str(PANDA), "--json"]) == 0
    fk = json.loads(capsys.readouterr().out)
    assert fk["link"] == tool
    assert np.allclose(fk["T"], model.fk(model.zero(), tool), atol=1e-12)
    target = "0.4,0.1,0.5"
    assert main(["ik", str(PANDA), "--target", target, "--json"]) == 0
    ik = json.loads(capsys.readouterr().out)
    assert ik["link"] == tool and ik["success"]
    T = model.fk(np.array(ik["q"]), tool)
    assert np.allclose(T[:3, 3], [0.4, 0.1, 0.5], atol=1e-6)


def test_a_gripper_without_a_tcp_frame_gets_its_fingertips_midpoint(tmp_path: Path) -> None:
    """The fixture with its TCP link removed: the tool is the point between the
    fingertips, a frame the profile adds, and fk reaches it by name."""
    text = PANDA.read_text()
    cut = re.sub(r'<link name="panda_grasptarget">.*?</link>', "", text, flags=re.S)
    cut = re.sub(r'<joint name="panda_grasptarget_hand".*?</joint>', "", cut, flags=re.S)
    f = tmp_path / "panda.urdf"
    f.write_text(cut.replace("package://meshes", str(PANDA.parent / "meshes")))
    model, tool = default_tool(load_robot(str(f)))
    assert tool == "panda_hand_tool" and tool in model.frame_names
