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
    "MIN_TIMESTEP",
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


#: The smallest physics step (s): a step of 1e-320 s makes ``check_interval / step``
#: infinite (an OverflowError, not an error naming the field); a step this small is
#: already refused by the work budget for any real duration.
MIN_TIMESTEP = 1.0e-12


def check_timestep(value: float, where: str = "timestep", max_s: float = MAX_TIMESTEP) -> float:
    """``value`` (s) if it is in ``[MIN_TIMESTEP, max_s]``; :class:`InputError` naming
    ``where``."""
    v = float(value)
    if not MIN_TIMESTEP <= v <= max_s:
        raise InputError(f"{where} {value!r}: must be in [{MIN_TIMESTEP:g}, {max_s:g}] s")
    return v


def timestep_field(max_s: float = MAX_TIMESTEP, default: float = DEFAULT_TIMESTEP) -> Any:
    """A pydantic field for a file's ``timestep`` (s): ``[MIN_TIMESTEP, max_s]``."""
    from pydantic import Field

    return Field(default, ge=MIN_TIMESTEP, le=max_s, description="physics step, s")
