"""``robotsim export RUN --format mcap``: one MCAP file Foxglove opens as it is.

Channels (protobuf with Foxglove's schemas unless said otherwise; the table in
``docs/export.md``): ``/tf`` (``foxglove.FrameTransforms``: every sample of every robot,
root in ``world`` and each link in its parent link, and of every moving object; static
objects with the scene), ``/scene`` (``foxglove.SceneUpdate``: at the start and every
:data:`SCENE_PERIOD` s, every frame's shapes locked to it, and the ground),
``/robots/<robot>/joint_states`` (``foxglove.JointStates``),
``/robots/<robot>/base_pose`` (``foxglove.PoseInFrame``), ``/signals/<group>`` (JSON:
every recorded row of every group, plots and commands), ``/events``
(``foxglove.Log``) and the recorded sensors, ``/sensors/<robot>/<sensor>``
(``LaserScan``, ``PointCloud``, ``CompressedImage``/``RawImage``, JSON;
:mod:`robotsim.export.sensor_channels`).

The run's row is the MCAP metadata record ``robotsim.run``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

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
from robotsim.export.replay import Replay
from robotsim.jsonable import dumps as json_dumps
from robotsim.spatial import R_to_quat

__all__ = ["SCENE_PERIOD", "mcap_messages", "write_mcap"]

#: Seconds of simulated time between copies of the scene (a seek shows it at once).
SCENE_PERIOD = 5.0


def _ns_of(replay: Replay) -> Callable[[float], int]:
    base = round(replay.info.started_at * 1e9)
    return lambda t: base + round(float(t) * 1e9)


def mcap_messages(replay: Replay) -> tuple[list[Channel], list[tuple[int, int, bytes]]]:
    """The channels and every message ``(log time ns, channel index, bytes)`` of a
    replay, in time order."""
    from foxglove_schemas_protobuf.FrameTransforms_pb2 import FrameTransforms
    from foxglove_schemas_protobuf.JointStates_pb2 import JointStates
    from foxglove_schemas_protobuf.Log_pb2 import Log
    from foxglove_schemas_protobuf.PoseInFrame_pb2 import PoseInFrame
    from foxglove_schemas_protobuf.SceneUpdate_pb2 import SceneUpdate

    ns = _ns_of(replay)
    channels: list[Channel] = []
    msgs: list[tuple[int, int, bytes]] = []

    def channel(ch: Channel) -> int:
        channels.append(ch)
        return len(channels) - 1

    t0, t1 = replay.time_span()
    if replay.has_scene:
        tf = channel(proto_channel("/tf", FrameTransforms))
        scene = channel(proto_channel("/scene", SceneUpdate))
        statics = [tr for tr in replay.tracks if not tr.moving]
        static_names = [f.name for tr in statics for f in tr.frames]
        static_T = (
            np.concatenate([tr.T_world[0] for tr in statics]) if statics else np.zeros((0, 4, 4))
        )
        static_pos = static_T[:, :3, 3].tolist()
        static_quat = R_to_quat(static_T[:, :3, :3]).tolist() if statics else []
        scene_bytes = scene_update(replay.frames, replay.ground, ns(t0))
        k = 0
        while True:
            ts = t0 + k * SCENE_PERIOD
            if k and ts > t1:
                break
            stamp = ns(ts)
            msgs.append((stamp, scene, scene_bytes))
            if statics:
                msgs.append(
                    (
                        stamp,
                        tf,
                        frame_transforms(
                            ["world"] * len(static_names),
                            static_names,
                            static_pos,
                            static_quat,
                            stamp,
                        ),
                    )
                )
            k += 1
        for tr in replay.tracks:
            if not tr.moving:
                continue
            rel = tr.relative()
            pos = rel[:, :, :3, 3].tolist()
            quat = R_to_quat(rel[:, :, :3, :3]).tolist()
            parents = [f.parent for f in tr.frames]
            children = [f.name for f in tr.frames]
            stamps = [ns(t) for t in tr.t]
            for i, stamp in enumerate(stamps):
                msgs.append(
                    (stamp, tf, frame_transforms(parents, children, pos[i], quat[i], stamp))
                )
            if tr.kind != "robot":
                continue
            pose = channel(proto_channel(f"/robots/{tr.name}/base_pose", PoseInFrame))
            root_pos = tr.T_world[:, 0, :3, 3].tolist()
            root_quat = R_to_quat(tr.T_world[:, 0, :3, :3]).tolist()
            for i, stamp in enumerate(stamps):
                msgs.append((stamp, pose, pose_in_frame(root_pos[i], root_quat[i], stamp)))
            if tr.joint_names and tr.q is not None:
                js = channel(proto_channel(f"/robots/{tr.name}/joint_states", JointStates))
                for i, stamp in enumerate(stamps):
                    qd = None if tr.qd is None else tr.qd[i]
                    msgs.append((stamp, js, joint_states(tr.joint_names, tr.q[i], qd, stamp)))
    for group, tab in replay.signals.items():
        if not tab.t.size:
            continue
        ch = channel(json_channel(f"/signals/{group}", "robotsim.Signals", SIGNALS_SCHEMA))
        enc = JsonSignals(tab.names)
        for t, row in zip(tab.t.tolist(), tab.values.tolist()):
            msgs.append((ns(t), ch, enc.encode(row, t)))
    if replay.events:
        ev = channel(proto_channel("/events", Log))
        for e in replay.events:
            stamp = ns(e["t"])
            msgs.append((stamp, ev, log_message(e, stamp)))
    if replay.sensors:
        from robotsim.export.sensor_channels import mcap_sensor_messages

        msgs += mcap_sensor_messages(replay.sensors, ns, channel)
    msgs.sort(key=lambda m: m[0])
    return channels, msgs


def write_mcap(replay: Replay, path: str | os.PathLike[str]) -> Path:
    """Write the replay's MCAP file to ``path`` (zstd-compressed chunks, with the
    summary and indexes readers use to list channels and seek)."""
    from mcap.writer import CompressionType, Writer

    channels, msgs = mcap_messages(replay)
    path = Path(path)
    with path.open("wb") as fh:
        w = Writer(fh, compression=CompressionType.ZSTD, chunk_size=1 << 20)
        w.start(profile="", library="robotsim")
        schema_ids: dict[tuple[str, str, bytes], int] = {}
        ids = []
        for ch in channels:
            key = (ch.schema_name, ch.schema_encoding, ch.schema)
            sid = schema_ids.get(key)
            if sid is None:
                sid = schema_ids[key] = w.register_schema(
                    name=ch.schema_name, encoding=ch.schema_encoding, data=ch.schema
                )
            ids.append(
                w.register_channel(
                    topic=ch.topic, message_encoding=ch.message_encoding, schema_id=sid
                )
            )
        seq = [0] * len(channels)
        for stamp, ci, data in msgs:
            w.add_message(
                channel_id=ids[ci],
                log_time=stamp,
                data=data,
                publish_time=stamp,
                sequence=seq[ci],
            )
            seq[ci] += 1
        w.add_metadata("robotsim.run", _run_metadata(replay))
        w.finish()
    return path


def _run_metadata(replay: Replay) -> dict[str, str]:
    info: dict[str, Any] = replay.info.to_json()
    out = {k: v if isinstance(v, str) else json_dumps(v, default=str) for k, v in info.items()}
    out["scene"] = json.dumps(replay.scene, allow_nan=False) if replay.scene else ""
    return out
