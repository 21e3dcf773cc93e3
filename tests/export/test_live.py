"""``robotsim serve ... --foxglove``: the Foxglove WebSocket protocol over a real
socket, the studio's rules for who may connect, and poses that are the robot's."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import numpy as np
import pytest
import websockets
from foxglove_schemas_protobuf.FrameTransforms_pb2 import FrameTransforms
from foxglove_schemas_protobuf.JointStates_pb2 import JointStates
from foxglove_schemas_protobuf.SceneUpdate_pb2 import SceneUpdate
from tests.aio import run_coroutine
from tests.paths import REPO

from robotsim.export.live import SUBPROTOCOL, LivePublisher
from robotsim.model import load_robot
from robotsim.recording.scene import pose_names, pose_values, robot_doc, scene_doc
from robotsim.spatial import make_T, quat_to_R, rot_z


async def _session(url: str, topics: list[str], want: int, origin: str | None = None):
    headers = {"Origin": origin} if origin else None
    async with websockets.connect(
        url, subprotocols=[SUBPROTOCOL], additional_headers=headers, open_timeout=20
    ) as ws:
        info = json.loads(await ws.recv())
        adv = json.loads(await ws.recv())
        ids = {c["topic"]: c["id"] for c in adv["channels"]}
        subs = [{"id": 100 + k, "channelId": ids[t]} for k, t in enumerate(topics)]
        await ws.send(json.dumps({"op": "subscribe", "subscriptions": subs}))
        got: dict[int, list[bytes]] = {}
        while sum(len(v) for v in got.values()) < want:
            m = await asyncio.wait_for(ws.recv(), 20)
            assert m[0] == 1
            got.setdefault(int.from_bytes(m[1:5], "little"), []).append(m[13:])
        return info, adv, got


def _publisher() -> tuple[LivePublisher, object, np.ndarray, np.ndarray]:
    puma = load_robot("puma560")
    T0 = make_T(rot_z(0.4), [1.0, -2.0, 0.3])
    pub = LivePublisher(scene_doc([robot_doc("arm", puma, T0)], engine="kinematic"), period=0.0)
    q = np.linspace(0.1, 0.6, puma.nq)
    return pub, puma, T0, q


def test_a_client_gets_the_channels_and_the_robots_poses() -> None:
    pub, puma, T0, q = _publisher()
    server = pub.start("127.0.0.1", 0)
    try:
        names, values = pose_names(puma), pose_values(T0, q)

        async def run():
            task = asyncio.ensure_future(
                _session(server.url, ["/tf", "/scene", "/robots/arm/joint_states"], 4)
            )
            while server.clients == 0 or not task.done():
                await asyncio.sleep(0.05)
                pub.publish(1.5, [("arm", names, values)])
                if task.done():
                    break
            return await task

        info, adv, got = run_coroutine(run())
    finally:
        pub.close()
    assert info["op"] == "serverInfo"
    schemas = {c["topic"]: c["schemaName"] for c in adv["channels"]}
    assert schemas["/tf"] == "foxglove.FrameTransforms"
    assert schemas["/robots/arm/joint_states"] == "foxglove.JointStates"
    tf = FrameTransforms.FromString(got[100][0])
    local = {}
    for f in tf.transforms:
        r, p = f.rotation, f.translation
        T = make_T(quat_to_R([r.w, r.x, r.y, r.z]), [p.x, p.y, p.z])
        local[f.child_frame_id] = (
            np.eye(4) if f.parent_frame_id == "world" else local[f.parent_frame_id]
        ) @ T
    links = T0 @ puma.fk_all(q)
    for i, lk in enumerate(puma.link_names):
        assert np.abs(local[f"arm/{lk}"] - links[i]).max() < 1e-12
    js = JointStates.FromString(got[102][0])
    assert [j.position for j in js.joints] == pytest.approx(q.tolist(), abs=0)
    scene = SceneUpdate.FromString(got[101][0])
    assert {e.id for e in scene.entities} >= {f"arm/{lk}" for lk in puma.link_names[1:]}


def test_no_token_or_a_foreign_origin_is_refused() -> None:
    pub, *_ = _publisher()
    server = pub.start("127.0.0.1", 0)
    try:
        bare = server.url.split("?")[0]
        for url, origin in (
            (bare, None),
            (bare + "?token=nope", None),
            (server.url, "https://evil.example"),
        ):
            with pytest.raises(websockets.exceptions.InvalidStatus, match="403"):
                run_coroutine(_session(url, ["/tf"], 1, origin))
        assert server.refused == 3

        # Foxglove's own web app may connect (with the token)
        async def ok():
            async with websockets.connect(
                server.url,
                subprotocols=[SUBPROTOCOL],
                additional_headers={"Origin": "https://app.foxglove.dev"},
            ) as ws:
                return json.loads(await ws.recv())["op"]

        assert run_coroutine(ok()) == "serverInfo"
    finally:
        pub.close()


@pytest.mark.slow
def test_serve_streams_a_physics_world_to_foxglove() -> None:
    """`robotsim serve omni3 --foxglove 127.0.0.1:0`: a separate process, a real
    socket; the robot's root frame arrives on /tf where the robot is."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "robotsim",
            "serve",
            "omni3",
            "--udp",
            "127.0.0.1:0",
            "--foxglove",
            "127.0.0.1:0",
            "--duration",
            "60",
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        hello = json.loads(proc.stdout.readline())
        url = hello["foxglove"]
        assert url.startswith("ws://127.0.0.1:") and "?token=" in url
        _, adv, got = run_coroutine(_session(url, ["/tf"], 2))
        tf = FrameTransforms.FromString(got[100][-1])
        root = next(f for f in tf.transforms if f.child_frame_id == "omni3/base")
        assert root.parent_frame_id == "world"
        assert abs(root.translation.x) < 0.05 and abs(root.translation.y) < 0.05
        assert {c["topic"] for c in adv["channels"]} >= {"/tf", "/scene", "/signals/omni3"}
    finally:
        proc.terminate()
        proc.wait(30)


