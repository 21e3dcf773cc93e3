"""Path following: a carrot (pure-pursuit look-ahead point) on a polyline of waypoints."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import InputError

__all__ = ["PathFollower"]


@dataclass
class PathFollower:
    """Follows ``waypoints`` ``(N, 2)`` (m, world): :meth:`target` returns the point
    ``lookahead`` metres ahead of the robot's projection on the path; progress never
    goes backwards, so a path that crosses itself is followed in order."""

    waypoints: np.ndarray
    lookahead: float = 0.8
    _s: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        w = np.asarray(self.waypoints, dtype=np.float64)
        if w.ndim != 2 or w.shape[1] != 2 or len(w) < 1:
            raise InputError(f"path waypoints must be (N, 2) with N >= 1, got {w.shape}")
        self.waypoints = w
        seg = np.diff(w, axis=0)
        self._len = np.linalg.norm(seg, axis=1)
        self._cum = np.concatenate([[0.0], np.cumsum(self._len)])

    @property
    def length(self) -> float:
        return float(self._cum[-1])

    def point_at(self, s: float) -> np.ndarray:
        """The point at arc length ``s`` (clamped to the path)."""
        s = float(np.clip(s, 0.0, self.length))
        if len(self.waypoints) == 1:
            return self.waypoints[0].copy()
        i = int(np.clip(np.searchsorted(self._cum, s, side="right") - 1, 0, len(self._len) - 1))
        t = 0.0 if self._len[i] == 0 else (s - self._cum[i]) / self._len[i]
        return self.waypoints[i] + t * (self.waypoints[i + 1] - self.waypoints[i])

    def project(self, position: ArrayLike) -> float:
        """Arc length of the closest path point at or after the current progress."""
        p = np.asarray(position, dtype=np.float64)[:2]
        best, best_d = self._s, np.inf
        for i in range(len(self._len)):
            if self._cum[i + 1] < self._s:
                continue
            a, b = self.waypoints[i], self.waypoints[i + 1]
            ab = b - a
            t = 0.0 if self._len[i] == 0 else float(np.clip((p - a) @ ab / (ab @ ab), 0, 1))
            d = float(np.linalg.norm(a + t * ab - p))
            s = self._cum[i] + t * self._len[i]
            if d < best_d - 1e-9 and s >= self._s - 1e-9:
                best, best_d = s, d
        self._s = max(self._s, best)
        return self._s

    def target(self, position: ArrayLike) -> np.ndarray:
        return self.point_at(self.project(position) + self.lookahead)

    def reset(self) -> None:
        self._s = 0.0
