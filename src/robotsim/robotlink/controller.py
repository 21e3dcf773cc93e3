"""Host side of the robot-controller protocol: upload and download motion programs.

Every request is retransmitted (same SEQ) when no valid reply arrives within
``timeout`` seconds, when the reply is damaged, or when the controller NAKs with
BAD_CRC; after ``retries`` retransmissions the operation fails with a
:class:`~robotsim.errors.LinkError` that says what was being sent and what the robot
now holds. An upload is reported as done only when the controller has acknowledged
COMMIT, i.e. verified the whole program's CRC-32 and stored it atomically; any failure
before that leaves the robot with its previous program (see ``docs/robotlink.md``).
"""

from __future__ import annotations

import json
import secrets
import struct
import zlib
from dataclasses import dataclass
from typing import Any

from robotsim.errors import InputError, LinkError
from robotsim.jsonable import read_json
from robotsim.motion.schema import Program, program_from_dict
from robotsim.robotlink.frames import SYNC, Frame, FrameType, Nak, encode, parse_frame
from robotsim.robotlink.resync import INTER_BYTE_TIMEOUT, parse_resync
from robotsim.robotlink.transport import SerialTransport, Transport

__all__ = ["CHUNK", "ControllerLink", "UploadReport", "decode_program", "encode_program"]

CHUNK = 256


def encode_program(program: Program) -> bytes:
    """The bytes stored on the controller: compact UTF-8 JSON of the program file."""
    return json.dumps(
        program.to_dict(), separators=(",", ":"), sort_keys=True, allow_nan=False
    ).encode()


def _reply_json(payload: bytes, what: str) -> Any:
    """The JSON payload of the robot's reply to ``what`` (bounded: a damaged or hostile
    controller cannot make the parser recurse)."""
    try:
        return read_json(payload, f"robot's reply to {what}")
    except InputError as exc:
        raise LinkError(str(exc)) from None


def decode_program(data: bytes, source: str = "robot") -> Program:
    try:
        obj = read_json(data, f"{source}: stored program")
    except InputError as exc:
        raise LinkError(str(exc)) from None
    return program_from_dict(obj, source)


@dataclass(frozen=True)
class UploadReport:
    name: str
    size: int
    chunks: int
    crc32: int
    retransmissions: int


