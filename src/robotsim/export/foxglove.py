"""Foxglove's well-known schemas for a robotsim scene, shared by the MCAP file and
the live WebSocket stream (``docs/export.md`` lists the channels).

Messages are the protobuf classes of ``foxglove-schemas-protobuf``; every channel's
schema is the message's ``FileDescriptorSet`` (what Foxglove and ``mcap`` readers
decode it with). Signals that have no well-known schema (plots, commands) are JSON
with a JSON Schema. Times are nanoseconds: the run's start (wall clock) plus the
simulated time, so Foxglove shows the run's date and a timeline in simulated seconds.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from robotsim.export.meshes import glb_bytes
from robotsim.export.replay import Frame, Visual
from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Mesh, Sphere
from robotsim.spatial import R_to_quat

__all__ = [
    "Channel",
    "JsonSignals",
    "frame_transforms",
    "joint_states",
    "json_channel",
    "json_signals",
    "log_message",
    "pose_in_frame",
    "proto_channel",
    "scene_update",
    "stamp",
]

#: Event types logged as warnings (the rest as info).
WARNING_EVENTS = frozenset({"collision", "fault", "fell", "fall", "slip"})


@dataclass(frozen=True)
class Channel:
    """One topic: its schema (name, encoding, bytes) and message encoding."""

    topic: str
    schema_name: str
    schema_encoding: str
    schema: bytes
    message_encoding: str


@lru_cache(maxsize=64)
def _descriptor_set(cls: type) -> bytes:
    from google.protobuf.descriptor_pb2 import FileDescriptorSet

    out = FileDescriptorSet()
    seen: set[str] = set()

    def add(fd: Any) -> None:
        for dep in fd.dependencies:
            if dep.name not in seen:
                seen.add(dep.name)
                add(dep)
        fd.CopyToProto(out.file.add())

    add(cls.DESCRIPTOR.file)
    return bytes(out.SerializeToString())


def proto_channel(topic: str, cls: type) -> Channel:
    """A channel of protobuf messages of class ``cls`` (e.g. ``FrameTransforms``)."""
    return Channel(
        topic,
        cls.DESCRIPTOR.full_name,
        "protobuf",
        _descriptor_set(cls),
        "protobuf",  # type: ignore[attr-defined]
    )


def json_channel(topic: str, name: str, schema: Mapping[str, Any]) -> Channel:
    """A channel of JSON messages described by a JSON Schema."""
    return Channel(topic, name, "jsonschema", json.dumps(schema, allow_nan=False).encode(), "json")


def stamp(ns: int) -> Any:
    from google.protobuf.timestamp_pb2 import Timestamp

    return Timestamp(seconds=ns // 1_000_000_000, nanos=ns % 1_000_000_000)


def _pose(T: np.ndarray) -> Any:
    from foxglove_schemas_protobuf.Pose_pb2 import Pose
    from foxglove_schemas_protobuf.Quaternion_pb2 import Quaternion
    from foxglove_schemas_protobuf.Vector3_pb2 import Vector3

    w, x, y, z = R_to_quat(T[:3, :3]).tolist()
    p = T[:3, 3].tolist()
    return Pose(
        position=Vector3(x=p[0], y=p[1], z=p[2]), orientation=Quaternion(x=x, y=y, z=z, w=w)
    )


def _color(rgba: Sequence[float]) -> Any:
    from foxglove_schemas_protobuf.Color_pb2 import Color

    return Color(r=float(rgba[0]), g=float(rgba[1]), b=float(rgba[2]), a=float(rgba[3]))


def frame_transforms(
    parents: Sequence[str],
    children: Sequence[str],
    pos: Sequence[Sequence[float]],
    quat: Sequence[Sequence[float]],
    ns: int,
) -> bytes:
    """Each child frame in its parent's, position ``pos`` (F, 3) m and unit quaternion
    ``quat`` (F, 4) wxyz -> FrameTransforms bytes."""
    from foxglove_schemas_protobuf.FrameTransform_pb2 import FrameTransform
    from foxglove_schemas_protobuf.FrameTransforms_pb2 import FrameTransforms
    from foxglove_schemas_protobuf.Quaternion_pb2 import Quaternion
    from foxglove_schemas_protobuf.Vector3_pb2 import Vector3

    ts = stamp(ns)
    msg = FrameTransforms(
        transforms=[
            FrameTransform(
                timestamp=ts,
                parent_frame_id=parent,
                child_frame_id=child,
                translation=Vector3(x=p[0], y=p[1], z=p[2]),
                rotation=Quaternion(x=q[1], y=q[2], z=q[3], w=q[0]),
            )
            for parent, child, p, q in zip(parents, children, pos, quat)
        ]
    )
    return bytes(msg.SerializeToString())


def pose_in_frame(
    pos: Sequence[float], quat: Sequence[float], ns: int, frame: str = "world"
) -> bytes:
    """A pose (position m, unit quaternion wxyz) as a ``foxglove.PoseInFrame``."""
    from foxglove_schemas_protobuf.Pose_pb2 import Pose
    from foxglove_schemas_protobuf.PoseInFrame_pb2 import PoseInFrame
    from foxglove_schemas_protobuf.Quaternion_pb2 import Quaternion
    from foxglove_schemas_protobuf.Vector3_pb2 import Vector3

    pose = Pose(
        position=Vector3(x=pos[0], y=pos[1], z=pos[2]),
        orientation=Quaternion(x=quat[1], y=quat[2], z=quat[3], w=quat[0]),
    )
    return bytes(PoseInFrame(timestamp=stamp(ns), frame_id=frame, pose=pose).SerializeToString())


def joint_states(names: Sequence[str], q: np.ndarray, qd: np.ndarray | None, ns: int) -> bytes:
    from foxglove_schemas_protobuf.JointState_pb2 import JointState
    from foxglove_schemas_protobuf.JointStates_pb2 import JointStates

    qs = q.tolist()
    vs = [math.nan] * len(qs) if qd is None else qd.tolist()
    joints = []
    for n, p, v in zip(names, qs, vs):
        js = JointState(name=n, position=p)
        if v == v:  # recorded
            js.velocity = v
        joints.append(js)
    return bytes(JointStates(timestamp=stamp(ns), joints=joints).SerializeToString())


def log_message(event: Mapping[str, Any], ns: int) -> bytes:
    """A run event as a ``foxglove.Log`` (collisions and faults as warnings)."""
    from foxglove_schemas_protobuf.Log_pb2 import Log

    kind = str(event.get("type", "event"))
    data = event.get("data") or {}
    text = kind if not data else f"{kind} {json.dumps(data, allow_nan=False, default=str)}"
    level = Log.WARNING if kind in WARNING_EVENTS else Log.INFO
    return bytes(
        Log(
            timestamp=stamp(ns), level=level, message=text, name=str(event.get("robot") or "run")
        ).SerializeToString()
    )


def _nest(names: Sequence[str]) -> dict[str, Any]:
    """Dotted names as a tree whose leaves are column indices (``base.x`` ->
    ``{"base": {"x": j}}``). Clashes lose nothing: ``a`` after ``a.b`` goes to
    ``a._``; ``a.b`` after ``a`` stays flat (key ``"a.b"``)."""
    tree: dict[str, Any] = {}
    for j, name in enumerate(names):
        parts = name.split(".")
        node = tree
        for p in parts[:-1]:
            nxt = node.setdefault(p, {})
            if not isinstance(nxt, dict):
                node = None  # type: ignore[assignment]
                break
            node = nxt
        if node is None:  # a leaf on the way (``a`` then ``a.b``): keep the name flat
            tree[name] = j
        elif isinstance(node.get(parts[-1]), dict):  # ``a.b`` then ``a``: under ``a._``
            node[parts[-1]]["_"] = j
        else:
            node[parts[-1]] = j
    return tree


def _template(tree: dict[str, Any], order: list[int]) -> str:
    parts = []
    for key, v in tree.items():
        k = json.dumps(key, allow_nan=False).replace("%", "%%")
        if isinstance(v, dict):
            parts.append(f"{k}:{_template(v, order)}")
        else:
            order.append(v)
            parts.append(f"{k}:%r")
    return "{" + ",".join(parts) + "}"


class JsonSignals:
    """One sample of a group's signals as a JSON object: dotted names nest
    (``base.x`` -> ``{"base": {"x": ...}}``) so Foxglove's message paths reach every
    value (``/signals/omni.base.x``); ``t`` is the simulated time (s); a value not
    sampled (NaN) is left out. Built once per group: a row with every value is one
    string formatting."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)
        self.tree = _nest(self.names)
        order: list[int] = []
        body = _template(self.tree, order)
        self.order = order
        self.fmt = '{"t":%r,' + body[1:] if len(body) > 2 else '{"t":%r}'

    def encode(self, values: Sequence[float], t: float) -> bytes:
        total = sum(values)  # finite when every value is (an overflow takes the slow path)
        if math.isfinite(total):
            return (self.fmt % (float(t), *[float(values[j]) for j in self.order])).encode()
        return json_signals(self.names, values, t)


