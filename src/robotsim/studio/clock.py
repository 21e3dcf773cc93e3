"""The studio's simulation clock: play, pause, single steps, the time scale and the
real-time factor.

Simulation time advances by a fixed ``dt`` per tick (deterministic, whatever the wall
clock does). While playing, :meth:`SimClock.due` says how many ticks the wall time
since its last call asks for: ``time_scale`` simulated seconds per wall second (the
live parameter of :mod:`robotsim.teleop.params`, 1/8 .. 8), the fraction carried to
the next call, so at 2 two ticks run per ``dt`` of wall time and at 0.5 one every
other ``dt``. A loop woken late (a loaded machine's scheduler, a page's request
served in between) runs the ticks it owes, up to :attr:`SimClock.catch_up` (1 s) of
wall time, so the simulation keeps the wall clock; a loop that stalled for longer does
not catch up in a burst (then at most ``ceil(time_scale) + 1`` ticks per call). The
real-time factor is simulated seconds per wall second over a sliding window.
``wall`` is the wall clock (s; tests drive their own).
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable

__all__ = ["SimClock"]


class SimClock:
    """Args:
    dt: simulation step (s).
    window: wall-time span (s) the real-time factor is averaged over.
    wall: the wall clock, seconds (default :func:`time.perf_counter`).
    """

    def __init__(
        self,
        dt: float = 1.0 / 60.0,
        window: float = 1.0,
        wall: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.dt = float(dt)
        self.t = 0.0
        self.steps = 0
        self.playing = False
        self.window = window
        self.wall = wall
        self.time_scale = 1.0
        #: wall time (s) a late loop still catches up; a longer stall is dropped
        self.catch_up = 1.0
        self._marks: deque[tuple[float, float]] = deque()
        self._owed = 0.0  # ticks asked for and not run yet (a fraction of one)
        self._last_wall: float | None = None

    def due(self) -> int:
        """Ticks to run now (see module docs); 0 while paused (the wall time paused
        does not count)."""
        now = self.wall()
        last, self._last_wall = self._last_wall, now
        if not self.playing or last is None:
            self._owed = 0.0
            return 0
        self._owed += max(0.0, now - last) * self.time_scale / self.dt
        n = int(self._owed + 1e-9)
        late = self._owed * self.dt / max(self.time_scale, 1e-12)  # s of wall time owed
        if late > self.catch_up:  # stalled: do not catch up in a burst
            n, self._owed = min(n, math.ceil(self.time_scale) + 1), 0.0
        else:
            self._owed = max(0.0, self._owed - n)
        return n

    def drop_owed(self) -> None:
        """Forget the ticks owed (the loop could not run them: a page is behind)."""
        self._owed = 0.0

    def advance(self) -> float:
        """One step: returns the new simulation time (s)."""
        self.steps += 1
        self.t = self.steps * self.dt
        now = self.wall()
        self._marks.append((now, self.t))
        while self._marks and now - self._marks[0][0] > self.window:
            self._marks.popleft()
        return self.t

    def seek(self, steps: int) -> float:
        """Jump to tick ``steps`` (time ``steps * dt``, s) without a real-time mark."""
        self.steps = max(0, int(steps))
        self.t = self.steps * self.dt
        self._marks.clear()
        return self.t

    def reset(self) -> None:
        self.t = 0.0
        self.steps = 0
        self._marks.clear()
        self._owed = 0.0

    @property
    def real_time_factor(self) -> float:
        """Simulated s per wall s over the last ``window`` (0 when paused or no data)."""
        if not self.playing or len(self._marks) < 2:
            return 0.0
        (w0, s0), (_, s1) = self._marks[0], self._marks[-1]
        now = self.wall()
        # over the wall time up to now: ticks that come in bursts (a paced loop waiting
        # for a slow page) still count, and a stalled loop falls to 0 within the window
        return (s1 - s0) / (now - w0) if now > w0 else 0.0
