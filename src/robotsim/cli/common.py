"""Helpers shared by the CLI modules: JSON output and option parsing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from robotsim.errors import InputError
from robotsim.jsonable import dumps as json_dumps

if TYPE_CHECKING:
    import numpy as np

__all__ = ["echo_json", "max_memory_option", "max_work_option", "parse_floats"]


def _set_max_memory(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    from robotsim.budget import set_budget

    set_budget(value)  # None (option not given) restores the default


def max_memory_option(f: Any) -> Any:
    """``--max-memory SIZE``: the memory budget of sampled arrays (robotsim.budget)."""
    return click.option(
        "--max-memory",
        default=None,
        metavar="SIZE",
        expose_value=False,
        callback=_set_max_memory,
        help="Memory budget for sampled arrays, e.g. 8G (default 2G or $ROBOTSIM_MAX_MEMORY).",
    )(f)


def _set_max_work(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    from robotsim.budget import set_work_budget

    set_work_budget(value)  # None (option not given) restores the default


def max_work_option(f: Any) -> Any:
    """``--max-work N``: the work budget of physics runs in body-steps (robotsim.budget)."""
    return click.option(
        "--max-work",
        default=None,
        metavar="N",
        expose_value=False,
        callback=_set_max_work,
        help="Work budget of a physics run in body-steps (steps x bodies), e.g. 5e9 "
        "(default 1e9 or $ROBOTSIM_MAX_WORK).",
    )(f)


def echo_json(obj: Any) -> None:
    click.echo(json_dumps(obj, indent=2))


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
