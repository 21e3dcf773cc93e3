"""The physics timestep: one default, one range and one way to check it, for every
capability that steps MuJoCo (scenes, mobile runs, hands, the motion physics check).

A capability whose contacts need a finer step declares a tighter upper bound with
:func:`timestep_field`/:func:`check_timestep` (``max_s``), never its own rule.
"""

from __future__ import annotations

from typing import Any

from robotsim.errors import InputError

__all__ = [
    "DEFAULT_TIMESTEP",
    "HANDS_MAX_TIMESTEP",
    "MAX_TIMESTEP",
    "MOBILE_MAX_TIMESTEP",
    "check_timestep",
    "timestep_field",
]

DEFAULT_TIMESTEP = 0.002
"""s: MuJoCo's own default step."""
MAX_TIMESTEP = 0.05
"""s: the longest step any scene accepts."""
MOBILE_MAX_TIMESTEP = 0.02
"""s: wheeled robots on a field (wheel contacts chatter above this)."""
HANDS_MAX_TIMESTEP = 0.01
"""s: fingers grasping a ball (light phalanges, stiff couplings)."""


def check_timestep(value: float, where: str = "timestep", max_s: float = MAX_TIMESTEP) -> float:
    """``value`` (s) if it is in ``(0, max_s]``; :class:`InputError` naming ``where``."""
    v = float(value)
    if not 0 < v <= max_s:
        raise InputError(f"{where} {value!r}: must be in (0, {max_s:g}] s")
    return v


def timestep_field(max_s: float = MAX_TIMESTEP, default: float = DEFAULT_TIMESTEP) -> Any:
    """A pydantic field for a file's ``timestep`` (s): ``(0, max_s]``."""
    from pydantic import Field

    return Field(default, gt=0, le=max_s, description="physics step, s")
