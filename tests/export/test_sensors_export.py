"""Recorded sensors in the MCAP and Rerun exports: scans as LaserScan (one layer) or
PointCloud (several), camera frames as images, the rest as JSON or scalars, each with
the recorded numbers."""

from __future__ import annotations

import io
import json

import numpy as np
import pyarrow as pa
import pytest
from mcap.reader import make_reader
from mcap_protobuf.decoder import DecoderFactory
from PIL import Image
from rerun.chunk import RrdReader

from robotsim.export import export_file
from robotsim.export.sensors import lidar_points
from robotsim.mobile.run import run_mobile
from robotsim.recording import Recorder, RunStore
from robotsim.scenario_yaml import read_scenario_yaml
from robotsim.spatial import quat_to_R


@pytest.fixture(scope="module")
def sensed(tmp_path_factory):
    out = tmp_path_factory.mktemp("sensed")
    data = read_scenario_yaml("soccer_obstacles")
    data["robots"][0]["sensors"] = [
        {"type": "lidar", "name": "scan", "position": [0, 0, 0.2], "rate": 10, "rays": 90},
        {
            "type": "lidar",
            "name": "3d",
            "position": [0, 0, 0.3],
            "rate": 5,
            "rays": 36,
            "layers": 3,
            "vertical_fov_deg": 20,
        },
        {"type": "camera", "position": [0.1, 0, 0.3], "rate": 5, "width": 64, "height": 48},
        {"type": "imu", "rate": 50},
    ]
    with Recorder(out) as rec:
        run_mobile(data, "soccer_obstacles", out, duration=1.0, recorder=rec)
    store = RunStore(out)
    yield store
    store.close()


def _messages(path):
    factory = DecoderFactory()
    out: dict[str, list] = {}
    with path.open("rb") as f:
        reader = make_reader(f)
        summary = reader.get_summary()
        names = {ch.topic: summary.schemas[ch.schema_id].name for ch in summary.channels.values()}
        for schema, channel, message in reader.iter_messages():
            if channel.message_encoding == "json":
                m = json.loads(message.data)
            else:
                m = factory.decoder_for(channel.message_encoding, schema)(message.data)
            out.setdefault(channel.topic, []).append(m)
    return names, out


def test_mcap_carries_the_recorded_sensor_readings(sensed, tmp_path) -> None:
    path = export_file(sensed, "last", "mcap", tmp_path / "s.mcap")
    names, msgs = _messages(path)
    assert names["/robots/omni/sensors/scan"] == "foxglove.LaserScan"
    assert names["/robots/omni/sensors/3d"] == "foxglove.PointCloud"
    assert names["/robots/omni/sensors/camera"] == "foxglove.CompressedImage"
    assert names["/robots/omni/sensors/camera/depth"] == "foxglove.RawImage"
    assert names["/robots/omni/sensors/imu"] == "robotsim.SensorReading"

    scan = sensed.sensor("last", "omni", "scan")
    got = msgs["/robots/omni/sensors/scan"]
    assert len(got) == len(scan.t) == 10
    k = 4
    assert np.array_equal(
        np.array(got[k].ranges), scan["ranges"][k, 0].astype(float), equal_nan=True
    )
    assert got[k].start_angle == scan.meta["azimuths"][0]
    assert got[k].end_angle == scan.meta["azimuths"][-1]
    p = got[k].pose.position
    assert [p.x, p.y, p.z] == scan["pose"][k, :3].tolist()
    assert np.isfinite(scan["ranges"][k]).any()  # it saw obstacles or the field's edge

    cloud = sensed.sensor("last", "omni", "3d")
    _, counts = lidar_points(cloud)
    clouds = msgs["/robots/omni/sensors/3d"]
    first = np.frombuffer(clouds[0].data, "<f4").reshape(-1, 3)
    assert len(first) == counts[0] and counts[0] > 0
    # one return recomputed by hand: range along the ray, rotated by the scan's pose
    r = cloud["ranges"][0]
    layer, ray = map(int, np.argwhere(np.isfinite(r))[0])
    az, el = cloud.meta["azimuths"][ray], cloud.meta["elevations"][layer]
    d = np.array([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)]) * r[layer, ray]
    pose = cloud["pose"][0]
    assert np.allclose(first[0], quat_to_R(pose[3:7]) @ d + pose[:3], atol=1e-5)

    cam = sensed.sensor("last", "omni", "camera")
    img = np.asarray(Image.open(io.BytesIO(msgs["/robots/omni/sensors/camera"][2].data)))
    assert img.shape == (48, 64, 3)
    assert np.abs(img.astype(int) - cam["rgb"][2].astype(int)).mean() < 8  # JPEG
    depth = msgs["/robots/omni/sensors/camera/depth"][2]
    assert depth.encoding == "32FC1" and (depth.width, depth.height) == (64, 48)
    assert np.array_equal(np.frombuffer(depth.data, "<f4").reshape(48, 64), cam["depth"][2])

    imu = sensed.sensor("last", "omni", "imu")
    readings = msgs["/robots/omni/sensors/imu"]
    assert readings[7]["accel"] == imu["accel"][7].tolist()
    assert readings[7]["t"] == pytest.approx(float(imu.t[7]))


def test_rerun_carries_scans_as_points_and_readings_as_scalars(sensed, tmp_path) -> None:
    path = export_file(sensed, "last", "rerun", tmp_path / "s.rrd")
    cols: dict[str, dict[str, list]] = {}
    for chunk in RrdReader(path).stream().to_chunks():
        batch = chunk.to_record_batch()
        ent = cols.setdefault(str(chunk.entity_path), {})
        for name in batch.schema.names:
            col = batch.column(name)
            if pa.types.is_temporal(col.type):
                col = col.cast(pa.int64())
            ent.setdefault(name, []).extend(col.to_pylist())
    cloud = sensed.sensor("last", "omni", "3d")
    _, counts = lidar_points(cloud)
    points = cols["/world/sensors/omni/3d"]["Points3D:positions"]
    assert [len(p) for p in points] == counts.tolist()
    imu = sensed.sensor("last", "omni", "imu")
    z = np.array(cols["/sensors/omni/imu/accel/2"]["Scalars:scalars"]).ravel()
    assert np.allclose(z, imu["accel"][:, 2])
    assert "/sensors/omni/camera" in cols
