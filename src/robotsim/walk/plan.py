"""A timed footstep plan: when each foot swings, where the ZMP should be, where the feet are.

Timing (``T`` the step period, ``Ts``/``Td`` its single and double support parts):
the robot stands with the ZMP between the feet for ``hold`` seconds (the CoM starts
moving before the ZMP does: the preview looks ahead); the walk then starts: during
``T`` the ZMP shifts over the first stance foot; each step swings one foot for ``Ts``
and leaves ``Td`` of double support, during which the ZMP moves linearly to the foot
just set down; after the last step the ZMP returns between the feet within ``T`` (the
walk is over: ``t_walk``) and the robot stands still for ``settle`` seconds.

During single support the ZMP reference is the stance sole's *centre* (the deepest
point of its polygon, where the ZMP has the most room), so the reference is piecewise
linear in time: knots ``(zmp_t, zmp_xy)``, evaluated by interpolation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from robotsim.walk.footsteps import Footstep
from robotsim.walk.swing import Ground, foot_T, swing_poses

__all__ = ["DOUBLE", "Plan", "TimedStep", "timed_plan"]

DOUBLE = 2  # support code: both feet; 0 = left foot only, 1 = right foot only


@dataclass(frozen=True)
class TimedStep:
    """A footstep with its swing interval (s) and where the foot comes from."""

    side: int
    start: tuple[float, float, float]
    pose: tuple[float, float, float]
    t_lift: float
    t_land: float


@dataclass(frozen=True, eq=False)
class Plan:
    """Footsteps in time (module docs). ``feet0`` ``(2, 3)``: the feet before the walk
    (x, y, yaw of the left and right soles); ``centres`` ``(2, 2)``: the ZMP target in
    each sole frame (m)."""

    feet0: np.ndarray
    steps: tuple[TimedStep, ...]
    zmp_t: np.ndarray
    zmp_xy: np.ndarray
    t_start: float  # s: when the walk starts (the ZMP leaves the middle)
    t_walk: float  # s: when the walk is over (ZMP back between the feet)
    t_end: float  # s: t_walk + settle
    ground: Ground
    step_height: float
    centres: np.ndarray

    def zmp(self, t: ArrayLike) -> np.ndarray:
        """The ZMP reference ``(n, 2)`` at times ``t`` ``(n,)`` (held beyond the knots)."""
        tt = np.asarray(t, dtype=np.float64)
        return np.column_stack(
            [
                np.interp(tt, self.zmp_t, self.zmp_xy[:, 0]),
                np.interp(tt, self.zmp_t, self.zmp_xy[:, 1]),
            ]
        )

    def feet(self, t: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """``(T_world_sole (n, 2, 4, 4), support (n,))`` at times ``t`` ``(n,)``:
        support 0 = left only, 1 = right only, :data:`DOUBLE` = both."""
        tt = np.atleast_1d(np.asarray(t, dtype=np.float64))
        n = len(tt)
        xy = np.empty((n, 2, 3))
        z = np.empty((n, 2))
        support = np.full(n, DOUBLE, dtype=np.int64)
        for side in (0, 1):
            mine = [s for s in self.steps if s.side == side]
            lands = np.array([s.t_land for s in mine])
            # the pose after the last landing before t (or the start)
            k = np.searchsorted(lands, tt, side="right")  # landings done
            rest = np.vstack([self.feet0[side], *(np.array(s.pose) for s in mine)])
            xy[:, side] = rest[k]
            z[:, side] = self.ground.z(xy[:, side, 0], xy[:, side, 1])
            for s in mine:
                inside = (tt > s.t_lift) & (tt < s.t_land)
                if not inside.any():
                    continue
                u = (tt[inside] - s.t_lift) / (s.t_land - s.t_lift)
                p, h = swing_poses(s.start, s.pose, u, self.step_height, self.ground)
                xy[inside, side] = p
                z[inside, side] = h
                support[inside] = 1 - side
        return foot_T(xy, z, self.ground.tilt()), support

    def zmp_of(self, side: int, pose: ArrayLike) -> np.ndarray:
        """The ZMP target ``(2,)`` of sole ``side`` at ``pose`` (x, y, yaw)."""
        p = np.asarray(pose, dtype=np.float64)
        c, s = math.cos(p[2]), math.sin(p[2])
        cx, cy = self.centres[side]
        return np.array([p[0] + c * cx - s * cy, p[1] + s * cx + c * cy])


def timed_plan(
    feet0: ArrayLike,
    steps: list[Footstep],
    t_single: float,
    t_double: float,
    step_height: float,
    centres: ArrayLike,
    ground: Ground | None = None,
    hold: float = 0.0,
    settle: float | None = None,
) -> Plan:
    """Times ``steps`` (module docs): ``hold`` (s) standing, one step period to shift
    the weight, swings of ``t_single``, ``t_double`` between them, ``settle`` (default
    a step period) after the ZMP is back between the feet."""
    period = t_single + t_double
    start = hold + period
    settle = period if settle is None else settle
    f0 = np.array(feet0, dtype=np.float64).reshape(2, 3)
    g = ground or Ground()
    cen = np.asarray(centres, dtype=np.float64).reshape(2, 2)
    proto = Plan(f0, (), np.zeros(1), np.zeros((1, 2)), 0.0, 0.0, 0.0, g, step_height, cen)
    feet = f0.copy()
    mid = (proto.zmp_of(0, feet[0]) + proto.zmp_of(1, feet[1])) / 2
    kt: list[float] = [0.0]
    kp: list[np.ndarray] = [mid]
    timed: list[TimedStep] = []
    t = start
    for i, st in enumerate(steps):
        stance = 1 - st.side
        c = proto.zmp_of(stance, feet[stance])
        if i == 0:
            kt.append(hold)
            kp.append(mid)
        kt.append(t)
        kp.append(c)
        t_land = t + t_single
        kt.append(t_land)
        kp.append(c)
        timed.append(TimedStep(st.side, tuple(float(v) for v in feet[st.side]), st.pose, t, t_land))
        feet[st.side] = st.pose
        t = t_land + t_double
    if steps:
        end_mid = (proto.zmp_of(0, feet[0]) + proto.zmp_of(1, feet[1])) / 2
        t_walk = timed[-1].t_land + period
        kt.append(t_walk)
        kp.append(end_mid)
    else:
        t_walk = hold
    return Plan(
        feet0=f0,
        steps=tuple(timed),
        zmp_t=np.array(kt),
        zmp_xy=np.array(kp),
        t_start=hold,
        t_walk=t_walk,
        t_end=t_walk + settle,
        ground=g,
        step_height=step_height,
        centres=cen,
    )
