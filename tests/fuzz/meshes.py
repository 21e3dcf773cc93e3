"""Hostile mesh files, generated: each of OBJ, STL (binary and ASCII), PLY (binary and
ASCII), OFF, DirectX .x and 3DS, written from a small solid, then damaged at the level
of its format (a header declaring billions of faces, NaN or 1e308 vertices, face
indices past the vertex list, every vertex on one plane, zero-area faces, a body cut
short). Seeded like the other mutators: ``(label, suffix, bytes)`` per case."""

from __future__ import annotations

import random
import struct

import numpy as np

CUBE_V = np.array([[x, y, z] for x in (0.0, 0.05) for y in (0.0, 0.04) for z in (0.0, 0.03)], float)
CUBE_F = np.array(
    [[0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], [0, 1, 4], [1, 5, 4],
     [2, 6, 3], [3, 6, 7], [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5]],
    np.int64,
)  # fmt: skip


def _f32(values: object) -> bytes:
    """Little-endian float32 bytes (1e308 becomes inf, as a writer in float32 would)."""
    with np.errstate(over="ignore"):
        return np.asarray(values, np.float64).astype("<f4").tobytes()


SUFFIXES = (".obj", ".stl", ".ply", ".off", ".x", ".3ds")
BAD_NUMBERS = [float("nan"), float("inf"), -float("inf"), 1e308, -1e308, 1e-320, 0.0, 1e12]
HUGE_COUNTS = [2**31 - 1, 2**32 - 1, 4_000_000_000, 10**12, -1, 0]


def _geometry(rng: random.Random) -> tuple[np.ndarray, np.ndarray, str]:
    """The cube, or a damaged version of its numbers."""
    v, f = CUBE_V.copy(), CUBE_F.copy()
    r = rng.random()
    if r < 0.2:
        v[rng.randrange(len(v)), rng.randrange(3)] = rng.choice(BAD_NUMBERS)
        return v, f, "bad vertex"
    if r < 0.3:
        v[:, rng.randrange(3)] = 0.0  # every vertex on one plane
        return v, f, "flat"
    if r < 0.4:
        v[:] = v[0]  # every vertex the same point
        return v, f, "point"
    if r < 0.5:
        f[rng.randrange(len(f)), rng.randrange(3)] = rng.choice([8, 99, 10**9, -5])
        return v, f, "index past the vertices"
    if r < 0.6:
        f[:, 1] = f[:, 0]  # zero-area faces only
        return v, f, "zero-area faces"
    if r < 0.65:
        return v * 1e6, f, "a kilometre cube"
    return v, f, "cube"


def _obj(v: np.ndarray, f: np.ndarray, rng: random.Random) -> bytes:
    lines = [f"v {a!r} {b!r} {c!r}" for a, b, c in v.tolist()]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in f.tolist()]
    return ("\n".join(lines) + "\n").encode()


def _stl_binary(v: np.ndarray, f: np.ndarray, rng: random.Random) -> bytes:
    count = rng.choice(HUGE_COUNTS) if rng.random() < 0.4 else len(f)
    out = bytearray(b"\0" * 80 + struct.pack("<I", count & 0xFFFFFFFF))
    for tri in f.tolist():
        pts = [v[i] if 0 <= i < len(v) else np.zeros(3) for i in tri]
        out += _f32([0, 0, 0, *np.concatenate(pts).tolist()]) + b"\0\0"
    return bytes(out)


def _stl_ascii(v: np.ndarray, f: np.ndarray, rng: random.Random) -> bytes:
    lines = ["solid s"]
    for tri in f.tolist():
        lines += ["facet normal 0 0 0", "outer loop"]
        for i in tri:
            p = v[i] if 0 <= i < len(v) else (9e99, 0, 0)
            lines.append(f"vertex {p[0]!r} {p[1]!r} {p[2]!r}")
        lines += ["endloop", "endfacet"]
    return ("\n".join([*lines, "endsolid s"]) + "\n").encode()