class ControllerLink:
    """A connection to the robot controller on ``transport`` (or a port path)."""

    def __init__(
        self,
        transport: Transport | str,
        timeout: float = 0.3,
        retries: int = 3,
        baudrate: int = 115200,
    ) -> None:
        if not (timeout > 0 and timeout < float("inf")):
            raise InputError(f"timeout must be > 0 s, got {timeout!r}")
        if retries < 0:
            raise InputError(f"retries must be >= 0, got {retries!r}")
        self.t = SerialTransport(transport, baudrate) if isinstance(transport, str) else transport
        self.timeout = timeout
        self.retries = retries
        # a fresh session starts at a random SEQ, so the controller's reply cache (which
        # answers a repeated TYPE+SEQ without acting again) never mistakes it for a resend
        self._seq = secrets.randbelow(256)
        self._buf = b""
        self.retransmissions = 0

    def close(self) -> None:
        self.t.close()

    def __enter__(self) -> ControllerLink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ exchange
    def _next_reply(self, seq: int) -> Frame | None:
        """The reply to ``seq`` if one arrives in time; None on timeout/damage."""
        import time

        deadline = time.monotonic() + self.timeout
        last_rx = time.monotonic()
        damaged = False
        while True:
            stale = time.monotonic() - last_rx >= INTER_BYTE_TIMEOUT
            i = self._buf.find(SYNC)
            if i < 0:
                self._buf = self._buf[-1:] if self._buf.endswith(SYNC[:1]) and not stale else b""
            else:
                self._buf = self._buf[i:]
                _, frame, used, ok = parse_resync(self._buf, ((SYNC, parse_frame),), stale)
                if used:
                    self._buf = self._buf[used:]
                    if not ok:
                        damaged = True  # retransmit unless a good reply follows at once
                        continue
                    if frame is not None and frame.seq == seq:
                        return frame
                    continue  # a stale reply to an earlier attempt: skip it
            left = deadline - time.monotonic()
            if left <= 0 or damaged:
                return None
            data = self.t.read(4096, min(left, INTER_BYTE_TIMEOUT))
            if data:
                self._buf += data
                last_rx = time.monotonic()

    def request(self, ftype: FrameType, payload: bytes = b"", what: str = "") -> Frame:
        """Send one request and return its ACK/DATA reply (retrying as documented)."""
        self._seq = (self._seq + 1) & 0xFF
        seq = self._seq
        raw = encode(Frame(ftype, seq, payload))
        what = what or ftype.name
        last = "no reply"
        for attempt in range(self.retries + 1):
            if attempt:
                self.retransmissions += 1
            self.t.write(raw)
            reply = self._next_reply(seq)
            if reply is None:
                last = f"no valid reply within {self.timeout:g} s"
                continue
            if reply.type == FrameType.NAK:
                code = reply.payload[0] if reply.payload else 0
                msg = reply.payload[1:].decode(errors="replace")
                if code == Nak.BAD_CRC:
                    last = "the robot received a damaged frame"
                    continue
                name = Nak(code).name if code in Nak._value2member_map_ else str(code)
                raise LinkError(f"robot refused {what}: {name}: {msg}")
            return reply
        raise LinkError(
            f"robot did not acknowledge {what} after {self.retries + 1} attempts ({last})"
        )

    # ------------------------------------------------------------ operations
    def hello(self) -> dict[str, Any]:
        """The controller's identity and capacity (robot, limits, stored program)."""
        return _reply_json(self.request(FrameType.HELLO).payload, "HELLO")

    def upload(self, program: Program) -> UploadReport:
        """Store ``program`` on the robot; returns only after the robot committed it."""
        data = encode_program(program)
        chunks = [data[i : i + CHUNK] for i in range(0, len(data), CHUNK)] or [b""]
        crc = zlib.crc32(data)
        head = {"name": program.name, "size": len(data), "chunks": len(chunks), "crc32": crc}
        start = self.retransmissions
        try:
            self.request(FrameType.BEGIN, json.dumps(head, allow_nan=False).encode(), "BEGIN")
            for k, c in enumerate(chunks):
                self.request(
                    FrameType.DATA, struct.pack("<H", k) + c, f"DATA chunk {k + 1}/{len(chunks)}"
                )
            self.request(FrameType.COMMIT, b"", "COMMIT")
        except LinkError as exc:
            keep = (
                (
                    "whether the robot stored it is unknown (its reply to COMMIT was lost); "
                    "download to check"
                )
                if "COMMIT" in str(exc) and not str(exc).startswith("robot refused")
                else ("the robot keeps its previous program")
            )
            raise LinkError(f"upload of {program.name!r} failed: {exc}; {keep}") from None
        return UploadReport(program.name, len(data), len(chunks), crc, self.retransmissions - start)

    def download(self) -> Program:
        """The program stored on the robot (CRC-32 verified)."""
        try:
            info = _reply_json(self.request(FrameType.GET).payload, "GET")
            parts = []
            for k in range(int(info["chunks"])):
                reply = self.request(
                    FrameType.GET_CHUNK, struct.pack("<H", k), f"GET_CHUNK {k + 1}/{info['chunks']}"
                )
                idx = struct.unpack_from("<H", reply.payload)[0]
                if reply.type != FrameType.DATA or idx != k:
                    raise LinkError(f"robot answered chunk {idx} to a request for chunk {k}")
                parts.append(reply.payload[2:])
        except LinkError as exc:
            raise LinkError(f"download failed: {exc}") from None
        data = b"".join(parts)
        if len(data) != info["size"] or zlib.crc32(data) != info["crc32"]:
            raise LinkError(
                f"download failed: program {info['name']!r} arrived with a wrong size or CRC-32"
            )
        return decode_program(data, f"robot program {info['name']!r}")
