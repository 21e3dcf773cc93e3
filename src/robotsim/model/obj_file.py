"""OBJ files read here: polygon faces (ear-clipped later) and numbers as assimp reads
them.

trimesh reads OBJ files of triangles written with plain numbers; this module reads the
others. A face of more than three corners makes the file "ours" (trimesh and MuJoCo
fan polygons from the first corner, which is wrong for concave ones), and so does a
number written in a way Python's ``float`` does not take but assimp's reader
(``fast_atoreal_move``) does: the longest prefix of a token that reads as a number is
its value, with ``,`` taken as the decimal point (``1,5`` is 1.5, ``1.5f`` 1.5,
``1.5.3`` 1.5, ``1_0`` 1, ``0x10`` 0, ``1d2`` 1), as are ``+3``, ``.5``, ``5.``,
``1e+2``, ``2.e+1`` and ``1.0e+002``. A token with no numeric prefix, and ``inf`` or
``nan``, is an error naming the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from robotsim.errors import ModelFileError
from robotsim.file_scope import check_readable

__all__ = ["ObjFile", "number", "obj_read_here", "read_obj"]

_PREFIX = re.compile(r"[+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][+-]?\d+)?")
_PLAIN = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\Z")


def number(token: str) -> float | None:
    """A token's value as assimp reads it (module doc), or None without a numeric
    prefix."""
    m = _PREFIX.match(token)
    if m is None:
        return None
    return float(m.group(0).replace(",", "."))


@dataclass(frozen=True)
class ObjFile:
    """What :func:`read_obj` found: ``vertices (n, 3)``, each face's 0-based corner
    indices, texture coordinates ``(k, 2)`` and each face's 0-based ``vt`` indices (-1:
    none); ``polygons`` (a face of more than 3 corners) and ``plain`` (every number
    written as ``float`` and trimesh read it)."""

    vertices: np.ndarray
    faces: list[list[int]]
    uv: np.ndarray
    face_uv: list[list[int]]
    polygons: bool
    plain: bool


def _numbers(tokens: list[str]) -> tuple[list[float], bool]:
    values, plain = [], True
    for tok in tokens:
        v = number(tok)
        if v is None:
            break
        plain = plain and _PLAIN.match(tok) is not None
        values.append(v)
    return values, plain


def read_obj(path: Path) -> ObjFile:
    """Vertices, faces and texture coordinates of an OBJ file (``v``, ``vt`` and ``f``
    lines); a one-line :class:`ModelFileError` naming the line for a vertex without
    three finite numbers, a face of fewer than 3 corners or a bad corner index."""
    verts: list[list[float]] = []
    faces: list[list[int]] = []
    uvs: list[list[float]] = []
    face_uv: list[list[int]] = []
    polygons, plain = False, True
    try:
        text = path.read_text(errors="replace")
    except OSError as exc:
        raise ModelFileError(path, f"cannot read mesh: {exc}") from None
    for lineno, line in enumerate(text.splitlines(), start=1):
        if line.startswith("v "):
            xyz, ok = _numbers(line.split()[1:4])
            if len(xyz) != 3 or not np.all(np.isfinite(xyz)):
                msg = f"line {lineno}: bad vertex {line.strip()[:80]!r} (needs 3 finite numbers)"
                raise ModelFileError(path, msg)
            plain = plain and ok
            verts.append(xyz)
        elif line.startswith("vt "):
            uv, ok = _numbers(line.split()[1:3])
            plain = plain and ok
            uvs.append([*uv, 0.0, 0.0][:2] if np.all(np.isfinite(uv)) else [0.0, 0.0])
        elif line.startswith("f "):
            corners, corner_uv = [], []
            for tok in line.split()[1:]:
                parts = tok.split("/")
                try:
                    k = int(parts[0])
                    t = int(parts[1]) if len(parts) > 1 and parts[1] else 0
                except ValueError:
                    msg = f"line {lineno}: bad face {line.strip()[:80]!r}"
                    raise ModelFileError(path, msg) from None
                corners.append(k - 1 if k > 0 else len(verts) + k)
                corner_uv.append(t - 1 if t > 0 else (len(uvs) + t if t < 0 else -1))
            if len(corners) < 3:
                msg = f"line {lineno}: a face needs at least 3 corners, got {len(corners)}"
                raise ModelFileError(path, msg)
            polygons = polygons or len(corners) > 3
            faces.append(corners)
            face_uv.append(corner_uv)
    v = np.array(verts, dtype=np.float64).reshape(-1, 3)
    for f in faces:
        if min(f) < 0 or max(f) >= len(v):
            msg = f"face corner index out of range (the file has {len(v)} vertices)"
            raise ModelFileError(path, msg)
    uv_arr = np.array(uvs, dtype=np.float64).reshape(-1, 2)
    return ObjFile(v, faces, uv_arr, face_uv, polygons, plain)


@lru_cache(maxsize=256)
def _read_here(path_str: str, mtime: float) -> bool:
    with open(path_str, errors="replace") as fh:
        for line in fh:
            if line.startswith("f ") and len(line.split()) > 4:
                return True
            if line.startswith(("v ", "vt ")):
                _, ok = _numbers(line.split()[1 : 4 if line[1] == " " else 3])
                if not ok:
                    return True
    return False


def obj_read_here(path: str | Path) -> bool:
    """Whether robotsim reads this OBJ file itself: it has faces of more than three
    corners, or numbers only assimp's way of reading takes (module doc). trimesh and
    MuJoCo read the others; the MJCF exporter inlines these."""
    p = Path(path).resolve()
    check_readable(p)
    return _read_here(str(p), p.stat().st_mtime)
