"""Dynamixel Protocol 2.0: our packets and CRC against dynamixel-sdk, and the SDK
driving the emulated servos over a pty."""

from __future__ import annotations

import numpy as np
import pytest

from robotsim import load_robot
from robotsim.errors import LinkError
from robotsim.motion.profile import load_profile
from robotsim.motion.schema import program_from_dict
from robotsim.motion.timeline import compile_program
from robotsim.robotlink import ServoBus, ServoMap, stream
from robotsim.robotlink.crc import crc16_ccitt, crc16_dxl
from robotsim.robotlink.dxl import Instruction, build_instruction, parse_packet, stuff, unstuff
from tests.robotlink.ptys import emulated_robot


def test_crc_check_values_and_sdk_agreement() -> None:
    import dynamixel_sdk as sdk

    assert crc16_dxl(b"123456789") == 0xFEE8  # CRC-16/BUYPASS check value
    assert crc16_ccitt(b"123456789") == 0x29B1  # CRC-16/CCITT-FALSE check value
    data = bytes(range(256)) * 3
    assert crc16_dxl(data) == sdk.PacketHandler(2.0).updateCRC(0, list(data), len(data))


def test_byte_stuffing_round_trip() -> None:
    body = bytes([0x03, 0x74, 0x00, 0xFF, 0xFF, 0xFD, 0x01, 0xFF, 0xFF, 0xFD])
    s = stuff(body)
    assert s.count(b"\xff\xff\xfd\xfd") == 2 and unstuff(s) == body
    pkt = build_instruction(3, Instruction.WRITE, body[1:])
    parsed, used, ok = parse_packet(pkt)
    assert ok and used == len(pkt) and parsed is not None and parsed.params == body[1:]
    damaged = pkt[:-3] + bytes([pkt[-3] ^ 1]) + pkt[-2:]
    assert parse_packet(damaged)[2] is False


def test_servo_map_round_trip_and_directions() -> None:
    model, prof = load_robot("humanoid17"), load_profile("humanoid17")
    smap = ServoMap.from_profile(model, prof)
    q = np.radians(np.linspace(-40, 40, model.nq))
    ticks = smap.to_ticks(q)
    assert np.max(np.abs(smap.to_q(ticks, model.zero()) - q)) <= np.pi / 4096
    k_left, k_right = smap.joints.index("left_knee"), smap.joints.index("right_knee")
    mirrored = model.pose("crouch")
    t = smap.to_ticks(mirrored)
    assert t[k_left] == t[k_right]  # mirrored joints, mirrored servos: the same ticks


def test_sdk_drives_emulated_servos_over_a_pty() -> None:
    model, prof = load_robot("humanoid17"), load_profile("humanoid17")
    with emulated_robot() as (dev, emu), ServoBus(dev, model, prof) as bus:
        assert set(bus.ping().values()) == {1060}
        bus.torque(True)
        q = model.pose("crouch")
        sent = bus.write_q(q)
        # a sync write has no reply: reading back (in order on the line) waits for it
        assert np.max(np.abs(bus.read_q() - q)) <= np.pi / 4096
        present = emu.present_ticks()
        assert [present[int(i)] for i in bus.map.ids] == sent.tolist()
        prog = program_from_dict(
            {
                "name": "nod",
                "units": "deg",
                "start": "stand",
                "keyframes": [{"name": "a", "targets": {"head_yaw": 30}, "speed": 8}],
            }
        )
        samples = compile_program(prog, model).sample("fixed_tick", tick=0.05)
        rep = stream(bus, samples, realtime=False, readback_every=2)
        assert rep.ticks_sent == samples.ticks + 1 and rep.max_readback_error_ticks == 0
        sid = bus.map.ids[bus.map.joints.index("head_yaw")]
        assert emu.present_ticks()[int(sid)] == 2048 + round(30 / 360 * 4096)


def test_silent_servo_bus_is_a_clear_error() -> None:
    model, prof = load_robot("humanoid17"), load_profile("humanoid17")
    with emulated_robot() as (dev, emu):
        emu.tables.pop(5)  # servo 5 unplugged from the bus
        with ServoBus(dev, model, prof) as bus, pytest.raises(LinkError, match="ping servo 5"):
            bus.ping()


def test_servo_port_unplugged_mid_stream() -> None:
    model, prof = load_robot("humanoid17"), load_profile("humanoid17")
    with emulated_robot() as (dev, emu), ServoBus(dev, model, prof) as bus:
        bus.torque(True)
        bus.write_q(model.pose("crouch"))
        emu.stop()
        emu.t.close()  # the robot side goes away (cable pulled)
        with pytest.raises(LinkError, match=r"unplugged|ping servo"):
            for _ in range(3):
                bus.write_q(model.zero())
                bus.ping()


def test_a_robot_that_starts_late_is_waited_for_on_first_contact() -> None:
    """A link that has never answered keeps trying for a while (a robot booting, an
    emulator still loading): pings sent before it listens are not the end."""
    import os
    import threading
    import time
    import tty

    from robotsim.robotlink import FdTransport, RobotEmulator

    model, prof = load_robot("humanoid17"), load_profile("humanoid17")
    master, slave = os.openpty()
    tty.setraw(slave)
    emu = RobotEmulator(FdTransport(master, "pty master"), model, prof)
    late = threading.Timer(4.0, emu.start)  # 4 s: longer than the 5 plain attempts wait
    late.start()
    t0 = time.monotonic()
    try:
        with ServoBus(os.ttyname(slave), model, prof) as bus:
            models = bus.ping()
        assert time.monotonic() - t0 >= 4.0 and set(models.values()) == {1060}
    finally:
        late.cancel()
        late.join()
        emu.stop()
        if not emu.t.closed:  # type: ignore[attr-defined]
            emu.t.close()
        os.close(slave)
