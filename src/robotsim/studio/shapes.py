"""Model shapes as triangle meshes for the 3D view.

Every :class:`robotsim.model.geometry.Shape` becomes a :class:`trimesh.Trimesh` in the
shape's own frame (the caller places it with ``T_link_shape``). Primitives are
tessellated here; mesh files go through :func:`robotsim.model.meshes.load_mesh` when
that module exists, else :func:`trimesh.load`. Loaded meshes are cached per file and
scale, so a robot added twice reads its files once; primitives per size.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import trimesh

from robotsim.errors import ModelFileError
from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Geometry, Mesh, Sphere

__all__ = ["geometry_mesh", "geometry_parts", "mesh_bounds"]

_SECTIONS = 32


def geometry_mesh(geometry: Geometry) -> trimesh.Trimesh:
    """A triangle mesh of ``geometry`` in its own frame (m). Do not modify the result:
    meshes are shared through a cache (file meshes per file and scale, primitives per
    size: a robot's repeated links and every studio of a process tessellate a size once)."""
    if isinstance(geometry, Mesh):
        return _file_mesh(Path(geometry.path), tuple(float(s) for s in geometry.scale))
    try:
        return _primitive_mesh(geometry)
    except TypeError as exc:  # a size given as an array: not hashable, built each time
        if "unhashable" not in str(exc):
            raise
        return _tessellate(geometry)


@lru_cache(maxsize=256)
def _primitive_mesh(geometry: Geometry) -> trimesh.Trimesh:
    return _tessellate(geometry)


def _tessellate(geometry: Geometry) -> trimesh.Trimesh:
    if isinstance(geometry, Box):
        return trimesh.creation.box(extents=geometry.size)
    if isinstance(geometry, Sphere):
        return trimesh.creation.icosphere(subdivisions=3, radius=geometry.radius)
    if isinstance(geometry, Cylinder):
        return trimesh.creation.cylinder(
            radius=geometry.radius, height=geometry.length, sections=_SECTIONS
        )
    if isinstance(geometry, Capsule):
        # trimesh's capsule height is the distance between the cap centres.
        return trimesh.creation.capsule(
            height=geometry.length, radius=geometry.radius, count=(_SECTIONS, _SECTIONS)
        )
    if isinstance(geometry, Ellipsoid):
        m = trimesh.creation.icosphere(subdivisions=3, radius=1.0)
        m.vertices = m.vertices * np.asarray(geometry.radii)
        return m
    raise TypeError(f"unknown geometry {type(geometry).__name__}")


def geometry_parts(geometry: Geometry) -> tuple[trimesh.Trimesh, ...]:
    """A mesh file whose faces have several materials (3DS, DirectX) as one mesh per
    material, each with its material's texture or colour
    (:func:`robotsim.model.mesh_parts.mesh_parts`), scaled; ``()`` for anything else
    (draw :func:`geometry_mesh`). Do not modify the result: it is cached."""
    if not isinstance(geometry, Mesh):
        return ()
    return _file_parts(Path(geometry.path), tuple(float(s) for s in geometry.scale))


@lru_cache(maxsize=64)
def _file_parts(path: Path, scale: tuple[float, float, float]) -> tuple[trimesh.Trimesh, ...]:
    from robotsim.model.mesh_parts import mesh_parts

    parts = mesh_parts(path)
    if len(parts) < 2:
        return ()
    out = []
    for part in parts:
        mesh = part.mesh
        if scale != (1.0, 1.0, 1.0):
            mesh = mesh.copy()
            mesh.apply_scale(np.asarray(scale))
        out.append(mesh)
    return tuple(out)


@lru_cache(maxsize=256)
def _file_mesh(path: Path, scale: tuple[float, float, float]) -> trimesh.Trimesh:
    mesh = _load(path)
    if scale != (1.0, 1.0, 1.0):
        mesh = mesh.copy()
        mesh.apply_scale(np.asarray(scale))
    return mesh


def _load(path: Path) -> trimesh.Trimesh:
    try:
        from robotsim.model.meshes import load_mesh  # written alongside the importers
    except ImportError:
        load_mesh = None
    if load_mesh is not None:
        loaded = load_mesh(path)
        if isinstance(loaded, trimesh.Trimesh):
            return loaded
        mesh = getattr(loaded, "trimesh", None) or getattr(loaded, "mesh", None)
        if isinstance(mesh, trimesh.Trimesh):
            return mesh
        vertices = getattr(loaded, "vertices", None)
        faces = getattr(loaded, "faces", None)
        if vertices is not None and faces is not None:
            return trimesh.Trimesh(np.asarray(vertices), np.asarray(faces), process=False)
    if not path.is_file():
        raise ModelFileError(path, "mesh file not found")
    try:
        mesh = trimesh.load(path, force="mesh", process=False)
    except Exception as exc:  # trimesh raises many types for unreadable files
        raise ModelFileError(path, f"cannot read mesh: {exc}") from None
    if not isinstance(mesh, trimesh.Trimesh) or len(mesh.faces) == 0:
        raise ModelFileError(path, "mesh file holds no triangles")
    return mesh


def mesh_bounds(mesh: trimesh.Trimesh, T: np.ndarray) -> np.ndarray:
    """Axis-aligned bounds ``(2, 3)`` (min, max; m) of ``mesh`` placed by ``T`` ``(4, 4)``."""
    v = np.asarray(mesh.vertices) @ T[:3, :3].T + T[:3, 3]
    return np.stack([v.min(axis=0), v.max(axis=0)])
