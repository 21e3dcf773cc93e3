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
recording the live drivers keep, bounded by a share of the memory budget (past it, it
keeps every second frame: the whole run stays scrubbable, at a coarser resolution).
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING, Any

import numpy as np

from robotsim.studio.interface import Driver

if TYPE_CHECKING:
    from robotsim.studio.interface import StudioAPI as Studio

__all__ = ["FRAME_LOG_SHARE", "Driver", "FrameLog", "PoseTour", "frame_bytes", "recorded_end"]


def recorded_end(driver: object) -> float | None:
    """``driver.recorded_end()`` if the driver can be scrubbed, else None."""
    end = getattr(driver, "recorded_end", None)
    if end is None or not callable(getattr(driver, "show_at", None)):
        return None
    return float(end())


#: The share of the memory budget (:mod:`robotsim.budget`) a :class:`FrameLog` may take.
FRAME_LOG_SHARE = 8


def frame_bytes(frame: Any) -> int:
    """About how many bytes ``frame`` holds: its NumPy arrays' data and some overhead
    per object (dicts, tuples and lists of them are walked)."""
    if isinstance(frame, np.ndarray):
        return int(frame.nbytes) + 112
    if isinstance(frame, dict):
        return 64 + sum(frame_bytes(v) + 56 for v in frame.values())
    if isinstance(frame, tuple | list):
        return 56 + sum(frame_bytes(v) + 8 for v in frame)
    return 32


class FrameLog:
    """What a live driver showed at each tick, to show it again: ``add(t, frame)``
    appends the frame of time ``t`` (s, increasing); ``at(t)`` returns the frame of the
    latest recorded time not after ``t`` (the first one before it).

    The log is bounded: past ``max_bytes`` (default: an eighth of the memory budget,
    256 MB of the default 2 GB) it thins itself, keeping every second frame, and from
    then on records only every ``stride``-th tick (the stride doubles at each thinning),
    so a studio left playing for hours stays scrubbable over the whole run at a coarser
    resolution. The time slider then still spans the whole run, and a time ``t`` shows
    the recorded frame at or just before it: at most ``stride - 1`` ticks earlier
    (:attr:`resolution` seconds, about); the latest tick is always kept exactly, and a
    Play after a scrub replays at that resolution up to the latest tick."""

    def __init__(self, max_bytes: int | None = None) -> None:
        if max_bytes is None:
            from robotsim import budget

            max_bytes = budget.current_budget() // FRAME_LOG_SHARE
        self.max_bytes = int(max_bytes)
        self.times: list[float] = []
        self.frames: list[Any] = []
        self._index: list[int] = []  # the tick number of each kept frame
        self._bytes: list[int] = []
        self.nbytes = 0  # the kept frames' size, about
        self.stride = 1  # ticks between kept frames (the latest is always kept)
        self.count = 0  # frames added

    def __len__(self) -> int:
        return len(self.times)

    @property
    def end(self) -> float:
        """The last recorded time (s); 0 when empty."""
        return self.times[-1] if self.times else 0.0

    @property
    def resolution(self) -> float:
        """The largest gap (s) between two kept frames (0 while fewer than two)."""
        if len(self.times) < 2:
            return 0.0
        return float(np.max(np.diff(self.times)))

    def add(self, t: float, frame: Any) -> None:
        if self.times and t <= self.times[-1] + 1e-12:
            raise ValueError(f"frame time {t} s is not after the last one ({self.times[-1]} s)")
        if self._index and self._index[-1] % self.stride:
            self._pop()  # the latest frame was kept only for being the latest
        size = frame_bytes(frame)
        self.times.append(float(t))
        self.frames.append(frame)
        self._index.append(self.count)
        self._bytes.append(size)
        self.nbytes += size
        self.count += 1
        while self.nbytes > self.max_bytes and len(self.times) > 2:
            self._thin()

    def _pop(self) -> None:
        self.times.pop()
        self.frames.pop()
        self._index.pop()
        self.nbytes -= self._bytes.pop()

    def _thin(self) -> None:
        """Keep every second kept frame (and the latest): the stride doubles."""
        self.stride *= 2
        last = len(self.times) - 1
        keep = [k for k, i in enumerate(self._index) if i % self.stride == 0 or k == last]
        self.times = [self.times[k] for k in keep]
        self.frames = [self.frames[k] for k in keep]
        self._index = [self._index[k] for k in keep]
        self._bytes = [self._bytes[k] for k in keep]
        self.nbytes = sum(self._bytes)

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
        self._index.clear()
        self._bytes.clear()
        self.nbytes, self.stride, self.count = 0, 1, 0


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