def json_signals(names: Sequence[str], values: Sequence[float], t: float) -> bytes:
    """:class:`JsonSignals` for one row (any values; NaN and infinities left out)."""
    out: dict[str, Any] = {"t": float(t)}

    def fill(node: dict[str, Any], tree: dict[str, Any]) -> None:
        for key, v in tree.items():
            if isinstance(v, dict):
                child: dict[str, Any] = {}
                fill(child, v)
                if child:
                    node[key] = child
            elif math.isfinite(values[v]):
                node[key] = float(values[v])

    fill(out, _nest(names))
    return json.dumps(out, allow_nan=False, separators=(",", ":")).encode()


SIGNALS_SCHEMA = {
    "type": "object",
    "description": "one sample of a robot's (or group's) recorded signals; dotted names nest",
    "properties": {"t": {"type": "number", "description": "simulated time, s"}},
    "additionalProperties": True,
}


# -- the scene ------------------------------------------------------------------------
def _entity_shapes(visuals: Sequence[Visual]) -> dict[str, list[Any]]:
    from foxglove_schemas_protobuf.CubePrimitive_pb2 import CubePrimitive
    from foxglove_schemas_protobuf.CylinderPrimitive_pb2 import CylinderPrimitive
    from foxglove_schemas_protobuf.ModelPrimitive_pb2 import ModelPrimitive
    from foxglove_schemas_protobuf.SpherePrimitive_pb2 import SpherePrimitive
    from foxglove_schemas_protobuf.Vector3_pb2 import Vector3

    out: dict[str, list[Any]] = {"cubes": [], "spheres": [], "cylinders": [], "models": []}
    for v in visuals:
        g, T, color = v.geometry, v.T_frame_shape, _color(v.rgba)
        if isinstance(g, Box):
            sx, sy, sz = (float(s) for s in g.size)
            out["cubes"].append(
                CubePrimitive(pose=_pose(T), size=Vector3(x=sx, y=sy, z=sz), color=color)
            )
        elif isinstance(g, Sphere | Ellipsoid):
            r = (g.radius,) * 3 if isinstance(g, Sphere) else g.radii
            out["spheres"].append(
                SpherePrimitive(
                    pose=_pose(T), size=Vector3(x=2 * r[0], y=2 * r[1], z=2 * r[2]), color=color
                )
            )
        elif isinstance(g, Cylinder | Capsule):
            d = 2 * float(g.radius)
            out["cylinders"].append(
                CylinderPrimitive(
                    pose=_pose(T),
                    size=Vector3(x=d, y=d, z=float(g.length)),
                    bottom_scale=1.0,
                    top_scale=1.0,
                    color=color,
                )
            )
            if isinstance(g, Capsule):
                for s in (-0.5, 0.5):
                    Tc = T.copy()
                    Tc[:3, 3] = T[:3, 3] + T[:3, 2] * s * float(g.length)
                    out["spheres"].append(
                        SpherePrimitive(pose=_pose(Tc), size=Vector3(x=d, y=d, z=d), color=color)
                    )
        elif isinstance(g, Mesh):
            out["models"].append(
                ModelPrimitive(
                    pose=_pose(T),
                    scale=Vector3(x=1.0, y=1.0, z=1.0),
                    color=color,
                    override_color=True,
                    media_type="model/gltf-binary",
                    data=glb_bytes(g),
                )
            )
    return out


