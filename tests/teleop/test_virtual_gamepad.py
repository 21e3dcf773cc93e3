"""Gamepads end to end through SDL's virtual joysticks (no hardware, no window)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from robotsim import load_robot
from robotsim.teleop import GamepadManager, Mapper, VirtualGamepad


@pytest.fixture
def manager() -> Iterator[GamepadManager]:
    with GamepadManager(max_slots=2) as mgr:
        yield mgr


def test_two_pads_drive_two_arms_with_the_paper_layout(manager: GamepadManager) -> None:
    model = load_robot("dual_arm_hands")
    left = Mapper("arm_paper", {"side": "L"}, joints=model.joint_names)
    right = Mapper("arm_paper", {"side": "R"}, joints=model.joint_names)
    with (
        VirtualGamepad(naxes=4, nbuttons=8, nhats=2) as pad_l,
        VirtualGamepad(naxes=4, nbuttons=8, nhats=2) as pad_r,
    ):
        snaps = manager.poll()
        assert sorted(snaps) == [0, 1]
        assert [d.slot for d in manager.devices()] == [0, 1]
        pad_l.set_hat(0, (0, 1))  # main D-pad up -> shoulder x up
        pad_l.set_button(1, True)  # the paper's button 2 -> grasp
        pad_r.set_hat(1, (-1, 0))  # second D-pad left -> wrist x negative
        pad_r.set_button(3, True)  # the paper's button 4 -> upper-arm rotation
        snaps = manager.poll()
        cl, cr = left.update(snaps[0]), right.update(snaps[1])
        assert cl.joint_rates["L_shoulder_x"] == 1.0 and cl.grip == 1
        assert "grasp" in cl.pressed
        assert cl.joint_velocities["L_shoulder_x"] == pytest.approx(left.speed)
        assert cr.joint_rates["R_wrist_x"] == -1.0 and cr.joint_rates["R_elbow_r"] == 1.0
        assert cr.grip == 0 and not any(
            v for k, v in cr.joint_rates.items() if k not in ("R_wrist_x", "R_elbow_r")
        )
        # holding the button is not a new press; release then open with button 3
        pad_l.set_button(1, False)
        pad_l.set_button(2, True)
        cl = left.update(manager.poll()[0])
        assert cl.grip == -1 and cl.pressed == frozenset({"release"})


def test_axes_deadzone_and_speed_step(manager: GamepadManager) -> None:
    base = Mapper("mobile_base")
    with VirtualGamepad(naxes=4, nbuttons=8, nhats=1) as pad:
        pad.set_axis(1, -1.0)  # left stick fully up -> forward
        pad.set_axis(0, 0.05)  # inside the dead zone
        pad.set_axis(3, 0.56)  # right stick right -> turn right (negative omega)
        cmd = base.update(manager.poll()[0])
        vx, vy, om = cmd.base_velocity
        assert vx == pytest.approx(0.5) and vy == 0.0
        assert om == pytest.approx(-(0.56 - 0.12) / 0.88 * 1.0, abs=1e-4)
        pad.set_button(5, True)  # speed up: one level, on the press only
        cmd = base.update(manager.poll()[0])
        cmd = base.update(manager.poll()[0])
        assert cmd.speed_index == 3 and cmd.base_velocity[0] == pytest.approx(1.0)


def test_hot_plug_keeps_slots_stable(manager: GamepadManager) -> None:
    a = VirtualGamepad(nhats=1)
    b = VirtualGamepad(nhats=1)
    try:
        manager.poll()
        slot_of = {d.instance_id: d.slot for d in manager.devices()}
        assert slot_of == {a.instance_id: 0, b.instance_id: 1}
        a.detach()  # unplug the first pad: the second keeps slot 1
        assert sorted(manager.poll()) == [1]
        b.set_hat(0, (1, 0))
        assert manager.poll()[1].hats[0] == (1, 0)
        c = VirtualGamepad(nhats=1)  # a new pad takes the free slot 0
        try:
            snaps = manager.poll()
            assert sorted(snaps) == [0, 1]
            assert {d.instance_id: d.slot for d in manager.devices()}[c.instance_id] == 0
            third = VirtualGamepad(nhats=1)  # no slot left: ignored
            assert sorted(manager.poll()) == [0, 1]
            third.detach()
        finally:
            c.detach()
    finally:
        a.detach()
        b.detach()


def test_virtual_pad_rejects_bad_values(manager: GamepadManager) -> None:
    with VirtualGamepad(naxes=2, nbuttons=2, nhats=1) as pad:
        with pytest.raises(ValueError, match="button 5 does not exist"):
            pad.set_button(5, True)
        with pytest.raises(ValueError, match="hat value"):
            pad.set_hat(0, (2, 0))


def test_a_pad_plugged_and_unplugged_between_polls_is_never_seen(
    manager: GamepadManager,
) -> None:
    blink = VirtualGamepad(nhats=1)
    blink.detach()
    assert manager.poll() == {}
    with VirtualGamepad(nhats=1) as pad:
        pad.set_hat(0, (-1, 0))
        assert manager.poll()[0].hats == ((-1, 0),)
