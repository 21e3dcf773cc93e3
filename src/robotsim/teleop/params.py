"""Simulation and model parameters changed live from the gamepad or keyboard.

The mobile-robot paper (seed 002, section 1 (6)) lets the user enter "control
information, model parameters and simulation parameters" from the gamepad and the
keyboard; the arm paper sets the control step ``m_speed`` from the gamepad. Besides the
speed step (``speed_up``/``speed_down``, :class:`robotsim.teleop.Mapper`), these
actions change, one press one step:

===================  ==============  =============  ====================================
actions              parameter       step           what it changes
===================  ==============  =============  ====================================
time_faster/slower   ``time_scale``  x2 / ÷2        simulated seconds per wall second
                                                    (1/8 .. 8)
gain_up/down         ``gain_scale``  x1.25 / ÷1.25  the controllers' gains: servo
                                                    stiffness kp and damping kd
                                                    (0.25 .. 4)
max_speed_up/down    ``max_speed``   x1.25 / ÷1.25  joint speed and base velocity limits
                     ``_scale``                     (0.25 .. 4)
===================  ==============  =============  ====================================

Every parameter starts at 1 (the model's and scenario's own values). Consumers read
:class:`LiveParameters` (the studio shows :meth:`LiveParameters.status`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["PARAM_ACTIONS", "LiveParameters", "ParamStep"]


@dataclass(frozen=True)
class ParamStep:
    """One parameter: multiplied by ``factor`` per press (divided for the down action),
    held within ``[lo, hi]``."""

    name: str
    factor: float
    lo: float
    hi: float


_STEPS = {
    "time_scale": ParamStep("time_scale", 2.0, 0.125, 8.0),
    "gain_scale": ParamStep("gain_scale", 1.25, 0.25, 4.0),
    "max_speed_scale": ParamStep("max_speed_scale", 1.25, 0.25, 4.0),
}
# action -> (parameter, +1 up / -1 down)
PARAM_ACTIONS: dict[str, tuple[str, int]] = {
    "time_faster": ("time_scale", 1),
    "time_slower": ("time_scale", -1),
    "gain_up": ("gain_scale", 1),
    "gain_down": ("gain_scale", -1),
    "max_speed_up": ("max_speed_scale", 1),
    "max_speed_down": ("max_speed_scale", -1),
}


class LiveParameters:
    """The live values (all start at 1); several devices may share one instance.

    Attributes:
        time_scale: simulated s per wall s; gain_scale: factor on controller gains;
        max_speed_scale: factor on joint speeds and base velocity limits.
        changes: how many presses changed a value (consumers re-apply when it moves).
    """

    def __init__(self) -> None:
        self.time_scale = 1.0
        self.gain_scale = 1.0
        self.max_speed_scale = 1.0
        self.changes = 0

    def apply(self, pressed: Iterable[str]) -> tuple[str, ...]:
        """Apply the parameter actions among ``pressed`` (edges); returns the names
        of the parameters that changed (a press at a bound changes nothing)."""
        changed = []
        for action in sorted(set(pressed) & set(PARAM_ACTIONS)):
            name, sign = PARAM_ACTIONS[action]
            step = _STEPS[name]
            old = getattr(self, name)
            new = min(step.hi, max(step.lo, old * step.factor**sign))
            if abs(new - old) > 1e-12:
                setattr(self, name, new)
                changed.append(name)
        self.changes += len(changed)
        return tuple(changed)

    def as_dict(self) -> dict[str, float]:
        return {n: float(getattr(self, n)) for n in _STEPS}

    def status(self) -> str:
        """One line: ``time ×2 · gains ×1.25 · max speed ×0.8``."""
        return (f"time ×{self.time_scale:.3g} · gains ×{self.gain_scale:.3g} · "
                f"max speed ×{self.max_speed_scale:.3g}")  # fmt: skip
