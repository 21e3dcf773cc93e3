"""Recorded sensor readings in the MCAP and Rerun exports (docs/sensors.md).

Per sensor of the run (``RunStore.sensor``, :mod:`robotsim.recording.frames`):

======================  ==========================================  ==========================
sensor                  MCAP (Foxglove schemas)                     Rerun entity
======================  ==========================================  ==========================
lidar, one layer        ``/sensors/<robot>/<name>``: ``LaserScan``  ``sensors/<robot>/<name>``:
                        (its pose in ``world``, start/end angle,    ``Points3D`` of the returns
                        ranges; ``inf``: no return within range)    in the world
lidar, several layers   ``PointCloud`` of the returns (x, y, z      the same
                        float32, in ``world``)
camera                  ``.../image``: ``CompressedImage`` (PNG),   ``.../image``: ``Image``,
                        ``.../depth``: ``RawImage`` (``32FC1``, m)  ``.../depth``: ``DepthImage``
other (imu, odometry,   ``/sensors/<robot>/<name>`` JSON: ``t``     ``.../<field>/<i>``:
force, touch, joint)    and each field as a (nested) list           ``Scalars`` per component
======================  ==========================================  ==========================

Times are the readings' (the simulated time the state was read at).
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from robotsim.recording.frames import SensorSeries

__all__ = ["log_rerun_sensors", "mcap_sensor_messages"]

_SENSOR_SCHEMA = {"type": "object", "properties": {"t": {"type": "number"}}}


def _png(rgb: np.ndarray) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgb, dtype=np.uint8), "RGB").save(
        buf, format="PNG", compress_level=1
    )
    return buf.getvalue()


def _pose(p: np.ndarray) -> Any:
    from foxglove_schemas_protobuf.Pose_pb2 import Pose
    from foxglove_schemas_protobuf.Quaternion_pb2 import Quaternion
    from foxglove_schemas_protobuf.Vector3_pb2 import Vector3

    x, y, z, qw, qx, qy, qz = (float(v) for v in p)
    return Pose(position=Vector3(x=x, y=y, z=z), orientation=Quaternion(x=qx, y=qy, z=qz, w=qw))


def _world_points(s: SensorSeries, i: int) -> np.ndarray:
    from robotsim.sensors.lidar import scan_points

    return scan_points(s["ranges"][i], s.meta["azimuths"], s.meta["elevations"], s["pose"][i])


def _plain(a: np.ndarray) -> Any:
    """A field's values for JSON: numbers (``null`` for non-finite ones) or bools."""
    if a.dtype == np.bool_:
        return a.tolist()
    f = np.asarray(a, dtype=np.float64)
    obj = f.astype(object)
    obj[~np.isfinite(f)] = None
    return obj.tolist()


