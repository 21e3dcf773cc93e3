"""``robotsim convert ROBOT --to urdf|mjcf --out FILE`` writes files that load back."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tests.paths import FIXTURES

from robotsim import load_robot
from robotsim.cli import main


@pytest.mark.parametrize(("fmt", "suffix"), [("urdf", ".urdf"), ("mjcf", ".xml")])
def test_convert_library_robot(fmt: str, suffix: str, tmp_path: Path, capsys) -> None:
    out = tmp_path / f"puma{suffix}"
    code = main(["convert", "puma560", "--to", fmt, "--out", str(out), "--json"])
    info = json.loads(capsys.readouterr().out)
    assert code == 0 and info["out"] == str(out) and info["dof"] == 6
    again = load_robot(str(out))
    q = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    np.testing.assert_allclose(again.fk(q, "tool"), load_robot("puma560").fk(q), atol=1e-12)


def test_convert_bad_input_exits_2(tmp_path: Path, capsys) -> None:
    assert main(["convert", "no_such_robot", "--to", "urdf", "--out", str(tmp_path / "x")]) == 2
    assert "unknown robot 'no_such_robot'" in capsys.readouterr().err
    assert main(["convert", "puma560", "--to", "sdf", "--out", str(tmp_path / "x")]) == 2


@pytest.mark.parametrize(
    ("suffix", "fmt"), [(".urdf", "urdf"), (".xml", "mjcf"), (".MJCF", "mjcf")]
)
def test_convert_takes_the_format_from_the_out_suffix(
    suffix: str, fmt: str, tmp_path: Path, capsys
) -> None:
    out = tmp_path / f"puma{suffix}"
    assert main(["convert", "puma560", "--out", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["format"] == fmt
    assert load_robot(str(out)).nq == 6 if fmt == "urdf" else out.read_text().startswith("<")


def test_convert_without_to_and_an_unknown_suffix_says_what_to_give(tmp_path: Path, capsys) -> None:
    assert main(["convert", "puma560", "--out", str(tmp_path / "puma.sdf")]) == 2
    err = capsys.readouterr().err
    assert "say --to urdf or --to mjcf (the suffix '.sdf' is neither .urdf nor .xml/.mjcf)" in err
    assert not (tmp_path / "puma.sdf").exists()


def test_convert_to_urdf_says_what_urdf_cannot_hold(tmp_path: Path, capsys) -> None:
    """MuJoCo's humanoid has joint armature and springs, keyframes and capsules: the
    URDF loses the first three and approximates the capsules, and convert says so (a
    note on stderr, "not_written" in JSON), where it used to say nothing."""
    src = FIXTURES / "mjcf" / "mujoco_humanoid" / "humanoid.xml"
    out = tmp_path / "humanoid.urdf"
    assert main(["convert", str(src), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.startswith("note: the URDF file has no place for armature of 21 joint(s)")
    assert main(["convert", str(src), "--out", str(out), "--json"]) == 0
    lost = json.loads(capsys.readouterr().out)["not_written"]
    assert [x.split(" (")[0] for x in lost] == [
        "armature of 21 joint(s)",
        "spring stiffness of 19 joint(s)",
        "4 named pose(s)",
        "16 capsule(s)",
    ]
    back = load_robot(out)  # what the note warned of is indeed gone
    assert back.joint("abdomen_y").dynamics.armature == 0.0 and not back.poses
    panda = FIXTURES / "urdf" / "franka_panda" / "panda.urdf"
    assert main(["convert", str(panda), "--out", str(tmp_path / "p.urdf"), "--json"]) == 0
    res = capsys.readouterr()
    assert json.loads(res.out)["not_written"] == [] and res.err == ""


def test_convert_to_mjcf_says_a_floating_robots_poses_are_left_out(tmp_path: Path, capsys) -> None:
    """MJCF keyframes of a floating robot need a base pose its named poses do not have:
    the humanoid's four keyframes are not written, and convert says so; a fixed-base
    robot's poses become keyframes and nothing is said."""
    import mujoco

    src = FIXTURES / "mjcf" / "mujoco_humanoid" / "humanoid.xml"
    out = tmp_path / "humanoid.xml"
    assert main(["convert", str(src), "--out", str(out), "--json"]) == 0
    res = capsys.readouterr()
    assert json.loads(res.out)["not_written"] == [
        "4 named pose(s) (squat, stand_on_left_leg, prone, ...): a floating robot's poses "
        "have no base pose for MuJoCo keyframes"
    ]
    assert mujoco.MjModel.from_xml_path(str(out)).nkey == 0  # indeed not written
    assert main(["convert", "puma560", "--out", str(tmp_path / "p.xml")]) == 0
    res = capsys.readouterr()
    assert res.err == "" and mujoco.MjModel.from_xml_path(str(tmp_path / "p.xml")).nkey > 0


def test_convert_keeps_a_floating_robots_start_pose(tmp_path: Path, capsys) -> None:
    """MuJoCo's humanoid starts with its torso 1.282 m up; the exported MJCF keeps that
    (it was written at the origin, the robot 1.28 m into the floor), and loading the
    export gives the same start pose back. A scene placing the robot is not affected."""
    import mujoco

    from robotsim.model.mjcf import to_mjspec

    src = FIXTURES / "mjcf" / "mujoco_humanoid" / "humanoid.xml"
    out = tmp_path / "humanoid.xml"
    assert main(["convert", str(src), "--out", str(out)]) == 0
    capsys.readouterr()
    ours, theirs = mujoco.MjModel.from_xml_path(str(out)), mujoco.MjModel.from_xml_path(str(src))
    d_ours, d_theirs = mujoco.MjData(ours), mujoco.MjData(theirs)
    mujoco.mj_forward(ours, d_ours)
    mujoco.mj_forward(theirs, d_theirs)
    np.testing.assert_allclose(d_ours.xpos[1], d_theirs.xpos[1], atol=1e-12)
    np.testing.assert_allclose(d_ours.xpos[1], [0, 0, 1.282], atol=1e-12)
    model = load_robot(str(src))
    np.testing.assert_allclose(load_robot(str(out)).metadata["T_world_root"],
                               model.metadata["T_world_root"], atol=1e-12)  # fmt: skip
    spec = to_mjspec(model)
    assert np.allclose(spec.compile().body_pos[1], 0.0)  # placed by the scene, not here
