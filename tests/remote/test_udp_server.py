"""The UDP server against a real kinematic target (PUMA 560 + a wheeled base)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import numpy as np
import pytest

from robotsim import load_robot
from robotsim.remote import (
    Client,
    KinematicTarget,
    RemoteError,
    RemoteServer,
    ServerLimits,
    SimulationTarget,
)
from tests.remote.cart import cart as _cart


@pytest.fixture
def server() -> Iterator[RemoteServer]:
    target = KinematicTarget({"arm": load_robot("puma560"), "cart": _cart()}, dt=0.002)
    assert isinstance(target, SimulationTarget)
    # a per-sender limit low enough that the flood below exceeds it even when a loaded
    # machine lets the kernel drop most of the flood before the server reads it
    limits = ServerLimits(sender_rate=300.0, sender_burst=60.0)
    with RemoteServer(target, port=0, limits=limits).start() as srv:
        yield srv


@pytest.fixture
def client(server: RemoteServer) -> Iterator[Client]:
    with Client(server.address, timeout=2.0) as c:
        yield c


def _raw(server: RemoteServer, payload: bytes) -> dict:
    """Send ``payload`` from a socket that proved it receives (echoed its cookie), so
    that the server may answer with more bytes than the payload has."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(2.0)
        s.sendto(b'{"id": 0, "op": "cookie"}', server.address)
        cookie = json.loads(s.recv(65536))["cookie"]
        s.sendto(json.dumps({"id": 0, "op": "ping", "cookie": cookie}).encode(), server.address)
        assert json.loads(s.recv(65536))["ok"]
        s.sendto(payload, server.address)
        return json.loads(s.recv(65536))


def test_binds_loopback_and_describes_itself(server: RemoteServer, client: Client) -> None:
    assert server.address[0] == "127.0.0.1"
    info = client.info()
    assert info["protocol"] == "robotsim-udp/1" and info["dt"] == 0.002
    assert info["robots"]["arm"]["joints"][0] == "joint1"
    assert info["robots"]["cart"] == {
        "joints": ["wheel_l_joint", "wheel_r_joint"],
        "wheels": ["wheel_l_joint", "wheel_r_joint"],
        "mobile": True,
    }


def test_paused_stepping_moves_joints_and_base_deterministically(client: Client) -> None:
    client.pause()
    client.reset()
    vmax = float(load_robot("puma560").velocity_limits[0])
    vmax = vmax if np.isfinite(vmax) else 1.0  # the target's default slew rate
    client.set_joints("arm", {"joint1": 0.5})
    client.set_base_velocity("cart", vx=1.0, vy=0.0, omega=0.0)
    client.set_wheels("cart", {"wheel_l_joint": 2.0})
    t = client.step(100)
    assert t == pytest.approx(0.2)
    st = client.state()
    assert st["paused"] is True and st["t"] == pytest.approx(0.2)
    q1 = st["robots"]["arm"]["joints"]["joint1"]
    assert q1 == pytest.approx(min(0.5, vmax * 0.2), abs=1e-12)
    cart = st["robots"]["cart"]
    assert cart["base"]["position"] == pytest.approx([0.2, 0.0, 0.0], abs=1e-12)
    assert cart["joints"]["wheel_l_joint"] == pytest.approx(0.4)
    assert cart["base_velocity"] == {"vx": 1.0, "vy": 0.0, "omega": 0.0}
    client.set_base_velocity("cart", omega=np.pi)
    client.step(500)
    yaw = client.state(["cart"])["robots"]["cart"]["base"]["yaw"]
    assert abs(yaw) == pytest.approx(np.pi, abs=1e-9)
    client.reset()
    st = client.state()
    assert st["t"] == 0.0 and st["robots"]["arm"]["joints"]["joint1"] == 0.0


def _timed_ping(client: Client) -> tuple[float, float, float]:
    """(wall time before, simulated time, wall time after) of one ping: the server
    read it somewhere in between (a loaded machine may take long to deliver a reply)."""
    before = time.monotonic()
    t = client.ping()
    return before, t, time.monotonic()


