"""The robot side of the serial line, in software: Dynamixel servos and the controller.

One :class:`RobotEmulator` owns one port and answers both protocols on it, telling them
apart by their headers (``FF FF FD 00`` Dynamixel, ``A5 5A`` controller):

- **servos** (Protocol 2.0, one control table per id of the robot profile, X-series
  addresses): PING (also broadcast), READ, WRITE, SYNC_READ, SYNC_WRITE. With torque
  enabled, the present position follows the goal position at once. A packet with a bad
  CRC gets a status with the CRC error bit, as real servos do;
- **controller**: the framed protocol of :mod:`robotsim.robotlink.frames`. A program is
  staged chunk by chunk and stored only on COMMIT, after its size and CRC-32 check out
  and it validates against the robot (names, limits, the profile's capacity); the store
  is replaced atomically (a file written aside then renamed, when ``store`` is a path).

:class:`FaultPlan` injects the failures tests need: damaged or lost incoming frames,
damaged replies, a robot that goes silent, a port that disappears mid-transfer.
"""

from __future__ import annotations

import json
import os
import struct
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from robotsim.errors import LinkError, RobotsimError
from robotsim.jsonable import read_json
from robotsim.model.robot import RobotModel
from robotsim.motion.profile import RobotProfile, check_capacity
from robotsim.motion.timeline import compile_program
from robotsim.robotlink import dxl
from robotsim.robotlink.controller import decode_program
from robotsim.robotlink.frames import SYNC, Frame, FrameType, Nak, encode, parse_frame
from robotsim.robotlink.resync import INTER_BYTE_TIMEOUT, parse_resync
from robotsim.robotlink.transport import Transport

__all__ = ["FaultPlan", "RobotEmulator"]

MODEL_NUMBER = 1060  # XL430-W250
FIRMWARE = 46
MAX_PROGRAM = 64 * 1024


@dataclass
class FaultPlan:
    """Failures to inject, by the 0-based count of controller frames received."""

    corrupt_rx: set[int] = field(default_factory=set)
    drop_rx: set[int] = field(default_factory=set)
    corrupt_tx: set[int] = field(default_factory=set)
    silent_after: int | None = None
    close_after: int | None = None
    #: seconds before each servo answer (a slow USB adapter, a loaded machine)
    servo_latency: float = 0.0


