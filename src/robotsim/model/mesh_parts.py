"""A mesh file as parts of one material each, for drawing (studio, MJCF export).

:func:`robotsim.model.meshes.load_mesh` gives one triangle mesh per file (geometry,
collisions, inertia), with one material at most. A 3DS or DirectX file may give its
faces several materials, each with its own colour and texture image (a .3ds of three
textured materials): :func:`mesh_parts` splits such a mesh by material, each part
carrying its material's texture (UVs and image) or colour, so every texture reaches
the screen and the exported MJCF. Any other file is one part.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import trimesh

from robotsim.file_scope import check_readable
from robotsim.model.mesh_material import MeshMaterial, assimp_materials, mesh_material
from robotsim.model.meshes import load_mesh

__all__ = ["MeshPart", "mesh_parts"]


@dataclass(frozen=True)
class MeshPart:
    """The faces of one material (``mesh``, with that material's visual: a texture
    when the image exists and the file has UVs, else face colours) and the material
    (None for a file without one)."""

    mesh: trimesh.Trimesh
    material: MeshMaterial | None


def _part(mesh: trimesh.Trimesh, faces: np.ndarray, mat: MeshMaterial | None) -> MeshPart:
    used, inverse = np.unique(mesh.faces[faces], return_inverse=True)
    part = trimesh.Trimesh(vertices=np.asarray(mesh.vertices)[used],
                           faces=inverse.reshape(-1, 3), process=False)  # fmt: skip
    uv = mesh.metadata.get("uv")
    if mat is None:
        return MeshPart(part, None)
    diffuse = np.round(np.clip(mat.rgba, 0.0, 1.0) * 255).astype(np.uint8)
    if mat.texture is not None and uv is not None and len(uv) == len(mesh.vertices):
        from PIL import Image

        check_readable(mat.texture)
        material = trimesh.visual.material.SimpleMaterial(image=Image.open(mat.texture),
                                                          diffuse=diffuse)  # fmt: skip
        part.visual = trimesh.visual.TextureVisuals(uv=np.asarray(uv)[used], material=material)
    else:
        part.visual = trimesh.visual.ColorVisuals(part, face_colors=diffuse)
    return MeshPart(part, mat)


@lru_cache(maxsize=64)
def _parts(path_str: str, mtime: float) -> tuple[MeshPart, ...]:
    path = Path(path_str)
    mesh = load_mesh(path)
    fm = mesh.metadata.get("face_material")
    if fm is None or len(np.unique(fm)) < 2:
        return (MeshPart(mesh, mesh_material(path)),)
    mats = assimp_materials(path)
    out = []
    for k in np.unique(fm):
        mat = mats[int(k)] if 0 <= k < len(mats) else None
        out.append(_part(mesh, np.nonzero(fm == k)[0], mat))
    return tuple(out)


def mesh_parts(path: str | Path) -> tuple[MeshPart, ...]:
    """The file's faces grouped by material (module doc), one part per material used,
    in the file's material order; one part for a file of one material or none. Cached
    per file: do not modify the meshes."""
    p = Path(path).resolve()
    check_readable(p)
    return _parts(str(p), p.stat().st_mtime)
