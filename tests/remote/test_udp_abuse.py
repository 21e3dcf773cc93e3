"""Abuse of the UDP server: leases, amplification, global rate, long steps, huge
numbers, deep JSON and absurd controls. Real sockets, a real kinematic target.
(The amplification limit against a never-answering address over a whole hostile
corpus: tests/fuzz/test_fuzz_wire.py.)"""

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


def _cookie(s: socket.socket, server: RemoteServer) -> str:
    """Prove that ``s`` receives: ask for its cookie (echoed in later requests)."""
    return _ask(s, server, {"id": 0, "op": "cookie"})["cookie"]


def _subscribe(s: socket.socket, server: RemoteServer, rid: int = 1, **fields: object) -> dict:
    msg = {"id": rid, "op": "subscribe", "cookie": _cookie(s, server), **fields}
    return _ask(s, server, msg)


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
        reply = _subscribe(s, server, rate=50, robots=["cart"])
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
            assert _subscribe(s, server, k, rate=1, robots=["cart"])["ok"]
        with _sock() as late:
            full = _subscribe(late, server, 9, rate=1, robots=["cart"])
            assert not full["ok"] and "already 4 subscribers" in full["error"]
            time.sleep(1.2)  # the four never renew
            again = _subscribe(late, server, 10, rate=1, robots=["cart"])
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


def test_large_replies_and_subscriptions_need_the_cookie(server: RemoteServer) -> None:
    with _sock() as s:
        req = b'{"id":1,"op":"info"}'
        s.sendto(req, server.address)
        data = s.recv(65536)
        reply = json.loads(data)  # the info reply is ~1 kB: not to an unproven address
        # the 20-byte request leaves room for the shortest form only
        assert reply == {"id": 1, "ok": False, "cookie": reply["cookie"]}
        assert len(data) <= 3 * len(req)
        padded = {"id": 1, "op": "info", "pad": " " * 200}  # room for the explanation
        explained = _ask(s, server, padded)
        assert explained["code"] == "cookie_required" and reply["cookie"] in explained["error"]
        cookie = reply["cookie"]
        assert _ask(s, server, {"id": 2, "op": "info", "cookie": cookie})["ok"]
        small = _ask(s, server, {"id": 3, "op": "ping"})  # small replies need no cookie
        assert small["ok"] and "cookie" not in small
        sub = _ask(s, server, {"id": 4, "op": "subscribe", "rate": 50, "links": True})
        assert not sub["ok"] and "cookie" in sub  # no stream without the proof
        assert _count_pushes(s, 0.3) == 0
        bad = cookie[:-1] + ("A" if cookie[-1] != "A" else "B")
        assert not _ask(s, server, {"id": 5, "op": "subscribe", "cookie": bad})["ok"]
        with _sock() as other:  # a cookie proves one address and port, no other
            stolen = _ask(other, server, {"id": 6, "op": "subscribe", "cookie": cookie})
            assert not stolen["ok"] and stolen["cookie"] != cookie
        assert _ask(s, server, {"id": 7, "op": "subscribe", "cookie": cookie, "rate": 50})["ok"]
        assert _count_pushes(s, 0.3) > 3
    with Client(server.address) as c:  # the client asks for its cookie by itself
        assert c.info()["protocol"] == "robotsim-udp/1"
        assert c.state(links=True)["robots"]["arm"]["links"]


def test_the_spoofed_subscribe_of_the_issue_sends_at_most_3x() -> None:
    """The attack of issue 29: one 54-byte subscribe claiming a victim's address (here
    a socket that reads but never answers) used to push ~9 MB in 5 s."""
    with _server() as srv, _sock() as victim:
        victim.settimeout(0.05)
        attack = b'{"op":"subscribe","rate":1000,"links":true,"lease":30}'
        assert len(attack) == 54
        received = sent = 0
        end = time.monotonic() + 1.5
        next_send = 0.0
        while time.monotonic() < end:
            if time.monotonic() >= next_send:  # the attacker keeps renewing
                victim.sendto(attack, srv.address)
                sent += len(attack)
                next_send = time.monotonic() + 0.1
            try:
                received += len(victim.recv(65536))
            except TimeoutError:
                pass
        assert 0 < received <= 3 * sent, (received, sent)
        with Client(srv.address) as c:
            stats = c.stats()
        assert stats["subscribers"] == 0 and stats["stats"]["pushed"] == 0


def test_a_few_slots_per_host_and_pushes_capped_in_bytes() -> None:
    with _server(subscribers_per_host=2, push_bytes_per_s=20_000.0) as srv:
        socks = [_sock() for _ in range(3)]
        try:
            assert _subscribe(socks[0], srv, rate=1000, links=True)["ok"]
            assert _subscribe(socks[1], srv, rate=1)["ok"]
            third = _subscribe(socks[2], srv, rate=1)
            assert not third["ok"] and "at most 2 per address" in third["error"]
            socks[0].settimeout(0.05)
            got, t0 = 0, time.monotonic()
            while time.monotonic() - t0 < 2.0:
                try:
                    got += len(socks[0].recv(65536))
                except TimeoutError:
                    pass
            wall = time.monotonic() - t0
            # at most the bucket's 65,536 bytes of burst plus 20 kB/s (and one push in flight)
            assert got <= 65_536 + 20_000 * wall + 20_000, got
        finally:
            for s in socks:
                s.close()
        with Client(srv.address) as c:
            assert c.stats()["stats"]["push_throttled"] > 0


def test_a_spoofed_request_neither_renews_nor_ends_a_subscription(server: RemoteServer) -> None:
    with _sock() as s:
        assert _subscribe(s, server, rate=20, robots=["cart"])["ok"]
        # requests without the cookie (what a spoofer can send): no renewal, no unsubscribe
        end = time.monotonic() + 1.3  # past the 1 s lease
        while time.monotonic() < end:
            reply = _ask(s, server, {"id": 2, "op": "renew"})
            assert reply["renewed"] is False
            time.sleep(0.1)
        assert _count_pushes(s, 0.3) == 0  # expired although "renewed" all along
        assert _subscribe(s, server, 3, rate=20, robots=["cart"])["ok"]
        assert not _ask(s, server, {"id": 4, "op": "unsubscribe"})["ok"]
        assert _count_pushes(s, 0.3) > 0


def test_an_old_cookie_is_replaced_and_the_client_follows() -> None:
    with _server(cookie_period=0.4) as srv, Client(srv.address) as c:
        first = c._cookie if c.ping() is not None else None
        time.sleep(0.5)  # one period on: the old cookie is still valid, a new one comes
        c.info()
        assert c._cookie != first
        time.sleep(1.0)  # two periods on: the old cookie is dead; the client asks again
        assert c.info()["protocol"] == "robotsim-udp/1"


def test_global_rate_limit_across_senders() -> None:
    with _server(global_rate=200.0, global_burst=50.0) as srv:
        socks = [_sock() for _ in range(4)]
        try:
            for s in socks:
                # proven, so that the warnings' text fits the replies
                _ask(s, srv, {"id": 0, "op": "ping", "cookie": _cookie(s, srv)})
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
