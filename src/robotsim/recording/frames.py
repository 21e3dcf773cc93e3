"""Sensor readings in the run store: blocks of readings as binary blobs, and reading
them back.

A sensor channel's ``meta`` (table ``sensor_channels``, JSON) lists the fields of its
readings in order, each with its NumPy ``dtype`` and ``shape``. The readings of one
sensor that one commit of the recorder writes are one row of ``sensor_blocks``: the
first and last reading times, the number of readings ``n`` and one blob: a codec byte
(``R`` raw; ``S`` Zstandard, chosen from :data:`COMPRESS_FROM` bytes up: level -1 for
blocks under :data:`FAST_BELOW` bytes, level 1 from there; ``Z``
zlib, which runs of earlier versions wrote and which is still read) then the ``n``
times (float64) and each field stacked ``(n, *shape)`` in its dtype, little-endian, C
order. A 360-ray scan is a row's share of 1.5 kB, not 360 rows; an
IMU's hundred readings a second make a few rows a second. One row per block rather than
per reading keeps the recorder's per-reading work to an append: the writer stacks,
compresses (without holding the GIL) and inserts a block per sensor per commit.
Zstandard at level 1 rather than zlib: on blocks the size of a soccer run's commit (3
scans of 360 rays, a third of them without a return; 25 IMU readings) it took a third
of zlib level 1's time (17 and 7 us against 50 and 31 us) for blobs as small or smaller
(60 % and 35 % of the raw bytes against 66 % and 35 %). Level -1 (Zstandard's fast
mode) on a soccer run's lidar blocks (3.4 kB, 23 blocks) took 2.6 us against level 1's
7.2 us for blobs 3 % larger (23.9 % of the raw bytes against 23.2 %): the writer thread
encodes every commit's blocks while the simulation runs beside it, so small blocks take
the fast level; blocks from :data:`FAST_BELOW` up (camera frames) keep level 1. Either
level reads back with the same decoder.
Readings handed over already stacked (rows of a structured array, ``t`` then the
fields: :meth:`robotsim.recording.Recorder.sensor_rows`) are joined field by field
(:func:`encode_chunks`); the blob is the same.

:class:`SensorSeries` is what :meth:`robotsim.recording.RunStore.sensor` returns: the
times ``t`` ``(T,)`` and each field stacked ``(T, *shape)``.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import zstandard

from robotsim.errors import InputError, UnknownNameError

__all__ = [
    "COMPRESS_FROM",
    "FAST_BELOW",
    "SensorSeries",
    "decode_block",
    "encode_block",
    "encode_chunks",
    "encode_rows",
    "field_layout",
    "row_spans",
]

#: Blocks of at least this many bytes are compressed (Zstandard).
COMPRESS_FROM = 512
#: Blocks under this many bytes are compressed at Zstandard's level -1, larger ones at 1.
FAST_BELOW = 64 * 1024

#: The codec bytes of compressed blobs.
COMPRESSED = (b"S", b"Z")

_local = threading.local()  # a Zstandard (de)compressor per thread: they are not shared


def _compress(raw: bytes) -> bytes:
    if len(raw) < FAST_BELOW:
        c = getattr(_local, "zf", None)
        if c is None:
            c = _local.zf = zstandard.ZstdCompressor(level=-1)
    else:
        c = getattr(_local, "zc", None)
        if c is None:
            c = _local.zc = zstandard.ZstdCompressor(level=1)
    return b"S" + c.compress(raw)


def _decompress(body: bytes) -> bytes:
    d = getattr(_local, "zd", None)
    if d is None:
        d = _local.zd = zstandard.ZstdDecompressor()
    return d.decompress(body)


def field_layout(data: Mapping[str, np.ndarray]) -> list[dict[str, Any]]:
    """``[{"name", "dtype", "shape"}]`` of a reading's fields, in order."""
    out = []
    for k, a in data.items():
        a = np.asarray(a)
        out.append({"name": str(k), "dtype": a.dtype.newbyteorder("<").str, "shape": list(a.shape)})
    return out


def encode_block(
    t: Sequence[float], readings: Sequence[Sequence[np.ndarray]], dtypes: Sequence[np.dtype]
) -> bytes:
    """The blob of ``len(t)`` readings (each a sequence of field arrays, shapes already
    checked against the channel's) in the fields' ``dtypes``."""
    parts = [np.asarray(t, dtype="<f8").tobytes()]
    for j, dt in enumerate(dtypes):
        parts.append(np.asarray([r[j] for r in readings], dtype=dt).tobytes())
    raw = b"".join(parts)
    if len(raw) >= COMPRESS_FROM:
        return _compress(raw)
    return b"R" + raw


def encode_chunks(
    t: Sequence[np.ndarray],
    fields: Sequence[Sequence[np.ndarray]],
    dtypes: Sequence[np.dtype],
    compress: bool = True,
) -> tuple[bytes, int]:
    """The blob of readings given in chunks (``t``: the chunks of times ``(n_i,)``;
    ``fields[j]``: the chunks of field ``j`` ``(n_i, *shape)``, any strides, stored in
    ``dtypes[j]``), the same as :func:`encode_block` of the readings one by one, and
    the bytes before compression. ``compress=False``: raw (``R``) whatever the size."""
    parts = [_joined(t, np.dtype("<f8"))]
    for chunks, dt in zip(fields, dtypes):
        parts.append(_joined(chunks, dt))
    raw = b"".join(parts)
    if compress and len(raw) >= COMPRESS_FROM:
        return _compress(raw), len(raw)
    return b"R" + raw, len(raw)


