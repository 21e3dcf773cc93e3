"""Sensor readings on the UDP protocol (op ``get_sensor``, docs/protocol.md).

A reading goes out as a JSON summary: its time, type and, per field, either the values
themselves (a JSON list: fields of at most :data:`INLINE_VALUES` finite values, an
IMU's) or a binary description (any field with an ``inf`` or a NaN too, such as a
scan's ``ranges``, so that "nothing within range" and "no return" stay apart)
(``format``: ``png`` for a colour image, ``raw`` for any other array with its ``dtype``
and ``shape``; ``bytes``; ``chunks``) whose bytes follow in base64, inline when they fit
one chunk of :data:`CHUNK_BYTES`, else fetched chunk by chunk
(``{"op": "get_sensor", ..., "field": F, "t": T, "chunk": k}``). Every reply fits one
datagram. The encoded binaries of the last few readings of each sensor are kept
(:class:`WireCache`), so the chunks of a reading stay the same while a client fetches
them, whatever the sensor reads meanwhile.
"""

from __future__ import annotations

import base64
import io
import math
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = [
    "CHUNK_BYTES",
    "INLINE_VALUES",
    "WireCache",
    "decode_field",
    "encode_png",
    "summary",
]

#: Values a field may have to go inline as a JSON list.
INLINE_VALUES = 1024
#: Raw bytes per chunk: base64 makes 40 kB of them, a reply stays below 64 kB.
CHUNK_BYTES = 30_000


def encode_png(rgb: np.ndarray) -> bytes:
    """A PNG of an RGB image ``(H, W, 3)`` uint8 (Pillow, fast compression)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgb, dtype=np.uint8), "RGB").save(
        buf, format="PNG", compress_level=1
    )
    return buf.getvalue()


def _inline(a: np.ndarray) -> bool:
    """Whether a field goes as a JSON list: small, numbers all finite (or bools)."""
    if a.size > INLINE_VALUES or (a.dtype == np.uint8 and a.ndim == 3):
        return False
    return a.dtype == np.bool_ or bool(np.isfinite(a).all())


def _binary(name: str, a: np.ndarray) -> tuple[dict[str, Any], bytes]:
    if a.dtype == np.uint8 and a.ndim == 3 and a.shape[2] == 3:
        data = encode_png(a)
        desc: dict[str, Any] = {"format": "png", "shape": list(a.shape)}
    else:
        le = a.dtype.newbyteorder("<")
        data = np.ascontiguousarray(a, dtype=le).tobytes()
        desc = {"format": "raw", "dtype": le.str, "shape": list(a.shape)}
    desc["bytes"] = len(data)
    desc["chunks"] = max(1, math.ceil(len(data) / CHUNK_BYTES))
    return desc, data


class WireCache:
    """The encoded binary fields of the last ``keep`` readings of each sensor, by
    ``(robot, sensor)`` and reading time."""

    def __init__(self, keep: int = 4) -> None:
        self.keep = keep
        self._by: dict[tuple[str, str], OrderedDict[float, dict[str, bytes]]] = {}

    def put(self, robot: str, sensor: str, t: float, blobs: dict[str, bytes]) -> None:
        entries = self._by.setdefault((robot, sensor), OrderedDict())
        entries[t] = blobs
        entries.move_to_end(t)
        while len(entries) > self.keep:
            entries.popitem(last=False)

    def get(self, robot: str, sensor: str, t: float) -> dict[str, bytes] | None:
        entries = self._by.get((robot, sensor))
        return None if entries is None else entries.get(t)

    def times(self, robot: str, sensor: str) -> list[float]:
        return list(self._by.get((robot, sensor), ()))


def summary(
    robot: str, sensor: str, kind: str, t: float, data: Mapping[str, np.ndarray]
) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The reply fields of a reading, and the bytes of its binary fields (for the
    cache): see the module doc."""
    fields: dict[str, Any] = {}
    blobs: dict[str, bytes] = {}
    for name, a in data.items():
        a = np.asarray(a)
        if _inline(a):
            fields[name] = a.tolist()
            continue
        desc, raw = _binary(name, a)
        if desc["chunks"] == 1:
            desc["data"] = base64.b64encode(raw).decode("ascii")
        fields[name] = desc
        blobs[name] = raw
    return {"t": t, "robot": robot, "sensor": sensor, "type": kind, "fields": fields}, blobs


def chunk(blob: bytes, k: int) -> str:
    """Chunk ``k`` of a field's bytes, base64."""
    return base64.b64encode(blob[k * CHUNK_BYTES : (k + 1) * CHUNK_BYTES]).decode("ascii")


def decode_field(desc: Any, raw: bytes | None = None) -> np.ndarray:
    """A field of a ``get_sensor`` summary as an array: a JSON list, or a binary
    description with its bytes (``raw``; default its inline ``data``)."""
    if not isinstance(desc, dict):
        a = np.asarray(desc)
        return a if a.dtype == np.bool_ else a.astype(np.float64)
    data = raw if raw is not None else base64.b64decode(desc["data"])
    if desc["format"] == "png":
        from PIL import Image

        return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))
    return np.frombuffer(data, dtype=np.dtype(desc["dtype"])).reshape(desc["shape"])
