"""The UDP remote-control protocol: one JSON object per datagram (docs/protocol.md).

Request ``{"id": 7, "op": "set_joints", ...}`` -> reply ``{"id": 7, "ok": true, ...}``
or ``{"id": 7, "ok": false, "error": "..."}``. State pushed to subscribers carries
``"event": "state"`` and no ``id``. This module holds the wire-level parts: decoding
and checking requests, and encoding replies; the server does the work.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from robotsim.errors import InputError
from robotsim.jsonable import json_depth

__all__ = [
    "MAX_DATAGRAM",
    "MAX_DEPTH",
    "MAX_NUMBER_CHARS",
    "OPS",
    "PROTOCOL",
    "ProtocolError",
    "Request",
    "decode_request",
    "encode",
    "error_reply",
    "get_bool",
    "get_int",
    "get_name_map",
    "get_number",
    "get_str",
    "get_str_list",
]

PROTOCOL = "robotsim-udp/1"
MAX_DATAGRAM = 8192
#: Deepest nesting of arrays/objects accepted in a request (a real one needs 3).
MAX_DEPTH = 16
#: Longest number literal accepted (characters): a float64 needs at most 24.
MAX_NUMBER_CHARS = 32
OPS = (
    "ping",
    "info",
    "state",
    "set_joints",
    "set_base_velocity",
    "set_wheels",
    "renew",
    "pause",
    "resume",
    "reset",
    "step",
    "subscribe",
    "unsubscribe",
    "stats",
    "cookie",
    "get_sensor",
)


class ProtocolError(InputError):
    """A request that cannot be served; the message goes back in ``"error"``.

    ``request_id``: the request's id when it could be read; ``malformed``: the datagram
    was not a JSON object at all.
    """

    def __init__(
        self, message: str, request_id: int | str | None = None, malformed: bool = False
    ) -> None:
        super().__init__(message)
        self.request_id = request_id
        self.malformed = malformed


@dataclass(frozen=True)
class Request:
    id: int | str | None
    op: str
    body: Mapping[str, Any]


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not valid JSON")


def _parse_int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise ValueError(f"number of {len(text)} digits (at most {MAX_NUMBER_CHARS})")
    return int(text)


def _parse_float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise ValueError(f"number of {len(text)} characters (at most {MAX_NUMBER_CHARS})")
    v = float(text)
    if not math.isfinite(v):
        raise ValueError(f"number {text} is out of the float64 range")
    return v


def decode_request(data: bytes) -> Request:
    """Bytes of one datagram -> a checked :class:`Request`.

    Raises :class:`ProtocolError` (with ``request_id`` when the JSON parsed far enough to
    have one, so the error reply can carry it). Nesting deeper than :data:`MAX_DEPTH`
    and number literals longer than :data:`MAX_NUMBER_CHARS` are refused before or
    while parsing, with a one-line error.
    """
    if data.count(b"[") + data.count(b"{") > MAX_DEPTH and json_depth(data) > MAX_DEPTH:
        raise ProtocolError(
            f"malformed request: JSON nested deeper than {MAX_DEPTH} levels", malformed=True
        )
    try:
        msg = json.loads(
            data,
            parse_constant=_reject_constant,
            parse_int=_parse_int,
            parse_float=_parse_float,
        )
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ProtocolError(f"malformed JSON: {exc}", malformed=True) from None
    if not isinstance(msg, dict):
        raise ProtocolError(
            f"a request must be a JSON object, got {type(msg).__name__}", malformed=True
        )
    rid = msg.get("id")
    if rid is not None and (isinstance(rid, bool) or not isinstance(rid, int | str)):
        raise ProtocolError(f"'id' must be an integer or a string, got {_shown(rid)}")
    op = msg.get("op")
    if not isinstance(op, str):
        raise ProtocolError(f"'op' must be a string, one of: {', '.join(OPS)}", rid)
    if op not in OPS:
        raise ProtocolError(f"unknown op {op!r}; valid: {', '.join(OPS)}", rid)
    return Request(rid, op, msg)


def encode(obj: Mapping[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":"), allow_nan=False).encode()


def error_reply(rid: int | str | None, message: str) -> bytes:
    return encode({"id": rid, "ok": False, "error": message})


# -- field checks (each names the op and field) -------------------------------------------
def _shown(value: Any) -> str:
    """A request's value as JSON, for an error message (requests hold no NaN)."""
    return json.dumps(value, allow_nan=False)


def get_number(
    body: Mapping[str, Any],
    op: str,
    key: str,
    default: float | None = None,
    lo: float = -math.inf,
    hi: float = math.inf,
) -> float:
    v = body.get(key, default)
    if v is None:
        raise ProtocolError(f"{op}: missing field {key!r} (a number)")
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise ProtocolError(f"{op}: {key!r} must be a finite number, got {_shown(v)}")
    if not lo <= v <= hi:
        raise ProtocolError(f"{op}: {key!r} = {v} is outside [{lo}, {hi}]")
    return float(v)


def get_int(body: Mapping[str, Any], op: str, key: str, default: int, lo: int, hi: int) -> int:
    v = body.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int):
        raise ProtocolError(f"{op}: {key!r} must be an integer, got {_shown(v)}")
    if not lo <= v <= hi:
        raise ProtocolError(f"{op}: {key!r} = {v} is outside [{lo}, {hi}]")
    return v


def get_bool(body: Mapping[str, Any], op: str, key: str, default: bool) -> bool:
    v = body.get(key, default)
    if not isinstance(v, bool):
        raise ProtocolError(f"{op}: {key!r} must be true or false, got {_shown(v)}")
    return v


def get_str(body: Mapping[str, Any], op: str, key: str, default: str | None = None) -> str:
    v = body.get(key, default)
    if not isinstance(v, str):
        raise ProtocolError(f"{op}: {key!r} must be a string, got {_shown(v)}")
    return v


def get_str_list(body: Mapping[str, Any], op: str, key: str) -> list[str] | None:
    v = body.get(key)
    if v is None:
        return None
    if not isinstance(v, list) or not all(isinstance(s, str) for s in v):
        raise ProtocolError(f"{op}: {key!r} must be a list of strings, got {_shown(v)}")
    return v


def get_name_map(body: Mapping[str, Any], op: str, key: str) -> dict[str, float]:
    """``{"name": number, ...}`` (non-empty, finite numbers)."""
    v = body.get(key)
    if not isinstance(v, dict) or not v:
        raise ProtocolError(
            f"{op}: {key!r} must be a non-empty object {{name: number}}, got {_shown(v)}"
        )
    out = {}
    for name, x in v.items():
        if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x):
            raise ProtocolError(f"{op}: {key}.{name} must be a finite number, got {_shown(x)}")
        out[name] = float(x)
    return out