class RobotEmulator:
    """Serve the servo bus and the controller on ``transport`` (see module docs)."""

    def __init__(
        self,
        transport: Transport,
        model: RobotModel,
        profile: RobotProfile,
        store: Path | None = None,
        faults: FaultPlan | None = None,
    ) -> None:
        self.t = transport
        self.model = model
        self.profile = profile
        self.store = Path(store) if store is not None else None
        self.faults = faults or FaultPlan()
        bus = profile.servos
        self.tables: dict[int, bytearray] = {}
        for spec in bus.joints.values():
            tab = bytearray(256)
            struct.pack_into("<HxxxxB", tab, 0, MODEL_NUMBER, FIRMWARE)
            tab[7] = spec.id
            struct.pack_into("<i", tab, bus.addr_goal_position, bus.center_tick)
            struct.pack_into("<i", tab, bus.addr_present_position, bus.center_tick)
            self.tables[spec.id] = tab
        self.program: bytes | None = None
        if self.store is not None and self.store.is_file():
            self.program = self.store.read_bytes()
        self._staging: dict[str, object] | None = None
        self._chunks: dict[int, bytes] = {}
        self._last: tuple[int, int, bytes] | None = None  # (type, seq, reply) for resends
        self.frames_in = 0
        self.servo_packets = 0
        self._buf = b""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None

    # -------------------------------------------------------------- running
    def start(self) -> RobotEmulator:
        self._thread = threading.Thread(target=self._run, name="robot-emulator", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2.0)

    def serve_forever(self) -> None:
        self._run()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                data = self.t.read(4096, INTER_BYTE_TIMEOUT)
                if data:
                    self._buf += data
                    self._process()
                elif self._buf:
                    self._process(stale=True)  # inter-byte timeout: drop a partial packet
        except LinkError as exc:
            if not self._stop.is_set():
                self.error = exc

    def _process(self, stale: bool = False) -> None:
        parsers = ((dxl.HEADER, dxl.parse_packet), (SYNC, parse_frame))
        while self._buf:
            i_dxl = self._buf.find(dxl.HEADER)
            i_ctl = self._buf.find(SYNC)
            starts = [i for i in (i_dxl, i_ctl) if i >= 0]
            if not starts:
                self._buf = self._buf[-3:] if not stale else b""
                return
            self._buf = self._buf[min(starts) :]
            kind, pkt, used, ok = parse_resync(self._buf, parsers, stale)
            if used == 0:
                return
            raw = self._buf[:used]
            self._buf = self._buf[used:]
            if kind == 0:
                self._servo(pkt, ok)
            else:
                self._controller(pkt, ok, raw)

    # -------------------------------------------------------------- servos
    def _servo(self, pkt: dxl.Packet | None, ok: bool) -> None:
        self.servo_packets += 1
        if not ok or pkt is None:
            return  # the id of a damaged packet cannot be trusted: stay silent
        inst, p = pkt.instruction, pkt.params
        if self.faults.servo_latency > 0 and inst != dxl.Instruction.SYNC_WRITE:
            time.sleep(self.faults.servo_latency)  # answers come late, none is lost
        if inst == dxl.Instruction.SYNC_WRITE:
            addr, n = struct.unpack_from("<HH", p)
            body = p[4:]
            for k in range(0, len(body) - n + 1, n + 1):
                sid = body[k]
                if sid in self.tables:
                    self._write(sid, addr, body[k + 1 : k + 1 + n])
            return
        if inst == dxl.Instruction.SYNC_READ:
            addr, n = struct.unpack_from("<HH", p)
            for sid in p[4:]:
                if sid in self.tables:
                    self.t.write(dxl.build_status(sid, 0, bytes(self.tables[sid][addr : addr + n])))
            return
        targets = list(self.tables) if pkt.id == dxl.BROADCAST_ID else [pkt.id]
        for sid in targets:
            if sid not in self.tables:
                continue
            tab = self.tables[sid]
            if inst == dxl.Instruction.PING:
                self.t.write(dxl.build_status(sid, 0, struct.pack("<HB", MODEL_NUMBER, FIRMWARE)))
            elif inst == dxl.Instruction.READ:
                addr, n = struct.unpack_from("<HH", p)
                if addr + n > len(tab):
                    self.t.write(dxl.build_status(sid, dxl.DxlError.ACCESS))
                else:
                    self.t.write(dxl.build_status(sid, 0, bytes(tab[addr : addr + n])))
            elif inst == dxl.Instruction.WRITE:
                addr = struct.unpack_from("<H", p)[0]
                if addr + len(p) - 2 > len(tab):
                    self.t.write(dxl.build_status(sid, dxl.DxlError.ACCESS))
                else:
                    self._write(sid, addr, p[2:])
                    self.t.write(dxl.build_status(sid, 0))
            else:
                self.t.write(dxl.build_status(sid, dxl.DxlError.INSTRUCTION))

    def _write(self, sid: int, addr: int, data: bytes) -> None:
        bus = self.profile.servos
        tab = self.tables[sid]
        tab[addr : addr + len(data)] = data
        if tab[bus.addr_torque_enable] and addr <= bus.addr_goal_position < addr + len(data):
            goal = tab[bus.addr_goal_position : bus.addr_goal_position + 4]
            tab[bus.addr_present_position : bus.addr_present_position + 4] = goal

    def present_ticks(self) -> dict[int, int]:
        a = self.profile.servos.addr_present_position
        return {sid: struct.unpack_from("<i", tab, a)[0] for sid, tab in self.tables.items()}

    # -------------------------------------------------------------- controller
    def _controller(self, frame: Frame | None, ok: bool, raw: bytes) -> None:
        n = self.frames_in
        self.frames_in += 1
        f = self.faults
        if f.close_after is not None and n >= f.close_after:
            self._stop.set()
            self.t.close()
            return
        if f.silent_after is not None and n >= f.silent_after:
            return
        if n in f.drop_rx:
            return
        if n in f.corrupt_rx:
            ok = False
        if not ok or frame is None:
            seq = raw[3] if len(raw) > 3 else 0
            self._reply(n, Frame(FrameType.NAK, seq, bytes([Nak.BAD_CRC]) + b"bad CRC"))
            return
        if self._last is not None and self._last[:2] == (frame.type, frame.seq):
            self._send(n, self._last[2])  # a retransmission: same answer, no new effect
            return
        reply = self._handle(frame)
        raw_reply = encode(reply)
        self._last = (frame.type, frame.seq, raw_reply)
        self._send(n, raw_reply)

    def _reply(self, n: int, frame: Frame) -> None:
        self._send(n, encode(frame))

    def _send(self, n: int, raw: bytes) -> None:
        if n in self.faults.corrupt_tx:
            raw = raw[:-1] + bytes([raw[-1] ^ 0x5A])
        self.t.write(raw)

    def _nak(self, frame: Frame, code: Nak, msg: str) -> Frame:
        return Frame(FrameType.NAK, frame.seq, bytes([code]) + msg.encode())

    def _handle(self, fr: Frame) -> Frame:
        T = FrameType
        ack = Frame(T.ACK, fr.seq)
        if fr.type == T.HELLO:
            c = self.profile.controller
            info = {
                "robot": self.profile.robot,
                "servos": len(self.tables),
                "max_keyframes_per_motion": c.max_keyframes_per_motion,
                "max_motions_per_program": c.max_motions_per_program,
                "max_program_bytes": MAX_PROGRAM,
                "stored": self._stored_name(),
            }
            return Frame(T.ACK, fr.seq, json.dumps(info, allow_nan=False).encode())
        if fr.type == T.BEGIN:
            try:
                head = read_json(fr.payload, "BEGIN")
                size, chunks = int(head["size"]), int(head["chunks"])
                crc, name = int(head["crc32"]), str(head["name"])
            except (ValueError, KeyError, UnicodeDecodeError, TypeError):
                return self._nak(fr, Nak.BAD_STATE, "BEGIN needs name, size, chunks, crc32")
            if size > MAX_PROGRAM:
                return self._nak(fr, Nak.TOO_BIG, f"{size} bytes > {MAX_PROGRAM}")
            self._staging = {"name": name, "size": size, "chunks": chunks, "crc32": crc}
            self._chunks = {}
            return ack
        if fr.type == T.DATA:
            if self._staging is None:
                return self._nak(fr, Nak.BAD_STATE, "DATA without BEGIN")
            k = struct.unpack_from("<H", fr.payload)[0]
            if k >= int(self._staging["chunks"]):  # type: ignore[call-overload]
                return self._nak(fr, Nak.BAD_CHUNK, f"chunk {k} out of range")
            self._chunks[k] = fr.payload[2:]
            return Frame(T.ACK, fr.seq, struct.pack("<H", k))
        if fr.type == T.COMMIT:
            return self._commit(fr)
        if fr.type == T.ABORT:
            self._staging, self._chunks = None, {}
            return ack
        if fr.type == T.GET:
            if self.program is None:
                return self._nak(fr, Nak.NOTHING_STORED, "no program stored")
            info = {
                "name": self._stored_name(),
                "size": len(self.program),
                "chunks": max(1, -(-len(self.program) // 256)),
                "crc32": zlib.crc32(self.program),
            }
            return Frame(T.ACK, fr.seq, json.dumps(info, allow_nan=False).encode())
        if fr.type == T.GET_CHUNK:
            if self.program is None:
                return self._nak(fr, Nak.NOTHING_STORED, "no program stored")
            k = struct.unpack_from("<H", fr.payload)[0]
            return Frame(
                T.DATA, fr.seq, struct.pack("<H", k) + self.program[k * 256 : (k + 1) * 256]
            )
        return self._nak(fr, Nak.UNKNOWN_TYPE, f"unknown frame type 0x{fr.type:02x}")

    def _commit(self, fr: Frame) -> Frame:
        st = self._staging
        if st is None:
            return self._nak(fr, Nak.BAD_STATE, "COMMIT without BEGIN")
        self._staging = None
        n = int(st["chunks"])  # type: ignore[call-overload]
        missing = [k for k in range(n) if k not in self._chunks]
        if missing:
            return self._nak(fr, Nak.BAD_STATE, f"chunks missing: {missing[:10]}")
        data = b"".join(self._chunks[k] for k in range(n))
        self._chunks = {}
        if len(data) != st["size"] or zlib.crc32(data) != st["crc32"]:
            return self._nak(fr, Nak.CHECKSUM, "size or CRC-32 of the program does not match")
        try:
            program = decode_program(data, "upload")
            if program.robot not in (None, self.profile.robot):
                return self._nak(
                    fr,
                    Nak.INVALID_PROGRAM,
                    f"program is for {program.robot}, this is {self.profile.robot}",
                )
            check_capacity(program, self.profile)
            compile_program(program, self.model)
        except RobotsimError as exc:
            return self._nak(fr, Nak.INVALID_PROGRAM, str(exc)[:900])
        if self.store is not None:
            tmp = self.store.with_suffix(self.store.suffix + ".tmp")
            tmp.write_bytes(data)
            os.replace(tmp, self.store)
        self.program = data
        return Frame(FrameType.ACK, fr.seq)

    def _stored_name(self) -> str | None:
        if self.program is None:
            return None
        try:
            return str(read_json(self.program, "stored program")["name"])
        except (ValueError, KeyError, TypeError):
            return None