def mcap_sensor_messages(
    sensors: Sequence[SensorSeries],
    ns: Callable[[float], int],
    channel: Callable[[Any], int],
) -> list[tuple[int, int, bytes]]:
    """Messages ``(log time ns, channel, bytes)`` of every reading; ``channel(Channel)``
    registers a channel and returns its index (:mod:`robotsim.export.mcap_file`)."""
    from foxglove_schemas_protobuf.CompressedImage_pb2 import CompressedImage
    from foxglove_schemas_protobuf.LaserScan_pb2 import LaserScan
    from foxglove_schemas_protobuf.PackedElementField_pb2 import PackedElementField
    from foxglove_schemas_protobuf.PointCloud_pb2 import PointCloud
    from foxglove_schemas_protobuf.RawImage_pb2 import RawImage

    from robotsim.export.foxglove import json_channel, proto_channel, stamp

    out: list[tuple[int, int, bytes]] = []
    for s in sensors:
        topic = f"/sensors/{s.robot}/{s.name}"
        times = s.t.tolist()
        if s.type == "lidar" and len(s.meta.get("elevations", [0])) == 1:
            ch = channel(proto_channel(topic, LaserScan))
            az = s.meta["azimuths"]
            for i, t in enumerate(times):
                st = ns(t)
                msg = LaserScan(
                    timestamp=stamp(st), frame_id="world", pose=_pose(s["pose"][i]),
                    start_angle=float(az[0]), end_angle=float(az[-1]),
                    ranges=s["ranges"][i].reshape(-1).astype(np.float64).tolist(),
                )  # fmt: skip
                out.append((st, ch, msg.SerializeToString()))
        elif s.type == "lidar":
            ch = channel(proto_channel(topic, PointCloud))
            f32 = PackedElementField.NumericType.Value("FLOAT32")
            fields = [
                PackedElementField(name=n, offset=4 * k, type=f32) for k, n in enumerate("xyz")
            ]
            for i, t in enumerate(times):
                st = ns(t)
                pts = _world_points(s, i).astype("<f4")
                msg = PointCloud(timestamp=stamp(st), frame_id="world", point_stride=12,
                                 fields=fields, data=pts.tobytes())  # fmt: skip
                out.append((st, ch, msg.SerializeToString()))
        elif s.type == "camera":
            if "rgb" in s.data:
                ch = channel(proto_channel(topic + "/image", CompressedImage))
                for i, t in enumerate(times):
                    st = ns(t)
                    msg = CompressedImage(timestamp=stamp(st), frame_id=f"{topic}/optical",
                                          data=_png(s["rgb"][i]), format="png")  # fmt: skip
                    out.append((st, ch, msg.SerializeToString()))
            if "depth" in s.data:
                ch = channel(proto_channel(topic + "/depth", RawImage))
                h, w = s["depth"].shape[1:3]
                for i, t in enumerate(times):
                    st = ns(t)
                    raw = np.ascontiguousarray(s["depth"][i], "<f4").tobytes()
                    msg = RawImage(timestamp=stamp(st), frame_id=f"{topic}/optical", width=w,
                                   height=h, encoding="32FC1", step=4 * w, data=raw)  # fmt: skip
                    out.append((st, ch, msg.SerializeToString()))
        else:
            ch = channel(json_channel(topic, f"robotsim.sensors.{s.type}", _SENSOR_SCHEMA))
            for i, t in enumerate(times):
                body = {"t": t, **{k: _plain(v[i]) for k, v in s.data.items()}}
                out.append((ns(t), ch, json.dumps(body, allow_nan=False).encode()))
    return out


def _part(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.\-]+", "_", name) or "_"


def log_rerun_sensors(rec: Any, sensors: Sequence[SensorSeries], timeline: str) -> None:
    """Log every reading into the Rerun recording ``rec`` on ``timeline``."""
    import rerun as rr

    for s in sensors:
        ent = f"sensors/{_part(s.robot)}/{_part(s.name)}"
        if s.type == "lidar":
            for i, t in enumerate(s.t.tolist()):
                rec.set_time(timeline, duration=t)
                rec.log(ent, rr.Points3D(_world_points(s, i), colors=[230, 30, 30], radii=0.02))
        elif s.type == "camera":
            for i, t in enumerate(s.t.tolist()):
                rec.set_time(timeline, duration=t)
                if "rgb" in s.data:
                    rec.log(f"{ent}/image", rr.Image(np.asarray(s["rgb"][i])))
                if "depth" in s.data:
                    d = np.where(np.isfinite(s["depth"][i]), s["depth"][i], 0.0)
                    rec.log(f"{ent}/depth", rr.DepthImage(d.astype(np.float32), meter=1.0))
        else:
            for field, arr in s.data.items():
                flat = np.asarray(arr, dtype=np.float64).reshape(len(s.t), -1)
                for j in range(flat.shape[1]):
                    ok = np.isfinite(flat[:, j])
                    if ok.any():
                        rec.send_columns(
                            f"{ent}/{_part(field)}/{j}",
                            indexes=[rr.TimeColumn(timeline, duration=s.t[ok])],
                            columns=rr.Scalars.columns(scalars=flat[ok, j]),
                        )