def _ply(v: np.ndarray, f: np.ndarray, rng: random.Random) -> bytes:
    binary = rng.random() < 0.5
    nv = rng.choice(HUGE_COUNTS) if rng.random() < 0.2 else len(v)
    nf = rng.choice(HUGE_COUNTS) if rng.random() < 0.3 else len(f)
    fmt = "binary_little_endian" if binary else "ascii"
    head = (
        f"ply\nformat {fmt} 1.0\nelement vertex {nv}\nproperty float x\nproperty float y\n"
        f"property float z\nelement face {nf}\nproperty list uchar int vertex_indices\n"
        "end_header\n"
    ).encode()
    if binary:
        body = _f32(v)
        body += b"".join(struct.pack("<B3i", 3, *t) for t in f.tolist())
    else:
        body = "".join(f"{a!r} {b!r} {c!r}\n" for a, b, c in v.tolist()).encode()
        body += "".join(f"3 {a} {b} {c}\n" for a, b, c in f.tolist()).encode()
    return head + body


def _off(v: np.ndarray, f: np.ndarray, rng: random.Random) -> bytes:
    nf = rng.choice(HUGE_COUNTS) if rng.random() < 0.3 else len(f)
    lines = ["OFF", f"{len(v)} {nf} 0"]
    lines += [f"{a!r} {b!r} {c!r}" for a, b, c in v.tolist()]
    lines += [f"3 {a} {b} {c}" for a, b, c in f.tolist()]
    return ("\n".join(lines) + "\n").encode()


def _x(v: np.ndarray, f: np.ndarray, rng: random.Random) -> bytes:
    nv = rng.choice(HUGE_COUNTS) if rng.random() < 0.2 else len(v)
    nf = rng.choice(HUGE_COUNTS) if rng.random() < 0.2 else len(f)
    verts = ",\n".join(f"{a!r};{b!r};{c!r};" for a, b, c in v.tolist())
    faces = ",\n".join(f"3;{a},{b},{c};" for a, b, c in f.tolist())
    return (f"xof 0303txt 0032\nMesh m {{\n{nv};\n{verts};\n{nf};\n{faces};\n}}\n").encode()


def _3ds(v: np.ndarray, f: np.ndarray, rng: random.Random) -> bytes:
    """A 3DS file: MAIN3DS > EDIT3DS > EDIT_OBJECT > OBJ_TRIMESH > vertices, faces
    (chunk lengths, and the counts inside, may lie)."""

    def chunk(cid: int, body: bytes) -> bytes:
        n = len(body) + 6
        if rng.random() < 0.1:
            n = rng.choice([0, 1, 5, 2**31 - 1, 2**32 - 1])
        return struct.pack("<HI", cid, n) + body

    nv = rng.choice(HUGE_COUNTS[:3]) & 0xFFFF if rng.random() < 0.2 else len(v)
    nf = rng.choice([0xFFFF, 0]) if rng.random() < 0.2 else len(f)
    verts = struct.pack("<H", nv) + _f32(v)
    faces = struct.pack("<H", nf) + b"".join(
        struct.pack("<4H", *(int(i) & 0xFFFF for i in t), 0) for t in f.tolist()
    )
    mesh = chunk(0x4100, chunk(0x4110, verts) + chunk(0x4120, faces))
    obj = chunk(0x4000, b"box\0" + mesh)
    return chunk(0x4D4D, chunk(0x3D3D, obj))


WRITERS = {
    ".obj": _obj,
    ".stl": lambda v, f, rng: (_stl_binary if rng.random() < 0.6 else _stl_ascii)(v, f, rng),
    ".ply": _ply,
    ".off": _off,
    ".x": _x,
    ".3ds": _3ds,
}


def hostile_mesh(rng: random.Random) -> tuple[str, str, bytes]:
    """One generated case: ``(what, suffix, bytes)``; a fifth of them also cut short."""
    suffix = rng.choice(SUFFIXES)
    v, f, what = _geometry(rng)
    data = WRITERS[suffix](v, f, rng)
    if rng.random() < 0.2:
        data = data[: rng.randrange(len(data) + 1)]
        what += ", cut short"
    return what, suffix, data
