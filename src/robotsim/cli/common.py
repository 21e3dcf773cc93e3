"""Helpers shared by the CLI modules: JSON output and option parsing."""

from __future__ import annotations

import json
from typing import Any

import click
import numpy as np

from robotsim.errors import InputError

__all__ = ["echo_json", "parse_floats", "to_jsonable"]


def to_jsonable(obj: Any) -> Any:
    """Numpy arrays/scalars and non-finite floats -> plain JSON values."""
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, np.bool_ | bool):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating | float):
        f = float(obj)
        if np.isfinite(f):
            return f
        return None if np.isnan(f) else ("inf" if f > 0 else "-inf")
    return obj


def echo_json(obj: Any) -> None:
    click.echo(json.dumps(to_jsonable(obj), indent=2))


def parse_floats(text: str, option: str, count: tuple[int, ...] | None = None) -> np.ndarray:
    """``"1,2,3"`` -> array; a clear error naming ``option`` otherwise."""
    try:
        vals = np.array([float(v) for v in text.replace(" ", "").split(",") if v != ""])
    except ValueError:
        raise InputError(f"{option}: expected comma-separated numbers, got {text!r}") from None
    if not np.all(np.isfinite(vals)):
        raise InputError(f"{option}: values must be finite, got {text!r}")
    if count is not None and len(vals) not in count:
        want = " or ".join(str(c) for c in count)
        raise InputError(f"{option}: expected {want} numbers, got {len(vals)}")
    return vals
