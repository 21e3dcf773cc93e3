"""The motion speed level as a live parameter (issue 13 item 9): level_up/level_down
shift every keyframe's level one step per press within -7 .. +7 (levels held in
1 .. 8); the studio's keyboard and gamepad mappings bind it with the time scale; a
studio-driven hands teleoperation advances one simulation tick per call (its clock
applies the time scale)."""

from __future__ import annotations

import pytest

from robotsim.hands import KinematicHands
from robotsim.hands.scenario_spec import load_hand_scenario
from robotsim.hands.teleop import HandsTeleop
from robotsim.shipped import shipped_dir
from robotsim.teleop import InputSnapshot, Mapper
from robotsim.teleop.mapping import load_mapping
from robotsim.teleop.params import PARAM_ACTIONS, LiveParameters


def test_the_level_shift_steps_by_one_within_bounds_and_clips_levels():
    p = LiveParameters()
    assert p.speed_level_shift == 0 and p.level(4) == 4
    assert p.apply(["level_up"]) == ("speed_level_shift",)
    assert p.speed_level_shift == 1 and p.level(4) == 5 and p.level(8) == 8
    assert "speed level +1" in p.status()
    for _ in range(20):
        p.apply(["level_down"])
    assert p.speed_level_shift == -7  # bounded
    assert p.apply(["level_down"]) == ()
    assert p.level(8) == 1 and p.level(3) == 1  # held within 1 .. 8
    assert "speed level -7" in p.status()
    assert p.as_dict()["speed_level_shift"] == -7.0


def press(mapper: Mapper, snap: InputSnapshot):
    cmd = mapper.update(snap)
    mapper.update(InputSnapshot())
    return cmd


def test_keyboard_studio_binds_the_level_and_the_time_scale():
    m = Mapper("keyboard_studio")
    assert press(m, InputSnapshot(keys=frozenset({"m"}))).speed_level_shift == 1
    held = m.update(InputSnapshot(keys=frozenset({"m"})))
    assert m.update(InputSnapshot(keys=frozenset({"m"}))).speed_level_shift == 2  # once
    assert held.speed_level_shift == 2
    m.update(InputSnapshot())
    for _ in range(3):
        press(m, InputSnapshot(keys=frozenset({"n"})))
    assert m.params.speed_level_shift == -1
    cmd = press(m, InputSnapshot(keys=frozenset({"]"})))
    assert cmd.time_scale == 2.0 and cmd.speed_level_shift == -1
    # only actions: the keys it takes from the page are exactly these
    mapping = load_mapping("keyboard_studio")
    assert {b.target for b in mapping.bindings} == {"action"}
    keys = {"m", "n", "]", "[", ".", ",", ">", "<", "k", "j", "p", "o"}
    assert {b.key for b in mapping.bindings} == keys


def test_gamepad_studio_binds_the_level_on_the_dpad_and_time_on_the_shoulders():
    m = Mapper("gamepad_studio")
    up = InputSnapshot(hats=((0, 1),), buttons=(False,) * 8)
    down = InputSnapshot(hats=((0, -1),), buttons=(False,) * 8)
    r1 = InputSnapshot(hats=((0, 0),), buttons=(False,) * 5 + (True, False, False))
    press(m, up)
    press(m, up)
    press(m, down)
    assert m.params.speed_level_shift == 1
    assert press(m, r1).time_scale == 2.0
    actions = {b.name for b in load_mapping("gamepad_studio").bindings}
    assert {"level_up", "level_down", "time_faster", "time_slower"} <= actions
    assert actions <= set(PARAM_ACTIONS)


def test_hands_in_the_studio_step_once_per_tick_whatever_the_time_scale():
    _spec, scene = load_hand_scenario(shipped_dir("scenario") / "hand_ball_transfer.yaml")
    sim = KinematicHands(scene, 0.01)
    tele = HandsTeleop(sim, gamepads=(), keyboard=False)
    tele.params.apply(["time_faster"])
    tele.params.apply(["time_faster"])  # x4
    t0 = sim.snapshot().t
    tele.tick(time_scaled=False)
    assert sim.snapshot().t == pytest.approx(t0 + 0.01)
    tele.tick()  # the terminal loop: four ticks per call
    assert sim.snapshot().t == pytest.approx(t0 + 0.05)


def test_a_gamepad_in_the_studios_live_input_shifts_the_level() -> None:
    """``robotsim studio --gamepad 0``: a (virtual SDL) pad through ``gamepad_studio``."""
    from robotsim.studio.live import LiveInput
    from robotsim.teleop import GamepadManager, VirtualGamepad

    params = LiveParameters()
    live = LiveInput(params)
    with GamepadManager(max_slots=1) as manager:
        live.add_gamepads([0], manager=manager)
        assert live.names() == ["gamepad 0"]
        with VirtualGamepad(naxes=4, nbuttons=8, nhats=1) as pad:
            assert live.poll() == ()
            pad.set_hat(0, (0, 1))  # D-pad up
            assert live.poll() == ("speed_level_shift",)
            pad.set_hat(0, (0, 0))
            live.poll()
            pad.set_hat(0, (0, 1))
            live.poll()
            pad.set_button(5, True)  # R1
            assert live.poll() == ("time_scale",)
        assert params.speed_level_shift == 2 and params.time_scale == 2.0
    live.close()
    assert live.names() == []
