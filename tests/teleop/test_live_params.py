"""Live parameters from the gamepad and keyboard (issue 13 item 9): time scale, gains
and maximum speed change one step per press, are bounded, reach the commands, and the
hands teleoperation applies them (ticks per call, servo gains, arm speed)."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim.hands import KinematicHands
from robotsim.hands.scenario_spec import load_hand_scenario
from robotsim.hands.teleop import HandsTeleop
from robotsim.shipped import shipped_dir
from robotsim.teleop import InputSnapshot, Mapper
from robotsim.teleop.keys import HeldKeys
from robotsim.teleop.mapping import load_mapping
from robotsim.teleop.params import PARAM_ACTIONS, LiveParameters

SCENARIO = shipped_dir("scenario") / "hand_ball_transfer.yaml"


class Keys(HeldKeys):
    """Held keys polled like a keyboard device (what the studio's page keyboard does)."""

    def poll(self) -> InputSnapshot:
        return self.snapshot()


def press(mapper: Mapper, *keys: str):
    """Keys down for one tick, then up: one edge each."""
    cmd = mapper.update(InputSnapshot(keys=frozenset(keys)))
    mapper.update(InputSnapshot())
    return cmd


def test_steps_and_bounds():
    p = LiveParameters()
    assert p.apply(["time_faster"]) == ("time_scale",) and p.time_scale == 2.0
    for _ in range(10):
        p.apply(["time_faster"])
    assert p.time_scale == 8.0  # bounded
    assert p.apply(["time_faster"]) == ()
    for _ in range(10):
        p.apply(["gain_down"])
    assert p.gain_scale == pytest.approx(0.25)
    p.apply(["max_speed_up"])
    assert p.max_speed_scale == pytest.approx(1.25)
    assert p.apply(["grasp", "speed_up"]) == ()  # not parameter actions
    assert "time ×8" in p.status() and "max speed ×1.25" in p.status()


def test_model_parameters_step_and_show_once_moved():
    p = LiveParameters()
    assert "mass" not in p.status() and "friction" not in p.status()
    assert p.apply(["mass_up", "friction_down"]) == ("friction_scale", "mass_scale")
    assert (p.mass_scale, p.friction_scale) == (1.25, 0.8)
    for _ in range(12):
        p.apply(["mass_up"])
    assert p.mass_scale == 4.0  # bounded like the other scales
    assert "mass ×4" in p.status() and "friction ×0.8" in p.status()


@pytest.mark.parametrize("name", ["keyboard_arm", "keyboard_base", "arm_paper"])
def test_builtin_mappings_bind_parameter_actions(name):
    actions = {b.name for b in load_mapping(name).bindings if b.target == "action"}
    assert {"time_faster", "time_slower"} <= actions
    assert actions & set(PARAM_ACTIONS) >= ({"gain_up", "gain_down"} if "arm" in name else set())


def test_keyboard_presses_reach_the_command():
    m = Mapper("keyboard_arm", {"side": "L"})
    held = m.update(InputSnapshot(keys=frozenset({"]"})))
    assert held.time_scale == 2.0
    assert m.update(InputSnapshot(keys=frozenset({"]"}))).time_scale == 2.0  # held: once
    m.update(InputSnapshot())
    press(m, "]")
    press(m, ".")
    cmd = press(m, ">", "w")
    assert (cmd.time_scale, cmd.gain_scale, cmd.max_speed_scale) == (4.0, 1.25, 1.25)
    # the maximum speed scales the joint velocity: rate 1 x speed step x 1.25
    assert cmd.joint_velocities["L_shoulder_x"] == pytest.approx(cmd.speed * 1.25)
    press(m, "<")
    press(m, "<")
    assert m.params.max_speed_scale == pytest.approx(0.8)


def test_maximum_speed_scales_the_base_velocity():
    m = Mapper("keyboard_base")
    v0 = m.update(InputSnapshot(keys=frozenset({"w"}))).base_velocity[0]
    m.update(InputSnapshot())
    press(m, ">")
    v1 = m.update(InputSnapshot(keys=frozenset({"w"}))).base_velocity[0]
    assert v0 > 0 and v1 == pytest.approx(1.25 * v0)


def test_a_quick_tap_between_ticks_still_doubles_the_time_scale():
    """The page sends key-down and key-up of a tap within one tick: the next tick still
    sees one press (issue 13 item 9: a quick ] was lost before)."""
    _, scene = load_hand_scenario(SCENARIO)
    sim = KinematicHands(scene, dt=1 / 60)
    keys = Keys()
    tele = HandsTeleop(sim, (), True, "L", keyboard_device=keys)
    tele.tick()
    keys.down("]")
    keys.up("]")
    tele.tick()
    assert tele.params.time_scale == 2.0
    tele.tick()  # released: no second press
    assert tele.params.time_scale == 2.0


def test_hands_teleop_applies_time_scale_and_speed():
    _, scene = load_hand_scenario(SCENARIO)
    sim = KinematicHands(scene, dt=1 / 60)
    keys = Keys()
    tele = HandsTeleop(sim, (), True, "L", keyboard_device=keys)
    tele.tick()
    assert sim.t == pytest.approx(1 / 60)
    keys.down("]")  # time x2: two simulation ticks per call
    tele.tick()
    keys.up("]")
    assert tele.params.time_scale == 2.0
    assert sim.t == pytest.approx(3 / 60)
    tele.tick()
    assert sim.t == pytest.approx(5 / 60)
    for _ in range(2):  # time / 2 twice: 0.5, one tick every other call
        keys.down("[")
        tele.tick()
        keys.up("[")
        tele.tick()
    t = sim.t
    tele.tick()
    tele.tick()
    assert sim.t == pytest.approx(t + 1 / 60)
    keys.down(">")
    tele.tick()
    keys.up(">")
    keys.down("w")
    tele.tick()
    cmd = tele.last_commands["L"]
    assert cmd.speed == pytest.approx(tele.key_mapper.speed * 1.25)
    assert "time ×0.5" in tele.params.status()


def test_physics_servo_gains_follow_the_gain_scale():
    from robotsim.hands.physics import PhysicsHands

    _, scene = load_hand_scenario(SCENARIO)
    sim = PhysicsHands(scene, dt=0.01)
    wm = sim.world.model
    kp0 = wm.actuator_gainprm[:, 0].copy()
    bias0 = wm.actuator_biasprm[:, 1:3].copy()
    keys = Keys()
    tele = HandsTeleop(sim, (), True, "L", keyboard_device=keys)
    keys.down(".")
    tele.tick()
    keys.up(".")
    np.testing.assert_allclose(wm.actuator_gainprm[:, 0], kp0 * 1.25)
    np.testing.assert_allclose(wm.actuator_biasprm[:, 1:3], bias0 * 1.25)
    assert np.all(kp0 > 0)
