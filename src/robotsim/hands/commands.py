"""Commands for one arm per tick: joint velocities by role, open/close, speed step.

This is what a gamepad (or the keyboard, or a script) produces; both simulation modes
consume it. Rates are fractions of the speed step in [-1, 1], so a half-pushed stick
moves a joint at half speed; the speed step is the paper's ``m_speed`` as a velocity
(the input mapping's ``speed_levels``, stepped with the speed buttons).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from robotsim.errors import InputError
from robotsim.hands.layout import ARM_ROLES

__all__ = ["ArmCommand", "Grip"]


class Grip(enum.IntEnum):
    """The two hand buttons: close (the paper's button 2), open (button 3), or neither."""

    OPEN = -1
    HOLD = 0
    CLOSE = 1


@dataclass(frozen=True)
class ArmCommand:
    """One arm's command for one tick.

    Attributes:
        rates: arm role (:data:`ARM_ROLES`) -> fraction of ``speed`` in [-1, 1].
        grip: close, open or hold the three fingers (they move together).
        speed: joint speed step (rad/s) for the arm and the fingers.
    """

    rates: Mapping[str, float] = field(default_factory=dict)
    grip: Grip = Grip.HOLD
    speed: float = np.radians(45.0)

    def __post_init__(self) -> None:
        for role, r in self.rates.items():
            if role not in ARM_ROLES:
                raise InputError(f"arm command: unknown joint role {role!r}; valid: {ARM_ROLES}")
            if not np.isfinite(r) or abs(r) > 1.0 + 1e-12:
                raise InputError(f"arm command: rate of {role!r} must be in [-1, 1], got {r}")
        if not np.isfinite(self.speed) or self.speed < 0:
            raise InputError(f"arm command: speed must be >= 0 rad/s, got {self.speed}")
        object.__setattr__(self, "grip", Grip(self.grip))

    @property
    def idle(self) -> bool:
        return self.grip is Grip.HOLD and not any(self.rates.values())
