"""Helpers shared by the CLI modules: JSON output and option parsing."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from robotsim.errors import InputError
from robotsim.jsonable import to_jsonable

if TYPE_CHECKING:
    import numpy as np

__all__ = ["echo_json", "parse_floats"]


def echo_json(obj: Any) -> None:
    click.echo(json.dumps(to_jsonable(obj), indent=2))


def parse_floats(text: str, option: str, count: tuple[int, ...] | None = None) -> np.ndarray:
    """``"1,2,3"`` -> array; a clear error naming ``option`` otherwise."""
    import numpy as np

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
