"""Live teleoperation path: a virtual SDL gamepad drives a grasp end to end; mapping
files and joint names are checked at start-up."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from robotsim.errors import InputError, UnknownNameError
from robotsim.hands import ArmCommand, Grip, HandsScene, KinematicHands
from robotsim.hands.layout import HandLayout
from robotsim.hands.scenario_spec import load_hand_scenario
from robotsim.hands.teleop import HandsTeleop, arm_command
from robotsim.shipped import shipped_dir
from robotsim.teleop import GamepadManager, TeleopCommand, VirtualGamepad

SCENARIO = shipped_dir("scenario") / "hand_ball_transfer.yaml"


def _at_the_ball() -> KinematicHands:
    """The demo scene with the left hand already down around the ball, fingers open."""
    spec, scene = load_hand_scenario(SCENARIO)
    reach = next(s for s in spec.steps() if s.label == "left hand down around the ball")
    m = scene.robot
    q0 = m.q_from({f"L_{r}": v for r, v in reach.targets.items()}, base=scene.q0)
    placed = HandsScene(m, scene.T_world_robot, q0, scene.ball, scene.tables, scene.grasp)
    return KinematicHands(placed, dt=1 / 60)


def test_virtual_gamepad_drives_a_grasp_and_lift() -> None:
    sim = _at_the_ball()
    with GamepadManager(max_slots=2) as mgr, VirtualGamepad(naxes=4, nbuttons=8, nhats=2) as pad:
        tele = HandsTeleop(sim, gamepads=[0], manager=mgr)
        assert tele.devices()[0].startswith("gamepad 0 -> L arm")
        pad.set_button(1, True)  # the paper's button 2: close the hand
        for _ in range(240):
            tele.tick()
            if sim.grasped["L"]:
                break
        assert sim.snapshot().grasped_by == ("L",)
        assert tele.last_commands["L"].grip is Grip.CLOSE
        pad.set_button(1, False)
        pad.set_hat(0, (0, 1))  # main D-pad up: shoulder x up, the ball is lifted
        z0 = sim.ball_T[2, 3]
        for _ in range(30):
            tele.tick()
        rates = tele.last_commands["L"].rates
        assert rates["shoulder_x"] == 1.0 and not any(
            v for k, v in rates.items() if k != "shoulder_x"
        )
        assert sim.ball_T[2, 3] > z0 + 0.02 and sim.grasped["L"]
        pad.set_hat(0, (0, 0))
        pad.set_button(2, True)  # the paper's button 3: open -> release, the ball falls
        for _ in range(120):
            tele.tick()
    types = [(e.type, e.hand) for e in sim.observable.events]
    assert types.index(("release", "L")) > types.index(("grasp", "L"))
    assert types[-1] == ("landed", None)


def test_arm_command_maps_names_to_roles_and_rejects_others() -> None:
    sim = _at_the_ball()
    lay: HandLayout = sim.layouts["R"]
    cmd = arm_command(
        TeleopCommand(joint_rates={"R_elbow_r": 1.0, "R_wrist_x": -0.5}, grip=-1, speed=0.5), lay
    )
    assert cmd == ArmCommand(rates={"elbow_r": 1.0, "wrist_x": -0.5}, grip=Grip.OPEN, speed=0.5)
    with pytest.raises(UnknownNameError, match=r"L_elbow_r.*valid: R_shoulder_x"):
        arm_command(TeleopCommand(joint_rates={"L_elbow_r": 1.0}), lay)
    with pytest.raises(InputError, match="rate of 'wrist_x'"):
        ArmCommand(rates={"wrist_x": 2.0})
    with pytest.raises(InputError, match="unknown joint role 'knee'"):
        ArmCommand(rates={"knee": 1.0})


def test_bad_mapping_files_and_unknown_joints_fail_at_start(tmp_path: Path) -> None:
    sim = _at_the_ball()
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "format: robotsim-input/1\nname: bad\nbindings:\n  - {button: x, action: grasp}\n"
    )
    with pytest.raises(InputError, match=r"bad\.yaml"):
        HandsTeleop(sim, gamepads=[0], gamepad_mapping=str(bad), manager=object())
    wrong = tmp_path / "wrong_joint.yaml"
    wrong.write_text(
        "format: robotsim-input/1\nname: wrong\nbindings:\n"
        '  - {button: 0, joint: "{side}_knee", rate: 1}\n'
    )
    with pytest.raises(
        UnknownNameError, match=r"'L_knee'.*wrong_joint\.yaml|wrong_joint\.yaml.*'L_knee'"
    ):
        HandsTeleop(sim, gamepads=[0], gamepad_mapping=str(wrong), manager=object())
    finger = tmp_path / "finger.yaml"
    finger.write_text(
        "format: robotsim-input/1\nname: finger\nbindings:\n"
        '  - {button: 0, joint: "{side}_finger1", rate: 1}\n'
    )
    with pytest.raises(UnknownNameError, match=r"L_finger1.*valid: L_shoulder_x"):
        HandsTeleop(sim, gamepads=[0], gamepad_mapping=str(finger), manager=object())
    with pytest.raises(InputError, match="at most two pads"):
        HandsTeleop(sim, gamepads=[0, 1, 2])
    with pytest.raises(InputError, match="distinct"):
        HandsTeleop(sim, gamepads=[1, 1])


def test_commands_for_unknown_hands_and_bad_scenes_fail_clearly() -> None:
    sim = _at_the_ball()
    with pytest.raises(InputError, match="unknown hand 'X'"):
        sim.step({"X": ArmCommand()})
    import robotsim

    with pytest.raises(UnknownNameError, match=r"unknown joint 'L_shoulder_x'.*two-arm robot"):
        HandsScene(robotsim.load_robot("puma560"))
    with pytest.raises(InputError, match="q0 must have 16 values"):
        HandsScene(sim.model, q0=np.zeros(3))


def test_keyboard_drives_the_right_hand_through_a_pty() -> None:
    import os

    from robotsim.teleop import TerminalKeyboard

    sim = _at_the_ball()
    master, slave = os.openpty()
    try:
        kb = TerminalKeyboard(slave, hold=10.0, first_hold=10.0)  # keys stay held here
        tele = HandsTeleop(sim, gamepads=[], keyboard=True, keyboard_side="R", keyboard_device=kb)
        assert tele.devices() == ["keyboard -> R arm"]
        os.write(master, b"wo")  # W: shoulder x up, O: upper arm rotation
        tele.tick()
        cmd = tele.last_commands["R"]
        assert cmd.rates["shoulder_x"] == 1.0 and cmd.rates["elbow_r"] == 1.0
        assert "L" not in tele.last_commands
        m = sim.model
        assert sim.q[m.joint_index("R_elbow_r")] > 0.0
        kb.close()
    finally:
        os.close(master)
        os.close(slave)
