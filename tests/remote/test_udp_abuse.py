"""Abuse of the UDP server: leases, amplification, global rate, long steps, huge
numbers, deep JSON and absurd controls. Real sockets, a real kinematic target."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from robotsim import load_robot
from robotsim.remote import Client, KinematicTarget, RemoteServer, ServerLimits
from tests.remote.cart import cart as _cart


def _server(**limits: float) -> RemoteServer:
    target = KinematicTarget({"arm": load_robot("puma560"), "cart": _cart()}, dt=0.002)
    return RemoteServer(target, port=0, limits=ServerLimits(**limits)).start()  # type: ignore[arg-type]


@pytest.fixture
def server() -> Iterator[RemoteServer]:
    with _server(lease=1.0, max_subscribers=4) as srv:
        yield srv


def _sock() -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(2.0)
    return s


def _ask(s: socket.socket, server: RemoteServer, msg: dict | bytes) -> dict:
    data = msg if isinstance(msg, bytes) else json.dumps(msg).encode()
    s.sendto(data, server.address)
    while True:
        reply = json.loads(s.recv(65536))
        if reply.get("event") != "state":
            return reply


def _count_pushes(s: socket.socket, seconds: float) -> int:
    s.settimeout(0.05)
    n, end = 0, time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if json.loads(s.recv(65536)).get("event") == "state":
                n += 1
        except TimeoutError:
            pass
    s.settimeout(2.0)
    return n


def test_a_subscription_expires_when_the_client_goes_silent(server: RemoteServer) -> None:
    with _sock() as s:
        reply = _ask(s, server, {"id": 1, "op": "subscribe", "rate": 50, "robots": ["cart"]})
        assert reply["ok"] and reply["lease"] == 1.0
        assert _count_pushes(s, 0.5) > 5
        time.sleep(1.2)  # silent past the lease
        _count_pushes(s, 0.1)  # drain what was in flight
        assert _count_pushes(s, 0.5) == 0
    with Client(server.address) as c:
        assert c.stats()["stats"]["expired"] == 1


def test_vanished_subscribers_free_their_slots(server: RemoteServer) -> None:
    socks = [_sock() for _ in range(4)]
    try:
        for k, s in enumerate(socks):
            assert _ask(s, server, {"id": k, "op": "subscribe", "rate": 1, "robots": ["cart"]})[
                "ok"
            ]
        with _sock() as late:
            full = _ask(late, server, {"id": 9, "op": "subscribe", "rate": 1, "robots": ["cart"]})
            assert not full["ok"] and "already 4 subscribers" in full["error"]
            time.sleep(1.2)  # the four never renew
            again = _ask(late, server, {"id": 10, "op": "subscribe", "rate": 1, "robots": ["cart"]})
            assert again["ok"] and again["subscribers"] == 1
    finally:
        for s in socks:
            s.close()


def test_the_client_renews_its_lease_while_reading(server: RemoteServer) -> None:
    with Client(server.address) as c:
        c.resume()
        c.subscribe(rate=50, robots=["cart"], lease=1.0)
        end = time.monotonic() + 2.5  # more than twice the lease
        n = 0
        while time.monotonic() < end:
            c.next_state(timeout=1.0)
            n += 1
        assert n > 60


def test_no_amplification_unless_subscribed(server: RemoteServer) -> None:
    with _sock() as s:
        req = b'{"id":1,"op":"info"}'
        s.sendto(req, server.address)
        data = s.recv(65536)
        reply = json.loads(data)
        assert not reply["ok"] and reply["code"] == "reply_too_large"
        assert len(data) <= max(10 * len(req), 512)
        padded = {"id": 2, "op": "info", "pad": " " * reply["need_bytes"]}
        assert _ask(s, server, padded)["ok"]
        assert _ask(s, server, {"id": 3, "op": "subscribe", "rate": 1, "robots": ["cart"]})["ok"]
        assert _ask(s, server, b'{"id":4,"op":"info"}')["ok"]  # subscribed: allowed
    with Client(server.address) as c:  # the client pads by itself
        assert c.info()["protocol"] == "robotsim-udp/1"
        assert c.state(links=True)["robots"]["arm"]["links"]


def test_global_rate_limit_across_senders() -> None:
    with _server(global_rate=200.0, global_burst=50.0) as srv:
        socks = [_sock() for _ in range(4)]
        try:
            for s in socks:
                s.setblocking(False)
            for _ in range(100):
                for s in socks:
                    s.sendto(b'{"op":"ping"}', srv.address)
            errors: set[str] = set()

            def told() -> bool:  # the server's answers so far (it reads when it can)
                for s in socks:
                    while True:
                        try:
                            msg = json.loads(s.recv(65536))
                        except BlockingIOError:
                            break
                        if not msg["ok"]:
                            errors.add(msg["error"])
                return any("rate_limited" in e and "all senders together" in e for e in errors)

            deadline = time.monotonic() + 30
            while not told() and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            for s in socks:
                s.close()
        assert any("rate_limited" in e and "all senders together" in e for e in errors), errors
        with Client(srv.address, retries=5) as c:
            time.sleep(0.3)
            assert c.stats()["stats"]["rate_limited"] > 0


def test_a_long_step_lets_other_clients_in() -> None:
    # one step per slice, so the 10,000 steps span thousands of looks at the socket
    # however fast the machine; b pings all along and must be answered mid-step
    with _server(step_slice=1) as srv, Client(srv.address, timeout=5.0) as a, \
            Client(srv.address) as b:  # fmt: skip
        a.pause()
        t0 = a.ping()
        done = threading.Event()
        result: list[float] = []

        def long_step() -> None:
            result.append(a.step(10_000))
            done.set()

        th = threading.Thread(target=long_step)
        th.start()
        during: list[float] = []  # sim times b was told while a's step was running
        while not done.is_set():
            t_mid = b.ping()
            if not done.is_set():
                during.append(t_mid)
            time.sleep(0.002)  # well below the per-sender rate limit
        th.join(30)
        assert result and result[0] == pytest.approx(t0 + 10_000 * 0.002)
        assert any(t0 < t < result[0] for t in during), (t0, during[:5], result)
        assert b.step(5) == pytest.approx(t0 + 10_005 * 0.002)


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b'{"id": 1, "op": "ping", "x": ' + b"7" * 4000 + b"}", "number of 4000 digits"),
        (b'{"id": 1, "op": "ping", "x": 1e999}', "out of the float64 range"),
        (b'{"id": 1, "op": "ping", "x": ' + b"[" * 990 + b"]" * 990 + b"}", "nested deeper"),
        (b"[" * 5000, "nested deeper"),
        (
            b'{"id": 1, "op": "set_wheels", "robot": "cart", "speeds": {"wheel_l_joint": 1e11}}',
            "speeds.wheel_l_joint = 1e+11 is outside",
        ),
        (
            b'{"id": 1, "op": "set_base_velocity", "robot": "cart", "vx": 1e11}',
            "'vx' = 100000000000.0 is outside",
        ),
        (
            b'{"id": 1, "op": "set_joints", "robot": "arm", "joints": {"joint1": -1e300}}',
            "joints.joint1 = -1e+300 is outside",
        ),
    ],
)
def test_bad_numbers_and_depth_get_a_clear_error(
    server: RemoteServer, payload: bytes, message: str
) -> None:
    with _sock() as s:
        reply = _ask(s, server, payload)
    assert reply["ok"] is False and message in reply["error"], reply
    assert "internal error" not in reply["error"]
