"""The paper's second speed method, sized by the allowed foot-contact error (seed 000).

With a fixed number of interpolation points per keyframe move, the paper sets that
number "from the allowed error of the foot-ground collision detection", and notes that
one interpolation step costs about 30 ms, so the timer delay cannot be shorter.

:func:`contact_points` computes, per keyframe move (timeline segment), the fewest
points that keep the contact error within ``tolerance``: a sole detected at a tick can
be at most one tick's vertical travel below the floor, so the points must make every
tick's travel of a sole near the floor at most ``tolerance``. The floor is taken as
the other sole's plane (the support foot's); the travel is measured on each sole's
lowest corner along the other sole's normal, for both feet, at 64 fractions of the
move. A move whose soles stay more than ``band`` above that plane needs 1 point.

:func:`time_per_pose` is the resulting time per keyframe move at each speed level with
the timer floor ``min_tick``: ``points * max(T(level) / points, min_tick)``.
"""

from __future__ import annotations

import math

import numpy as np

from robotsim.errors import InputError
from robotsim.model.robot import RobotModel
from robotsim.motion.profile import SoleSpec
from robotsim.motion.schema import SPEED_LEVELS, speed_seconds
from robotsim.motion.timeline import Timeline
from robotsim.spatial import inv_T

__all__ = ["contact_points", "time_per_pose"]


def contact_points(
    model: RobotModel,
    timeline: Timeline,
    soles: tuple[SoleSpec, ...],
    tolerance: float,
    band: float = 0.02,
    samples: int = 64,
) -> np.ndarray:
    """Interpolation points per segment ``(K,)`` keeping the contact error within
    ``tolerance`` (m); see the module docs."""
    if not (tolerance > 0 and math.isfinite(tolerance)):
        raise InputError(f"contact tolerance must be > 0 m, got {tolerance!r}")
    K = timeline.segments
    if len(soles) < 2 or K == 0:
        return np.ones(K, dtype=np.int64)
    u = np.linspace(0.0, 1.0, samples + 1)
    seg = np.repeat(np.arange(K), samples + 1)
    q = timeline.q_at(seg, np.tile(u, K)).reshape(K, samples + 1, -1)
    T = {s.frame: model.fk(q, s.frame) for s in soles}
    rate = np.zeros(K)
    for sup in soles:
        Tinv = inv_T(T[sup.frame])
        for sw in soles:
            if sw is sup:
                continue
            corners = np.c_[sw.corners(), np.ones(4)]  # (4, 4) homogeneous
            rel = Tinv @ T[sw.frame]  # (K, S, 4, 4)
            h = np.einsum("ksj,cj->ksc", rel[..., 2, :], corners).min(axis=-1)  # (K, S)
            drop = np.maximum(h[:, :-1] - h[:, 1:], 0.0)  # downward travel per sample step
            near = np.minimum(h[:, :-1], h[:, 1:]) <= band
            rate = np.maximum(rate, np.max(np.where(near, drop, 0.0), axis=1) * samples)
    return np.maximum(np.ceil(rate / tolerance - 1e-9), 1).astype(np.int64)


def time_per_pose(points: int, min_tick: float = 0.0) -> dict[int, dict[str, float]]:
    """Per speed level: the nominal move time, the tick and the time per pose (s) with
    ``points`` points per move and the timer floor ``min_tick`` (s)."""
    if int(points) < 1:
        raise InputError(f"points must be >= 1, got {points}")
    out = {}
    for level in SPEED_LEVELS:
        T = speed_seconds(level)
        tick = max(T / int(points), float(min_tick))
        out[int(level)] = {"nominal_s": T, "tick_s": tick, "time_per_pose_s": tick * int(points)}
    return out
