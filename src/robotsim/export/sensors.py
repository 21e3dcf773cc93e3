"""Recorded sensor readings (``docs/sensors.md``) in the exports.

MCAP (Foxglove's schemas), one topic per sensor, ``/robots/<robot>/sensors/<name>``:

- a lidar with one layer of evenly spread rays: ``foxglove.LaserScan`` in ``world`` at
  the scan's pose (``inf``: no return, ``NaN``: a dropout, as recorded); several
  layers: ``foxglove.PointCloud`` of the returns in ``world`` (x, y, z float32);
- a camera: ``foxglove.CompressedImage`` (JPEG) of the colour image, in the frame of
  the link it is mounted on; its depth on ``.../depth`` as ``foxglove.RawImage``
  (``32FC1``, metres);
- the others (IMU, odometry, force, touch, joints): JSON, every field of a reading.

Rerun: lidar returns as ``Points3D`` in ``world/sensors/<robot>/<name>``, camera
frames as ``EncodedImage`` in ``sensors/<robot>/<name>``, other fields of at most 16
values as ``Scalars`` per component.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from robotsim.export.foxglove import Channel, json_channel, proto_channel, stamp
from robotsim.spatial import quat_to_R

__all__ = ["lidar_points", "mcap_sensor_messages", "rerun_sensors"]

SENSOR_SCHEMA = {
    "type": "object",
    "description": "one reading of a robotsim sensor: t (s) and its fields (docs/sensors.md)",
    "properties": {"t": {"type": "number"}},
    "additionalProperties": True,
}


def _jpeg(rgb: np.ndarray, quality: int = 90) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgb, dtype=np.uint8)).save(buf, "JPEG", quality=quality)
    return buf.getvalue()


def _even(az: np.ndarray) -> bool:
    if az.size < 2:
        return True
    step = np.diff(az)
    return bool(np.allclose(step, step[0], rtol=1e-6, atol=1e-9))


def lidar_points(series: Any) -> tuple[np.ndarray, np.ndarray]:
    """Every return of every scan in the world: ``(points (P, 3) m, per-scan counts
    (T,))``; rays without a return (``inf``) and dropouts (``NaN``) left out."""
    meta = series.meta
    az = np.asarray(meta["azimuths"], dtype=np.float64)
    el = np.asarray(meta.get("elevations") or [0.0], dtype=np.float64)
    dirs = np.stack(
        [
            np.cos(el)[:, None] * np.cos(az)[None, :],
            np.cos(el)[:, None] * np.sin(az)[None, :],
            np.broadcast_to(np.sin(el)[:, None], (el.size, az.size)),
        ],
        axis=-1,
    )
    ranges = np.asarray(series["ranges"], dtype=np.float64)  # (T, layers, rays)
    pose = np.asarray(series["pose"], dtype=np.float64)  # (T, 7)
    pts, counts = [], []
    for k in range(len(series.t)):
        r = ranges[k]
        ok = np.isfinite(r)
        local = dirs[ok] * r[ok][:, None]
        R = quat_to_R(pose[k, 3:7])
        pts.append(local @ R.T + pose[k, :3])
        counts.append(int(ok.sum()))
    if not pts:
        return np.zeros((0, 3)), np.zeros(0, dtype=np.int64)
    return np.concatenate(pts), np.array(counts, dtype=np.int64)


def mcap_sensor_messages(
    sensors: Any, ns: Callable[[float], int]
) -> tuple[list[Channel], list[tuple[int, int, bytes]]]:
    """Channels and messages ``(ns, channel index in the returned list, bytes)``."""
    from foxglove_schemas_protobuf.CompressedImage_pb2 import CompressedImage
    from foxglove_schemas_protobuf.LaserScan_pb2 import LaserScan
    from foxglove_schemas_protobuf.PackedElementField_pb2 import PackedElementField
    from foxglove_schemas_protobuf.PointCloud_pb2 import PointCloud
    from foxglove_schemas_protobuf.Pose_pb2 import Pose
    from foxglove_schemas_protobuf.Quaternion_pb2 import Quaternion
    from foxglove_schemas_protobuf.RawImage_pb2 import RawImage
    from foxglove_schemas_protobuf.Vector3_pb2 import Vector3

    channels: list[Channel] = []
    msgs: list[tuple[int, int, bytes]] = []

    def pose_of(p: np.ndarray) -> Any:
        return Pose(
            position=Vector3(x=p[0], y=p[1], z=p[2]),
            orientation=Quaternion(w=p[3], x=p[4], y=p[5], z=p[6]),
        )

    for s in sensors:
        topic = f"/robots/{s.robot}/sensors/{s.name}"
        times = [float(t) for t in s.t]
        if s.type == "lidar":
            az = np.asarray(s.meta["azimuths"], dtype=np.float64)
            layers = int(s.meta.get("layers", 1))
            if layers == 1 and _even(az):
                channels.append(proto_channel(topic, LaserScan))
                ci = len(channels) - 1
                ranges = np.asarray(s["ranges"], dtype=np.float64)[:, 0, :]
                pose = np.asarray(s["pose"], dtype=np.float64)
                for k, t in enumerate(times):
                    stamp_ns = ns(t)
                    msg = LaserScan(
                        timestamp=stamp(stamp_ns),
                        frame_id="world",
                        pose=pose_of(pose[k].tolist()),
                        start_angle=float(az[0]),
                        end_angle=float(az[-1]),
                        ranges=ranges[k].tolist(),
                    )
                    msgs.append((stamp_ns, ci, bytes(msg.SerializeToString())))
            else:
                channels.append(proto_channel(topic, PointCloud))
                ci = len(channels) - 1
                pts, counts = lidar_points(s)
                start = 0
                fields = [
                    PackedElementField(name=n, offset=4 * i, type=PackedElementField.FLOAT32)
                    for i, n in enumerate("xyz")
                ]
                for k, t in enumerate(times):
                    p = pts[start : start + counts[k]].astype("<f4")
                    start += counts[k]
                    stamp_ns = ns(t)
                    msg = PointCloud(
                        timestamp=stamp(stamp_ns),
                        frame_id="world",
                        pose=pose_of([0, 0, 0, 1, 0, 0, 0]),
                        point_stride=12,
                        fields=fields,
                        data=p.tobytes(),
                    )
                    msgs.append((stamp_ns, ci, bytes(msg.SerializeToString())))
        elif s.type == "camera":
            frame = f"{s.robot}/{s.meta.get('link', '')}"
            if "rgb" in s.fields:
                channels.append(proto_channel(topic, CompressedImage))
                ci = len(channels) - 1
                for k, t in enumerate(times):
                    stamp_ns = ns(t)
                    msg = CompressedImage(
                        timestamp=stamp(stamp_ns),
                        frame_id=frame,
                        data=_jpeg(s["rgb"][k]),
                        format="jpeg",
                    )
                    msgs.append((stamp_ns, ci, bytes(msg.SerializeToString())))
            if "depth" in s.fields:
                channels.append(proto_channel(topic + "/depth", RawImage))
                ci = len(channels) - 1
                for k, t in enumerate(times):
                    d = np.ascontiguousarray(s["depth"][k], dtype="<f4")
                    stamp_ns = ns(t)
                    msg = RawImage(
                        timestamp=stamp(stamp_ns),
                        frame_id=frame,
                        width=d.shape[1],
                        height=d.shape[0],
                        encoding="32FC1",
                        step=4 * d.shape[1],
                        data=d.tobytes(),
                    )
                    msgs.append((stamp_ns, ci, bytes(msg.SerializeToString())))
        else:
            channels.append(json_channel(topic, "robotsim.SensorReading", SENSOR_SCHEMA))
            ci = len(channels) - 1
            for k, t in enumerate(times):
                row: dict[str, Any] = {"t": t}
                for f in s.fields:
                    v = np.asarray(s[f][k])
                    row[f] = _plain(v.tolist())
                msgs.append((ns(t), ci, json.dumps(row, separators=(",", ":")).encode()))
    return channels, msgs


def _plain(v: Any) -> Any:
    """NaN and infinities -> null (strict JSON)."""
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def rerun_sensors(rec: Any, sensors: Any, timeline: str, part: Callable[[str], str]) -> None:
    """Log every sensor's readings to a Rerun recording (see the module doc)."""
    import rerun as rr

    for s in sensors:
        t = np.asarray(s.t, dtype=np.float64)
        if not t.size:
            continue
        base = f"{part(s.robot)}/{part(s.name)}"
        if s.type == "lidar":
            pts, counts = lidar_points(s)
            rec.send_columns(
                f"world/sensors/{base}",
                indexes=[rr.TimeColumn(timeline, duration=t)],
                columns=rr.Points3D.columns(positions=pts.astype(np.float32)).partition(counts),
            )
        elif s.type == "camera":
            if "rgb" in s.fields:
                for k in range(t.size):
                    rec.set_time(timeline, duration=float(t[k]))
                    rec.log(
                        f"sensors/{base}",
                        rr.EncodedImage(contents=_jpeg(s["rgb"][k]), media_type="image/jpeg"),
                    )
        else:
            for f in s.fields:
                v = np.asarray(s[f], dtype=np.float64).reshape(t.size, -1)
                if v.shape[1] > 16:
                    continue
                for j in range(v.shape[1]):
                    col = v[:, j]
                    ok = np.isfinite(col)
                    if not ok.any():
                        continue
                    name = f"sensors/{base}/{part(f)}" + (f"/{j}" if v.shape[1] > 1 else "")
                    rec.send_columns(
                        name,
                        indexes=[rr.TimeColumn(timeline, duration=t[ok])],
                        columns=rr.Scalars.columns(scalars=col[ok]),
                    )
