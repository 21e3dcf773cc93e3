"""Where a video's camera looks from: the studio's framing, a fixed eye and target, or
following a robot. Each camera is a function of time ``t`` (s) -> ``(eye, target)``
(world, m)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from robotsim.export.replay import ExportError, Replay

__all__ = ["CameraPath", "camera_path", "studio_view"]

CameraPath = Callable[[float], tuple[np.ndarray, np.ndarray]]


def studio_view(bounds: np.ndarray, fovy: float) -> tuple[np.ndarray, np.ndarray]:
    """``(eye, target)`` showing the box ``bounds`` ``(2, 3)`` (m) whole, as the studio
    frames a scene (:func:`robotsim.studio.app.camera_view`: seen from the front right
    and above, from higher up for flat scenes such as a field), without its side panel;
    ``fovy`` the vertical field of view (rad)."""
    lo, hi = np.asarray(bounds, dtype=float)
    centre = 0.5 * (lo + hi)
    size = hi - lo
    radius = max(0.3, 0.5 * float(np.linalg.norm(size)))
    flat = size[2] < 0.25 * max(size[0], size[1])
    direction = np.array([1.0, -0.9, 1.4]) if flat else np.array([1.7, -0.9, 0.75])
    direction /= np.linalg.norm(direction)
    dist = 1.05 * radius / math.sin(0.5 * fovy)
    return centre + dist * direction, centre


def _robot_size(replay: Replay, name: str) -> float:
    tr = replay.track(name)
    p = tr.T_world[0, :, :3, 3]
    return max(0.3, float(np.linalg.norm(p.max(axis=0) - p.min(axis=0))))


def camera_path(replay: Replay, spec: str, fovy: float) -> CameraPath:
    """The camera ``spec`` names: ``studio``, ``follow:ROBOT`` or
    ``fixed:EX,EY,EZ,TX,TY,TZ`` (m)."""
    kind, _, arg = spec.partition(":")
    if kind == "studio" and not arg:
        eye, target = studio_view(replay.view, fovy)
        return lambda t: (eye, target)
    if kind == "fixed":
        try:
            v = [float(x) for x in arg.split(",")]
        except ValueError:
            v = []
        if len(v) != 6 or not all(math.isfinite(x) for x in v):
            raise ExportError(
                f"--camera {spec!r}: fixed needs six numbers, fixed:EX,EY,EZ,TX,TY,TZ (m)"
            )
        eye, target = np.array(v[:3]), np.array(v[3:])
        if np.linalg.norm(eye - target) < 1e-9:
            raise ExportError(f"--camera {spec!r}: the eye and the target are the same point")
        return lambda t: (eye, target)
    if kind == "follow":
        names = [tr.name for tr in replay.robots]
        if arg not in names:
            from robotsim.errors import UnknownNameError

            raise UnknownNameError("robot to follow (--camera follow:ROBOT)", arg, names)
        tr = replay.track(arg)
        size = _robot_size(replay, arg)
        back, up = 2.5 * size + 1.0, 1.2 * size + 0.6

        def follow(t: float) -> tuple[np.ndarray, np.ndarray]:
            T = tr.T_world[int(tr.index_at(t)), 0]
            x = T[:3, 0].copy()
            x[2] = 0.0
            n = float(np.linalg.norm(x))
            heading = x / n if n > 1e-6 else np.array([1.0, 0.0, 0.0])
            target = T[:3, 3]
            return target - back * heading + np.array([0.0, 0.0, up]), target

        return follow
    raise ExportError(f"--camera {spec!r}: valid: studio, follow:ROBOT, fixed:EX,EY,EZ,TX,TY,TZ")
