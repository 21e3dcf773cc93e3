"""What the input devices produce each tick: a :class:`TeleopCommand`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["TeleopCommand"]


@dataclass(frozen=True)
class TeleopCommand:
    """One tick of teleoperation commands from one device (or a merged set).

    Attributes:
        joint_rates: joint name -> rate in [-1, 1] (a fraction of ``speed``).
        base_rates: ``(vx, vy, omega)`` rates in [-1, 1].
        grip: +1 close (grasp held), -1 open (release held), 0 neither/both.
        speed: the current joint speed step (rad/s) — the arm paper's ``m_speed``.
        speed_index: index of that step in the mapping's ``speed_levels``.
        base_max: ``(vx, vy, omega)`` at rate 1 and the starting speed step
            (m/s, m/s, rad/s).
        base_scale: current speed step / starting speed step (scales the base).
        pressed: actions that went down this tick (edges): grasp, release, speed_up,
            speed_down, switch and the parameter actions.
        time_scale, gain_scale, max_speed_scale, speed_level_shift: the live
            parameters (:mod:`robotsim.teleop.params`); the velocities below include
            ``max_speed_scale``.
    """

    joint_rates: Mapping[str, float] = field(default_factory=dict)
    base_rates: tuple[float, float, float] = (0.0, 0.0, 0.0)
    grip: int = 0
    speed: float = 0.0
    speed_index: int = 0
    base_max: tuple[float, float, float] = (0.0, 0.0, 0.0)
    base_scale: float = 1.0
    pressed: frozenset[str] = frozenset()
    time_scale: float = 1.0
    gain_scale: float = 1.0
    max_speed_scale: float = 1.0
    speed_level_shift: int = 0

    @property
    def joint_velocities(self) -> dict[str, float]:
        """Joint name -> velocity (rad/s or m/s): rate x speed step x max speed scale."""
        return {n: r * self.speed * self.max_speed_scale for n, r in self.joint_rates.items()}

    @property
    def base_velocity(self) -> tuple[float, float, float]:
        """``(vx, vy, omega)`` in m/s, m/s, rad/s in the robot's base frame."""
        k = self.base_scale * self.max_speed_scale
        return tuple(r * m * k for r, m in zip(self.base_rates, self.base_max))  # type: ignore[return-value]

    @property
    def idle(self) -> bool:
        return self.grip == 0 and not any(self.joint_rates.values()) and not any(self.base_rates)