def _simulated_within(t0: tuple[float, float, float], t1: tuple[float, float, float],
                      slack: float) -> bool:  # fmt: skip
    """Whether the simulated time between two timed pings is the wall time between
    them, within ``slack`` s: it lies between the shortest and the longest wall time
    the two pings bracket."""
    (a0, s0, b0), (a1, s1, b1) = t0, t1
    return a1 - b0 - slack <= s1 - s0 <= b1 - a0 + slack


def test_runs_in_real_time_when_not_paused(client: Client) -> None:
    client.resume()
    p0 = _timed_ping(client)
    time.sleep(0.5)
    p1 = _timed_ping(client)
    assert _simulated_within(p0, p1, 0.15), (p0, p1, client.stats()["stats"])


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"{not json", "malformed JSON"),
        (b"\xff\xfe", "malformed JSON"),
        (b"[1, 2]", "must be a JSON object"),
        (b'{"id": 3, "op": "fly"}', "unknown op 'fly'; valid: ping, info"),
        (b'{"id": 3}', "'op' must be a string"),
        (b'{"id": true, "op": "ping"}', "'id' must be an integer or a string"),
        (
            b'{"id": 3, "op": "set_joints", "robot": "arm", "joints": {"elbow": 1}}',
            "unknown joint 'elbow' of robot 'arm'; valid: joint1, joint2",
        ),
        (
            b'{"id": 3, "op": "set_joints", "robot": "arm", "joints": {"joint1": "1"}}',
            "joints.joint1 must be a finite number",
        ),
        (
            b'{"id": 3, "op": "set_joints", "robot": "arm", "joints": {"joint1": NaN}}',
            "malformed JSON",
        ),
        (
            b'{"id": 3, "op": "set_joints", "robot": "arm", "joints": []}',
            "'joints' must be a non-empty object",
        ),
        (
            b'{"id": 3, "op": "set_joints", "robot": "arm", "joints": {"joint2": 9}}',
            "outside its limits",
        ),
        (
            b'{"id": 3, "op": "set_joints", "robot": "tank", "joints": {"a": 1}}',
            "unknown robot 'tank'; valid: arm, cart",
        ),
        (b'{"id": 3, "op": "set_joints", "joints": {"a": 1}}', "missing"),
        (b'{"id": 3, "op": "set_base_velocity", "robot": "arm", "vx": 1}', "fixed base"),
        (
            b'{"id": 3, "op": "set_base_velocity", "robot": "cart", "vx": [1]}',
            "'vx' must be a finite number",
        ),
        (
            b'{"id": 3, "op": "set_wheels", "robot": "arm", "speeds": {"joint1": 1}}',
            "unknown wheel 'joint1' of robot 'arm'; valid: (none)",
        ),
        (b'{"id": 3, "op": "step", "n": 1}', "send 'pause' first"),
        (b'{"id": 3, "op": "subscribe", "rate": 1e9}', "'rate' = 1000000000.0 is outside"),
        (b'{"id": 3, "op": "state", "robots": ["ghost"]}', "unknown robot 'ghost'"),
    ],
)
def test_bad_requests_get_error_replies_and_the_server_lives_on(
    server: RemoteServer, client: Client, payload: bytes, message: str
) -> None:
    reply = _raw(server, payload)
    assert reply["ok"] is False
    assert message in reply["error"]
    if b'"id": 3' in payload and message != "malformed JSON":
        assert reply["id"] == 3
    assert client.ping() >= 0.0
    stats = client.stats()["stats"]
    assert stats["errors"] >= 1
    if message in ("malformed JSON", "must be a JSON object"):
        assert stats["malformed"] == 1


def test_oversized_datagram_and_string_ids(server: RemoteServer, client: Client) -> None:
    big = json.dumps({"id": 1, "op": "ping", "pad": "x" * 10000}).encode()
    reply = _raw(server, big)
    assert reply["ok"] is False and "exceeds the 8192-byte limit" in reply["error"]
    ok = _raw(server, b'{"id": "abc", "op": "ping"}')
    assert ok["id"] == "abc" and ok["ok"] is True
    assert client.stats()["stats"]["oversized"] == 1


