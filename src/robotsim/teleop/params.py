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
level_up/down        ``speed_level`` +1 / -1        added to the speed level (1 slow ..
                     ``_shift``                     8 fast) of every keyframe of a
                                                    playing motion (-7 .. +7)
mass_up/down         ``mass_scale``  x1.25 / ÷1.25  the robots' masses and inertias
                                                    (model parameter; 0.25 .. 4)
friction_up/down     ``friction``    x1.25 / ÷1.25  the friction of the robots' contacts
                     ``_scale``                     (model parameter; 0.25 .. 4)
===================  ==============  =============  ====================================

The scales start at 1 and the level shift at 0 (the model's, scenario's and motion's
own values). Consumers read :class:`LiveParameters` (the studio shows
:meth:`LiveParameters.status`; its clock runs at ``time_scale`` and its motion playback
at the shifted levels, :meth:`LiveParameters.level`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["PARAM_ACTIONS", "SPEED_LEVELS", "LiveParameters", "ParamStep"]


@dataclass(frozen=True)
class ParamStep:
    """One parameter: multiplied by ``factor`` per press (divided for the down action),
    or with ``additive`` increased by it (decreased), held within ``[lo, hi]``;
    ``start`` is its value before any press."""

    name: str
    factor: float
    lo: float
    hi: float
    additive: bool = False
    start: float = 1.0

    def stepped(self, value: float, sign: int) -> float:
        """``value`` after one press (``sign`` +1 up, -1 down), within the bounds."""
        new = value + sign * self.factor if self.additive else value * self.factor**sign
        return min(self.hi, max(self.lo, new))


SPEED_LEVELS = (1, 8)  # the motion files' speed levels (robotsim.motion.schema), slow .. fast
_STEPS = {
    "time_scale": ParamStep("time_scale", 2.0, 0.125, 8.0),
    "gain_scale": ParamStep("gain_scale", 1.25, 0.25, 4.0),
    "max_speed_scale": ParamStep("max_speed_scale", 1.25, 0.25, 4.0),
    "speed_level_shift": ParamStep("speed_level_shift", 1.0, -7.0, 7.0, additive=True, start=0.0),
    "mass_scale": ParamStep("mass_scale", 1.25, 0.25, 4.0),
    "friction_scale": ParamStep("friction_scale", 1.25, 0.25, 4.0),
}
# action -> (parameter, +1 up / -1 down)
PARAM_ACTIONS: dict[str, tuple[str, int]] = {
    "time_faster": ("time_scale", 1),
    "time_slower": ("time_scale", -1),
    "gain_up": ("gain_scale", 1),
    "gain_down": ("gain_scale", -1),
    "max_speed_up": ("max_speed_scale", 1),
    "max_speed_down": ("max_speed_scale", -1),
    "level_up": ("speed_level_shift", 1),
    "level_down": ("speed_level_shift", -1),
    "mass_up": ("mass_scale", 1),
    "mass_down": ("mass_scale", -1),
    "friction_up": ("friction_scale", 1),
    "friction_down": ("friction_scale", -1),
}


class LiveParameters:
    """The live values; several devices (and the studio) may share one instance.

    Attributes:
        time_scale: simulated s per wall s; gain_scale: factor on controller gains;
        max_speed_scale: factor on joint speeds and base velocity limits;
        speed_level_shift: levels added to a playing motion's keyframe speed levels;
        mass_scale, friction_scale: factors on the robots' masses and contact friction.
        changes: how many presses changed a value (consumers re-apply when it moves).
    """

    def __init__(self) -> None:
        self.time_scale = 1.0
        self.gain_scale = 1.0
        self.max_speed_scale = 1.0
        self.speed_level_shift = 0.0
        self.mass_scale = 1.0
        self.friction_scale = 1.0
        self.changes = 0

    def level(self, level: int) -> int:
        """A keyframe's speed level (1 slow .. 8 fast) with the live shift applied,
        held within 1 .. 8."""
        lo, hi = SPEED_LEVELS
        return int(min(hi, max(lo, int(level) + round(self.speed_level_shift))))

    def apply(self, pressed: Iterable[str]) -> tuple[str, ...]:
        """Apply the parameter actions among ``pressed`` (edges); returns the names
        of the parameters that changed (a press at a bound changes nothing)."""
        changed = []
        for action in sorted(set(pressed) & set(PARAM_ACTIONS)):
            name, sign = PARAM_ACTIONS[action]
            step = _STEPS[name]
            old = getattr(self, name)
            new = step.stepped(old, sign)
            if abs(new - old) > 1e-12:
                setattr(self, name, new)
                changed.append(name)
        self.changes += len(changed)
        return tuple(changed)

    def as_dict(self) -> dict[str, float]:
        return {n: float(getattr(self, n)) for n in _STEPS}

    def status(self) -> str:
        """One line: ``time ×2 · gains ×1.25 · max speed ×0.8 · speed level +1``, then
        the model parameters when they moved (``· mass ×1.25 · friction ×0.8``)."""
        line = (f"time ×{self.time_scale:.3g} · gains ×{self.gain_scale:.3g} · "
                f"max speed ×{self.max_speed_scale:.3g} · "
                f"speed level {round(self.speed_level_shift):+d}")  # fmt: skip
        if self.mass_scale != 1.0:
            line += f" · mass ×{self.mass_scale:.3g}"
        if self.friction_scale != 1.0:
            line += f" · friction ×{self.friction_scale:.3g}"
        return line
