"""Recorded sensors in the MCAP and Rerun exports: a lidar as Foxglove ``LaserScan``s
(read back with the ``mcap`` reader: the same ranges and poses as the run store), a
camera as PNG ``CompressedImage`` and ``32FC1`` ``RawImage``, an IMU as JSON; in Rerun
the lidar's returns as points and the IMU's components as scalars."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
import yaml
from rerun.chunk import RrdReader

from robotsim.cli import main
from robotsim.recording import RunStore
from robotsim.scenario_yaml import read_scenario_yaml


@pytest.fixture(scope="module")
def sensed_db(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sensed")
    data = read_scenario_yaml("soccer_lidar")
    data["robots"][0]["sensors"].append(
        {"type": "camera", "position": [0.2, 0, 0.3], "width": 32, "height": 24, "rate": 5}
    )
    path = out / "sensed.yaml"
    path.write_text(yaml.safe_dump(data))
    assert main(["run", str(path), "--out", str(out), "--duration", "0.6"]) == 0
    return out / "runs.sqlite"


def test_mcap_carries_scans_images_and_imu(sensed_db: Path, tmp_path: Path) -> None:
    from foxglove_schemas_protobuf.CompressedImage_pb2 import CompressedImage
    from foxglove_schemas_protobuf.LaserScan_pb2 import LaserScan
    from foxglove_schemas_protobuf.RawImage_pb2 import RawImage
    from mcap.reader import make_reader
    from PIL import Image

    out = tmp_path / "run.mcap"
    assert (
        main(["export", "last", "--db", str(sensed_db), "--format", "mcap", "--out", str(out)]) == 0
    )
    with RunStore(sensed_db) as store:
        scan = store.sensor("last", "omni", "lidar")
        cam = store.sensor("last", "omni", "camera")
        imu = store.sensor("last", "omni", "imu")
    got: dict[str, list] = {}
    with out.open("rb") as fh:
        reader = make_reader(fh)
        for schema, channel, message in reader.iter_messages():
            if channel.topic.startswith("/sensors/"):
                got.setdefault(channel.topic, []).append((schema.name, message.data))
    assert {s for s, _ in got["/sensors/omni/lidar"]} == {"foxglove.LaserScan"}
    assert len(got["/sensors/omni/lidar"]) == len(scan) == 6
    for i, (_, data) in enumerate(got["/sensors/omni/lidar"]):
        msg = LaserScan.FromString(data)
        np.testing.assert_array_equal(np.array(msg.ranges, np.float32), scan["ranges"][i, 0])
        assert msg.pose.position.x == pytest.approx(scan["pose"][i, 0])
        assert msg.start_angle == pytest.approx(-np.pi)
    img = CompressedImage.FromString(got["/sensors/omni/camera/image"][-1][1])
    assert img.format == "png"
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(img.data))), cam["rgb"][-1])
    depth = RawImage.FromString(got["/sensors/omni/camera/depth"][-1][1])
    assert depth.encoding == "32FC1" and (depth.width, depth.height) == (32, 24)
    np.testing.assert_array_equal(
        np.frombuffer(depth.data, "<f4").reshape(24, 32), cam["depth"][-1]
    )
    first = json.loads(got["/sensors/omni/imu"][0][1])
    assert first["t"] == imu.t[0] and first["accel"] == pytest.approx(imu["accel"][0].tolist())


def test_rerun_logs_scan_points_and_imu_scalars(sensed_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "run.rrd"
    assert (
        main(["export", "last", "--db", str(sensed_db), "--format", "rerun", "--out", str(out)])
        == 0
    )
    ents: dict[str, dict[str, list]] = {}
    for chunk in RrdReader(out).stream().to_chunks():
        batch = chunk.to_record_batch()
        ent = ents.setdefault(str(chunk.entity_path), {})
        for name in batch.schema.names:
            col = batch.column(name)
            if pa.types.is_temporal(col.type):
                col = col.cast(pa.int64())
            ent.setdefault(name, []).extend(col.to_pylist())
    with RunStore(sensed_db) as store:
        imu = store.sensor("last", "omni", "imu")
    az = ents["/sensors/omni/imu/accel/2"]
    np.testing.assert_allclose(np.array(az["Scalars:scalars"]).ravel(), imu["accel"][:, 2])
    assert any(k.startswith("Points3D") for k in ents["/sensors/omni/lidar"])
    assert "/sensors/omni/camera/image" in ents and "/sensors/omni/camera/depth" in ents
