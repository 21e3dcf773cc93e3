"""Shapes as triangle meshes for the writers that need triangles (Rerun meshes, the
HTML player's mesh files, GLB models in MCAP).

Primitives are tessellated at a chosen ``detail`` (segments round a circle); mesh
files are read with :func:`robotsim.model.meshes.load_mesh` and scaled. Results are
cached per shape and detail.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Geometry, Mesh, Sphere

__all__ = ["glb_bytes", "triangles"]


def triangles(geometry: Geometry, detail: int = 24) -> tuple[np.ndarray, np.ndarray]:
    """``(vertices (n, 3) float64 m, faces (m, 3) int64)`` of ``geometry`` in its own
    frame. Do not modify the arrays (they are cached)."""
    return _cached(_key(geometry), detail)


def _key(g: Geometry) -> tuple[object, ...]:
    if isinstance(g, Mesh):
        return ("mesh", str(Path(g.path).resolve()), tuple(float(s) for s in g.scale))
    if isinstance(g, Box):
        return ("box", tuple(g.size))
    if isinstance(g, Sphere):
        return ("sphere", g.radius)
    if isinstance(g, Cylinder):
        return ("cylinder", g.radius, g.length)
    if isinstance(g, Capsule):
        return ("capsule", g.radius, g.length)
    if isinstance(g, Ellipsoid):
        return ("ellipsoid", tuple(g.radii))
    raise TypeError(f"unknown geometry {type(g).__name__}")


@lru_cache(maxsize=512)
def _cached(key: tuple[object, ...], detail: int) -> tuple[np.ndarray, np.ndarray]:
    import trimesh

    kind = key[0]
    n = max(6, int(detail))
    if kind == "box":
        m = trimesh.creation.box(extents=key[1])
    elif kind == "sphere":
        m = trimesh.creation.uv_sphere(radius=float(key[1]), count=(n, max(4, n // 2)))  # type: ignore[arg-type]
    elif kind == "ellipsoid":
        m = trimesh.creation.uv_sphere(radius=1.0, count=(n, max(4, n // 2)))
        m.vertices = m.vertices * np.asarray(key[1])
    elif kind == "cylinder":
        m = trimesh.creation.cylinder(radius=float(key[1]), height=float(key[2]), sections=n)  # type: ignore[arg-type]
    elif kind == "capsule":
        m = trimesh.creation.capsule(
            height=float(key[2]),
            radius=float(key[1]),
            count=(n, max(4, n // 2)),  # type: ignore[arg-type]
        )
    else:
        from robotsim.model.meshes import load_mesh

        m = load_mesh(Path(str(key[1])))
        m.apply_scale(np.asarray(key[2], dtype=np.float64))
    v = np.ascontiguousarray(m.vertices, dtype=np.float64)
    f = np.ascontiguousarray(m.faces, dtype=np.int64)
    v.setflags(write=False)
    f.setflags(write=False)
    return v, f


def glb_bytes(geometry: Geometry) -> bytes:
    """A mesh file's triangles as a binary glTF (GLB) model, in metres (scale applied)."""
    return _glb(_key(geometry))


@lru_cache(maxsize=64)
def _glb(key: tuple[object, ...]) -> bytes:
    import trimesh

    v, f = _cached(key, 24)
    return bytes(trimesh.Trimesh(np.array(v), np.array(f), process=False).export(file_type="glb"))
