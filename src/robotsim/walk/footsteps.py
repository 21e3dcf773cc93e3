"""Footsteps from a goal (distance, lateral, turn) or from a velocity command.

Poses on the ground are ``(x, y, yaw)`` (m, m, rad, world). The *walk frame* ``Q`` is the
point between the feet, heading where they point. The feet step in turn; each step
moves ``Q`` and puts the swing foot beside it (``Q + (0, +-w)``, ``w`` the half width):

- a step of the foot on the side the walk goes (the left one going left) moves ``Q``
  by ``2 dy`` sideways, opening the stance away from the other foot; the other foot's
  step closes it (moves ``Q`` by 0 sideways);
- the same for turning: the foot on the side the walk turns to turns ``Q`` by
  ``2 dth``, opening the feet away from each other; the other foot's step closes them;
- every step moves ``Q`` by ``dx`` forward.

So sideways walking is step-and-close and turning is open-and-close (the feet never
cross or toe into each other), and straight walking alternates strides ``2 dx`` long.
``(dx, dy, dth)`` are per step: a velocity command ``(vx, vy, wz)`` gives
``(vx, vy, wz) T`` with ``T`` the step period, clamped to the limits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from robotsim.errors import InputError
from robotsim.walk.params import Resolved

__all__ = [
    "Footstep",
    "compose",
    "goal_footsteps",
    "lead_side",
    "relative",
    "step_increment",
    "walk_frame",
]

LEFT, RIGHT = 0, 1


@dataclass(frozen=True)
class Footstep:
    """The swing foot ``side`` (0 left, 1 right) set down at ``pose`` (x, y, yaw)."""

    side: int
    pose: tuple[float, float, float]


def compose(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a (+) b``: the pose ``b`` given in the frame of ``a`` (both (x, y, yaw))."""
    c, s = math.cos(a[2]), math.sin(a[2])
    return np.array([a[0] + c * b[0] - s * b[1], a[1] + s * b[0] + c * b[1], a[2] + b[2]])


def relative(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``b`` in the frame of ``a`` (the inverse of :func:`compose`), yaw wrapped."""
    c, s = math.cos(a[2]), math.sin(a[2])
    dx, dy = b[0] - a[0], b[1] - a[1]
    dyaw = (b[2] - a[2] + math.pi) % (2 * math.pi) - math.pi
    return np.array([c * dx + s * dy, -s * dx + c * dy, dyaw])


def walk_frame(feet: np.ndarray) -> np.ndarray:
    """The walk frame ``(3,)`` between two foot poses ``(2, 3)``: their midpoint, heading
    the mean of their yaws."""
    f = np.asarray(feet, dtype=np.float64)
    d = (f[1, 2] - f[0, 2] + math.pi) % (2 * math.pi) - math.pi
    return np.array([(f[0, 0] + f[1, 0]) / 2, (f[0, 1] + f[1, 1]) / 2, f[0, 2] + d / 2])


def lead_side(dy: float, dth: float) -> int | None:
    """The foot that leads a step increment: the side moved towards (then turned
    towards); ``None`` when neither (straight walking)."""
    if abs(dy) > 1e-12:
        return LEFT if dy > 0 else RIGHT
    if abs(dth) > 1e-12:
        return LEFT if dth > 0 else RIGHT
    return None


def step_increment(side: int, inc: tuple[float, float, float]) -> tuple[float, float, float]:
    """How far ``Q`` moves when foot ``side`` steps with the per-step increment ``inc``
    (module docs): the sideways and turning parts double on the steps of the foot on
    their side and vanish on the other foot's."""
    dx, dy, dth = inc
    side_y = LEFT if dy > 0 else RIGHT
    side_th = LEFT if dth > 0 else RIGHT
    return (dx, 2 * dy if side == side_y else 0.0, 2 * dth if side == side_th else 0.0)


def clamp_increment(res: Resolved, inc: tuple[float, float, float]) -> tuple[float, float, float]:
    """A per-step increment within the step limits (forward ``max_step_length``,
    backward half of it, sideways and turn per pair of steps)."""
    dx, dy, dth = inc
    dx = min(max(dx, -0.5 * res.max_step_length), res.max_step_length)
    dy = min(max(dy, -res.max_step_side / 2), res.max_step_side / 2)
    dth = min(max(dth, -res.max_turn / 2), res.max_turn / 2)
    return (dx, dy, dth)


def goal_footsteps(
    res: Resolved,
    start: np.ndarray,
    distance: float,
    lateral: float = 0.0,
    turn: float = 0.0,
    pairs: int | None = None,
) -> list[Footstep]:
    """The footsteps that carry the walk frame from between the feet ``start`` (2, 3)
    to ``(distance, lateral, turn)`` in its own frame (m, m, rad), ending with the feet
    side by side. ``pairs``: the number of step pairs (default: the fewest the limits
    allow). The increments are spread evenly, recomputed from what remains at each pair
    so the walk ends exactly on the goal."""
    Q = walk_frame(start)
    goal = compose(Q, np.array([distance, lateral, turn]))
    need = pairs_needed(res, distance, lateral, turn)
    if pairs is None:
        pairs = need
    if pairs < need:
        raise InputError(f"{pairs} pairs of steps cannot cover the goal; at least {need}")
    w = res.half_width
    lead = lead_side(lateral, turn)
    first = LEFT if lead is None else lead
    steps: list[Footstep] = []
    feet = np.array(start, dtype=np.float64)
    for k in range(pairs):
        r = relative(Q, goal) / (pairs - k)
        inc = (r[0] / 2, r[1] / 2, r[2] / 2)
        for side in (first, 1 - first):
            Q = compose(Q, np.array(step_increment(side, inc)))
            pose = compose(Q, np.array([0.0, w if side == LEFT else -w, 0.0]))
            feet[side] = pose
            steps.append(Footstep(side, (float(pose[0]), float(pose[1]), float(pose[2]))))
    for side in (first, 1 - first):  # close: both feet beside the goal
        pose = compose(goal, np.array([0.0, w if side == LEFT else -w, 0.0]))
        d = relative(feet[side], pose)
        if np.hypot(d[0], d[1]) > 1e-4 or abs(d[2]) > 1e-3:
            feet[side] = pose
            steps.append(Footstep(side, (float(pose[0]), float(pose[1]), float(pose[2]))))
    return steps


def pairs_needed(res: Resolved, distance: float, lateral: float, turn: float) -> int:
    """The fewest pairs of steps the step limits allow for a goal (m, m, rad)."""
    fwd = 2 * res.max_step_length if distance >= 0 else res.max_step_length
    ratios = [abs(distance) / fwd]
    for value, lim, what in (
        (lateral, res.max_step_side, "lateral"),
        (turn, res.max_turn, "turn"),
    ):
        if abs(value) > 1e-12 and lim <= 0:
            raise InputError(f"a {what} move needs a step limit > 0 (got {lim:g})")
        if abs(value) > 1e-12:
            ratios.append(abs(value) / lim)
    return math.ceil(max(ratios) - 1e-9)
