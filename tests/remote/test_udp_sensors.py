"""``get_sensor`` over a real UDP socket: a lidar inline, a camera's PNG and raw depth
in chunks that each fit a datagram, errors naming the field, nothing large to an
address that has not echoed its cookie, and ``robotsim serve`` mounting a scenario's
sensors."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import numpy as np
import pytest

from robotsim.remote import Client, RemoteError, RemoteServer
from robotsim.remote.world_target import WorldTarget
from tests.sensors.worlds import omni_placement, rig, world_of


@pytest.fixture(scope="module")
def server() -> Iterator[RemoteServer]:
    world = world_of([omni_placement("r")])
    sensors = rig(world, "r",
                  {"type": "lidar", "position": [0, 0, 0.3], "rays": 180},
                  {"type": "camera", "position": [0.2, 0, 0.3], "width": 160, "height": 120},
                  {"type": "imu"})  # fmt: skip
    target = WorldTarget(world, sensors)
    srv = RemoteServer(target, port=0).start()
    try:
        yield srv
    finally:
        srv.close()
        sensors.close()


def test_a_reading_of_each_sensor_comes_back_as_arrays(server: RemoteServer) -> None:
    with Client(server.address, timeout=3.0) as c:
        c.pause()  # the readings stay the newest while they are compared
        c.step(30)
        info = c.info()["robots"]["r"]
        assert info["sensors"] == {"lidar": "lidar", "camera": "camera", "imu": "imu"}
        lidar = c.get_sensor("r", "lidar")
        assert lidar["type"] == "lidar" and lidar["fields"]["ranges"].shape == (1, 180)
        assert np.isinf(lidar["fields"]["ranges"]).all()  # an empty field: no return
        cam = c.get_sensor("r", "camera")
        rgb, depth = cam["fields"]["rgb"], cam["fields"]["depth"]
        assert rgb.shape == (120, 160, 3) and rgb.dtype == np.uint8
        assert depth.shape == (120, 160) and depth.dtype == np.float32
        # the same frame as the sensor took (bit for bit through PNG and raw chunks)
        reading = server.target.sensors.latest("r", "camera")
        assert cam["t"] == reading.t
        np.testing.assert_array_equal(rgb, reading["rgb"])
        np.testing.assert_array_equal(depth, reading["depth"])
        imu = c.get_sensor("r", "imu")
        assert imu["fields"]["accel"].shape == (3,)
        c.resume()


def test_every_reply_fits_a_datagram_and_a_stale_chunk_is_refused(server: RemoteServer) -> None:
    with Client(server.address, timeout=3.0) as c:
        head = c.request("get_sensor", robot="r", sensor="camera")
        depth = head["fields"]["depth"]
        assert depth["format"] == "raw" and depth["chunks"] > 1 and "data" not in depth
        part = c.request("get_sensor", robot="r", sensor="camera", field="depth",
                         t=head["t"], chunk=depth["chunks"] - 1)  # fmt: skip
        assert len(json.dumps(part)) < 65000
        with pytest.raises(RemoteError, match="at t=123 is no longer kept"):
            c.request("get_sensor", robot="r", sensor="camera", field="depth", t=123.0, chunk=0)
        with pytest.raises(RemoteError, match="unknown sensor 'sonar' of robot 'r'; valid: lidar"):
            c.request("get_sensor", robot="r", sensor="sonar")
        with pytest.raises(RemoteError, match="'chunk' = 99"):
            c.request("get_sensor", robot="r", sensor="camera", field="depth",
                      t=head["t"], chunk=99)  # fmt: skip


def test_no_large_reply_to_an_address_without_its_cookie(server: RemoteServer) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(3.0)
        req = b'{"id": 1, "op": "get_sensor", "robot": "r", "sensor": "camera"}'
        s.sendto(req, server.address)
        reply = s.recv(65536)
        assert len(reply) <= 3 * len(req)  # no amplification towards a spoofed address
        msg = json.loads(reply)
        assert msg["ok"] is False and "cookie" in msg
        s.sendto(json.dumps({"id": 2, "op": "get_sensor", "robot": "r", "sensor": "camera",
                             "cookie": msg["cookie"]}).encode(), server.address)  # fmt: skip
        ok = json.loads(s.recv(65536))
        assert ok["ok"] is True and ok["fields"]["rgb"]["format"] == "png"


def test_serve_mounts_the_scenarios_sensors() -> None:
    from robotsim.cli.serve import build_target

    target = build_target("soccer_lidar")
    try:
        assert dict(target.robots()["omni"].sensors) == {
            "lidar": "lidar", "imu": "imu", "odometry": "odometry",
        }  # fmt: skip
        target.step(30)  # 0.12 s: the scans of t = 0 and 0.1 s
        assert target.sensor_reading("omni", "lidar").t == pytest.approx(0.1)
        assert np.isfinite(target.sensor_reading("omni", "lidar")["ranges"]).sum() > 5
    finally:
        target.sensors.close()
