"""Triangle meshes from files: modern formats through trimesh, legacy ones through assimp.

=============  ==========================  ==========================================
format         reader                      axes
=============  ==========================  ==========================================
.obj .stl      trimesh                     as stored in the file
.ply .off      trimesh                     as stored in the file
.glb .gltf     trimesh                     as stored (glTF is y-up by its spec: no
                                           conversion, place it with ``T_link_shape``)
.dae           trimesh (pycollada)         as stored, node transforms applied
.3ds           assimp (``assimp-py``)      native 3DS z-up (assimp's y-up turn undone)
.x             assimp (text and binary)    DirectX left-handed y-up -> right-handed
                                           z-up: ``(x, y, z) -> (x, z, y)``
=============  ==========================  ==========================================

Every loader flattens the file's node hierarchy (node transforms applied) into one
:class:`trimesh.Trimesh`. No format carries reliable units: coordinates are taken as
metres and a model scales them with :class:`robotsim.model.geometry.Mesh` ``scale``
(e.g. 0.001 for millimetre CAD exports).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import trimesh

from robotsim.errors import ModelFileError

__all__ = ["ASSIMP_SUFFIXES", "MESH_SUFFIXES", "TRIMESH_SUFFIXES", "describe_mesh", "load_mesh"]

TRIMESH_SUFFIXES = (".obj", ".stl", ".ply", ".off", ".glb", ".gltf", ".dae")
ASSIMP_SUFFIXES = (".3ds", ".x")
MESH_SUFFIXES = TRIMESH_SUFFIXES + ASSIMP_SUFFIXES

# assimp's 3DS importer turns the scene by -90 deg about x to make it y-up; undo it.
_UNDO_3DS_ROOT = np.array([[1.0, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]])
# assimp hands DirectX scenes over right-handed, y-up (z flipped); +90 deg about x
# makes them z-up, which composed with assimp's flip is the swap (x, y, z) -> (x, z, y).
_X_TO_Z_UP = np.array([[1.0, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]])


_AXES_NOTE = {
    ".x": "DirectX y-up left-handed converted to z-up right-handed: (x, y, z) -> (x, z, y)",
    ".3ds": "3DS native z-up (assimp's y-up rotation undone)",
    ".glb": "as stored (glTF files are y-up by convention; not converted)",
    ".gltf": "as stored (glTF files are y-up by convention; not converted)",
}


def _check_file(path: Path) -> str:
    if not path.is_file():
        raise ModelFileError(path, "mesh file not found")
    suffix = path.suffix.lower()
    if suffix not in MESH_SUFFIXES:
        raise ModelFileError(
            path, f"unknown mesh format {suffix!r}; valid: {', '.join(MESH_SUFFIXES)}"
        )
    return suffix


def _load_trimesh(path: Path) -> trimesh.Trimesh:
    try:
        loaded = trimesh.load(str(path), force="mesh", process=False)
    except Exception as exc:  # trimesh raises many types for bad files
        raise ModelFileError(path, f"cannot read mesh: {exc}") from None
    if not isinstance(loaded, trimesh.Trimesh) or len(loaded.faces) == 0:
        raise ModelFileError(path, "file holds no triangles")
    return loaded


def _assimp_scene_triangles(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """All triangles of an assimp scene with node transforms applied (file axes)."""
    import assimp_py

    flags = assimp_py.Process_Triangulate | assimp_py.Process_JoinIdenticalVertices
    try:
        scene = assimp_py.import_file(str(path), flags)
    except (RuntimeError, ValueError) as exc:
        raise ModelFileError(path, f"cannot read mesh: {exc}") from None
    verts: list[np.ndarray] = []
    faces: list[np.ndarray] = []
    count = 0

    def walk(node: Any, T_parent: np.ndarray) -> None:
        nonlocal count
        T = T_parent @ np.array(node.transformation, dtype=np.float64)
        for mi in node.mesh_indices:
            mesh = scene.meshes[mi]
            v = np.frombuffer(mesh.vertices, dtype=np.float32).reshape(-1, 3).astype(np.float64)
            idx = np.frombuffer(mesh.indices, dtype=np.uint32).astype(np.int64)
            if idx.size % 3:
                continue  # points/lines left after triangulation
            verts.append(v @ T[:3, :3].T + T[:3, 3])
            faces.append(idx.reshape(-1, 3) + count)
            count += len(v)
        for child in node.children:
            walk(child, T)

    walk(scene.root_node, np.eye(4))
    if not faces:
        raise ModelFileError(path, "file holds no triangles")
    return np.concatenate(verts), np.concatenate(faces)


def _load_assimp(path: Path, suffix: str) -> trimesh.Trimesh:
    v, f = _assimp_scene_triangles(path)
    T = _UNDO_3DS_ROOT if suffix == ".3ds" else _X_TO_Z_UP
    v = v @ T[:3, :3].T
    if np.linalg.det(T[:3, :3]) < 0:
        f = f[:, ::-1]
    return trimesh.Trimesh(vertices=v, faces=f, process=False)


@lru_cache(maxsize=128)
def _load_cached(path_str: str, mtime: float) -> trimesh.Trimesh:
    path = Path(path_str)
    suffix = _check_file(path)
    if suffix in ASSIMP_SUFFIXES:
        mesh = _load_assimp(path, suffix)
    else:
        mesh = _load_trimesh(path)
    if not np.all(np.isfinite(mesh.vertices)):
        raise ModelFileError(path, "vertices contain NaN or inf")
    return mesh


def load_mesh(path: str | Path) -> trimesh.Trimesh:
    """Read a mesh file into one triangle mesh (vertices ``(n, 3)`` in file units,
    faces ``(m, 3)``); see the module doc for formats and axes. Cached per file; the
    returned mesh is a copy the caller may change."""
    p = Path(path).resolve()
    _check_file(p)
    return _load_cached(str(p), p.stat().st_mtime).copy()


def describe_mesh(path: str | Path) -> dict[str, Any]:
    """Counts, bounds and format of a mesh file (what ``robotsim inspect MESH`` shows)."""
    p = Path(path)
    mesh = load_mesh(p)
    lo, hi = mesh.bounds
    welded = mesh.copy()
    welded.merge_vertices(merge_tex=True, merge_norm=True)  # split normals/UVs break seams
    suffix = p.suffix.lower()
    reader = "assimp" if suffix in ASSIMP_SUFFIXES else "trimesh"
    info: dict[str, Any] = {
        "file": str(p),
        "format": suffix.lstrip("."),
        "reader": reader,
        "vertices": len(mesh.vertices),
        "faces": len(mesh.faces),
        "bounds_min": [float(x) for x in lo],
        "bounds_max": [float(x) for x in hi],
        "extents": [float(x) for x in hi - lo],
        "watertight": bool(welded.is_watertight),
        "axes": _AXES_NOTE.get(suffix, "as stored in the file"),
        "units": "file units, read as metres (no unit is stored in the file; "
        "scale with Mesh.scale, e.g. 0.001 for millimetres)",
    }
    if welded.is_watertight:
        info["volume"] = float(abs(welded.volume))
    return info
