"""Resynchronisation on header + CRC after a damaged frame, on both ends of a real pty.

The reported case: one corrupted length field (``A5 5A 20 00 E8 03`` claims a
1,000-byte payload) made the robot side deaf for ~1 KB of traffic.
"""

from __future__ import annotations

import os
import random
import threading
import tty

from robotsim.robotlink import ControllerLink, FdTransport, SerialTransport
from robotsim.robotlink.frames import SYNC, Frame, FrameType, encode, parse_frame
from robotsim.robotlink.resync import parse_resync
from tests.robotlink.ptys import emulated_robot

BAD_LENGTH = bytes.fromhex("A55A2000E803")


def test_robot_side_answers_the_next_hello_after_a_bad_length_field() -> None:
    with emulated_robot() as (dev, emu):
        raw = SerialTransport(dev)
        raw.write(BAD_LENGTH)  # garbage on the line before the host even starts
        with ControllerLink(raw, timeout=1.0, retries=0) as link:
            for _ in range(5):  # retries=0: every HELLO must be answered first time
                assert link.hello()["robot"] == "humanoid17"
            assert link.retransmissions == 0
        assert emu.error is None


def test_robot_side_drops_a_partial_frame_after_the_inter_byte_timeout() -> None:
    with emulated_robot() as (dev, _):
        raw = SerialTransport(dev)
        raw.write(BAD_LENGTH + b"\x00" * 10)  # a truncated frame, then silence
        import time

        time.sleep(0.2)  # > the inter-byte timeout
        with ControllerLink(raw, timeout=1.0, retries=0) as link:
            assert link.hello()["robot"] == "humanoid17"


def test_host_side_finds_the_reply_after_a_bad_length_field() -> None:
    """The test plays the robot on the pty master and prefixes its ACK with garbage."""
    master, slave = os.openpty()
    tty.setraw(slave)
    robot = FdTransport(master, "pty master")
    stop = threading.Event()
    answered = []

    def serve() -> None:
        buf = b""
        while not stop.is_set():
            buf += robot.read(4096, 0.05)
            i = buf.find(SYNC)
            if i < 0:
                continue
            frame, used, ok = parse_frame(buf[i:])
            if not used:
                continue
            buf = buf[i + used :]
            assert ok and frame is not None
            reply = encode(Frame(FrameType.ACK, frame.seq, b'{"robot": "fake"}'))
            robot.write(BAD_LENGTH + reply)
            answered.append(frame.seq)

    th = threading.Thread(target=serve, daemon=True)
    th.start()
    try:
        with ControllerLink(SerialTransport(os.ttyname(slave)), timeout=1.0, retries=0) as link:
            for _ in range(3):
                assert link.hello() == {"robot": "fake"}
            assert link.retransmissions == 0
    finally:
        stop.set()
        th.join(2)
        robot.close()
        os.close(slave)
    assert len(answered) == 3


def test_every_frame_survives_random_junk_between_frames() -> None:
    """Seeded: frames separated by junk (headers with random lengths included) are all
    found, in order, whatever the junk, once the line goes quiet."""
    rng = random.Random(17)
    parsers = ((SYNC, parse_frame),)
    for _ in range(200):
        frames = [
            Frame(FrameType.DATA, rng.randrange(256), rng.randbytes(rng.randrange(0, 40)))
            for _ in range(rng.randrange(1, 6))
        ]
        stream = b""
        for f in frames:
            junk = rng.randbytes(rng.randrange(0, 12))
            if rng.random() < 0.5:  # a damaged header claiming a long payload
                junk += SYNC + bytes([0x20, 0]) + rng.randrange(0, 1025).to_bytes(2, "little")
            stream += junk + encode(f)
        found = []
        buf = stream
        while buf:
            i = buf.find(SYNC)
            if i < 0:
                break
            buf = buf[i:]
            _, pkt, used, ok = parse_resync(buf, parsers, stale=True)
            assert used > 0
            buf = buf[used:]
            if ok:
                found.append(pkt)
        assert found[-len(frames) :] == frames or found == frames, (frames, found)
