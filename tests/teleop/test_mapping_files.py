"""Input mapping files: built-ins, the mapper's arithmetic, and clear errors."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from robotsim import load_robot
from robotsim.errors import InputError, UnknownNameError
from robotsim.teleop import InputSnapshot, Mapper, builtin_mappings, load_mapping, parse_mapping


def test_builtins_load_and_match_the_dual_arm_model() -> None:
    assert builtin_mappings() == [
        "arm_paper",
        "gamepad_studio",
        "keyboard_arm",
        "keyboard_base",
        "keyboard_studio",
        "mobile_base",
    ]
    joints = load_robot("dual_arm_hands").joint_names
    for name in ("arm_paper", "keyboard_arm"):
        for side in "LR":
            Mapper(name, {"side": side}, joints=joints)
    arm = load_mapping("arm_paper")
    assert arm.speed_levels[arm.speed_start] == pytest.approx(math.radians(45))
    assert set(arm.joint_names({"side": "L"})) == {
        "L_shoulder_x",
        "L_shoulder_y",
        "L_elbow_y",
        "L_wrist_x",
        "L_elbow_r",
    }


def test_bindings_add_up_and_clip_and_grip_cancels() -> None:
    m = parse_mapping(
        {
            "format": "robotsim-input/1",
            "bindings": [
                {"key": "a", "joint": "j", "rate": 0.75},
                {"key": "b", "joint": "j", "rate": 0.75},
                {"key": "g", "action": "grasp"},
                {"key": "h", "action": "release"},
                {"axis": 0, "deadzone": 0.5, "base": "omega", "rate": -1},
            ],
        }
    )
    mapper = Mapper(m)
    cmd = mapper.update(InputSnapshot(keys=frozenset("abgh"), axes=(0.75,)))
    assert cmd.joint_rates == {"j": 1.0}  # 1.5 clipped
    assert cmd.grip == 0 and cmd.pressed == frozenset({"grasp", "release"})
    assert cmd.base_rates == (0.0, 0.0, -0.5)
    cmd = mapper.update(InputSnapshot(keys=frozenset("a")))
    assert cmd.joint_rates == {"j": 0.75} and cmd.pressed == frozenset()
    assert mapper.update(InputSnapshot()).idle


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "format: robotsim-input/1\nbindings: [{button: 1, action: grab}]",
            "bindings[0].action: 'grab' is not one of grasp, release, speed_up, speed_down, switch",
        ),
        (
            "format: robotsim-input/1\nbindings: [{hat: 0, direction: upp, joint: a}]",
            "bindings[0].direction: 'upp' is not one of up, down, right, left",
        ),
        (
            "format: robotsim-input/1\nbindings: [{button: 1, key: x, action: grasp}]",
            "bindings[0]: needs exactly one source of hat, axis, button, key; got button, key",
        ),
        (
            "format: robotsim-input/1\nbindings: [{button: 1}]",
            "bindings[0]: needs exactly one target of joint, base, action; got none",
        ),
        (
            "format: robotsim-input/1\nbindings: [{button: -1, action: grasp}]",
            "bindings[0].button: expected a 0-based index",
        ),
        (
            "format: robotsim-input/1\nbindings: [{axis: 0, joint: a, rate: 2}]",
            "bindings[0].rate: 2 is outside [-1, 1]",
        ),
        (
            "format: robotsim-input/1\nbindings: [{axis: 0, base: vz}]",
            "bindings[0].base: 'vz' is not one of vx, vy, omega",
        ),
        (
            "format: robotsim-input/1\nbindings: [{button: 0, joint: a, deadzone: 0.1}]",
            "bindings[0].deadzone: only axis bindings have a deadzone",
        ),
        (
            "format: robotsim-input/1\nbindings: [{button: 0, joint: a, colour: red}]",
            "bindings[0].colour: unknown key",
        ),
        (
            "format: robotsim-input/1\nspeed_levels: [1, 2]\nspeed_start: 5\nbindings: [{key: a, "
            "joint: b}]",
            "speed_start: 5 is outside 0..1",
        ),
        ("format: robotsim-input/1\nunits: grad\nbindings: []", "units: 'grad' is not one of"),
        ("format: robotsim-input/1\nbindings: []", "bindings: expected a non-empty list"),
        ("format: robotsim-input/2\nbindings: []", "format: expected 'robotsim-input/1'"),
        ("format: robotsim-input/1\nbindings: [{key: a, joint: b}\n", "not valid YAML"),
        ("- 1\n- 2\n", "an input mapping must be a YAML mapping"),
    ],
)
def test_bad_mapping_files_give_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "pad.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        load_mapping(path)
    assert str(path) in str(err.value) and message in str(err.value)
    assert "\n" not in str(err.value)


def test_unknown_joints_names_and_missing_placeholders(tmp_path: Path) -> None:
    joints = load_robot("dual_arm_hands").joint_names
    path = tmp_path / "arm.yaml"
    path.write_text("format: robotsim-input/1\nbindings: [{key: a, joint: '{side}_knee'}]\n")
    with pytest.raises(
        UnknownNameError,
        match=r"unknown joint \(in input mapping .*arm.yaml\) "
        r"'L_knee'; valid: L_shoulder_x",
    ):
        Mapper(load_mapping(path), {"side": "L"}, joints=joints)
    with pytest.raises(InputError, match=r"needs a value for \{side\}"):
        Mapper("arm_paper")
    with pytest.raises(UnknownNameError, match="unknown input mapping 'xbox'; valid: arm_paper"):
        load_mapping("xbox")
    with pytest.raises(InputError, match="input mapping file not found"):
        load_mapping(tmp_path / "nope.yaml")
