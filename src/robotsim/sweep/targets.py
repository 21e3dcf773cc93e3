"""Base scenarios of a sweep: finding them (file or name); checking a patched copy and
running it are :mod:`robotsim.scenario.any_kind`'s (re-exported here)."""

from __future__ import annotations

from pathlib import Path

from robotsim.errors import ScenarioError
from robotsim.scenario.any_kind import run_base as run_base
from robotsim.scenario.any_kind import run_clearance as run_clearance
from robotsim.scenario.any_kind import validate_base as validate_base

__all__ = ["resolve_base", "run_base", "run_clearance", "validate_base"]


def resolve_base(base: str, sweep_file: Path) -> Path:
    """``base:`` -> a scenario file: a path relative to the sweep file, a path, or the
    name of a shipped scenario (``soccer_obstacles``, :mod:`robotsim.shipped`)."""
    from robotsim.shipped import find_shipped, shipped_names

    for cand in (sweep_file.parent / base, Path(base)):
        if cand.is_file():
            return cand.resolve()
    found = find_shipped(base, "scenario")
    if found is not None:
        return found
    raise ScenarioError(
        f"{sweep_file}: base: {base!r} is neither a scenario file nor a shipped scenario; "
        f"valid names: {', '.join(shipped_names('scenario')) or '(none)'}"
    )
