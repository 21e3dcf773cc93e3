"""``robotsim.remote.Client``: talk to ``robotsim serve`` from any Python process.

::

    from robotsim.remote import Client

    with Client("127.0.0.1:9870") as sim:
        print(sim.info()["robots"])
        sim.set_base_velocity("omni", vx=0.5, omega=0.1)
        pose = sim.state()["robots"]["omni"]["base"]["position"]

Every call sends one datagram and waits for the reply with the same id (``timeout``
seconds, then :class:`RemoteError`). Error replies raise :class:`RemoteError` with the
server's message. Subscribed state datagrams arriving meanwhile are queued for
:meth:`Client.next_state`.

The first request asks the server for this address's cookie (op ``cookie``), and every
request carries it: the server sends large replies and state pushes only to an address
that proved it receives (docs/protocol.md, *Cookies*). A reply carrying a newer cookie
replaces it; a ``cookie_required`` reply makes the client send the request again once,
with the cookie it names.
"""

from __future__ import annotations

import collections
import itertools
import math
import socket
import time
from collections.abc import Mapping, Sequence
from typing import Any

from robotsim.errors import InputError, RobotsimError
from robotsim.jsonable import read_json
from robotsim.remote.protocol import encode

__all__ = ["Client", "RemoteError"]


class RemoteError(RobotsimError):
    """The server replied ``ok: false`` (``reply`` holds it), or did not reply in time."""

    def __init__(self, message: str, reply: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.reply = reply


class Client:
    """A UDP client for the robotsim remote-control protocol.

    Args:
        address: ``"host:port"`` or ``(host, port)``.
        timeout: seconds to wait for each reply.
        retries: resends of the same request (same id) after a timeout. UDP may drop
            datagrams; note that a retried ``step`` may be executed twice.
    """

    def __init__(
        self,
        address: str | tuple[str, int] = "127.0.0.1:9870",
        timeout: float = 1.0,
        retries: int = 0,
    ) -> None:
        from robotsim.remote.server import parse_address

        self.address = parse_address(address) if isinstance(address, str) else address
        self.timeout = timeout
        self.retries = retries
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.connect(self.address)
        self._ids = itertools.count(1)
        self._states: collections.deque[dict[str, Any]] = collections.deque(maxlen=1000)
        self._last_sent = -math.inf
        self._lease: float | None = None  # seconds, while subscribed
        self._cookie: str | None = None  # proves to the server that we receive

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the one primitive ------------------------------------------------------------
    def request(self, op: str, timeout: float | None = None, **fields: Any) -> dict[str, Any]:
        """Send ``{"id", "op", "cookie", **fields}``; return the reply (``ok`` true) or
        raise. Without a cookie yet, one is asked for first (op ``cookie``)."""
        if self._cookie is None and op != "cookie":
            self.request("cookie", timeout=timeout)
        rid = next(self._ids)
        msg = {"id": rid, "op": op, **fields}
        if self._cookie is not None:
            msg["cookie"] = self._cookie
        payload = encode(msg)
        again = False
        attempt = 0
        while attempt <= self.retries:
            self._send(payload)
            reply = self._wait(rid, self.timeout if timeout is None else timeout)
            if reply is None:
                attempt += 1
                continue
            if not reply.get("ok"):
                short_form = set(reply) <= {"id", "ok", "cookie"}  # cookie_required, shortest
                if not again and (reply.get("code") == "cookie_required" or short_form):
                    again = True  # our cookie expired (or none yet): once more with the new one
                    msg["cookie"] = self._cookie
                    payload = encode(msg)
                    continue
                raise RemoteError(f"{op}: {reply.get('error')}", reply)
            return reply
        raise RemoteError(
            f"{op}: no reply from {self.address[0]}:{self.address[1]} within "
            f"{self.timeout if timeout is None else timeout} s"
        )

    def _send(self, payload: bytes) -> None:
        self._last_sent = time.monotonic()
        try:
            self.sock.send(payload)
        except OSError as exc:
            raise RemoteError(f"cannot send to {self.address}: {exc}") from None

    def _recv(self, timeout: float) -> dict[str, Any] | None:
        self.sock.settimeout(max(timeout, 1e-4))
        try:
            data = self.sock.recv(65536)
        except TimeoutError:
            return None
        except ConnectionRefusedError:
            raise RemoteError(
                f"no server at {self.address[0]}:{self.address[1]} (connection refused)"
            ) from None
        try:
            msg = read_json(data, "server reply")
        except InputError as exc:
            raise RemoteError(f"{self.address[0]}:{self.address[1]}: {exc}") from None
        if isinstance(msg, dict) and isinstance(msg.get("cookie"), str):
            self._cookie = msg["cookie"]  # a newer cookie from the server
        return msg

    def _wait(self, rid: int, timeout: float) -> dict[str, Any] | None:
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return None
            msg = self._recv(left)
            if msg is None:
                return None
            if msg.get("event") == "state":
                self._states.append(msg)
            elif msg.get("id") == rid:
                return msg
            elif msg.get("id") is None and not msg.get("ok", True):
                # an error the server could not tie to a request (rate limit, oversize)
                raise RemoteError(str(msg.get("error")), msg)
            # else: a late reply to an earlier, timed-out request: ignore it

    # -- operations -------------------------------------------------------------------
    def ping(self) -> float:
        """Round-trip check; returns the simulated time (s)."""
        return float(self.request("ping")["t"])

    def info(self) -> dict[str, Any]:
        return self.request("info")

    def state(self, robots: Sequence[str] | None = None, links: bool = False) -> dict[str, Any]:
        """``{"t", "paused", "robots": {name: {"base", "joints", "velocities"}}}``; with
        ``links``, each robot also has ``"links": {link: [x, y, z, qw, qx, qy, qz]}``."""
        fields: dict[str, Any] = {} if robots is None else {"robots": list(robots)}
        if links:
            fields["links"] = True
        return self.request("state", **fields)

    def set_joints(self, robot: str, joints: Mapping[str, float]) -> None:
        """Joint position targets by name (rad or m)."""
        self.request("set_joints", robot=robot, joints=dict(joints))

    def set_base_velocity(
        self, robot: str, vx: float = 0.0, vy: float = 0.0, omega: float = 0.0
    ) -> None:
        """Planar base twist in the robot frame (m/s, m/s, rad/s)."""
        self.request("set_base_velocity", robot=robot, vx=vx, vy=vy, omega=omega)

    def set_wheels(self, robot: str, speeds: Mapping[str, float]) -> None:
        """Wheel speeds by joint name (rad/s)."""
        self.request("set_wheels", robot=robot, speeds=dict(speeds))

    def pause(self) -> None:
        self.request("pause")

    def resume(self) -> None:
        self.request("resume")

    def reset(self) -> None:
        self.request("reset")

    def step(self, n: int = 1) -> float:
        """Advance ``n`` steps while paused; returns the simulated time. A long step
        runs in slices on the server (other clients are served in between), so the
        reply may take longer than one timeout: the wait grows with ``n``."""
        return float(self.request("step", timeout=self.timeout + n * 1e-3, n=n)["t"])

    def stats(self) -> dict[str, Any]:
        return self.request("stats")

    def get_sensor(self, robot: str, sensor: str) -> dict[str, Any]:
        """The latest reading of a robot's sensor: ``{"t", "type", "fields": {name:
        array}}`` with every field decoded into a NumPy array (a camera's ``rgb`` from
        its PNG, ``depth`` from its raw float32 chunks)."""
        import base64

        from robotsim.remote.sensor_wire import decode_field

        head = self.request("get_sensor", robot=robot, sensor=sensor)
        out: dict[str, Any] = {}
        for name, desc in head["fields"].items():
            raw = None
            if isinstance(desc, dict) and "data" not in desc:
                parts = [
                    self.request("get_sensor", robot=robot, sensor=sensor, field=name,
                                 t=head["t"], chunk=k)["data"]
                    for k in range(int(desc["chunks"]))
                ]  # fmt: skip
                raw = b"".join(base64.b64decode(p) for p in parts)
            out[name] = decode_field(desc, raw)
        return {"t": head["t"], "type": head["type"], "fields": out}

    def subscribe(
        self,
        rate: float = 50.0,
        robots: Sequence[str] | None = None,
        links: bool = False,
        lease: float | None = None,
    ) -> None:
        """Ask for state datagrams at ``rate`` Hz (wall clock); read them with
        :meth:`next_state`, which also renews the subscription's lease (the server
        ends a subscription after ``lease`` seconds without a request from us)."""
        fields: dict[str, Any] = {"rate": rate, "links": links}
        if robots is not None:
            fields["robots"] = list(robots)
        if lease is not None:
            fields["lease"] = lease
        reply = self.request("subscribe", **fields)
        self._lease = float(reply.get("lease") or 5.0)

    def renew(self) -> None:
        """Renew the subscription's lease without waiting for the answer."""
        self._send(encode({"id": next(self._ids), "op": "renew", "cookie": self._cookie}))

    def unsubscribe(self) -> None:
        self._lease = None
        self.request("unsubscribe")
        self._states.clear()

    def next_state(self, timeout: float | None = None) -> dict[str, Any]:
        """The oldest queued state datagram, waiting up to ``timeout`` s for one."""
        if self._lease is not None and time.monotonic() - self._last_sent > self._lease / 3:
            self.renew()
        if self._states:
            return self._states.popleft()
        end = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise RemoteError(f"no state datagram within {timeout} s (subscribed?)")
            msg = self._recv(left)
            if msg is not None and msg.get("event") == "state":
                return msg
