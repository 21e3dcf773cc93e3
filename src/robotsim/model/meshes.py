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

Polygon faces (OBJ ``f`` lines and COLLADA ``<polylist>``/``<polygons>`` with more than
three corners) are cut into triangles by ear clipping
(:func:`robotsim.model.polygon.triangulate_polygon`), which is right for concave
polygons too; trimesh's own readers fan them from the first corner, which is not, so
such files are read here (OBJ: :mod:`robotsim.model.obj_file`, which also reads numbers
as assimp does, ``1,5`` or ``1.5f``; DAE: through pycollada, node transforms applied).
Files of triangles only, with plain numbers, still go through trimesh. DirectX
polygons are cut again here too (assimp cuts some concave ones wrongly:
:func:`robotsim.model.polygon.retriangulate_runs`).

Materials: trimesh keeps the colours, UVs and texture images of the files it reads
(OBJ ``.mtl`` with ``map_Kd``, DAE effects) as the mesh's ``visual``; meshes read here
(polygon OBJ/DAE, 3DS, X) get the file's diffuse colour
(:func:`robotsim.model.mesh_material.mesh_material`) as face colours, or, for polygon
OBJ and 3DS/X files with UVs whose material names an image beside the file, a texture
visual (UVs and image).

assimp trusts the counts a file states, so it reads in a child process limited to the
memory budget and 60 s (:mod:`robotsim.model.assimp_reader`): a damaged file is a
one-line error, never a process grown past the budget or a crash.

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
from robotsim.file_scope import check_readable

__all__ = [
    "ASSIMP_SUFFIXES",
    "MESH_SUFFIXES",
    "TRIMESH_SUFFIXES",
    "describe_mesh",
    "load_mesh",
]

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
    from robotsim.validation import check_input_file

    check_readable(path)
    check_input_file(path, lambda m: ModelFileError(path, m), None)
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


def _triangulated(v: np.ndarray, polygons: list[list[int]] | list[np.ndarray]) -> np.ndarray:
    from robotsim.model.polygon import triangulate_polygon

    tris = []
    for corners in polygons:
        c = np.asarray(corners, dtype=np.int64)
        if len(c) >= 3:
            tris.append(c[triangulate_polygon(v[c])])
    return np.concatenate(tris) if tris else np.zeros((0, 3), dtype=np.int64)


def _load_obj_here(path: Path) -> trimesh.Trimesh | None:
    """An OBJ file of polygons or of numbers trimesh reads otherwise than assimp
    (:mod:`robotsim.model.obj_file`); None for the others (trimesh reads them)."""
    from robotsim.model.obj_file import read_obj

    obj = read_obj(path)
    if not obj.polygons and obj.plain:
        return None
    v, faces, uv, face_uv = obj.vertices, obj.faces, obj.uv, obj.face_uv
    if len(uv) and all(min(c) >= 0 and max(c) < len(uv) for c in face_uv):
        # textured: one vertex per (position, uv) pair, so every corner keeps its UV
        pairs: dict[tuple[int, int], int] = {}
        faces = [[pairs.setdefault((a, b), len(pairs)) for a, b in zip(f, t, strict=True)]
                 for f, t in zip(faces, face_uv, strict=True)]  # fmt: skip
        keys = np.array(list(pairs), dtype=np.int64).reshape(-1, 2)
        v, uv = v[keys[:, 0]], uv[keys[:, 1]]
    else:
        uv = np.zeros((0, 2))
    f = _triangulated(v, faces)
    if len(f) == 0:
        raise ModelFileError(path, "file holds no triangles")
    mesh = trimesh.Trimesh(vertices=v, faces=f, process=False)
    return _textured(mesh, path, uv if len(uv) else None)


def _load_dae_polygons(path: Path) -> trimesh.Trimesh | None:
    """A COLLADA file with polygons of more than three corners, node transforms applied;
    None if it holds triangles only."""
    import collada

    try:
        dae = collada.Collada(str(path), ignore=[collada.common.DaeUnsupportedError,
                                                 collada.common.DaeBrokenRefError])  # fmt: skip
    except Exception as exc:  # pycollada raises many types for bad files
        raise ModelFileError(path, f"cannot read mesh: {exc}") from None
    if dae.scene is not None:
        bound = [p for g in dae.scene.objects("geometry") for p in g.primitives()]
    else:
        bound = [p.bind(np.eye(4), {}) for g in dae.geometries for p in g.primitives]
    if not any(isinstance(p, collada.polylist.BoundPolylist) and len(p.polyindex)
               and int(np.max(p.polyindex[:, 1] - p.polyindex[:, 0])) > 3
               for p in bound):  # fmt: skip
        return None
    verts, faces, count = [], [], 0
    for p in bound:
        if isinstance(p, collada.polylist.BoundPolylist):
            v = np.asarray(p._vertex, dtype=np.float64)
            vi = np.asarray(p._vertex_index, dtype=np.int64)
            f = _triangulated(v, [vi[a:b] for a, b in p.polyindex])
        elif isinstance(p, collada.triangleset.BoundTriangleSet):
            v = np.asarray(p.vertex, dtype=np.float64)
            f = np.asarray(p.vertex_index, dtype=np.int64).reshape(-1, 3)
        else:
            continue  # lines
        verts.append(v)
        faces.append(f + count)
        count += len(v)
    return trimesh.Trimesh(vertices=np.concatenate(verts), faces=np.concatenate(faces),
                           process=False)  # fmt: skip


