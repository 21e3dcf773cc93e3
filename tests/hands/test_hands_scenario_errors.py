"""Bad ``hand_ball_transfer`` files: one-line errors naming the file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from robotsim.cli import main
from robotsim.errors import ScenarioError
from robotsim.hands.scenario_spec import load_hand_scenario
from robotsim.shipped import shipped_dir

SCENARIO = shipped_dir("scenario") / "hand_ball_transfer.yaml"


def _write(tmp_path: Path, change) -> Path:  # type: ignore[no-untyped-def]
    doc = yaml.safe_load(SCENARIO.read_text())
    change(doc)
    p = tmp_path / "bad.yaml"
    p.write_text(yaml.safe_dump(doc))
    return p


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["script"][0].update(close="L"), r"script\.0: a step needs exactly one"),
        (lambda d: d["script"][0]["to"].update(knee=10), r"script\.0: unknown arm joint 'knee'"),
        (lambda d: d.update(colour="red"), r"colour: unknown key 'colour'; valid: format, kind"),
        (
            lambda d: d["script"][0].update(mve="L"),
            r"script\.0\.mve: unknown key 'mve'; valid: move, to, close, open, wait",
        ),
        (
            lambda d: d.update(script="plan"),
            r"script: 'plan' is not allowed; a list of steps, or 'planned'",
        ),
        (lambda d: d.update(script=[]), r"script: "),
        (lambda d: d["ball"].update(radius=-1), r"ball\.radius"),
        (lambda d: d["script"].append({"wait_for": "explode"}), r"script\.\d+\.wait_for"),
        (lambda d: d.update(start={"L_knee": 10}), r"unknown joint 'L_knee'"),
        (
            lambda d: d.update(robot="puma560", start_pose="qr", start={}),
            r"unknown joint 'L_shoulder_x'",
        ),
        (
            lambda d: d["script"][0]["to"].update(shoulder_x=500),
            r"script\.0\.to\.shoulder_x: 500 deg is outside the limits of L_shoulder_x \[-90, 90\]",
        ),
        (lambda d: d["start"].update(L_finger1=90), r"start\.L_finger1: 90 deg is outside"),
        (lambda d: d["ball"].update(position=[0.5, 0.25, -0.5]), r"ball\.position: .*floor"),
        (
            lambda d: d["ball"].update(position=[0.5, 0.25, 0.3]),
            r"ball\.position: .*inside tables\[0\] \('table'\)",
        ),
    ],
)
def test_bad_fields_name_the_file_and_the_field(tmp_path: Path, change, message) -> None:  # type: ignore[no-untyped-def]
    p = _write(tmp_path, change)
    with pytest.raises(ScenarioError, match=message) as info:
        load_hand_scenario(p)
    assert str(p) in str(info.value) and "\n" not in str(info.value)


def test_robotsim_run_exits_2_on_a_bad_file(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    p = _write(tmp_path, lambda d: d["script"][0].update(close="L"))
    assert main(["run", str(p), "--mode", "kinematic"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "script.0" in err and err.count("\n") == 1
    bad_yaml = tmp_path / "broken.yaml"
    bad_yaml.write_text("kind: hand_ball_transfer\nscript: [\n")
    assert main(["run", str(bad_yaml)]) == 2


def test_another_makers_two_arm_robot_is_told_what_a_two_hand_script_needs(
    tmp_path: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    # a two-arm MJCF with grippers but neither the paper's joint names nor an 'initial'
    # pose: the one line says what a two-hand script needs (before: "unknown pose
    # 'initial'; valid: " with an empty list)
    arm = """
      <body name="{s}_upper" pos="0 {y} 0.5">
        <joint name="{s}_j1" axis="0 0 1" range="-3 3"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <body name="{s}_palm" pos="0.3 0 0">
          <joint name="{s}_j2" axis="0 1 0" range="-2 2"/>
          <geom type="box" size="0.02 0.04 0.01"/>
          <body name="{s}_left" pos="0.03 0.02 0">
            <joint name="{s}_f1" type="slide" axis="0 1 0" range="0 0.04"/>
            <geom type="box" size="0.02 0.005 0.01"/>
          </body>
          <body name="{s}_right" pos="0.03 -0.02 0">
            <joint name="{s}_f2" type="slide" axis="0 -1 0" range="0 0.04"/>
            <geom type="box" size="0.02 0.005 0.01"/>
          </body>
        </body>
      </body>"""
    xml = tmp_path / "two_arms.xml"
    xml.write_text(
        '<mujoco model="two_arms"><compiler angle="radian"/><worldbody><body name="torso">'
        '<geom type="box" size="0.05 0.2 0.25" pos="0 0 0.25"/>'
        + arm.format(s="A", y=0.25)
        + arm.format(s="B", y=-0.25)
        + "</body></worldbody></mujoco>"
    )
    doc = yaml.safe_load(SCENARIO.read_text())
    doc["robot"] = str(xml)
    doc.pop("start", None)
    doc.pop("start_pose", None)
    doc["script"] = "planned"
    doc.pop("ball", None)
    doc["object"] = {"type": "box", "size": [0.04, 0.04, 0.06], "position": [0.5, 0.0, 0.33]}
    p = tmp_path / "theirs.yaml"
    p.write_text(yaml.safe_dump(doc))
    assert main(["run", str(p), "--mode", "kinematic", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "initial" not in err, err
    assert "L_shoulder_x" in err and "'gripper:' section" in err, err
    # a pose the file names that the robot lacks: said so, not "valid: " and nothing
    doc["start_pose"] = "initial"
    p.write_text(yaml.safe_dump(doc))
    assert main(["run", str(p), "--mode", "kinematic", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert "unknown pose 'initial'; valid: none (it has no poses)" in err, err
