"""The terminal keyboard through a real pseudo-terminal."""

from __future__ import annotations

import os
import termios

from robotsim.teleop import Mapper, TerminalKeyboard, decode_keys


def test_decode_keys() -> None:
    assert decode_keys(b"wA \x1b[A\x1b[D\x1bOC+\r\x03\x1b") == [
        "w",
        "a",
        "space",
        "up",
        "left",
        "right",
        "+",
        "enter",
        "esc",
    ]


def test_keys_are_held_until_the_repeats_stop() -> None:
    master, slave = os.openpty()
    try:
        kb = TerminalKeyboard(slave, hold=0.1, first_hold=0.5)
        assert not termios.tcgetattr(slave)[3] & termios.ICANON  # cbreak mode while open
        os.write(master, b"w\x1b[A")
        snap = kb.poll(now=100.0)
        assert snap.keys == {"w", "up"}
        assert kb.poll(now=100.4).keys == {"w", "up"}  # bridging the auto-repeat delay
        os.write(master, b"w")  # auto-repeat of w
        assert kb.poll(now=100.45).keys == {"w", "up"}
        assert kb.poll(now=100.52).keys == {"w"}  # up's first hold is over
        assert kb.poll(now=100.56).keys == frozenset()  # w's repeat hold is over
        base = Mapper("keyboard_base")
        os.write(master, b"q\x1b[A")
        cmd = base.update(kb.poll(now=200.0))
        assert cmd.base_velocity == (0.5, 0.0, 1.0)
        kb.close()
        assert termios.tcgetattr(slave)[3] & termios.ICANON  # restored
    finally:
        os.close(master)
        os.close(slave)


def test_held_keys_from_key_events_use_the_same_mappings() -> None:
    from robotsim.teleop import HeldKeys, browser_key

    keys = HeldKeys()
    arm = Mapper("keyboard_arm", {"side": "L"})
    for k in ("W", "ArrowUp", "Tab"):
        keys.down(browser_key(k))
    cmd = arm.update(keys.snapshot())
    assert cmd.joint_rates["L_shoulder_x"] == 1.0 and cmd.pressed == frozenset({"switch"})
    keys.up(browser_key("W"))
    assert arm.update(keys.snapshot()).joint_rates["L_shoulder_x"] == 0.0
    keys.clear()
    assert arm.update(keys.snapshot()).idle
    assert browser_key(" ") == "space" and browser_key("+") == "+"


def test_a_tap_between_two_polls_is_one_press() -> None:
    """A key pressed and released before the next poll (a quick tap in the page) is
    reported held by that poll only, so a press-acting mapping sees it exactly once."""
    from robotsim.teleop import HeldKeys

    keys = HeldKeys()
    keys.down("]")
    keys.up("]")
    assert keys.peek() == frozenset()  # the display shows nothing held
    assert keys.snapshot().keys == frozenset({"]"})
    assert keys.snapshot().keys == frozenset()
    keys.down("m")
    assert keys.snapshot().keys == frozenset({"m"})
    keys.up("m")  # seen held: no extra tap
    assert keys.snapshot().keys == frozenset()
    keys.down("x")
    keys.up("x")
    keys.clear()  # focus lost: taps go too
    assert keys.snapshot().keys == frozenset()