def test_a_served_run_records_its_scene_and_replays(tmp_path) -> None:
    """`serve --db`: the run keeps its scene and pose signals, so it exports in 3D."""
    from robotsim.cli import main
    from robotsim.export import load_replay
    from robotsim.recording import RunStore

    db = tmp_path / "db"
    assert (
        main(
            [
                "serve",
                "omni3",
                "--udp",
                "127.0.0.1:0",
                "--duration",
                "1.5",
                "--db",
                str(db),
                "--rate",
                "4",
            ]
        )
        == 0
    )
    with RunStore(db) as store:
        replay = load_replay(store, "last")
        assert store.scene("last")["robots"][0]["model"] == "omni3"
        table = store.signals("last", "omni3")
    omni = replay.track("omni3")
    assert len(omni.t) > 50 and replay.has_scene
    rows = ~np.isnan(table.column("base.qw"))
    assert np.array_equal(omni.T_world[:, 0, 1, 3], table.column("base.y")[rows])
    # it stands on its wheels: base upright, on the ground
    assert np.all(omni.T_world[:, 0, 2, 2] > 0.99)
    assert np.all(np.abs(omni.T_world[:, 0, 2, 3]) < 0.1)


def test_a_served_scenario_streams_its_lidar_and_camera(tmp_path) -> None:
    """A scenario with a lidar and a camera served live: ``LaserScan`` and PNG
    ``CompressedImage`` messages that hold readings the sensors took (as in MCAP)."""
    import io

    import yaml
    from foxglove_schemas_protobuf.CompressedImage_pb2 import CompressedImage
    from foxglove_schemas_protobuf.LaserScan_pb2 import LaserScan
    from PIL import Image

    from robotsim.cli.serve import build_target
    from robotsim.remote.record import target_scene
    from robotsim.scenario_yaml import read_scenario_yaml

    data = read_scenario_yaml("soccer_lidar")
    data["robots"][0]["sensors"].append(
        {"type": "camera", "position": [0.2, 0, 0.3], "width": 32, "height": 24, "rate": 10}
    )
    path = tmp_path / "sensed.yaml"
    path.write_text(yaml.safe_dump(data))
    sim = build_target(str(path))
    taken: list = []
    pub = LivePublisher(target_scene(sim), period=0.0, sensors=sim.sensors)
    sim.sensors.listen(taken.append)
    server = pub.start("127.0.0.1", 0)
    topics = ["/sensors/omni/lidar", "/sensors/omni/camera/image"]
    try:

        async def run():
            task = asyncio.ensure_future(_session(server.url, topics, 4))
            while not task.done():
                await asyncio.sleep(0.01)
                if server.clients:
                    sim.step(25)  # 0.1 s: a scan and a frame
            return await task

        _, adv, got = run_coroutine(run())
    finally:
        pub.close()
    schemas = {c["topic"]: c["schemaName"] for c in adv["channels"]}
    assert schemas["/sensors/omni/lidar"] == "foxglove.LaserScan"
    assert schemas["/sensors/omni/camera/image"] == "foxglove.CompressedImage"
    assert schemas["/sensors/omni/camera/depth"] == "foxglove.RawImage"
    assert schemas["/sensors/omni/imu"] == "robotsim.sensors.imu"
    scans = [r["ranges"][0] for r in taken if r.sensor == "lidar"]
    frames = [r["rgb"] for r in taken if r.sensor == "camera"]
    assert got.get(100) and got.get(101)
    for raw in got[100]:
        msg = LaserScan.FromString(raw)
        ranges = np.array(msg.ranges, np.float32)
        assert any(np.array_equal(ranges, s, equal_nan=True) for s in scans)
    for raw in got[101]:
        img = np.asarray(Image.open(io.BytesIO(CompressedImage.FromString(raw).data)))
        assert img.shape == (24, 32, 3)
        assert any(np.array_equal(img, f) for f in frames)
