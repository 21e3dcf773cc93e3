"""Dynamixel Protocol 2.0 packets (the servo side, as the emulator needs it).

Instruction packet: ``FF FF FD 00 | ID | LEN_L LEN_H | INST | PARAMS | CRC_L CRC_H`` with
``LEN = len(PARAMS) + 3``. Status packet: ``... | ID | LEN | 0x55 | ERR | PARAMS | CRC``
with ``LEN = len(PARAMS) + 4``. The CRC (:func:`~robotsim.robotlink.crc.crc16_dxl`)
covers everything before it, header included. Byte stuffing: inside INST..PARAMS every
``FF FF FD`` is followed by an extra ``FD`` (counted in LEN), removed on receipt.

The host side uses ``dynamixel-sdk``; this module exists so the robot-side emulator
speaks the same bytes with an independent implementation.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass

from robotsim.robotlink.crc import crc16_dxl

__all__ = [
    "BROADCAST_ID",
    "HEADER",
    "DxlError",
    "Instruction",
    "Packet",
    "build_instruction",
    "build_status",
    "parse_packet",
    "stuff",
    "unstuff",
]

HEADER = b"\xff\xff\xfd\x00"
BROADCAST_ID = 0xFE


class Instruction(enum.IntEnum):
    PING = 0x01
    READ = 0x02
    WRITE = 0x03
    REBOOT = 0x08
    STATUS = 0x55
    SYNC_READ = 0x82
    SYNC_WRITE = 0x83


class DxlError(enum.IntEnum):
    """The ERR byte of a status packet (low 7 bits)."""

    NONE = 0
    RESULT_FAIL = 1
    INSTRUCTION = 2
    CRC = 3
    DATA_RANGE = 4
    DATA_LENGTH = 5
    DATA_LIMIT = 6
    ACCESS = 7


@dataclass(frozen=True)
class Packet:
    id: int
    instruction: int
    params: bytes
    error: int = 0  # status packets only


def stuff(body: bytes) -> bytes:
    out = bytearray()
    for b in body:
        out.append(b)
        if b == 0xFD and out[-3:] == b"\xff\xff\xfd" and len(out) >= 3:
            out.append(0xFD)
    return bytes(out)


def unstuff(body: bytes) -> bytes:
    out = bytearray()
    i = 0
    while i < len(body):
        out.append(body[i])
        if (
            body[i] == 0xFD
            and out[-3:] == b"\xff\xff\xfd"
            and i + 1 < len(body)
            and body[i + 1] == 0xFD
        ):
            i += 1
        i += 1
    return bytes(out)


def _frame(dxl_id: int, body: bytes) -> bytes:
    body = stuff(body)
    head = HEADER + bytes([dxl_id]) + struct.pack("<H", len(body) + 2)
    pkt = head + body
    return pkt + struct.pack("<H", crc16_dxl(pkt))


def build_instruction(dxl_id: int, inst: int, params: bytes = b"") -> bytes:
    return _frame(dxl_id, bytes([inst]) + params)


def build_status(dxl_id: int, error: int = 0, params: bytes = b"") -> bytes:
    return _frame(dxl_id, bytes([Instruction.STATUS, error]) + params)


def parse_packet(buf: bytes) -> tuple[Packet | None, int, bool]:
    """Parse one packet at the start of ``buf`` (which begins with :data:`HEADER`).

    Returns ``(packet, consumed, crc_ok)``: ``(None, 0, True)`` when more bytes are
    needed; ``(None, n, False)`` for a packet of ``n`` bytes whose CRC is wrong.
    """
    if len(buf) < 7:
        return None, 0, True
    length = struct.unpack_from("<H", buf, 5)[0]
    total = 7 + length
    if length < 3 or length > 1024:
        return None, 4, False  # not a plausible packet: skip the header
    if len(buf) < total:
        return None, 0, True
    pkt = buf[:total]
    if crc16_dxl(pkt[:-2]) != struct.unpack_from("<H", pkt, total - 2)[0]:
        return None, total, False
    body = unstuff(pkt[7:-2])
    inst = body[0]
    if inst == Instruction.STATUS:
        return Packet(pkt[4], inst, body[2:], body[1]), total, True
    return Packet(pkt[4], inst, body[1:]), total, True
