"""The material of a mesh file: its diffuse colour and the texture image beside it.

=============  ============================================================
format         where the material is read from
=============  ============================================================
.obj           the ``mtllib`` file's first material used by ``usemtl`` (or its
               first ``newmtl``): ``Kd`` (diffuse RGB), ``d`` / ``Tr`` (opacity),
               ``map_Kd`` (texture image, relative to the ``.mtl`` file)
.dae           the first ``<material>``'s effect: ``<diffuse><color>`` or
               ``<diffuse><texture>`` -> sampler -> ``<image><init_from>``
               (relative to the ``.dae`` file); ``<transparency>``
.3ds .x        assimp's first material used by a mesh: ``COLOR_DIFFUSE``,
               ``OPACITY``, ``TEXTURE_BASE`` (relative to the file); every
               material: :func:`assimp_materials`
=============  ============================================================

A texture whose file does not exist is dropped (the colour stays): CAD exports often
name images that were never shipped (the Franka Panda's ``colors.png``). One material
per file here; a 3DS or DirectX file with several gives each of its faces its own
(:mod:`robotsim.model.mesh_parts`: the studio and the MJCF export draw each material's
faces with that material's colour and texture).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from robotsim.file_scope import check_readable

__all__ = ["MeshMaterial", "assimp_materials", "mesh_material"]


@dataclass(frozen=True)
class MeshMaterial:
    """``name``; ``rgba`` diffuse colour and opacity (0..1); ``texture`` the image file
    (absolute path) or None."""

    name: str
    rgba: tuple[float, float, float, float]
    texture: Path | None = None


def _existing(base: Path, ref: str | None) -> Path | None:
    if not ref:
        return None
    ref = ref.strip().strip('"').replace("\\", "/")
    if ref.startswith("file://"):
        ref = ref[len("file://") :]
    p = Path(ref) if Path(ref).is_absolute() else base / ref
    if p.is_file():
        return p.resolve()
    # case-insensitive match (3DS files name images in upper case)
    if p.parent.is_dir():
        for q in p.parent.iterdir():
            if q.name.lower() == p.name.lower() and q.is_file():
                return q.resolve()
    return None


def _obj_material(path: Path) -> MeshMaterial | None:
    text = path.read_text(errors="replace")
    libs = re.findall(r"^mtllib\s+(.+?)\s*$", text, re.M)
    used = re.findall(r"^usemtl\s+(.+?)\s*$", text, re.M)
    for lib in libs:
        mtl = path.parent / lib
        check_readable(mtl)
        if not mtl.is_file():
            continue
        mats: dict[str, dict[str, str]] = {}
        cur: dict[str, str] | None = None
        for line in mtl.read_text(errors="replace").splitlines():
            parts = line.strip().split(None, 1)
            if len(parts) < 2:
                continue
            key, val = parts
            if key == "newmtl":
                cur = mats.setdefault(val.strip(), {})
            elif cur is not None:
                cur[key] = val.strip()
        if not mats:
            continue
        name = next((u for u in used if u in mats), next(iter(mats)))
        m = mats[name]
        try:
            rgb = [float(x) for x in m.get("Kd", "1 1 1").split()[:3]]
            alpha = float(m["d"]) if "d" in m else 1.0 - float(m.get("Tr", "0"))
        except ValueError:
            rgb, alpha = [1.0, 1.0, 1.0], 1.0
        tex = m.get("map_Kd", "").split()
        texture = _existing(mtl.parent, tex[-1] if tex else None)  # options come first
        return MeshMaterial(name, (*rgb, alpha), texture)  # type: ignore[arg-type]
    return None


def _dae_material(path: Path) -> MeshMaterial | None:
    import collada

    try:
        dae = collada.Collada(str(path), ignore=[collada.common.DaeUnsupportedError,
                                                 collada.common.DaeBrokenRefError])  # fmt: skip
    except Exception:  # pycollada raises many types; the mesh loader reports bad files
        return None
    for mat in dae.materials:
        eff = mat.effect
        diffuse = getattr(eff, "diffuse", None)
        rgba = (1.0, 1.0, 1.0, 1.0)
        texture = None
        if isinstance(diffuse, tuple | list):
            rgba = tuple(float(c) for c in (*diffuse, 1.0)[:4])  # type: ignore[assignment]
        elif diffuse is not None and hasattr(diffuse, "sampler"):
            image = diffuse.sampler.surface.image
            texture = _existing(path.parent, getattr(image, "path", None))
        alpha = getattr(eff, "transparency", None)
        if isinstance(alpha, float) and 0.0 < alpha < 1.0:
            rgba = (*rgba[:3], alpha)
        return MeshMaterial(mat.name or mat.id, rgba, texture)  # type: ignore[arg-type]
    return None


def _assimp_material(path: Path) -> MeshMaterial | None:
    mats = assimp_materials(path)
    if not mats:
        return None
    from robotsim.model.assimp_reader import read_triangles

    used = np.unique(read_triangles(path).face_material)
    return mats[int(used[0])] if len(used) and used[0] < len(mats) else mats[0]


def assimp_materials(path: str | Path) -> tuple[MeshMaterial, ...]:
    """Every material of a 3DS or DirectX file, in the file's order (a texture that does
    not exist beside the file dropped, as for :func:`mesh_material`)."""
    from robotsim.errors import ModelFileError
    from robotsim.model.assimp_reader import read_triangles

    p = Path(path)
    try:
        scene = read_triangles(p)
    except ModelFileError:
        return ()  # the mesh loader reports a bad file
    return tuple(MeshMaterial(m.name, m.rgba, _existing(p.parent, m.texture))
                 for m in scene.materials)  # fmt: skip


@lru_cache(maxsize=256)
def _cached(path_str: str, mtime: float) -> MeshMaterial | None:
    path = Path(path_str)
    suffix = path.suffix.lower()
    if suffix == ".obj":
        return _obj_material(path)
    if suffix == ".dae":
        return _dae_material(path)
    if suffix in (".3ds", ".x"):
        return _assimp_material(path)
    return None


def mesh_material(path: str | Path) -> MeshMaterial | None:
    """The material of a mesh file (see the module doc), or None if it names none
    (STL, PLY, an OBJ without ``mtllib``...). Cached per file."""
    p = Path(path).resolve()
    check_readable(p)
    if not p.is_file():
        return None
    mat = _cached(str(p), p.stat().st_mtime)
    if mat is not None and mat.texture is not None:
        check_readable(mat.texture)  # the image beside the mesh (cached unconfined)
    return mat
