"""The memory budget: sampled arrays are sized *before* they are allocated; and the work
budget: a physics run is sized (steps x bodies) before it steps.

A tick of 1e-9 s, a segment of 1e7 s or a step of 1e-9 s asks for arrays of billions of
samples; instead of growing until the kernel kills the process (or a ``MemoryError``
with a traceback), the code that samples calls :func:`check` with its estimate and
gets a one-line :class:`BudgetError` naming the estimate, what was asked and the option
that raises the budget.

The budget is 2 GB unless ``ROBOTSIM_MAX_MEMORY`` or a command's ``--max-memory``
(both take ``4G``, ``512M``, ``2000000000``...) say otherwise; :func:`memory_budget`
sets it for a block of code.

The work budget (:func:`check_work`) is counted in *body-steps*: physics steps times the
bodies stepped, 10^9 unless ``ROBOTSIM_MAX_WORK`` or a command's ``--max-work`` say
otherwise (MuJoCo takes 2-12 us per body-step on the 2-core reference machine, so the
default is roughly half an hour to three hours of CPU). A run that would need more is
refused before it starts, naming the parameter that asked for it (``timestep: 1e-9``
with a 30 s run is 1.5e10 steps), instead of running for days.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager

from robotsim.errors import InputError

__all__ = [
    "DEFAULT_MAX_MEMORY",
    "DEFAULT_MAX_WORK",
    "BudgetError",
    "check",
    "check_work",
    "current_budget",
    "current_work_budget",
    "format_bytes",
    "memory_budget",
    "parse_size",
    "parse_work",
    "set_budget",
    "set_work_budget",
]

DEFAULT_MAX_MEMORY = 2 * 1024**3
DEFAULT_MAX_WORK = 1.0e9
"""Body-steps (physics steps x bodies) one run may take."""
_work: float | None = None

_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
_budget: int | None = None


class BudgetError(InputError):
    """An operation would need more memory than the budget allows."""


def parse_size(text: str | int | float, what: str = "--max-memory") -> int:
    """``"4G"``, ``"512M"``, ``"1.5G"``, ``2000000000`` -> bytes (binary units)."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        value = float(text)
    else:
        m = re.fullmatch(
            r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([KMGT]?)i?B?\s*", str(text), re.I
        )
        if m is None:
            raise InputError(f"{what}: {text!r} is not a size; use e.g. 512M, 4G or a byte count")
        value = float(m.group(1)) * _UNITS[m.group(2).upper()]
    if not (math.isfinite(value) and value > 0):
        raise InputError(f"{what}: the size must be > 0, got {text!r}")
    return int(value)


def format_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1024 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} PB"  # pragma: no cover - unreachable


def check_free_space(folder: os.PathLike[str] | str, need: float, message: str) -> None:
    """Refuse (``InputError``) writing about ``need`` bytes into ``folder`` when they
    would not fit its free space (or the estimate is not finite). ``message`` names what
    would be written and what to do instead; ``{need}``, ``{free}`` and ``{folder}`` in
    it are filled in."""
    import shutil

    free = shutil.disk_usage(folder).free
    if not math.isfinite(need) or need > free:
        raise InputError(
            message.format(need=format_bytes(need), free=format_bytes(free), folder=folder)
        )


def current_budget() -> int:
    """Bytes one sampled result may take (the innermost :func:`memory_budget`, else
    ``ROBOTSIM_MAX_MEMORY``, else 2 GB)."""
    if _budget is not None:
        return _budget
    env = os.environ.get("ROBOTSIM_MAX_MEMORY")
    return parse_size(env, "ROBOTSIM_MAX_MEMORY") if env else DEFAULT_MAX_MEMORY


def set_budget(max_bytes: int | str | None) -> None:
    """Set the budget for the rest of the process (``None``: back to the default)."""
    global _budget
    _budget = None if max_bytes is None else parse_size(max_bytes)


@contextmanager
def memory_budget(max_bytes: int | str | None) -> Iterator[int]:
    """Use ``max_bytes`` as the budget inside the block (``None``: leave it as is)."""
    global _budget
    old = _budget
    if max_bytes is not None:
        _budget = parse_size(max_bytes)
    try:
        yield current_budget()
    finally:
        _budget = old


def check(what: str, estimate_bytes: float, hint: str = "") -> None:
    """Raise :class:`BudgetError` if ``estimate_bytes`` exceeds the budget.

    Args:
        what: what would be allocated, e.g. ``"motion playback: 3.2e9 ticks of 0.01 s"``.
        estimate_bytes: the estimate (may be a float beyond any int; NaN counts as over).
        hint: how to ask for less (``"use a longer --tick"``).
    """
    budget = current_budget()
    if estimate_bytes <= budget:
        return
    est = format_bytes(estimate_bytes) if math.isfinite(estimate_bytes) else "unbounded"
    tail = f"; {hint}" if hint else ""
    raise BudgetError(
        f"{what} would need about {est} of memory, more than the budget of "
        f"{format_bytes(budget)}{tail}, or raise the budget with --max-memory "
        "(or ROBOTSIM_MAX_MEMORY)"
    )


def parse_work(text: str | int | float, what: str = "--max-work") -> float:
    """``"2e9"``, ``5000000000`` -> body-steps (a positive finite number)."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise InputError(f"{what}: {text!r} is not a number of body-steps; use e.g. 5e9") from None
    if not (math.isfinite(value) and value > 0):
        raise InputError(f"{what}: the budget must be a positive number, got {text!r}")
    return value


def current_work_budget() -> float:
    """Body-steps one run may take (:func:`set_work_budget`, else
    ``ROBOTSIM_MAX_WORK``, else :data:`DEFAULT_MAX_WORK`)."""
    if _work is not None:
        return _work
    env = os.environ.get("ROBOTSIM_MAX_WORK")
    return parse_work(env, "ROBOTSIM_MAX_WORK") if env else DEFAULT_MAX_WORK


def set_work_budget(body_steps: str | float | None) -> None:
    """Set the work budget for the rest of the process (``None``: back to the default)."""
    global _work
    _work = None if body_steps is None else parse_work(body_steps)


def check_work(what: str, steps: float, bodies: int, hint: str = "") -> None:
    """Raise :class:`BudgetError` if ``steps`` physics steps of ``bodies`` bodies exceed
    the work budget. ``what`` names the run and the parameter that asked for the steps
    (``"soccer.yaml: timestep 1e-09 s for 30 s"``); ``hint`` says how to ask for less."""
    budget = current_work_budget()
    work = float(steps) * max(1, int(bodies))
    if work <= budget:
        return
    tail = f"; {hint}" if hint else ""
    amount = f"{float(steps):.3g} steps of {bodies} bodies ({work:.3g} body-steps)"
    if not math.isfinite(work):
        amount = "unbounded work"
    raise BudgetError(
        f"{what} is {amount}, more than the work budget of {budget:.3g}{tail}, or raise "
        "the budget with --max-work (or ROBOTSIM_MAX_WORK)"
    )
