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
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from robotsim.recording.frames import SensorSeries

__all__ = ["SensorEncoder", "log_rerun_sensors", "mcap_sensor_messages"]

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


def _world_points(meta: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> np.ndarray:
    from robotsim.sensors.lidar import scan_points

    return scan_points(data["ranges"], meta["azimuths"], meta["elevations"], data["pose"])


def _plain(a: np.ndarray) -> Any:
    """A field's values for JSON: numbers (``null`` for non-finite ones) or bools."""
    if a.dtype == np.bool_:
        return a.tolist()
    f = np.asarray(a, dtype=np.float64)
    obj = f.astype(object)
    obj[~np.isfinite(f)] = None
    return obj.tolist()


class SensorEncoder:
    """The Foxglove channels of one sensor and its readings as their messages: the MCAP
    export encodes a recorded series with it, the live stream (``serve --foxglove``)
    each reading as it is taken.

    Args:
        robot, name, type: the sensor's.
        meta: what the recording keeps once per sensor (``Sensor.meta()``).
        fields: the reading's fields (a camera's ``rgb`` and/or ``depth``).
    """

    def __init__(
        self, robot: str, name: str, type: str, meta: Mapping[str, Any], fields: Sequence[str]
    ) -> None:
        from foxglove_schemas_protobuf.CompressedImage_pb2 import CompressedImage
        from foxglove_schemas_protobuf.LaserScan_pb2 import LaserScan
        from foxglove_schemas_protobuf.PointCloud_pb2 import PointCloud
        from foxglove_schemas_protobuf.RawImage_pb2 import RawImage

        from robotsim.export.foxglove import json_channel, proto_channel

        self.type, self.meta = type, meta
        self.topic = topic = f"/sensors/{robot}/{name}"
        if type == "lidar":
            self.kind = "scan" if len(meta.get("elevations", [0])) == 1 else "cloud"
            schema = LaserScan if self.kind == "scan" else PointCloud
            self.channels = {"scan": proto_channel(topic, schema)}
        elif type == "camera":
            self.kind = "camera"
            self.channels = {}
            if "rgb" in fields:
                self.channels["rgb"] = proto_channel(topic + "/image", CompressedImage)
            if "depth" in fields:
                self.channels["depth"] = proto_channel(topic + "/depth", RawImage)
        else:
            self.kind = "json"
            self.channels = {
                "json": json_channel(topic, f"robotsim.sensors.{type}", _SENSOR_SCHEMA)
            }

    def encode(self, t: float, st: int, data: Mapping[str, np.ndarray]) -> list[tuple[str, bytes]]:
        """One reading (simulated time ``t`` s, log time ``st`` ns, ``data`` its fields)
        as ``[(key of :attr:`channels`, message bytes), ...]``."""
        from robotsim.export.foxglove import stamp

        if self.kind == "scan":
            from foxglove_schemas_protobuf.LaserScan_pb2 import LaserScan

            az = self.meta["azimuths"]
            msg = LaserScan(
                timestamp=stamp(st), frame_id="world", pose=_pose(data["pose"]),
                start_angle=float(az[0]), end_angle=float(az[-1]),
                ranges=np.asarray(data["ranges"]).reshape(-1).astype(np.float64).tolist(),
            )  # fmt: skip
            return [("scan", msg.SerializeToString())]
        if self.kind == "cloud":
            from foxglove_schemas_protobuf.PackedElementField_pb2 import PackedElementField
            from foxglove_schemas_protobuf.PointCloud_pb2 import PointCloud

            f32 = PackedElementField.NumericType.Value("FLOAT32")
            fields = [
                PackedElementField(name=n, offset=4 * k, type=f32) for k, n in enumerate("xyz")
            ]
            pts = _world_points(self.meta, data).astype("<f4")
            msg = PointCloud(timestamp=stamp(st), frame_id="world", point_stride=12,
                             fields=fields, data=pts.tobytes())  # fmt: skip
            return [("scan", msg.SerializeToString())]
        if self.kind == "camera":
            from foxglove_schemas_protobuf.CompressedImage_pb2 import CompressedImage
            from foxglove_schemas_protobuf.RawImage_pb2 import RawImage

            out = []
            frame = f"{self.topic}/optical"
            if "rgb" in self.channels and "rgb" in data:
                msg = CompressedImage(timestamp=stamp(st), frame_id=frame,
                                      data=_png(data["rgb"]), format="png")  # fmt: skip
                out.append(("rgb", msg.SerializeToString()))
            if "depth" in self.channels and "depth" in data:
                h, w = np.shape(data["depth"])[:2]
                raw = np.ascontiguousarray(data["depth"], "<f4").tobytes()
                msg = RawImage(timestamp=stamp(st), frame_id=frame, width=w, height=h,
                               encoding="32FC1", step=4 * w, data=raw)  # fmt: skip
                out.append(("depth", msg.SerializeToString()))
            return out
        body = {"t": t, **{k: _plain(np.asarray(v)) for k, v in data.items()}}
        return [("json", json.dumps(body, allow_nan=False).encode())]


def mcap_sensor_messages(
    sensors: Sequence[SensorSeries],
    ns: Callable[[float], int],
    channel: Callable[[Any], int],
) -> list[tuple[int, int, bytes]]:
    """Messages ``(log time ns, channel, bytes)`` of every reading; ``channel(Channel)``
    registers a channel and returns its index (:mod:`robotsim.export.mcap_file`)."""
    out: list[tuple[int, int, bytes]] = []
    for s in sensors:
        enc = SensorEncoder(s.robot, s.name, s.type, s.meta, tuple(s.data))
        ids = {k: channel(ch) for k, ch in enc.channels.items()}
        for i, t in enumerate(s.t.tolist()):
            st = ns(t)
            for key, payload in enc.encode(t, st, {k: v[i] for k, v in s.data.items()}):
                out.append((st, ids[key], payload))
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
                rec.log(
                    ent,
                    rr.Points3D(
                        _world_points(s.meta, {k: v[i] for k, v in s.data.items()}),
                        colors=[230, 30, 30],
                        radii=0.02,
                    ),
                )
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
