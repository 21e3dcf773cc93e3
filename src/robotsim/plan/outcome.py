"""What a planning method returns: a change to one robot's trajectory, or why there is
none; and the time budget every method keeps."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from robotsim.clearance.trajectory import Trajectory

__all__ = ["Budget", "Change", "Outcome"]


class Budget:
    """A wall-clock budget (s): :meth:`left` seconds remain, :meth:`spent` once it is
    used up. Every planner loop checks it, so nothing runs past its budget."""

    def __init__(self, seconds: float) -> None:
        self.seconds = float(seconds)
        self.t0 = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.t0

    def left(self) -> float:
        return self.seconds - self.elapsed()

    def spent(self) -> bool:
        return self.left() <= 0.0


@dataclass(frozen=True, eq=False)
class Change:
    """One robot's new trajectory and what was changed.

    Attributes:
        robot: the robot's name; ``method``: ``"delay"``, ``"scale"`` or ``"replan"``.
        trajectory: its new trajectory.
        added_time_s: how much later its motion ends (s).
        params: the method's numbers (``delay_s``; ``scale`` and ``window_s``;
            ``waypoints``, ``nodes``, ...), as JSON values.
        lower_bound: the robot's certified smallest distance to the others (m).
    """

    robot: str
    method: str
    trajectory: Trajectory
    added_time_s: float
    params: Mapping[str, object] = field(default_factory=dict)
    lower_bound: float = float("nan")


@dataclass(frozen=True, eq=False)
class Outcome:
    """A method's result: ``change`` (None when it found none) and ``reason`` (why not,
    or what it did), ``checks``: certified pair checks it ran."""

    change: Change | None
    reason: str
    checks: int = 0
