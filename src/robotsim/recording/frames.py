"""Sensor readings in the run store: one binary blob per reading, and reading them back.

A sensor channel's ``meta`` (table ``sensor_channels``, JSON) lists the fields of its
readings in order, each with its NumPy ``dtype`` and ``shape``, and the ``codec``:
``raw`` (the fields' bytes one after the other, C order, little-endian) or ``zlib``
(the same, compressed with zlib at level 1; chosen when a reading is at least
:data:`COMPRESS_FROM` bytes: scans and images). A 360-ray scan is one row of about
1.5 kB, a 320 x 240 RGB + depth frame one row of a few hundred kB at most.

:class:`SensorSeries` is what :meth:`robotsim.recording.RunStore.sensor` returns: the
times ``t`` ``(T,)`` and each field stacked ``(T, *shape)``.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from robotsim.errors import InputError, UnknownNameError

__all__ = ["COMPRESS_FROM", "SensorSeries", "decode", "encode", "field_layout"]

#: Readings of at least this many bytes are compressed (zlib, level 1).
COMPRESS_FROM = 512


def field_layout(data: Mapping[str, np.ndarray]) -> list[dict[str, Any]]:
    """``[{"name", "dtype", "shape"}]`` of a reading's fields, in order."""
    out = []
    for k, a in data.items():
        a = np.asarray(a)
        out.append({"name": str(k), "dtype": a.dtype.newbyteorder("<").str, "shape": list(a.shape)})
    return out


def _nbytes(fields: Sequence[Mapping[str, Any]]) -> int:
    return sum(
        int(np.dtype(f["dtype"]).itemsize * int(np.prod(f["shape"], dtype=np.int64)))
        for f in fields
    )


def encode(arrays: Sequence[np.ndarray], fields: Sequence[Mapping[str, Any]], codec: str) -> bytes:
    """A reading's fields (in ``fields`` order) as one blob."""
    parts = []
    for a, f in zip(arrays, fields):
        a = np.asarray(a)
        if list(a.shape) != list(f["shape"]):
            raise InputError(
                f"sensor field {f['name']!r}: shape {list(a.shape)}, but the channel "
                f"records {list(f['shape'])}"
            )
        parts.append(np.ascontiguousarray(a, dtype=np.dtype(f["dtype"])).tobytes())
    raw = b"".join(parts)
    return zlib.compress(raw, 1) if codec == "zlib" else raw


def decode(blob: bytes, fields: Sequence[Mapping[str, Any]], codec: str) -> list[np.ndarray]:
    """The fields of one reading from its blob (read-only arrays)."""
    raw = zlib.decompress(blob) if codec == "zlib" else bytes(blob)
    if len(raw) != _nbytes(fields):
        raise InputError(f"a sensor reading of {len(raw)} bytes; its fields need {_nbytes(fields)}")
    out, at = [], 0
    for f in fields:
        dt = np.dtype(f["dtype"])
        n = int(np.prod(f["shape"], dtype=np.int64))
        a = np.frombuffer(raw, dtype=dt, count=n, offset=at).reshape(f["shape"])
        at += n * dt.itemsize
        out.append(a)
    return out


def codec_for(fields: Sequence[Mapping[str, Any]]) -> str:
    return "zlib" if _nbytes(fields) >= COMPRESS_FROM else "raw"


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
