"""A hostile serial peer cannot make either end's JSON parser recurse: a BEGIN frame
nested 1,000 deep (about the most a frame holds) to the robot, a stored program nested
5,000 deep to the controller: a one-line refusal, and both ends keep working (real pty
pair)."""

from __future__ import annotations

import pytest

from robotsim.errors import LinkError
from robotsim.robotlink import ControllerLink, SerialTransport
from robotsim.robotlink.controller import decode_program
from robotsim.robotlink.frames import Frame, FrameType, encode
from tests.robotlink.ptys import emulated_robot


def test_a_deep_begin_frame_is_refused_and_the_robot_lives_on() -> None:
    with emulated_robot() as (dev, emu):
        raw = SerialTransport(dev)
        raw.write(encode(Frame(FrameType.BEGIN, 1, b"[" * 1000)))
        with ControllerLink(raw, timeout=1.0, retries=3) as link:
            assert link.hello()["robot"] == "humanoid17"
        assert emu.error is None


def test_a_deep_program_from_the_robot_is_a_link_error() -> None:
    with pytest.raises(LinkError, match="nested deeper than"):
        decode_program(b"[" * 5000)
