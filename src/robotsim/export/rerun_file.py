"""``robotsim export RUN --format rerun``: a Rerun recording (``.rrd``, ``rerun-sdk``).

Entities (timeline ``sim_time``, the simulated time):

- ``world/<robot>/<link>`` and ``world/<object>``: a ``Transform3D`` per sample (the
  frame's world pose; the frames are flat under ``world``, so each one's pose is read
  as recorded, not composed), with its shapes logged once as static children
  ``.../shapes`` (``Boxes3D``, ``Ellipsoids3D``, ``Cylinders3D``, ``Capsules3D``,
  ``Mesh3D``) in the frame's coordinates; ``world/ground`` a flat box;
- ``signals/<group>/<name>``: every recorded signal as ``Scalars``;
- ``events``: every event as a ``TextLog`` (collisions and faults as warnings);
- ``sensors/<robot>/<sensor>``: the recorded sensors (lidar returns as ``Points3D``,
  camera ``Image``/``DepthImage``, the others' components as ``Scalars``;
  :mod:`robotsim.export.sensor_channels`).

Time series are sent by column (``send_columns``): a minute of a robot is one call
per frame, not one per sample.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from robotsim.export.foxglove import WARNING_EVENTS
from robotsim.export.meshes import triangles
from robotsim.export.replay import Frame, Replay, Visual
from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Mesh, Sphere
from robotsim.spatial import R_to_quat

__all__ = ["TIMELINE", "entity_path", "write_rerun"]

TIMELINE = "sim_time"


def _part(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.\-]+", "_", name) or "_"


def entity_path(frame: str) -> str:
    """The entity of a frame (``omni/base`` -> ``world/omni/base``)."""
    return "world/" + "/".join(_part(p) for p in frame.split("/"))


def _xyzw(R: np.ndarray) -> np.ndarray:
    q = R_to_quat(R)
    return np.concatenate([q[..., 1:], q[..., :1]], axis=-1)


def _rgba(c: Sequence[float]) -> list[int]:
    return [round(255 * float(v)) for v in c]


def _log_shapes(rec: Any, path: str, visuals: Sequence[Visual]) -> None:
    """Every shape of a frame, batched by kind, in the frame's coordinates."""
    import rerun as rr

    boxes: list[tuple[Any, ...]] = []
    ellipsoids: list[tuple[Any, ...]] = []
    cylinders: list[tuple[Any, ...]] = []
    capsules: list[tuple[Any, ...]] = []
    meshes: list[tuple[np.ndarray, np.ndarray, list[int]]] = []
    for v in visuals:
        g, T, c = v.geometry, v.T_frame_shape, _rgba(v.rgba)
        q = _xyzw(T[:3, :3])
        if isinstance(g, Box):
            boxes.append((np.asarray(g.size) / 2, T[:3, 3], q, c))
        elif isinstance(g, Sphere | Ellipsoid):
            half = (g.radius,) * 3 if isinstance(g, Sphere) else g.radii
            ellipsoids.append((half, T[:3, 3], q, c))
        elif isinstance(g, Cylinder):
            cylinders.append((g.length, g.radius, T[:3, 3], q, c))
        elif isinstance(g, Capsule):  # Rerun's capsule starts at its origin, along +z
            start = T[:3, 3] - T[:3, 2] * (g.length / 2)
            capsules.append((g.length, g.radius, start, q, c))
        elif isinstance(g, Mesh):
            verts, faces = triangles(g)
            meshes.append((verts @ T[:3, :3].T + T[:3, 3], faces, c))
    if boxes:
        h, p, q, c = zip(*boxes)
        rec.log(
            f"{path}/boxes",
            rr.Boxes3D(half_sizes=h, centers=p, quaternions=q, colors=c, fill_mode="solid"),
            static=True,
        )
    if ellipsoids:
        h, p, q, c = zip(*ellipsoids)
        rec.log(
            f"{path}/ellipsoids",
            rr.Ellipsoids3D(half_sizes=h, centers=p, quaternions=q, colors=c, fill_mode="solid"),
            static=True,
        )
    if cylinders:
        n, r, p, q, c = zip(*cylinders)
        rec.log(
            f"{path}/cylinders",
            rr.Cylinders3D(
                lengths=n, radii=r, centers=p, quaternions=q, colors=c, fill_mode="solid"
            ),
            static=True,
        )
    if capsules:
        n, r, p, q, c = zip(*capsules)
        rec.log(
            f"{path}/capsules",
            rr.Capsules3D(lengths=n, radii=r, translations=p, quaternions=q, colors=c),
            static=True,
        )
    for k, (verts, faces, c) in enumerate(meshes):
        rec.log(
            f"{path}/mesh{k}",
            rr.Mesh3D(vertex_positions=verts, triangle_indices=faces, albedo_factor=c),
            static=True,
        )


