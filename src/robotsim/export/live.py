"""``robotsim serve ... --foxglove [HOST:PORT]``: the MCAP file's channels, live, over
Foxglove's WebSocket protocol (``foxglove.websocket.v1``).

:class:`FoxgloveServer` is the server: a ``websockets`` server on a thread of its
own (its asyncio loop), bound to ``127.0.0.1`` unless told otherwise. Like the
studio's page it checks every connection before the protocol starts: the URL must
carry the per-launch token (``ws://127.0.0.1:8765/?token=...``, printed at start) and
the ``Origin``, when a browser sends one, must be Foxglove's app or this machine (see
``docs/security.md``); anything else gets 403. It advertises the channels, sends
each client the messages of the channels it subscribed to (a bounded queue per client:
a slow client loses its oldest messages, never the server its memory) and the latest
scene at once on subscribing.

:class:`LivePublisher` turns samples of a running simulation (the run store's pose
signals: :mod:`robotsim.recording.scene`) into the same messages as the MCAP export:
``/tf``, ``/scene``, ``/robots/<robot>/joint_states``, ``/robots/<robot>/base_pose``,
``/signals/<robot>`` and ``/events``; given the simulation's sensors (a
:class:`robotsim.sensors.SensorRig`) also their readings on the MCAP export's sensor
channels (``/sensors/<robot>/<name>``: ``LaserScan`` or ``PointCloud`` for a lidar,
``.../image`` ``CompressedImage`` and ``.../depth`` ``RawImage`` for a camera, JSON for
the others: :mod:`robotsim.export.sensor_channels`), each sensor at most once a
:attr:`LivePublisher.period` (wall clock; a camera's PNG is encoded only when sent).
"""

from __future__ import annotations

import asyncio
import base64
import json
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import parse_qs, urlsplit

import numpy as np

from robotsim.errors import InputError
from robotsim.export.foxglove import (
    SIGNALS_SCHEMA,
    Channel,
    JsonSignals,
    frame_transforms,
    joint_states,
    json_channel,
    log_message,
    pose_in_frame,
    proto_channel,
    scene_update,
)
from robotsim.export.replay import Frame, robot_frames
from robotsim.recording.scene import ROOT_SIGNALS, load_scene_model
from robotsim.spatial import R_to_quat, make_T, quat_to_R

__all__ = ["ALLOWED_ORIGINS", "SUBPROTOCOL", "FoxgloveServer", "LivePublisher"]

SUBPROTOCOL = "foxglove.websocket.v1"
#: Browser origins allowed besides this machine's (``http://localhost:*`` and such):
#: Foxglove's web app. Desktop clients send none.
ALLOWED_ORIGINS = ("https://app.foxglove.dev", "https://studio.foxglove.dev")
#: Messages waiting for one client at most (older ones are dropped past it).
CLIENT_QUEUE = 256
MAX_CLIENTS = 16
#: Wall seconds between copies of the scene on ``/scene``.
SCENE_EVERY = 5.0


def _local_origin(origin: str) -> bool:
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and parts.hostname in ("127.0.0.1", "localhost", "::1")


class _Client:
    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.subs: dict[int, int] = {}  # channel id -> subscription id
        self.queue: deque[bytes | str] = deque(maxlen=CLIENT_QUEUE)
        self.wake = asyncio.Event()
        self.dropped = 0