def row_spans(
    dt: np.dtype, names: Sequence[str], dtypes: Sequence[np.dtype]
) -> tuple[np.dtype, list[tuple[int, int]]] | None:
    """How to cut rows of the structured dtype ``dt`` into a blob's columns when ``t``
    and each field of ``names`` are stored as they lie (``t`` float64 and every field
    in the channel's ``dtypes``, little-endian; shapes are the channel's: the recorder
    checks them): the widest unsigned word dividing the row size and every field's
    offset and size, and each column's ``(first word, words)``. None otherwise."""
    spans = []
    for k, want in zip(("t", *names), (np.dtype("<f8"), *dtypes)):
        f = (dt.fields or {}).get(k)
        if f is None or f[0].base != want:
            return None
        spans.append((int(f[1]), int(f[0].itemsize)))
    for w in (8, 4, 2, 1):
        if dt.itemsize % w == 0 and all(o % w == 0 and n % w == 0 for o, n in spans):
            return np.dtype(f"<u{w}"), [(o // w, n // w) for o, n in spans]
    return None  # unreachable: 1 divides everything


def encode_rows(
    rows: np.ndarray,
    start: int,
    stop: int,
    spans: tuple[np.dtype, Sequence[tuple[int, int]]],
    compress: bool,
) -> tuple[bytes, int]:
    """:func:`encode_chunks` of the rows ``rows[start:stop]`` of a C-contiguous
    structured array cut by ``spans`` (:func:`row_spans`): the rows seen as words, and
    every column's words gathered in one indexing (the indices kept per row count)."""
    word, cols = spans
    n = stop - start
    size = rows.dtype.itemsize
    per_row = size // word.itemsize
    key = (per_row, tuple(cols), n)
    idx = _GATHER.get(key)
    if idx is None:
        r = np.arange(n)[:, None] * per_row
        idx = np.concatenate([(r + np.arange(o, o + k)[None, :]).ravel() for o, k in cols])
        if len(_GATHER) > 256:
            _GATHER.clear()
        _GATHER[key] = idx
    raw = np.ndarray((n * per_row,), word, rows, start * size).take(idx).tobytes()
    if compress and len(raw) >= COMPRESS_FROM:
        return _compress(raw), len(raw)
    return b"R" + raw, len(raw)


_GATHER: dict[tuple[Any, ...], np.ndarray] = {}  # encode_rows' indices


def _joined(chunks: Sequence[np.ndarray], dt: np.dtype) -> bytes:
    if len(chunks) == 1:
        return np.asarray(chunks[0]).astype(dt, copy=False).tobytes()
    return np.concatenate(chunks).astype(dt, copy=False).tobytes()


def decode_block(
    blob: bytes, n: int, fields: Sequence[Mapping[str, Any]]
) -> tuple[np.ndarray, list[np.ndarray]]:
    """The times ``(n,)`` and each field ``(n, *shape)`` of a block (read-only)."""
    blob = bytes(blob)
    codec, body = blob[:1], blob[1:]
    if codec == b"S":
        raw = _decompress(body)
    elif codec == b"R":
        raw = body
    elif codec == b"Z":
        raw = zlib.decompress(body)
    else:
        raise InputError(
            f"a sensor block with codec {codec!r}; known: b'R' (raw), b'S' (Zstandard), b'Z' (zlib)"
        )
    need = 8 * n + n * sum(
        np.dtype(f["dtype"]).itemsize * int(np.prod(f["shape"], dtype=np.int64)) for f in fields
    )
    if len(raw) != need:
        raise InputError(f"a sensor block of {len(raw)} bytes; {n} readings need {need}")
    t = np.frombuffer(raw, dtype="<f8", count=n)
    at = 8 * n
    out = []
    for f in fields:
        dt = np.dtype(f["dtype"])
        count = n * int(np.prod(f["shape"], dtype=np.int64))
        out.append(np.frombuffer(raw, dtype=dt, count=count, offset=at).reshape(n, *f["shape"]))
        at += count * dt.itemsize
    return t, out


@dataclass(frozen=True)
class SensorSeries:
    """The recorded readings of one sensor: ``t`` ``(T,)`` s, ``data`` field -> ``(T,
    *shape)`` (a lidar's ``ranges`` ``(T, layers, rays)``, a camera's ``rgb`` ``(T, H,
    W, 3)``; docs/sensors.md), and ``meta`` (type, rate, mount, angles, intrinsics).
    ``series["ranges"]`` and ``series.fields`` read it."""

    robot: str
    name: str
    type: str
    t: np.ndarray
    data: Mapping[str, np.ndarray]
    meta: Mapping[str, Any]

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(self.data)

    def __getitem__(self, field: str) -> np.ndarray:
        if field not in self.data:
            raise UnknownNameError(f"field of sensor {self.robot}/{self.name}", field, self.data)
        return self.data[field]

    def __len__(self) -> int:
        return int(self.t.size)
