"""Finding packets in a damaged byte stream: resynchronise on header + CRC.

A serial line can deliver a damaged header whose length field claims far more bytes
than follow (``A5 5A 20 00 E8 03`` claims a 1,000-byte payload). Waiting for those
bytes would swallow every good frame sent meanwhile. So a packet that is incomplete or
fails its CRC is given up as soon as a *complete packet with a valid CRC* starts later
in the buffer, or when the line has been quiet for the inter-byte timeout; scanning
then resumes at the next header. Both ends of the link (the host's
:class:`~robotsim.robotlink.controller.ControllerLink` and the robot-side
:class:`~robotsim.robotlink.emulator.RobotEmulator`) read through :func:`parse_resync`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["INTER_BYTE_TIMEOUT", "Parser", "parse_resync"]

#: Seconds of silence after which an incomplete packet is abandoned. At 115,200 baud a
#: byte takes 87 us; a sender writes a packet in one go, so 50 ms of silence in the
#: middle of one means its remaining bytes are not coming.
INTER_BYTE_TIMEOUT = 0.05

#: ``parse(buf) -> (packet, consumed, crc_ok)``: ``(None, 0, True)`` = need more bytes,
#: ``(None, n, False)`` = ``n`` bytes of a damaged packet.
Parser = Callable[[bytes], tuple[Any, int, bool]]


def _header_at(buf: bytes, i: int, parsers: Sequence[tuple[bytes, Parser]]) -> int:
    for k, (head, _) in enumerate(parsers):
        if buf.startswith(head, i):
            return k
    return -1


def _next_header(buf: bytes, start: int, parsers: Sequence[tuple[bytes, Parser]]) -> int:
    found = [i for head, _ in parsers if (i := buf.find(head, start)) >= 0]
    return min(found) if found else -1


def _next_valid(
    buf: bytes, start: int, end: int, parsers: Sequence[tuple[bytes, Parser]]
) -> int | None:
    """The first position in ``[start, end)`` where a complete, valid packet begins."""
    i = _next_header(buf, start, parsers)
    while 0 <= i < end:
        k = _header_at(buf, i, parsers)
        pkt, used, ok = parsers[k][1](buf[i:])
        if used and ok and pkt is not None:
            return i
        i = _next_header(buf, i + 1, parsers)
    return None


def parse_resync(
    buf: bytes, parsers: Sequence[tuple[bytes, Parser]], stale: bool = False
) -> tuple[int, Any, int, bool]:
    """Parse the packet at the start of ``buf``, which begins with one of the headers.

    Args:
        buf: received bytes, starting with the header of ``parsers[k]`` for some k.
        parsers: ``(header, parse)`` per protocol sharing the line.
        stale: no byte has arrived for :data:`INTER_BYTE_TIMEOUT`: an incomplete
            packet is abandoned.

    Returns:
        ``(k, packet, consumed, ok)``: ``consumed == 0`` means wait for more bytes;
        ``ok`` False means ``consumed`` bytes of damage to drop (report them once).
    """
    k = _header_at(buf, 0, parsers)
    if k < 0:
        raise ValueError("parse_resync: buf must start with a header")
    pkt, used, ok = parsers[k][1](buf)
    if used and ok:
        return k, pkt, used, True
    # incomplete or damaged: a valid packet further on means this one was not real
    j = _next_valid(buf, 1, used if used else len(buf), parsers)
    if j is not None:
        return k, None, j, False
    if used:
        return k, None, used, False
    if stale:
        nxt = _next_header(buf, 1, parsers)
        return k, None, nxt if nxt > 0 else len(buf), False
    return k, None, 0, True