class FoxgloveServer:
    """A Foxglove WebSocket server for ``channels`` (see the module doc).

    Args:
        channels: what is advertised (ids are their positions + 1).
        host, port: where to listen (port 0: any free port; see :attr:`port`).
        token: the secret the URL must carry (``None``: a new one; ``False``: none).
        latched: topics whose latest message a new subscriber gets at once.
    """

    def __init__(
        self,
        channels: Sequence[Channel],
        host: str = "127.0.0.1",
        port: int = 8765,
        token: str | bool | None = None,
        latched: Sequence[str] = ("/scene",),
    ) -> None:
        self.channels = list(channels)
        self.ids = {ch.topic: i + 1 for i, ch in enumerate(self.channels)}
        self.token = secrets.token_urlsafe(24) if token is None or token is True else token or None
        self.latched = {self.ids[t] for t in latched if t in self.ids}
        self._last: dict[int, tuple[int, bytes]] = {}
        self._clients: set[_Client] = set()
        self.refused = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._stop: asyncio.Future[None] | None = None
        self.host, self.port = host, int(port)
        self._thread = threading.Thread(target=self._run, name="foxglove-ws", daemon=True)
        self._thread.start()
        self._ready.wait(30)
        if self._error is not None:
            raise InputError(f"--foxglove {host}:{port}: cannot listen: {self._error}")

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        query = f"?token={self.token}" if self.token else ""
        return f"ws://{host}:{self.port}/{query}"

    # -- the loop thread ----------------------------------------------------------------
    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._main())
        except BaseException as exc:  # reported by __init__ when it happens at start
            self._error = exc
            self._ready.set()

    async def _main(self) -> None:
        from websockets.asyncio.server import serve

        self._stop = self._loop.create_future()
        async with serve(
            self._handle,
            self.host,
            self.port,
            subprotocols=[SUBPROTOCOL],  # type: ignore[list-item]
            process_request=self._check,
            max_size=65536,
            compression=None,
        ) as server:
            sock = next(iter(server.sockets))
            self.port = int(sock.getsockname()[1])
            self._ready.set()
            await self._stop

    def _check(self, connection: Any, request: Any) -> Any:
        """Token and Origin, before the handshake (403 with a one-line reason)."""
        from http import HTTPStatus

        reason = None
        if self.token is not None:
            got = parse_qs(urlsplit(request.path).query).get("token", [""])[0]
            if not secrets.compare_digest(got, self.token):
                reason = "missing or wrong token: use the URL robotsim serve printed"
        origin = request.headers.get("Origin")
        if reason is None and origin is not None:
            if origin not in ALLOWED_ORIGINS and not _local_origin(origin):
                reason = f"origin {origin!r} may not connect"
        if reason is None and len(self._clients) >= MAX_CLIENTS:
            reason = f"at most {MAX_CLIENTS} clients"
        if reason is None:
            return None
        self.refused += 1
        return connection.respond(HTTPStatus.FORBIDDEN, reason + "\n")

    async def _handle(self, ws: Any) -> None:
        if ws.subprotocol != SUBPROTOCOL:
            await ws.close(1002, f"subprotocol {SUBPROTOCOL} required")
            return
        client = _Client(ws)
        self._clients.add(client)
        sender = asyncio.ensure_future(self._sender(client))
        try:
            await ws.send(
                json.dumps(
                    {
                        "op": "serverInfo",
                        "name": "robotsim",
                        "capabilities": [],
                        "supportedEncodings": [],
                        "metadata": {},
                        "sessionId": str(time.time_ns()),
                    },
                    allow_nan=False,
                )
            )
            await ws.send(
                json.dumps(
                    {
                        "op": "advertise",
                        "channels": [
                            {
                                "id": self.ids[ch.topic],
                                "topic": ch.topic,
                                "encoding": ch.message_encoding,
                                "schemaName": ch.schema_name,
                                "schemaEncoding": ch.schema_encoding,
                                "schema": base64.b64encode(ch.schema).decode("ascii")
                                if ch.schema_encoding == "protobuf"
                                else ch.schema.decode(),
                            }
                            for ch in self.channels
                        ],
                    },
                    allow_nan=False,
                )
            )
            async for text in ws:
                self._on_message(client, text)
        except Exception:  # a client that goes away or sends garbage just leaves
            pass
        finally:
            self._clients.discard(client)
            sender.cancel()

    def _on_message(self, client: _Client, text: Any) -> None:
        try:
            msg = json.loads(text) if isinstance(text, str) else None
        except ValueError:
            msg = None
        if not isinstance(msg, dict):
            return
        if msg.get("op") == "subscribe":
            for sub in msg.get("subscriptions") or []:
                try:
                    sid, cid = int(sub["id"]), int(sub["channelId"])
                except (KeyError, TypeError, ValueError):
                    continue
                if 1 <= cid <= len(self.channels):
                    client.subs[cid] = sid
                    last = self._last.get(cid)
                    if last is not None:
                        self._enqueue(client, cid, *last)
        elif msg.get("op") == "unsubscribe":
            drop = {int(s) for s in msg.get("subscriptionIds") or [] if isinstance(s, int)}
            client.subs = {c: s for c, s in client.subs.items() if s not in drop}

    def _enqueue(self, client: _Client, cid: int, ns: int, payload: bytes) -> None:
        sid = client.subs.get(cid)
        if sid is None:
            return
        if len(client.queue) == client.queue.maxlen:
            client.dropped += 1
        client.queue.append(
            b"\x01" + sid.to_bytes(4, "little") + max(0, ns).to_bytes(8, "little") + payload
        )
        client.wake.set()

    async def _sender(self, client: _Client) -> None:
        while True:
            await client.wake.wait()
            client.wake.clear()
            while client.queue:
                await client.ws.send(client.queue.popleft())

    def _fanout(self, cid: int, ns: int, payload: bytes) -> None:
        if cid in self.latched:
            self._last[cid] = (ns, payload)
        for client in list(self._clients):
            self._enqueue(client, cid, ns, payload)

    # -- any thread ---------------------------------------------------------------------
    def publish(self, topic: str, ns: int, payload: bytes) -> None:
        """Send ``payload`` on ``topic`` (time ``ns``) to its subscribers."""
        cid = self.ids[topic]
        self._loop.call_soon_threadsafe(self._fanout, cid, ns, payload)

    @property
    def clients(self) -> int:
        return len(self._clients)

    def close(self) -> None:
        if self._stop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(
                lambda: self._stop.done() or self._stop.set_result(None)  # type: ignore[union-attr]
            )
        self._thread.join(10)


