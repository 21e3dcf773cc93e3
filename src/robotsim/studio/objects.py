"""Static scenario objects drawn in the studio: tables, obstacles, balls.

Scenario files of different capabilities describe objects in similar ways; this module
draws whatever it recognises, read-only, under ``/objects``: an item with ``size`` (3
full side lengths, m) is a box, with ``radius`` and ``height``/``length`` a cylinder,
with ``radius`` alone a sphere. Its position is ``center``/``position``/``xyz``/``pos``
(2 numbers = on the ground). Items sit in top-level lists (or single mappings) named
like :data:`OBJECT_KEYS`.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import numpy as np
import viser

from robotsim.errors import InputError
from robotsim.model.geometry import Box, Cylinder, Sphere
from robotsim.studio.shapes import geometry_mesh

__all__ = ["OBJECT_KEYS", "add_objects", "object_specs"]

OBJECT_KEYS = ("tables", "table", "obstacles", "objects", "boxes", "balls", "ball", "walls")
_COLORS = MappingProxyType(
    {"ball": (230, 120, 40), "balls": (230, 120, 40), "obstacles": (200, 70, 70)}
)
_DEFAULT_COLOR = (150, 130, 110)


def _position(item: dict[str, Any], half_height: float) -> np.ndarray | None:
    for key in ("center", "position", "xyz", "pos"):
        if key in item:
            p = [float(v) for v in item[key]]
            if len(p) == 2:
                return np.array([p[0], p[1], half_height])
            if len(p) == 3:
                return np.array(p)
    return None


def object_specs(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The drawable objects of a scenario document: dicts with ``name``, ``kind`` (box,
    sphere, cylinder), ``size`` (box full sizes, or radius and length) and ``position``."""
    out: list[dict[str, Any]] = []
    for key in OBJECT_KEYS:
        items = doc.get(key)
        if isinstance(items, dict):
            items = [items]
        if not isinstance(items, list):
            continue
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            name = str(item.get("name", f"{key}_{i}"))
            try:
                if "size" in item:
                    size = [float(v) for v in item["size"]]
                    if len(size) == 2:
                        size.append(0.5)
                    pos = _position(item, size[2] / 2)
                    spec = {"kind": "box", "size": size}
                elif "radius" in item:
                    r = float(item["radius"])
                    length = item.get("height", item.get("length"))
                    if length is not None:
                        spec = {"kind": "cylinder", "size": [r, float(length)]}
                        pos = _position(item, float(length) / 2)
                    else:
                        spec = {"kind": "sphere", "size": [r]}
                        pos = _position(item, r)
                else:
                    continue
            except (TypeError, ValueError):
                continue
            if pos is None or len(spec["size"]) not in (1, 2, 3):
                continue
            color = item.get("rgb") or _COLORS.get(key, _DEFAULT_COLOR)
            out.append({"name": name, "group": key, "position": pos, "color": color, **spec})
    return out


def add_objects(scene: viser.SceneApi, doc: dict[str, Any]) -> list[viser.SceneNodeHandle]:
    """Draw the scenario's objects (z-up, cylinders along z); returns their handles."""
    handles: list[viser.SceneNodeHandle] = []
    for k, spec in enumerate(object_specs(doc)):
        node = f"/objects/{k}_{''.join(c if c.isalnum() else '_' for c in spec['name'])}"
        size = spec["size"]
        try:
            if spec["kind"] == "box":
                geometry: Box | Cylinder | Sphere = Box(tuple(size))
            elif spec["kind"] == "cylinder":
                geometry = Cylinder(size[0], size[1])
            else:
                geometry = Sphere(size[0])
            mesh = geometry_mesh(geometry)
        except InputError:
            continue  # not drawable (zero or negative size); the scenario's own checks say why
        handles.append(
            scene.add_mesh_simple(
                node,
                np.asarray(mesh.vertices, np.float32),
                np.asarray(mesh.faces, np.uint32),
                color=tuple(int(c) for c in spec["color"])[:3],
                position=spec["position"],
                flat_shading=spec["kind"] == "box",
            )
        )
    return handles