def _frames_of(replay: Replay) -> list[tuple[Frame, np.ndarray, np.ndarray]]:
    """Every frame with its times (T,) and world poses (T, 4, 4)."""
    out = []
    for tr in replay.tracks:
        for i, f in enumerate(tr.frames):
            out.append((f, tr.t, tr.T_world[:, i]))
    return out


def write_rerun(replay: Replay, path: str | os.PathLike[str]) -> Path:
    """Write the replay's Rerun recording to ``path``."""
    import rerun as rr

    rec = rr.RecordingStream("robotsim", recording_id=f"robotsim-run-{replay.info.id}")
    path = Path(path)
    rec.save(path)
    try:
        rec.send_recording_name(f"run {replay.info.id}: {replay.info.scenario}")
        rec.log("world", rr.ViewCoordinates.RIGHT_HAND_Z_UP, static=True)
        ground = replay.ground
        if ground is not None and ground.get("size"):
            sx, sy = (float(v) for v in ground["size"])
            rec.log(
                "world/ground",
                rr.Boxes3D(
                    half_sizes=[[sx / 2, sy / 2, 0.005]],
                    centers=[[0, 0, -0.005]],
                    colors=[_rgba(ground.get("rgba") or (0.8,) * 4)],
                    fill_mode="solid",
                ),
                static=True,
            )
        for frame, t, T in _frames_of(replay):
            ent = entity_path(frame.name)
            if len(t) == 1:
                rec.log(
                    ent,
                    rr.Transform3D(translation=T[0, :3, 3], quaternion=_xyzw(T[0, :3, :3])),
                    static=True,
                )
            else:
                rec.send_columns(
                    ent,
                    indexes=[rr.TimeColumn(TIMELINE, duration=t)],
                    columns=rr.Transform3D.columns(
                        translation=T[:, :3, 3], quaternion=_xyzw(T[:, :3, :3])
                    ),
                )
            if frame.visuals:
                _log_shapes(rec, f"{ent}/shapes", frame.visuals)
        for group, tab in replay.signals.items():
            for j, name in enumerate(tab.names):
                col = tab.values[:, j]
                ok = ~np.isnan(col)
                if not ok.any():
                    continue
                rec.send_columns(
                    f"signals/{_part(group)}/{_part(name)}",
                    indexes=[rr.TimeColumn(TIMELINE, duration=tab.t[ok])],
                    columns=rr.Scalars.columns(scalars=col[ok]),
                )
        for e in replay.events:
            rec.set_time(TIMELINE, duration=float(e["t"]))
            kind = str(e["type"])
            data = e.get("data") or {}
            who = f"{e['robot']}: " if e.get("robot") else ""
            level = "WARN" if kind in WARNING_EVENTS else "INFO"
            rec.log(
                "events", rr.TextLog(f"{who}{kind} {data}" if data else f"{who}{kind}", level=level)
            )
        if replay.sensors:
            from robotsim.export.sensor_channels import log_rerun_sensors

            log_rerun_sensors(rec, replay.sensors, TIMELINE)
        rec.flush()
    finally:
        rec.disconnect()
    return path
