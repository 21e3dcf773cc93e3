"""Per-robot results of a mobile run, from sampled poses (pure NumPy)."""

from __future__ import annotations

import numpy as np

__all__ = ["axis_overshoot_pct", "normalised_response", "overshoot", "path_length"]


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


def normalised_response(poses: np.ndarray, start: np.ndarray, goal: np.ndarray) -> np.ndarray:
    """``(K, 3)`` poses -> each axis scaled so start = 0 and goal = 1 (the paper's figure
    5); axes whose goal equals their start stay in metres/radians offsets (0 = start)."""
    p = np.array(poses, dtype=np.float64)
    p[:, 2] = np.unwrap(p[:, 2])
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
