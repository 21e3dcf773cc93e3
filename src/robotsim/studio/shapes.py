"""Model shapes as triangle meshes for the 3D view.

Every :class:`robotsim.model.geometry.Shape` becomes a triangle mesh (``vertices``
``(V, 3)``, ``faces`` ``(F, 3)``, outward winding) in the shape's own frame (the caller
places it with ``T_link_shape``). Primitives are tessellated here with numpy
(:class:`Tessellation`: closed surfaces, the shapes trimesh's ``creation`` makes), so a
studio of primitive robots (the built-in ones) never imports trimesh, whose import
(with scipy's and networkx's) was ~0.8 CPU s of every studio process's start; mesh
files are :class:`trimesh.Trimesh`, read through :func:`robotsim.model.meshes.load_mesh`
when that module exists, else :func:`trimesh.load`. Loaded meshes are cached per file
and scale, so a robot added twice reads its files once; primitives per size.
"""

from __future__ import annotations

from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from robotsim.errors import ModelFileError
from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Geometry, Mesh, Sphere

if TYPE_CHECKING:
    import trimesh

__all__ = ["Tessellation", "geometry_mesh", "geometry_parts", "mesh_bounds"]

_SECTIONS = 32


class Tessellation:
    """A primitive's triangle mesh: ``vertices`` ``(V, 3)`` m, ``faces`` ``(F, 3)``
    (counter-clockwise seen from outside), read-only (it is cached and shared)."""

    def __init__(self, vertices: np.ndarray, faces: np.ndarray) -> None:
        self.vertices = np.asarray(vertices, float)
        self.faces = np.asarray(faces, np.int64)
        self.vertices.flags.writeable = False
        self.faces.flags.writeable = False

    @cached_property
    def bounds(self) -> np.ndarray:
        return np.stack([self.vertices.min(axis=0), self.vertices.max(axis=0)])

    @property
    def extents(self) -> np.ndarray:
        return self.bounds[1] - self.bounds[0]


def geometry_mesh(geometry: Geometry) -> Tessellation | trimesh.Trimesh:
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
def _primitive_mesh(geometry: Geometry) -> Tessellation:
    return _tessellate(geometry)


def _tessellate(geometry: Geometry) -> Tessellation:
    if isinstance(geometry, Box):
        return _box(np.asarray(geometry.size, float))
    if isinstance(geometry, Sphere):
        v, f = _icosphere()
        return Tessellation(v * float(geometry.radius), f)
    if isinstance(geometry, Cylinder):
        r, h = float(geometry.radius), float(geometry.length)
        return _revolved([(0.0, -h / 2), (r, -h / 2), (r, h / 2), (0.0, h / 2)])
    if isinstance(geometry, Capsule):
        # the length is the distance between the cap centres (as trimesh's "height")
        r, h = float(geometry.radius), float(geometry.length)
        n = _SECTIONS // 2  # rings per quarter circle, the pole excluded
        a = np.linspace(0.0, np.pi / 2, n + 1)
        low = [(r * np.sin(t), -h / 2 - r * np.cos(t)) for t in a]
        high = [(r * np.cos(t), h / 2 + r * np.sin(t)) for t in a]
        return _revolved(low + high)
    if isinstance(geometry, Ellipsoid):
        v, f = _icosphere()
        return Tessellation(v * np.asarray(geometry.radii, float), f)
    raise TypeError(f"unknown geometry {type(geometry).__name__}")


def _box(size: np.ndarray) -> Tessellation:
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    faces = np.array([
        [0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5],  # -x, +x
        [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],  # -y, +y
        [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3],  # -z, +z
    ])  # fmt: skip
    return Tessellation(corners * (size / 2), faces)


def _revolved(profile: list[tuple[float, float]]) -> Tessellation:
    """The closed surface of the ``(radius, z)`` profile, from the bottom point on the
    axis to the top one, turned about z in ``_SECTIONS`` steps."""
    prof = np.asarray(profile, float)
    rings = prof[1:-1]
    k = _SECTIONS
    a = 2 * np.pi * np.arange(k) / k
    ring_v = np.stack(
        [np.outer(rings[:, 0], np.cos(a)), np.outer(rings[:, 0], np.sin(a)),
         np.repeat(rings[:, 1:2], k, axis=1)], axis=-1,
    ).reshape(-1, 3)  # fmt: skip
    bottom, top = len(ring_v), len(ring_v) + 1
    v = np.vstack([ring_v, [[0.0, 0.0, prof[0, 1]], [0.0, 0.0, prof[-1, 1]]]])
    j = np.arange(k)
    jn = (j + 1) % k
    faces = [np.stack([np.full(k, bottom), jn, j], axis=1)]  # bottom fan, seen from below
    for i in range(len(rings) - 1):
        lo, hi = i * k, (i + 1) * k
        faces.append(np.stack([lo + j, lo + jn, hi + jn], axis=1))
        faces.append(np.stack([lo + j, hi + jn, hi + j], axis=1))
    last = (len(rings) - 1) * k
    faces.append(np.stack([np.full(k, top), last + j, last + jn], axis=1))
    return Tessellation(v, np.vstack(faces))


@lru_cache(maxsize=1)
def _icosphere(subdivisions: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Unit icosphere: the icosahedron's faces split in four ``subdivisions`` times,
    the vertices pushed onto the sphere (642 vertices, 1,280 faces for 3)."""
    t = (1.0 + 5.0**0.5) / 2.0
    v = [[-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0], [0, -1, t], [0, 1, t],
         [0, -1, -t], [0, 1, -t], [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1]]  # fmt: skip
    faces = [[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9],
             [5, 11, 4], [11, 10, 2], [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2],
             [3, 2, 6], [3, 6, 8], [3, 8, 9], [4, 9, 5], [2, 4, 11], [6, 2, 10],
             [8, 6, 7], [9, 8, 1]]  # fmt: skip
    verts = [np.asarray(p, float) / np.linalg.norm(p) for p in v]

    def middle(i: int, j: int, mid: dict[tuple[int, int], int]) -> int:
        key = (min(i, j), max(i, j))
        if key not in mid:  # an edge's midpoint made once, shared by its two faces
            p = verts[i] + verts[j]
            verts.append(p / np.linalg.norm(p))
            mid[key] = len(verts) - 1
        return mid[key]

    for _ in range(subdivisions):
        mid: dict[tuple[int, int], int] = {}
        new = []
        for a, b, c in faces:
            ab, bc, ca = middle(a, b, mid), middle(b, c, mid), middle(c, a, mid)
            new += [[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]
        faces = new
    return np.asarray(verts), np.asarray(faces)


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
    import trimesh

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


def mesh_bounds(mesh: Any, T: np.ndarray) -> np.ndarray:
    """Axis-aligned bounds ``(2, 3)`` (min, max; m) of ``mesh`` placed by ``T`` ``(4, 4)``."""
    v = np.asarray(mesh.vertices) @ T[:3, :3].T + T[:3, 3]
    return np.stack([v.min(axis=0), v.max(axis=0)])