def _textured(mesh: trimesh.Trimesh, path: Path, uv: np.ndarray | None) -> trimesh.Trimesh:
    """``mesh`` with a texture visual (``uv`` ``(n, 2)`` and the file's material
    image) when the file's material names an image that exists; unchanged otherwise."""
    from robotsim.model.mesh_material import mesh_material

    mat = mesh_material(path)
    if uv is None or len(uv) != len(mesh.vertices) or mat is None:
        return mesh
    image = None
    if mat.texture is not None:
        from PIL import Image

        image = Image.open(mat.texture)
    diffuse = np.round(np.clip(mat.rgba, 0.0, 1.0) * 255).astype(np.uint8)
    material = trimesh.visual.material.SimpleMaterial(image=image, diffuse=diffuse)
    mesh.visual = trimesh.visual.TextureVisuals(uv=uv, material=material)
    return mesh


def _load_assimp(path: Path, suffix: str) -> trimesh.Trimesh:
    from robotsim.model.assimp_reader import read_triangles

    scene = read_triangles(path)  # in a child process, memory and time bounded
    v, f, uv = scene.vertices, scene.faces, scene.uv
    if not np.all(np.isfinite(v)):  # before the axis change multiplies them
        raise ModelFileError(path, "vertices contain NaN or inf")
    T = _UNDO_3DS_ROOT if suffix == ".3ds" else _X_TO_Z_UP
    v = v @ T[:3, :3].T
    if np.linalg.det(T[:3, :3]) < 0:
        f = f[:, ::-1]
    mesh = trimesh.Trimesh(vertices=v, faces=f, process=False)
    # every face's material, for the parts of a multi-material file (mesh_parts.py)
    mesh.metadata["face_material"] = np.asarray(scene.face_material)
    if uv is not None:
        mesh.metadata["uv"] = np.asarray(uv)
    if uv is not None and mesh_material_texture(path):
        return _textured(mesh, path, uv)
    return mesh


def mesh_material_texture(path: Path) -> bool:
    """Whether the file's material names an image that exists beside it."""
    from robotsim.model.mesh_material import mesh_material

    mat = mesh_material(path)
    return mat is not None and mat.texture is not None


@lru_cache(maxsize=128)
def _load_cached(path_str: str, mtime: float) -> trimesh.Trimesh:
    path = Path(path_str)
    suffix = _check_file(path)
    mesh = None
    if suffix in ASSIMP_SUFFIXES:
        mesh = _load_assimp(path, suffix)
    elif suffix == ".obj":
        mesh = _load_obj_here(path)
    elif suffix == ".dae":
        mesh = _load_dae_polygons(path)
    if mesh is None:
        mesh = _load_trimesh(path)
    if not np.all(np.isfinite(mesh.vertices)):
        raise ModelFileError(path, "vertices contain NaN or inf")
    faces = np.asarray(mesh.faces)
    if faces.size and (faces.min() < 0 or faces.max() >= len(mesh.vertices)):
        bad = int(faces.max() if faces.max() >= len(mesh.vertices) else faces.min())
        raise ModelFileError(
            path,
            f"a face names vertex {bad}; the file has {len(mesh.vertices)} (0 to "
            f"{len(mesh.vertices) - 1})",
        )
    if getattr(mesh.visual, "kind", None) is None:
        from robotsim.model.mesh_material import mesh_material

        mat = mesh_material(path)
        if mat is not None:
            rgba = np.round(np.clip(mat.rgba, 0.0, 1.0) * 255).astype(np.uint8)
            mesh.visual = trimesh.visual.ColorVisuals(mesh, face_colors=rgba)
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
    from robotsim.model.mesh_material import mesh_material

    mat = mesh_material(p)
    if mat is not None:
        texture = None if mat.texture is None else str(mat.texture)
        rgba = [float(c) for c in mat.rgba]
        info["material"] = {"name": mat.name, "rgba": rgba, "texture": texture}
    return info