class LivePublisher:
    """Samples of a running simulation -> the MCAP export's channels on a server.

    Args:
        scene: the simulation's scene document (:mod:`robotsim.recording.scene`).
        period: wall seconds between published samples at most (a sample asked for
            sooner is skipped); the same for each sensor's readings.
        sensors: the simulation's sensor rig (None: no sensor channels); its readings
            are published as they are taken.
    """

    def __init__(
        self, scene: Mapping[str, Any], period: float = 1.0 / 30.0, sensors: Any = None
    ) -> None:
        from foxglove_schemas_protobuf.FrameTransforms_pb2 import FrameTransforms
        from foxglove_schemas_protobuf.JointStates_pb2 import JointStates
        from foxglove_schemas_protobuf.Log_pb2 import Log
        from foxglove_schemas_protobuf.PoseInFrame_pb2 import PoseInFrame
        from foxglove_schemas_protobuf.SceneUpdate_pb2 import SceneUpdate

        from robotsim.export.replay import object_frame

        self.period = float(period)
        self._next = 0.0
        self._scene_next = 0.0
        self.robots: dict[str, tuple[Any, list[Frame]]] = {}
        for k, entry in enumerate(scene.get("robots") or []):
            model = load_scene_model(entry, f"scene: robots[{k}]")
            self.robots[str(entry["name"])] = (model, robot_frames(str(entry["name"]), model))
        self.objects = {str(o["name"]): o for o in scene.get("objects") or []}
        frames = [f for _, fr in self.robots.values() for f in fr]
        frames += [object_frame(o) for o in self.objects.values()]
        self._scene = scene_update(frames, scene.get("ground"), 0)
        channels = [
            proto_channel("/tf", FrameTransforms),
            proto_channel("/scene", SceneUpdate),
            proto_channel("/events", Log),
        ]
        for name, (model, _) in self.robots.items():
            channels.append(proto_channel(f"/robots/{name}/base_pose", PoseInFrame))
            if model.joint_names:
                channels.append(proto_channel(f"/robots/{name}/joint_states", JointStates))
            channels.append(json_channel(f"/signals/{name}", "robotsim.Signals", SIGNALS_SCHEMA))
        self._sensors: dict[tuple[str, str], Any] = {}
        self._sensor_next: dict[tuple[str, str], float] = {}
        if sensors is not None and len(sensors):
            from robotsim.export.sensor_channels import SensorEncoder

            for sensor in sensors:
                spec = sensor.mount.spec
                fields = [f for f in ("rgb", "depth") if getattr(spec, f, False)]
                enc = SensorEncoder(sensor.robot, sensor.name, sensor.type, sensor.meta(), fields)
                self._sensors[(sensor.robot, sensor.name)] = enc
                channels.extend(enc.channels.values())
            sensors.listen(self.reading)
        self.channels = channels
        self._json: dict[tuple[str, tuple[str, ...]], JsonSignals] = {}
        self.server: FoxgloveServer | None = None
        self.published = 0

    def start(
        self, host: str = "127.0.0.1", port: int = 8765, token: str | bool | None = None
    ) -> FoxgloveServer:
        self.server = FoxgloveServer(self.channels, host, port, token)
        return self.server

    def close(self) -> None:
        if self.server is not None:
            self.server.close()

    def due(self) -> bool:
        """Whether a sample is due now (wall clock, :attr:`period`)."""
        return time.monotonic() >= self._next

    def publish(
        self,
        t: float,
        poses: Sequence[tuple[str, Sequence[str], Sequence[float]]],
        signals: Mapping[str, tuple[Sequence[str], Sequence[float]]] | None = None,
        ns: int | None = None,
    ) -> None:
        """Publish one sample at simulated time ``t`` (s): ``poses`` as the run store's
        pose signals ``[(group, names, values), ...]``, ``signals`` per robot."""
        srv = self.server
        if srv is None:
            return
        self._next = time.monotonic() + self.period
        ns = time.time_ns() if ns is None else ns
        now = time.monotonic()
        if now >= self._scene_next:  # new subscribers get it at once (latched) anyway
            srv.publish("/scene", ns, self._scene)
            self._scene_next = now + SCENE_EVERY
        parents: list[str] = []
        children: list[str] = []
        Ts: list[np.ndarray] = []
        for name, obj in self.objects.items():
            if not obj.get("moving"):
                p = obj["pose"]
                parents.append("world")
                children.append(name)
                Ts.append(make_T(quat_to_R(p[3:7]), p[:3]))
        for group, names, values in poses:
            v = np.asarray(values, dtype=np.float64)
            T_root = make_T(quat_to_R(v[3:7]), v[:3])
            if group in self.robots:
                model, frames = self.robots[group]
                idx = {n: i for i, n in enumerate(names)}
                q = np.array(
                    [v[idx[f"q.{j}"]] if f"q.{j}" in idx else 0.0 for j in model.joint_names]
                )
                T_links = T_root @ np.asarray(model.fk_all(q))
                index = {f.name: i for i, f in enumerate(frames)}
                for i, f in enumerate(frames):
                    j = index.get(f.parent)
                    rel = T_links[i] if j is None else np.linalg.solve(T_links[j], T_links[i])
                    parents.append(f.parent)
                    children.append(f.name)
                    Ts.append(rel)
                quat = R_to_quat(T_root[:3, :3]).tolist()
                srv.publish(
                    f"/robots/{group}/base_pose", ns, pose_in_frame(v[:3].tolist(), quat, ns)
                )
                if model.joint_names:
                    srv.publish(
                        f"/robots/{group}/joint_states",
                        ns,
                        joint_states(model.joint_names, q, None, ns),
                    )
            elif group in self.objects and tuple(names[:7]) == ROOT_SIGNALS:
                parents.append("world")
                children.append(group)
                Ts.append(T_root)
        if Ts:
            T = np.array(Ts)
            srv.publish(
                "/tf",
                ns,
                frame_transforms(
                    parents, children, T[:, :3, 3].tolist(), R_to_quat(T[:, :3, :3]).tolist(), ns
                ),
            )
        for robot, (names, values) in (signals or {}).items():
            topic = f"/signals/{robot}"
            if topic not in srv.ids:
                continue
            key = (robot, tuple(names))
            enc = self._json.get(key)
            if enc is None:
                enc = self._json[key] = JsonSignals(names)
            srv.publish(topic, ns, enc.encode([float(x) for x in values], t))
        self.published += 1

    def reading(self, reading: Any) -> None:
        """Publish a sensor reading (a :class:`robotsim.sensors.Reading`) on its channels,
        unless the sensor sent one less than :attr:`period` ago (or nobody listens)."""
        srv = self.server
        key = (reading.robot, reading.sensor)
        enc = self._sensors.get(key)
        if srv is None or enc is None or not srv.clients:
            return
        now = time.monotonic()
        if now < self._sensor_next.get(key, 0.0):
            return
        self._sensor_next[key] = now + self.period
        ns = time.time_ns()
        for k, payload in enc.encode(reading.t, ns, reading.data):
            srv.publish(enc.channels[k].topic, ns, payload)

    def event(self, event: Mapping[str, Any]) -> None:
        """Publish a run event (``{"t", "type", "robot", "data"}``) as a ``Log``."""
        if self.server is not None:
            ns = time.time_ns()
            self.server.publish("/events", ns, log_message(event, ns))


def hook(publisher: LivePublisher, sample: Callable[[], Any]) -> Callable[[float], None]:
    """An ``on_step``-style function: publish ``sample()`` when one is due."""

    def step(t: float) -> None:
        if publisher.due():
            poses, signals = sample()
            publisher.publish(t, poses, signals)

    return step
