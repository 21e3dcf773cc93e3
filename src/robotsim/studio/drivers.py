"""What moves the robots while the studio plays.

A driver advances the robots by one simulation step. The studio owns one active driver
and the factories its Drive menu offers (``Studio(drivers=...)``, ``add_driver``); a
scenario's opener hands its driver to ``Studio.load_scene``. A driver may have
``attach(studio)``: called once when its scene loads, to draw what it shows and put the
robots in their first state. The built-in :class:`PoseTour` moves each robot smoothly
through its named poses (or a gentle sweep of every joint when it has none), so
"play" shows something on any robot.

A driver whose runs can be scrubbed (a time slider) also has ``recorded_end() -> float``,
the latest time (s) it can show without simulating further (the whole run for a
precomputed one, the last simulated tick for a live one), and ``show_at(studio, t)``,
which shows the state at a time ``t <= recorded_end()``; its ``step`` replays recorded
times the same way and simulates only beyond them. :class:`FrameLog` is the per-tick
recording the live drivers keep.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING, Any

import numpy as np

from robotsim.studio.interface import Driver

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["Driver", "FrameLog", "PoseTour", "recorded_end"]


def recorded_end(driver: object) -> float | None:
    """``driver.recorded_end()`` if the driver can be scrubbed, else None."""
    end = getattr(driver, "recorded_end", None)
    if end is None or not callable(getattr(driver, "show_at", None)):
        return None
    return float(end())


class FrameLog:
    """What a live driver showed at each tick, to show it again: ``add(t, frame)``
    appends the frame of time ``t`` (s, increasing); ``at(t)`` returns the frame of the
    latest recorded time not after ``t`` (the first one before it)."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.frames: list[Any] = []

    def __len__(self) -> int:
        return len(self.times)

    @property
    def end(self) -> float:
        """The last recorded time (s); 0 when empty."""
        return self.times[-1] if self.times else 0.0

    def add(self, t: float, frame: Any) -> None:
        if self.times and t <= self.times[-1] + 1e-12:
            raise ValueError(f"frame time {t} s is not after the last one ({self.times[-1]} s)")
        self.times.append(float(t))
        self.frames.append(frame)

    def covers(self, t: float) -> bool:
        """Is time ``t`` (s) inside the recording?"""
        return bool(self.times) and t <= self.times[-1] + 1e-9

    def at(self, t: float) -> Any:
        if not self.times:
            raise ValueError("nothing recorded yet")
        i = bisect.bisect_right(self.times, float(t) + 1e-9) - 1
        return self.frames[max(i, 0)]

    def clear(self) -> None:
        self.times.clear()
        self.frames.clear()


class PoseTour:
    """Each robot blends from its start pose through its named poses and back, with a
    cosine ease, ``seconds_per_pose`` per leg."""

    name = "pose tour"

    def __init__(self, seconds_per_pose: float = 2.0) -> None:
        self.seconds_per_pose = seconds_per_pose
        self._legs: dict[str, list[np.ndarray]] = {}

    def reset(self, studio: Studio) -> None:
        self._legs.clear()

    def _waypoints(self, studio: Studio, robot: str) -> list[np.ndarray]:
        if robot not in self._legs:
            view = studio.robot(robot)
            m = view.model
            start = view.initial_q.copy()
            poses = [m.pose(p) for p in m.poses]
            poses = [p for p in poses if not np.allclose(p, start)]
            if not poses:
                lo = np.where(np.isfinite(m.lower), m.lower, -np.pi)
                hi = np.where(np.isfinite(m.upper), m.upper, np.pi)
                amp = np.minimum(0.5, 0.4 * (hi - lo))
                poses = [np.clip(start + amp, lo, hi), np.clip(start - amp, lo, hi)]
            self._legs[robot] = [start, *poses]
        return self._legs[robot]

    def step(self, studio: Studio, t: float, dt: float) -> None:
        for name, view in studio.views():
            wps = self._waypoints(studio, name)
            if view.model.nq == 0:
                continue
            leg_f = t / self.seconds_per_pose
            k = int(np.floor(leg_f)) % len(wps)
            s = leg_f - np.floor(leg_f)
            a, b = wps[k], wps[(k + 1) % len(wps)]
            w = 0.5 - 0.5 * np.cos(np.pi * s)
            view.set_q(a + w * (b - a))