FLOOD = """
import json, socket, sys, time
host, port = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
s.setblocking(False)
for _ in range(20000):
    try:
        s.sendto(b'{"id": 1, "op": "ping"}', (host, port))
    except BlockingIOError:
        pass
time.sleep(0.3)
replies = limited = 0
errors = set()
while True:
    try:
        msg = json.loads(s.recv(65536))
    except BlockingIOError:
        break
    if msg["ok"]:
        replies += 1
    else:
        limited += 1
        errors.add(msg["error"].split(":")[0])
print(json.dumps({"replies": replies, "limited": limited, "errors": sorted(errors)}))
"""


def test_flood_is_rate_limited_per_sender_and_the_simulation_keeps_time(
    server: RemoteServer, client: Client
) -> None:
    client.resume()
    p0 = _timed_ping(client)
    t0, w0 = p0[1], p0[2]
    host, port = server.address
    # During a flood the kernel may drop any sender's datagram when the socket buffer is
    # full (UDP); a client resends, as ours does with retries.
    client.retries = 3
    flood = subprocess.Popen(
        [sys.executable, "-c", FLOOD, host, str(port)], stdout=subprocess.PIPE, text=True
    )
    time.sleep(0.1)
    assert client.ping() > t0  # another sender is unaffected while the flood is drained
    out, _ = flood.communicate(timeout=60)
    seen = json.loads(out)
    stats = client.stats()
    p1 = _timed_ping(client)
    w1 = p1[2]
    assert stats["stats"]["rate_limited"] > 0, (stats, seen)
    assert seen["limited"] >= 1 and seen["errors"] == ["rate_limited"]
    assert seen["replies"] <= 60 + 300 * (w1 - w0) + 50  # burst + rate x time (+ slack)
    assert _simulated_within(p0, p1, 0.25), (p0, p1, stats)  # simulated time kept up


def test_subscribe_pushes_state_until_unsubscribed(client: Client) -> None:
    client.resume()
    client.subscribe(rate=100.0, robots=["cart"])
    states = [client.next_state(timeout=2.0) for _ in range(5)]
    seqs = [s["seq"] for s in states]
    assert seqs == sorted(seqs) and len(set(seqs)) == 5
    assert all(list(s["robots"]) == ["cart"] for s in states)
    assert states[-1]["t"] > states[0]["t"]
    client.unsubscribe()
    time.sleep(0.05)
    with pytest.raises(RemoteError, match="no state datagram"):
        while True:  # drain what was in flight, then nothing more comes
            client.next_state(timeout=0.2)


def test_client_errors() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with (
        Client(("127.0.0.1", port), timeout=0.3) as c,
        pytest.raises(RemoteError, match=r"no server|no reply"),
    ):
        c.ping()
    target = KinematicTarget({"arm": load_robot("puma560")})
    with RemoteServer(target, port=0).start() as srv, Client(srv.address) as c:
        with pytest.raises(RemoteError, match="unknown op 'warp'") as err:
            c.request("warp")
        assert err.value.reply is not None and err.value.reply["ok"] is False
        c.set_joints("arm", {"joint1": 0.1})  # one robot: "robot" may be omitted too
        assert c.request("set_joints", joints={"joint1": 0.2})["ok"] is True


def test_state_with_link_poses_matches_forward_kinematics(client: Client) -> None:
    client.pause()
    client.reset()
    client.set_joints("arm", {"joint1": 0.3, "joint2": -0.2})
    client.step(500)
    st = client.state(["arm"], links=True)["robots"]["arm"]
    model = load_robot("puma560")
    assert list(st["links"]) == list(model.link_names)
    q = model.q_from(st["joints"])
    T = model.fk_all(q)
    for i, name in enumerate(model.link_names):
        np.testing.assert_allclose(st["links"][name][:3], T[i, :3, 3], atol=1e-12)
    assert "links" not in client.state(["arm"])["robots"]["arm"]
