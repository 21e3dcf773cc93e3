"""Reading a legacy mesh (.3ds, .x) with assimp in a child process, bounded.

assimp trusts the counts written in a file: a damaged binary ``.x`` made it allocate
24 GB (the kernel killed the process), and a damaged scene can crash it. So
:func:`read_triangles` runs the import in a fresh Python process whose address space
is limited to the memory budget (:mod:`robotsim.budget`) plus the interpreter's own
needs, with a time limit; the child sends the triangles, each face's material and the
materials back in an ``.npz`` file. A
failure, a crash, running out of the limit or of time is one :class:`ModelFileError`
naming the file.

``python -m robotsim.model.assimp_reader IN OUT LIMIT`` is the child.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from robotsim.errors import ModelFileError
from robotsim.jsonable import dumps as json_dumps

__all__ = ["HEADROOM", "TIMEOUT_S", "AssimpMaterial", "AssimpMesh", "read_triangles"]

#: Address space the child needs besides the mesh (interpreter, NumPy, assimp).
HEADROOM = 1024**3
#: Seconds the child may take.
TIMEOUT_S = 60.0


@dataclass(frozen=True)
class AssimpMaterial:
    """One material of the scene: ``name``, diffuse ``rgba`` (0..1; opacity last) and
    the texture file as the scene names it (``None`` without one)."""

    name: str
    rgba: tuple[float, float, float, float]
    texture: str | None = None


@dataclass(frozen=True)
class AssimpMesh:
    """All triangles of an assimp scene with node transforms applied (file axes):
    ``vertices (n, 3)``, ``faces (m, 3)``, per-vertex ``uv (n, 2)`` when every mesh has
    them (else None), each face's index into ``materials`` ``(m,)``."""

    vertices: np.ndarray
    faces: np.ndarray
    uv: np.ndarray | None
    face_material: np.ndarray
    materials: tuple[AssimpMaterial, ...]


def read_triangles(path: Path) -> AssimpMesh:
    """The scene of a legacy mesh file as :class:`AssimpMesh`, read in a bounded child
    process (module docs); cached per file and modification time (the mesh and its
    materials are asked for separately)."""
    p = Path(path).resolve()
    return _read_cached(str(p), p.stat().st_mtime)


@lru_cache(maxsize=32)
def _read_cached(path_str: str, mtime: float) -> AssimpMesh:
    return _read(Path(path_str))


def _read(path: Path) -> AssimpMesh:
    from robotsim import budget

    limit = budget.current_budget() + HEADROOM
    with tempfile.TemporaryDirectory(prefix="robotsim-assimp-") as tmp:
        out = Path(tmp) / "mesh.npz"
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
        cmd = [sys.executable, "-m", "robotsim.model.assimp_reader", str(path), str(out),
               str(limit)]  # fmt: skip
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S,
                                  env=env, check=False)  # fmt: skip
        except subprocess.TimeoutExpired:
            msg = f"cannot read mesh: took longer than {TIMEOUT_S:g} s"
            raise ModelFileError(path, msg) from None
        if proc.returncode != 0:
            lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
            last = lines[-1] if lines else ""
            if proc.returncode == 2 and last.startswith("cannot read mesh"):
                raise ModelFileError(path, last)
            raise ModelFileError(
                path,
                f"cannot read mesh: the reader failed (exit {proc.returncode}; out of its "
                f"{budget.format_bytes(limit)} of memory, or a damaged file)",
            )
        with np.load(out) as z:
            uv = z["uv"] if "uv" in z.files else None
            mats = tuple(AssimpMaterial(str(m["name"]), tuple(m["rgba"]), m["texture"])
                         for m in json.loads(str(z["materials"])))  # fmt: skip
            return AssimpMesh(z["vertices"], z["faces"], uv, z["face_material"], mats)


