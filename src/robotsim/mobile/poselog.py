"""The robots' poses at every control tick of a mobile run, in bounded memory.

:class:`PoseLog` is a :class:`~robotsim.mobile.ticklog.TickLog` of one row per tick,
``(x, y, theta)`` per robot. While the run is short enough to hold (every usual run:
:data:`~robotsim.mobile.ticklog.HOLD` ticks, 21.8 min at 50 Hz), the results and plots
come from the whole arrays, exactly as they always did. A longer run folds: per robot,
its path length, overshoot and per-axis overshoot are carried block by block
(:class:`~robotsim.mobile.metrics.PathStats`), and the map and the step-response plot
draw an :class:`~robotsim.mobile.ticklog.Envelope` of the path (per bucket of ticks the
first and last pose and those where x, y or theta is smallest or largest), so a run of
hours holds the same memory as one of minutes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from robotsim.mobile.metrics import (
    PathStats,
    axis_overshoot_pct,
    normalised_response,
    overshoot,
    path_length,
)
from robotsim.mobile.ticklog import BUCKETS, Envelope, TickLog, held_bytes

__all__ = ["PoseLog"]


class PoseLog:
    """Poses of ``len(starts)`` robots per control tick (module docs); ``starts`` and
    ``goals`` ``(3,)`` per robot (m, rad) are those the results are measured against."""

    def __init__(
        self,
        starts: Sequence[np.ndarray],
        goals: Sequence[np.ndarray],
        hold: int | None = None,
    ) -> None:
        self.starts = [np.asarray(s, dtype=np.float64) for s in starts]
        self.goals = [np.asarray(g, dtype=np.float64) for g in goals]
        n = self.robots = len(self.starts)
        self.stats = [PathStats(s, g) for s, g in zip(self.starts, self.goals)]
        self.envelopes = [Envelope(3) for _ in range(n)]
        self.log = TickLog(3 * n, self._fold, hold)

    @staticmethod
    def held_bytes(robots: int, hold: int | None = None) -> int:
        """The most a log of ``robots`` robots holds (bytes), whatever the run's length
        (the envelopes add at most BUCKETS buckets of 8 poses per robot)."""
        return held_bytes(3 * robots, hold) + robots * BUCKETS * 8 * 40

    def __len__(self) -> int:
        return len(self.log)

    @property
    def folded(self) -> bool:
        """True once the run is too long to hold: results are carried, plots enveloped."""
        return self.log.folded

    def add(self, t: float, row: list[float]) -> None:
        """The tick at time ``t`` (s): ``row`` is ``x, y, theta`` of every robot."""
        self.log.add(t, row)

    def _fold(self, times: np.ndarray, rows: np.ndarray) -> None:
        for i in range(self.robots):
            st = self.stats[i]
            st.add(rows[:, 3 * i : 3 * i + 3])
            self.envelopes[i].add(times, st.unwrapped)

    # ------------------------------------------------------------- reading
    def poses(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Robot ``i``'s times ``(K,)`` (s) and poses ``(K, 3)``: every tick while held;
        once folded, the envelope (theta unwrapped)."""
        if self.log.folded:
            self.log.sync()
            env = self.envelopes[i]
            return env.times.copy(), env.values.copy()
        t, rows = self.log.arrays()
        return t, rows[:, 3 * i : 3 * i + 3]

    def path(self, i: int) -> np.ndarray:
        """Robot ``i``'s path ``(K, 2)`` (m) as the map draws it (its start if no tick)."""
        _, p = self.poses(i)
        return p[:, :2] if len(p) else self.starts[i][None, :2]

    def response(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Robot ``i``'s step response: times ``(K,)`` (s) and the normalised poses
        ``(K, 3)`` (:func:`~robotsim.mobile.metrics.normalised_response`)."""
        t, p = self.poses(i)
        r = normalised_response(p, self.starts[i], self.goals[i], unwrap=not self.folded)
        return t, r

    def metrics(self, i: int) -> dict[str, Any]:
        """Robot ``i``'s ``path_length`` (m), ``overshoot`` (m) and ``overshoot_pct``."""
        start, goal = self.starts[i], self.goals[i]
        if self.log.folded:
            self.log.sync()
            st = self.stats[i]
            return {
                "path_length": st.length,
                "overshoot": st.overshoot(),
                "overshoot_pct": st.axis_overshoot_pct(),
            }
        _, poses = self.poses(i)
        if not len(poses):
            poses = start[None, :]
        return {
            "path_length": path_length(poses[:, :2]),
            "overshoot": overshoot(poses[:, :2], start, goal),
            "overshoot_pct": axis_overshoot_pct(poses, start, goal),
        }
