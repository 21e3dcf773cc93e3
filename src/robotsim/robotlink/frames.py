"""Frames of the robot-controller protocol (program upload/download); see
``docs/robotlink.md`` for the full description.

``A5 5A | TYPE | SEQ | LEN_L LEN_H | PAYLOAD (LEN bytes, <= 1024) | CRC_L CRC_H``

The CRC is :func:`~robotsim.robotlink.crc.crc16_ccitt` over TYPE..PAYLOAD. Every request
gets exactly one reply carrying the request's SEQ: ACK (possibly with data), NAK (a code
byte and a UTF-8 message) or, for GET_CHUNK, a DATA frame.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass

from robotsim.robotlink.crc import crc16_ccitt

__all__ = ["MAX_PAYLOAD", "SYNC", "Frame", "FrameType", "Nak", "encode", "parse_frame"]

SYNC = b"\xa5\x5a"
MAX_PAYLOAD = 1024


class FrameType(enum.IntEnum):
    HELLO = 0x01
    BEGIN = 0x10
    DATA = 0x11
    COMMIT = 0x12
    ABORT = 0x13
    GET = 0x20
    GET_CHUNK = 0x21
    ACK = 0x06
    NAK = 0x15


class Nak(enum.IntEnum):
    """NAK codes (first payload byte)."""

    BAD_CRC = 1
    BAD_STATE = 2
    TOO_BIG = 3
    CHECKSUM = 4
    INVALID_PROGRAM = 5
    NOTHING_STORED = 6
    UNKNOWN_TYPE = 7
    BAD_CHUNK = 8


@dataclass(frozen=True)
class Frame:
    type: int
    seq: int
    payload: bytes = b""


def encode(frame: Frame) -> bytes:
    if len(frame.payload) > MAX_PAYLOAD:
        raise ValueError(f"frame payload of {len(frame.payload)} bytes > {MAX_PAYLOAD}")
    body = struct.pack("<BBH", frame.type, frame.seq & 0xFF, len(frame.payload)) + frame.payload
    return SYNC + body + struct.pack("<H", crc16_ccitt(body))


def parse_frame(buf: bytes) -> tuple[Frame | None, int, bool]:
    """Parse one frame at the start of ``buf`` (which begins with :data:`SYNC`).

    Returns ``(frame, consumed, crc_ok)``; ``(None, 0, True)`` = need more bytes;
    ``(None, n, False)`` = ``n`` bytes of a damaged frame (bad CRC or absurd length).
    """
    if len(buf) < 6:
        return None, 0, True
    ftype, seq, length = struct.unpack_from("<BBH", buf, 2)
    if length > MAX_PAYLOAD:
        return None, 2, False
    total = 6 + length + 2
    if len(buf) < total:
        return None, 0, True
    body = buf[2 : 6 + length]
    if crc16_ccitt(body) != struct.unpack_from("<H", buf, 6 + length)[0]:
        return None, total, False
    return Frame(ftype, seq, bytes(buf[6 : 6 + length])), total, True