def _scene_triangles(path: str) -> dict[str, np.ndarray]:
    """The child's work: assimp's scene -> arrays (see :func:`read_triangles`)."""
    import assimp_py

    from robotsim.model.polygon import retriangulate_runs

    # DirectX faces may be concave polygons, which assimp's triangulation gets wrong at
    # times: read them with one vertex per corner and cut them again (polygon.py), then
    # join identical vertices here
    polygons = path.lower().endswith(".x")
    flags = assimp_py.Process_Triangulate
    if not polygons:
        flags |= assimp_py.Process_JoinIdenticalVertices
    scene = assimp_py.import_file(path, flags)
    verts: list[np.ndarray] = []
    faces: list[np.ndarray] = []
    uvs: list[np.ndarray | None] = []
    face_mat: list[np.ndarray] = []
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
            tri = idx.reshape(-1, 3)
            tc = mesh.texcoords[0] if mesh.texcoords else None
            ncomp = mesh.num_uv_components[0] if mesh.num_uv_components else 0
            uv = None if tc is None or ncomp < 2 else np.frombuffer(tc, dtype=np.float32)
            uv = (None if uv is None or uv.size != len(v) * ncomp
                  else uv.reshape(len(v), ncomp)[:, :2].astype(np.float64))  # fmt: skip
            if polygons:
                nrm = np.frombuffer(mesh.normals, dtype=np.float32) if mesh.normals else None
                nrm = None if nrm is None or nrm.size != v.size else nrm.reshape(-1, 3)
                v, tri, uv = _joined(v, retriangulate_runs(v, tri), uv, nrm)
            verts.append(v @ T[:3, :3].T + T[:3, 3])
            faces.append(tri + count)
            uvs.append(uv)
            face_mat.append(np.full(len(tri), int(mesh.material_index), dtype=np.int32))
            count += len(v)
        for child in node.children:
            walk(child, T)

    walk(scene.root_node, np.eye(4))
    if not faces:
        raise ValueError("file holds no triangles")
    out = {"vertices": np.concatenate(verts), "faces": np.concatenate(faces),
           "face_material": np.concatenate(face_mat),
           "materials": np.array(json_dumps([_material(m) for m in scene.materials]))}  # fmt: skip
    if not any(u is None for u in uvs):
        out["uv"] = np.concatenate(uvs)  # type: ignore[arg-type]
    return out


def _material(mat: dict[str, Any]) -> dict[str, Any]:
    """An assimp material's name, diffuse colour with opacity, and texture file."""
    rgb = [float(c) for c in mat.get("COLOR_DIFFUSE", [1.0, 1.0, 1.0])[:3]]
    tex = mat.get("TEXTURE_BASE")
    rgba = [*rgb, float(mat.get("OPACITY", 1.0))]
    return {"name": str(mat.get("NAME", "material")), "rgba": rgba,
            "texture": str(tex) if tex else None}  # fmt: skip


def _joined(
    v: np.ndarray, tri: np.ndarray, uv: np.ndarray | None, normals: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """One vertex per distinct (position, UV, normal), as assimp's
    JoinIdenticalVertices (hard edges and texture seams stay split)."""
    keys = np.hstack([v, *(a for a in (uv, normals) if a is not None)])
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    keep = np.sort(first)  # in the order they first appear
    new_index = np.empty(len(first), dtype=np.int64)
    new_index[np.argsort(first)] = np.arange(len(first))
    remap = new_index[inverse.reshape(-1)]
    return v[keep], remap[tri], None if uv is None else uv[keep]


_TOO_BIG = (
    "cannot read mesh: it asks for more memory than the reader's {limit} bytes (the memory "
    "budget and the reader's own; --max-memory or ROBOTSIM_MAX_MEMORY raises it)"
)


def _main(argv: list[str]) -> int:
    import resource

    src, dst, limit = argv[0], argv[1], int(argv[2])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        arrays = _scene_triangles(src)
    except MemoryError:
        print(_TOO_BIG.format(limit=limit), file=sys.stderr)
        return 2
    except (RuntimeError, ValueError) as exc:
        text = (
            _TOO_BIG.format(limit=limit) if "bad_alloc" in str(exc) else f"cannot read mesh: {exc}"
        )
        print(text.replace("\n", " "), file=sys.stderr)
        return 2
    np.savez(dst, **arrays)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
