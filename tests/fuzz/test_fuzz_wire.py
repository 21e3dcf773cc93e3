"""Fuzz the wire protocols over real sockets and a real pty: UDP datagrams to a live
server, serial bytes to the robot emulator. The server must answer every datagram it
does not rate-limit from an address that proved it receives with one JSON reply (ok, or
a one-line error; never ``internal error``) and stay alive; an address that never
answers gets at most 3 x the bytes it sent (no amplification); the emulator must stay
alive and answer a HELLO afterwards."""

from __future__ import annotations

import json
import random
import socket
import struct
import threading
import time

from robotsim import load_robot
from robotsim.remote import Client, KinematicTarget, RemoteServer, ServerLimits
from robotsim.remote.protocol import OPS
from robotsim.robotlink import ControllerLink, SerialTransport
from robotsim.robotlink.frames import SYNC, Frame, FrameType, encode
from tests.fuzz.mutate import NASTY, byte_mutation
from tests.remote.cart import cart as _cart
from tests.robotlink.ptys import emulated_robot

FIELDS = ["robot", "joints", "speeds", "vx", "vy", "omega", "n", "rate", "robots", "links",
          "lease", "id", "cookie"]  # fmt: skip
#: The largest replies and streams a sender can ask for (the attacks of issue 29).
ATTACKS = [
    b'{"op":"subscribe","rate":1000,"links":true,"lease":30}',
    b'{"op":"state","links":true}',
    b'{"op":"info"}',
    b'{"id":1,"op":"subscribe","rate":1000,"links":true,"lease":30,"cookie":"AAAAAAAAAAAAAAAA"}',
    b'{"op":"ping"}',
    b"{",
]


def _datagram(rng: random.Random) -> bytes:
    r = rng.random()
    if r < 0.15:
        return rng.randbytes(rng.randrange(1, 200))
    msg: dict = {"id": rng.choice([1, "a", None, 1.5, [], 10**30]), "op": rng.choice(OPS)}
    for _ in range(rng.randint(0, 4)):
        key = rng.choice(FIELDS)
        val = rng.choice(NASTY)
        if key in ("joints", "speeds") and rng.random() < 0.6:
            name = rng.choice(["joint1", "wheel_l_joint", "nope", ""])
            val = {name: rng.choice([0.1, 1e11, -1e300, 2, "x", None])}
        msg[key] = val
    if rng.random() < 0.2:
        msg["robot"] = rng.choice(["arm", "cart"])
    try:
        data = json.dumps(msg).encode()
    except ValueError:
        data = b"{}"
    if r > 0.85:
        data = byte_mutation(rng, data)
    return data


def _target() -> KinematicTarget:
    return KinematicTarget({"arm": load_robot("puma560"), "cart": _cart()}, dt=0.002)


def test_fuzz_udp_datagrams(fuzz_scale: int, fuzz_seed: int) -> None:
    rng = random.Random(fuzz_seed)
    limits = ServerLimits(
        sender_rate=1e6, sender_burst=1e6, global_rate=1e6, global_burst=1e6, cookie_period=3600
    )
    bad = []
    with RemoteServer(_target(), port=0, limits=limits).start() as srv:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(5.0)
            s.sendto(b'{"op": "cookie"}', srv.address)  # prove that we receive
            cookie = json.loads(s.recv(65536))["cookie"]
            s.sendto(json.dumps({"op": "ping", "cookie": cookie}).encode(), srv.address)
            s.recv(65536)
            for i in range(300 * fuzz_scale):
                data = _datagram(rng)
                s.sendto(data, srv.address)
                while True:  # step requests may be answered after their slices
                    reply = json.loads(s.recv(65536))
                    if reply.get("event") != "state":
                        break
                err = reply.get("error", "")
                if not reply.get("ok") and ("internal error" in err or "\n" in err):
                    bad.append(f"#{i} {data[:120]!r} -> {err[:200]}")
                if reply.get("paused") is False and rng.random() < 0.5:
                    s.sendto(b'{"op": "pause"}', srv.address)
                    s.recv(65536)
        with Client(srv.address, timeout=5.0) as c:
            assert c.ping() >= 0.0  # alive
    assert not bad, "\n".join(bad[:10])


def test_fuzz_udp_never_answering_address_gets_at_most_3x(fuzz_scale: int, fuzz_seed: int) -> None:
    """A victim whose address a spoofer writes in its datagrams reads but never answers
    (it never echoes a cookie): over the whole corpus, the attacks of issue 29 included
    and repeated, and the pushes that might follow, it receives at most 3 x the bytes
    sent in its name."""
    rng = random.Random(fuzz_seed + 1)
    limits = ServerLimits(sender_rate=1e6, sender_burst=1e6, global_rate=1e6, global_burst=1e6)
    received = [0]
    with RemoteServer(_target(), port=0, limits=limits).start() as srv:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
            s.settimeout(0.05)
            done = threading.Event()

            def read() -> None:  # count every byte that reaches the victim
                while not done.is_set():
                    try:
                        received[0] += len(s.recv(65536))
                    except (TimeoutError, OSError):
                        pass

            reader = threading.Thread(target=read)
            reader.start()
            sent = 0
            try:
                for i in range(300 * fuzz_scale):
                    data = ATTACKS[i % len(ATTACKS)] if i % 3 == 0 else _datagram(rng)
                    s.sendto(data, srv.address)
                    sent += len(data)
                    if i % 50 == 0:
                        time.sleep(0.01)  # let the server read (and push, if it would)
                time.sleep(1.0)  # anything still coming (a subscription would push)
            finally:
                done.set()
                reader.join(5)
        with Client(srv.address, timeout=5.0) as c:
            stats = c.stats()
    assert stats["subscribers"] == 0 and stats["stats"]["pushed"] == 0
    assert stats["stats"]["received"] >= 300 * fuzz_scale  # the server read it all
    assert 0 < received[0] <= 3 * sent, (received[0], sent)


def test_fuzz_serial_frames(fuzz_scale: int, fuzz_seed: int) -> None:
    rng = random.Random(fuzz_seed)
    valid = [
        encode(Frame(t, rng.randrange(256), rng.randbytes(rng.randrange(0, 40))))
        for t in (FrameType.HELLO, FrameType.GET, FrameType.ABORT, FrameType.DATA)
    ]
    with emulated_robot() as (dev, emu):
        raw = SerialTransport(dev)
        for _ in range(40 * fuzz_scale):
            r = rng.random()
            if r < 0.3:
                chunk = rng.randbytes(rng.randrange(1, 64))
            elif r < 0.6:
                chunk = byte_mutation(rng, rng.choice(valid))
            elif r < 0.8:  # a header with a random (often huge) length field
                chunk = (
                    SYNC + bytes([rng.randrange(256), 0]) + struct.pack("<H", rng.randrange(65536))
                )
            else:
                chunk = rng.choice(valid)
            raw.write(chunk)
            raw.read(4096, 0.005)  # drain replies now and then
        with ControllerLink(raw, timeout=1.0, retries=3) as link:
            assert link.hello()["robot"] == "humanoid17"
        assert emu.error is None
