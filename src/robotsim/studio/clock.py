"""The studio's simulation clock: play, pause, single steps and the real-time factor.

Simulation time advances by a fixed ``dt`` per tick (deterministic, whatever the wall
clock does); the loop tries to run one tick per ``dt`` of wall time. The real-time
factor is simulated seconds per wall second over a sliding window.
"""

from __future__ import annotations

import time
from collections import deque

__all__ = ["SimClock"]


class SimClock:
    """Args:
    dt: simulation step (s).
    window: wall-time span (s) the real-time factor is averaged over.
    """

    def __init__(self, dt: float = 1.0 / 60.0, window: float = 1.0) -> None:
        self.dt = float(dt)
        self.t = 0.0
        self.steps = 0
        self.playing = False
        self.window = window
        self._marks: deque[tuple[float, float]] = deque()

    def advance(self) -> float:
        """One step: returns the new simulation time (s)."""
        self.steps += 1
        self.t = self.steps * self.dt
        now = time.perf_counter()
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

    @property
    def real_time_factor(self) -> float:
        """Simulated s per wall s over the last ``window`` (0 when paused or no data)."""
        if not self.playing or len(self._marks) < 2:
            return 0.0
        (w0, s0), (_, s1) = self._marks[0], self._marks[-1]
        now = time.perf_counter()
        # over the wall time up to now: ticks that come in bursts (a paced loop waiting
        # for a slow page) still count, and a stalled loop falls to 0 within the window
        return (s1 - s0) / (now - w0) if now > w0 else 0.0
