"""Plain JSON values from NumPy-laden results: one converter for every writer; and the
one bounded reader of JSON that comes from outside (``read_json``).

Used by the CLI's ``--json`` output and by every ``summary.json`` a run writes, so a
value prints the same wherever it is written.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

__all__ = ["MAX_JSON_DEPTH", "NULL_REASONS", "dumps", "json_depth", "read_json", "to_jsonable"]

#: Deepest nesting of arrays/objects accepted from outside (as for YAML files).
MAX_JSON_DEPTH = 100


def json_depth(data: bytes) -> int:
    """Deepest ``[``/``{`` nesting of JSON text ``data``, outside strings; linear, no
    recursion (so it measures what :func:`json.loads` would recurse into)."""
    depth = deepest = 0
    in_str = esc = False
    for c in data:
        if in_str:
            if esc:
                esc = False
            elif c == 0x5C:  # backslash
                esc = True
            elif c == 0x22:
                in_str = False
        elif c == 0x22:
            in_str = True
        elif c in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
        elif c in (0x5D, 0x7D):
            depth -= 1
    return deepest


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not valid JSON")


def read_json(data: bytes | str, what: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Parse JSON that came from outside (a request body, a frame, a file, an argument).

    Nesting deeper than ``max_depth`` is refused before parsing (Python's parser recurses
    and would raise ``RecursionError`` near 1,000 levels), as are ``NaN``/``Infinity``,
    invalid UTF-8 and invalid JSON: one :class:`~robotsim.errors.InputError` naming
    ``what``.
    """
    from robotsim.errors import InputError

    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    if raw.count(b"[") + raw.count(b"{") > max_depth and json_depth(raw) > max_depth:
        raise InputError(f"{what}: JSON nested deeper than {max_depth} levels")
    try:
        return json.loads(raw, parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise InputError(f"{what}: not valid JSON: {exc}") from None


def to_jsonable(obj: Any, reasons: dict[str, str] | None = None, path: str = "") -> Any:
    """Numpy arrays/scalars and non-finite floats -> plain JSON values.

    Dicts (keys as ``str``), lists and tuples are converted recursively; ``nan`` and
    ``±inf`` become ``None`` (JSON has neither; a number is never written as a string).
    With ``reasons``, each such ``None`` is noted there by its path (``"robots.omni.gap"``,
    ``"t[3]"``) with the value it replaced; :func:`dumps` writes them beside the values.
    """
    if isinstance(obj, dict):
        return {
            str(k): to_jsonable(v, reasons, f"{path}.{k}" if path else str(k))
            for k, v in obj.items()
        }
    if isinstance(obj, list | tuple):
        return [to_jsonable(v, reasons, f"{path}[{i}]") for i, v in enumerate(obj)]
    np = sys.modules.get("numpy")  # not imported yet: no NumPy value can exist
    if np is not None:
        if isinstance(obj, np.ndarray):
            return to_jsonable(obj.tolist(), reasons, path)
        if isinstance(obj, np.bool_):
            return bool(obj)
        if isinstance(obj, np.integer):
            return int(obj)
        if isinstance(obj, np.floating):
            obj = float(obj)
    if isinstance(obj, float) and not math.isfinite(obj):
        if reasons is not None:
            what = "NaN" if math.isnan(obj) else ("+inf" if obj > 0 else "-inf")
            reasons[path or "(value)"] = f"{what}: not a finite number"
        return None
    return obj


#: The key :func:`dumps` adds to a JSON object in which it replaced values by ``null``.
NULL_REASONS = "null_reasons"


def dumps(obj: Any, **kwargs: Any) -> str:
    """Strict JSON text of ``obj`` (the one writer: every JSON file and ``--json``
    output robotsim writes goes through here). NumPy values become plain ones; a NaN or
    an infinity becomes ``null``, and an object gets ``"null_reasons": {path: why}``
    saying which values were replaced by what; ``allow_nan=False`` makes any value
    that slipped through an error, never ``NaN``/``Infinity`` in a file. ``kwargs``
    go to :func:`json.dumps` (``indent``, ``sort_keys``, ``separators``)."""
    reasons: dict[str, str] = {}
    doc = to_jsonable(obj, reasons)
    if reasons and isinstance(doc, dict):
        doc[NULL_REASONS] = {**doc.get(NULL_REASONS, {}), **reasons}
    return json.dumps(doc, allow_nan=False, **kwargs)
