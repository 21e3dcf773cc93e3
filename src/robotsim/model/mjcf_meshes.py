"""Mesh files an MJCF names, opened at load time as MuJoCo opens them.

MuJoCo reads every ``<mesh file>`` when it compiles a model and refuses the model if one
is missing or unreadable; the linear reader does the same with
:func:`check_mesh_file`, once per mesh asset: a file MuJoCo certainly refuses (missing,
empty, a binary STL whose size or face count is wrong, non-finite vertices, fewer than
4 distinct vertices, an MSH without its header) raises
:class:`~robotsim.errors.ModelFileError` naming the MJCF file, the mesh and the path; a
file it cannot vouch for (flat or tiny: MuJoCo checks the volume and area it computes)
raises :class:`~robotsim.model.mjcf_xml.Unsupported`, so MuJoCo reads the model and
gives its verdict. Cost: one read of each file; an STL's vertices with NumPy.

An OBJ file is read only up to its fourth vertex line (a full parse would cost more
than the rest of the load): one with fewer than 4 is refused, as MuJoCo refuses it, but
one whose faces or numbers MuJoCo cannot use (a line it cannot parse, a mesh left with
no volume) is accepted here and refused by MuJoCo (``tests/model/test_mjcf_meshes.py``
counts these).
"""

from __future__ import annotations

import os
import re
import struct
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import numpy as np

from robotsim import budget
from robotsim.errors import ModelFileError
from robotsim.model.mjcf_xml import Unsupported

__all__ = ["check_mesh_file"]

_STL_MAX_FACES = 200_000  # MuJoCo's stl_decoder limit
_OBJ_VERTEX = re.compile(rb"(?:^|[\r\n])[ \t]*v[ \t]")
_Refuse = Callable[[str], ModelFileError]
_STL_RECORD = np.dtype([("normal", "<f4", 3), ("v", "<f4", (3, 3)), ("attr", "<u2")])


def check_mesh_file(
    model: Path, what: str, path: Path, scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
) -> None:
    """Refuse (``ModelFileError``) what MuJoCo certainly refuses in the mesh file
    ``path`` that ``what`` (``<mesh name=...>``, with its ``scale``) of ``model`` names;
    leave to MuJoCo
    (``Unsupported``) what only it can tell (see the module doc). Reads at most an
    STL's 10 MB, an MSH's vertices (within the memory budget) or an OBJ up to its
    fourth vertex line."""

    def refuse(message: str) -> ModelFileError:
        return ModelFileError(model, f"mesh file {str(path)!r}: {message}", what)

    try:
        with path.open("rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size == 0:
                raise refuse("is empty")
            suffix = path.suffix.lower()
            if suffix == ".stl":
                vertices = _stl_vertices(f, size, refuse)
            elif suffix == ".msh":
                vertices = _msh_vertices(f, size, refuse, path)
            else:  # .obj: MuJoCo takes the vertices from its "v" lines
                if _obj_vertex_lines(f, 4) < 4:
                    raise refuse("fewer than 4 vertices ('v' lines); MuJoCo needs at least 4")
                if min(abs(x) for x in scale) < 1e-4:  # vertices not read: volume unknown
                    raise Unsupported(f"{what}: scale {scale} (MuJoCo checks its volume)")
                return
    except FileNotFoundError:
        raise refuse("no such file") from None
    except IsADirectoryError:
        raise refuse("is a folder, not a mesh file") from None
    except OSError as exc:
        raise refuse(f"cannot be read ({exc.strerror or exc})") from None
    if not np.isfinite(vertices).all():
        raise refuse("a vertex coordinate is not finite")
    if len(np.unique(vertices[:4096], axis=0)) < 4 and len(np.unique(vertices, axis=0)) < 4:
        n = len(np.unique(vertices, axis=0))
        raise refuse(f"{n} distinct vertices; MuJoCo needs at least 4")
    vertices = vertices * np.asarray(scale, float)  # MuJoCo checks the scaled mesh
    centred = vertices - vertices.mean(axis=0)
    # RMS extent along the principal axes (m, ascending); their product stands for the
    # volume, kept 1000 times above the 1e-15 MuJoCo refuses
    rms = np.sqrt(np.maximum(np.linalg.eigvalsh(centred.T @ centred), 0.0) / len(vertices))
    flat = not rms[0] > 1e-6 * rms[2] or not float(np.prod(rms)) > 1e-12
    if flat or np.abs(vertices).max() > 1e6:
        raise Unsupported(f"{what}: a flat, tiny or huge mesh (MuJoCo checks its volume)")


def _stl_vertices(f: BinaryIO, size: int, refuse: _Refuse) -> np.ndarray:
    """The vertices of a binary STL (MuJoCo reads no ASCII STL), ``(3 n, 3)``."""
    head = f.read(84)
    if len(head) < 84:
        raise refuse(f"{size} bytes: too short for a binary STL (84-byte header)")
    (n,) = struct.unpack_from("<I", head, 80)
    if not 1 <= n <= _STL_MAX_FACES:
        raise refuse(
            f"{n} faces in its header; MuJoCo reads binary STL files of 1 to "
            f"{_STL_MAX_FACES} faces (is it an ASCII STL?)"
        )
    if size != 84 + 50 * n:
        raise refuse(f"{size} bytes, but {n} faces make {84 + 50 * n} (truncated, or ASCII?)")
    return np.frombuffer(f.read(50 * n), _STL_RECORD, n)["v"].reshape(-1, 3).astype(float)


def _msh_vertices(f: BinaryIO, size: int, refuse: _Refuse, path: Path) -> np.ndarray:
    """The vertices of a MuJoCo MSH file (header: 4 int32 counts), ``(n, 3)``."""
    head = f.read(16)
    if len(head) < 16:
        raise refuse("missing the 16-byte MSH header")
    nv, nn, nt, nf = struct.unpack_from("<4i", head, 0)
    expected = 16 + 4 * (3 * nv + 3 * nn + 2 * nt + 3 * nf)
    if min(nv, nn, nt, nf) < 0 or size != expected:
        raise refuse(f"{size} bytes, but its header's counts make {expected}")
    if nn not in (0, nv) or nt not in (0, nv):
        raise Unsupported(f"MSH file {str(path)!r}: normals or texture coordinates per vertex")
    budget.check(f"mesh {path.name}: {nv} vertices, {nf} faces", 36.0 * nv + 12.0 * nf)
    vertices = np.frombuffer(f.read(12 * nv), "<f4", 3 * nv).reshape(-1, 3).astype(float)
    f.seek(4 * (3 * nn + 2 * nt), os.SEEK_CUR)
    faces = np.frombuffer(f.read(12 * nf), "<i4", 3 * nf)
    bad = (faces < 0) | (faces >= nv)
    if bad.any():
        k = int(np.argmax(bad))
        raise refuse(f"face {k // 3}: vertex index {int(faces[k])} does not exist ({nv} vertices)")
    return vertices


def _obj_vertex_lines(f: BinaryIO, enough: int) -> int:
    """How many ``v`` lines an OBJ file has, counting up to ``enough`` (read in 64 kB
    chunks; stops there: a mesh's first lines are its vertices)."""
    count, tail = 0, b""
    while True:
        chunk = f.read(1 << 16)
        buf = tail + chunk
        cut = len(buf) if not chunk else max(buf.rfind(b"\n"), buf.rfind(b"\r")) + 1
        for _ in _OBJ_VERTEX.finditer(buf, 0, cut):  # complete lines only
            count += 1
            if count >= enough:
                return count
        if not chunk:
            return count
        tail = buf[cut:]
