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
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from pathlib import Path

import numpy as np

from robotsim.errors import ModelFileError
from robotsim.model.mjcf_xml import Unsupported

__all__ = ["check_mesh_file"]

_STL_MAX_FACES = 200_000  # MuJoCo's stl_decoder limit
_OBJ_VERTEX = re.compile(rb"(?:^|[\r\n])[ \t]*v[ \t]")
_Refuse = Callable[[str], ModelFileError]
_STL_RECORD = np.dtype([("normal", "<f4", 3), ("v", "<f4", (3, 3)), ("attr", "<u2")])


def check_mesh_file(model: Path, what: str, path: Path) -> None:
    """Refuse (``ModelFileError``) what MuJoCo certainly refuses in the mesh file
    ``path`` that ``what`` (``<mesh name=... file=...>``) of ``model`` names; leave to
    MuJoCo (``Unsupported``) what only it can tell (see the module doc)."""

    def refuse(message: str) -> ModelFileError:
        return ModelFileError(model, f"mesh file {str(path)!r}: {message}", what)

    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise refuse("no such file") from None
    except IsADirectoryError:
        raise refuse("is a folder, not a mesh file") from None
    except OSError as exc:
        raise refuse(f"cannot be read ({exc.strerror or exc})") from None
    if not data:
        raise refuse("is empty")
    suffix = path.suffix.lower()
    if suffix == ".stl":
        vertices = _stl_vertices(data, refuse)
    elif suffix == ".msh":
        vertices = _msh_vertices(data, refuse, path)
    else:  # .obj: MuJoCo takes the vertices from its "v" lines
        if len(_OBJ_VERTEX.findall(data, 0)) < 4:
            raise refuse("fewer than 4 vertices ('v' lines); MuJoCo needs at least 4")
        return
    if not np.isfinite(vertices).all():
        raise refuse("a vertex coordinate is not finite")
    unique = np.unique(vertices, axis=0)
    if len(unique) < 4:
        raise refuse(f"{len(unique)} distinct vertices; MuJoCo needs at least 4")
    spread = np.linalg.svd(unique - unique.mean(axis=0), compute_uv=False)
    if not spread[2] > 1e-6 * spread[0] or not spread[0] > 1e-6 or np.abs(unique).max() > 1e6:
        raise Unsupported(f"{what}: a flat, tiny or huge mesh (MuJoCo checks its volume)")


def _stl_vertices(data: bytes, refuse: _Refuse) -> np.ndarray:
    """The vertices of a binary STL (MuJoCo reads no ASCII STL), ``(3 n, 3)``."""
    if len(data) < 84:
        raise refuse(f"{len(data)} bytes: too short for a binary STL (84-byte header)")
    (n,) = struct.unpack_from("<I", data, 80)
    if not 1 <= n <= _STL_MAX_FACES:
        raise refuse(
            f"{n} faces in its header; MuJoCo reads binary STL files of 1 to "
            f"{_STL_MAX_FACES} faces (is it an ASCII STL?)"
        )
    if len(data) != 84 + 50 * n:
        raise refuse(f"{len(data)} bytes, but {n} faces make {84 + 50 * n} (truncated, or ASCII?)")
    return np.frombuffer(data, _STL_RECORD, n, 84)["v"].reshape(-1, 3).astype(float)


def _msh_vertices(data: bytes, refuse: _Refuse, path: Path) -> np.ndarray:
    """The vertices of a MuJoCo MSH file (header: 4 int32 counts), ``(n, 3)``."""
    if len(data) < 16:
        raise refuse("missing the 16-byte MSH header")
    nv, nn, nt, nf = struct.unpack_from("<4i", data, 0)
    size = 16 + 4 * (3 * nv + 3 * nn + 2 * nt + 3 * nf)
    if min(nv, nn, nt, nf) < 0 or len(data) != size:
        raise refuse(f"{len(data)} bytes, but its header's counts make {size}")
    if nn not in (0, nv) or nt not in (0, nv):
        raise Unsupported(f"MSH file {str(path)!r}: normals or texture coordinates per vertex")
    return np.frombuffer(data, "<f4", 3 * nv, 16).reshape(-1, 3).astype(float)
