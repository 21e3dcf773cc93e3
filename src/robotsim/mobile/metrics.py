"""Per-robot results of a mobile run, from sampled poses (pure NumPy): from the whole
run's poses, or block by block (:class:`PathStats`) for a run too long to hold."""

from __future__ import annotations

import numpy as np

__all__ = [
    "PathStats",
    "axis_overshoot_pct",
    "normalised_response",
    "overshoot",
    "path_length",
]


def path_length(xy: np.ndarray) -> float:
    """Length (m) of the polyline ``xy`` ``(K, 2)``."""
    if len(xy) < 2:
        return 0.0
    return float(np.linalg.norm(np.diff(xy, axis=0), axis=1).sum())


def overshoot(xy: np.ndarray, start: np.ndarray, goal: np.ndarray) -> float:
    """How far (m) the robot went past the goal along the start->goal direction (>= 0)."""
    d = np.asarray(goal[:2], float) - np.asarray(start[:2], float)
    n = float(np.linalg.norm(d))
    if n < 1e-9 or len(xy) == 0:
        return 0.0
    proj = (xy - goal[:2]) @ (d / n)
    return float(max(0.0, proj.max()))


def normalised_response(
    poses: np.ndarray, start: np.ndarray, goal: np.ndarray, unwrap: bool = True
) -> np.ndarray:
    """``(K, 3)`` poses -> each axis scaled so start = 0 and goal = 1 (the paper's figure
    5); axes whose goal equals their start stay in metres/radians offsets (0 = start).
    ``unwrap=False``: theta is unwrapped already (poses picked out of a longer run)."""
    p = np.array(poses, dtype=np.float64)
    if unwrap:
        p[:, 2] = np.unwrap(p[:, 2])
    return _scaled(p, start, goal)


def _scaled(p: np.ndarray, start: np.ndarray, goal: np.ndarray) -> np.ndarray:
    """Poses ``(K, 3)`` (theta unwrapped) scaled as :func:`normalised_response` does."""
    out = np.zeros_like(p)
    for a in range(3):
        span = goal[a] - start[a]
        out[:, a] = (p[:, a] - start[a]) / span if abs(span) > 1e-9 else p[:, a] - start[a]
    return out


def axis_overshoot_pct(poses: np.ndarray, start: np.ndarray, goal: np.ndarray) -> dict[str, float]:
    """Per-axis overshoot of the normalised response, percent (0 when none)."""
    r = normalised_response(poses, start, goal)
    out = {}
    for a, name in enumerate(("x", "y", "theta")):
        if abs(goal[a] - start[a]) > 1e-9:
            out[name] = float(max(0.0, r[:, a].max() - 1.0) * 100.0)
    return out


class PathStats:
    """:func:`path_length`, :func:`overshoot` and :func:`axis_overshoot_pct` of one
    robot's poses, computed block by block (a long run that is no longer held): the
    same values up to rounding (sums run block by block; theta is unwrapped across
    blocks). ``unwrapped`` holds the last block's poses with theta unwrapped."""

    def __init__(self, start: np.ndarray, goal: np.ndarray) -> None:
        self.start = np.asarray(start, dtype=np.float64)
        self.goal = np.asarray(goal, dtype=np.float64)
        self.length = 0.0
        self._last: np.ndarray | None = None  # the last pose, theta unwrapped
        self._last_raw = 0.0  # its theta as sampled
        self._proj_max = -np.inf
        self._resp_max = np.full(3, -np.inf)
        self.unwrapped = np.zeros((0, 3))

    def add(self, poses: np.ndarray) -> None:
        """The next poses ``(m, 3)`` (x, y, theta) in tick order."""
        p = np.array(poses, dtype=np.float64)
        if len(p) == 0:
            return
        raw = p[:, 2].copy()
        if self._last is None:
            p[:, 2] = np.unwrap(raw)
        else:  # unwrap as np.unwrap would over the whole run
            th = np.unwrap(np.concatenate([[self._last_raw], raw]))
            p[:, 2] = th[1:] - th[0] + self._last[2]
            self.length += float(np.hypot(*(p[0, :2] - self._last[:2])))
        self.length += path_length(p[:, :2])
        d = self.goal[:2] - self.start[:2]
        n = float(np.linalg.norm(d))
        if n >= 1e-9:
            proj = (p[:, :2] - self.goal[:2]) @ (d / n)
            self._proj_max = max(self._proj_max, float(proj.max()))
        self._resp_max = np.maximum(self._resp_max, _scaled(p, self.start, self.goal).max(axis=0))
        self._last, self._last_raw = p[-1].copy(), float(raw[-1])
        self.unwrapped = p

    def overshoot(self) -> float:
        return max(0.0, self._proj_max) if np.isfinite(self._proj_max) else 0.0

    def axis_overshoot_pct(self) -> dict[str, float]:
        out = {}
        for a, name in enumerate(("x", "y", "theta")):
            if abs(self.goal[a] - self.start[a]) > 1e-9:
                out[name] = float(max(0.0, self._resp_max[a] - 1.0) * 100.0)
        return out
