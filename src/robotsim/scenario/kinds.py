"""Scenario kinds: the ``kind:`` key of a scenario file selects a runner.

Each entry maps a kind to ``"module:function"``; the function is called as
``run(data, source, options) -> summary dict`` with the parsed YAML mapping, the file
name (for error messages) and :class:`RunOptions`. Adding a kind is one line here plus
its module (schema, runner); ``docs/scenarios.md`` lists them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from robotsim.errors import ScenarioError

__all__ = ["KINDS", "RunOptions", "runner_for"]


@dataclass(frozen=True)
class RunOptions:
    """What ``robotsim run`` passes to every runner. ``mode`` (kinematic/physics) and
    ``db`` are for kinds and recorders that support them; others ignore them."""

    out_dir: Path | None = None
    duration: float | None = None
    seed: int | None = None
    mode: str | None = None
    db: str | None = None
    progress: Callable[[int, int], None] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


KINDS: dict[str, str] = {
    "mobile": "robotsim.scenario.runner:run_mobile_kind",
    "hand_ball_transfer": "robotsim.scenario.runner:run_hand_kind",
}


def runner_for(kind: object, source: str) -> Callable[[dict[str, Any], str, RunOptions], dict]:
    if not isinstance(kind, str) or kind not in KINDS:
        shown = "missing" if kind is None else repr(kind)
        raise ScenarioError(
            f"{source}: kind: {shown} is not a scenario kind; valid: {', '.join(KINDS)}"
        )
    module, func = KINDS[kind].split(":")
    return getattr(importlib.import_module(module), func)