def scene_update(frames: Sequence[Frame], ground: Mapping[str, Any] | None, ns: int) -> bytes:
    """Every frame's shapes as entities locked to their frame, and the ground."""
    from foxglove_schemas_protobuf.CubePrimitive_pb2 import CubePrimitive
    from foxglove_schemas_protobuf.SceneEntity_pb2 import SceneEntity
    from foxglove_schemas_protobuf.SceneUpdate_pb2 import SceneUpdate
    from foxglove_schemas_protobuf.Vector3_pb2 import Vector3

    ts = stamp(ns)
    entities = []
    for f in frames:
        if not f.visuals:
            continue
        entities.append(
            SceneEntity(
                timestamp=ts,
                frame_id=f.name,
                id=f.name,
                frame_locked=True,
                **_entity_shapes(f.visuals),
            )
        )
    if ground is not None and ground.get("size"):
        sx, sy = (float(v) for v in ground["size"])
        T = np.eye(4)
        T[2, 3] = -0.005
        cube = CubePrimitive(
            pose=_pose(T),
            size=Vector3(x=sx, y=sy, z=0.01),
            color=_color(ground.get("rgba") or (0.8, 0.8, 0.8, 1.0)),
        )
        entities.append(
            SceneEntity(
                timestamp=ts, frame_id="world", id="ground", frame_locked=True, cubes=[cube]
            )
        )
    return bytes(SceneUpdate(entities=entities).SerializeToString())
