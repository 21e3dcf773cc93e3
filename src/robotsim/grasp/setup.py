"""Where the table stands: sized from the robot, never from its name.

For the arm of the chosen hand: its shoulder (the first arm joint's position at the
start pose) and its reach ``R`` (the farthest the tool gets from the shoulder over
random joint samples). The table goes in the direction the tool points from the robot's
root at the start pose (an arm's working side), its top ``d`` below the shoulder and its
centre ``r`` out, for a few ``(r, d)`` in fractions of ``R``; each layout is scored by
how many of nine points on its top (3 x 3, 3 cm up) the hand reaches from above with two
level closing axes (:func:`robotsim.grasp.reach.reach`), plus how often the hand is over
that table top at all in random configurations (relative to the best layout: an arm
short of joints reaches a point with few hand orientations), and the best one is kept.
The table's sides are ``0.3 R`` (at least 0.15 m), its height down to the ground.
"""

from __future__ import annotations

import numpy as np

from robotsim.grasp.hand import GraspHand
from robotsim.grasp.reach import reach
from robotsim.hands.contact import BoxObstacle

__all__ = ["TableLayout", "arm_reach", "place_table"]

OUT = (0.45, 0.55, 0.65)
DOWN = (0.25, 0.4, 0.55)


class TableLayout:
    """A table and how well the hand reaches it: ``score`` (share of test points)."""

    def __init__(self, table: BoxObstacle, score: float, reach_m: float) -> None:
        self.table, self.score, self.reach_m = table, score, reach_m


def arm_reach(hand: GraspHand, samples: int = 600, seed: int = 0) -> tuple[np.ndarray, float]:
    """The shoulder's position ``(3,)`` (model frame) and the tool's largest distance
    from it (m) over ``samples`` random configurations of the arm."""
    m = hand.model
    shoulder = m.fk(hand.home, m.joint(hand.arm_joints[0]).child)[:3, 3]
    tool = m.fk(hand.random_arm_q(samples, seed), hand.tool)[:, :3, 3]
    return shoulder, float(np.linalg.norm(tool - shoulder, axis=1).max())


def place_table(hand: GraspHand, T_world_base: np.ndarray) -> TableLayout:
    """The best of a few table layouts for ``hand`` (module docstring), world frame."""
    m = hand.model
    Tb = np.asarray(T_world_base, float)
    shoulder, R = arm_reach(hand)
    tool0 = m.fk(hand.home, hand.tool)[:3, 3]
    root = np.zeros(3)
    d = tool0[:2] - root[:2]
    if np.linalg.norm(d) < 1e-6:
        d = np.array([1.0, 0.0])
    d = d / np.linalg.norm(d)
    side = max(0.15, 0.3 * R)
    layouts, targets, owners = [], [], []
    R_down = np.diag([1.0, -1.0, -1.0])  # approach straight down
    for out in OUT:
        for down in DOWN:
            c_xy = shoulder[:2] + out * R * d
            top = max(shoulder[2] - down * R, 0.02)
            layouts.append((c_xy, top))
            for gx in (-0.3, 0.0, 0.3):
                for gy in (-0.3, 0.0, 0.3):
                    p = np.array([c_xy[0] + gx * side, c_xy[1] + gy * side, top + 0.03])
                    for yaw in (0.0, np.pi / 2):
                        c, s = np.cos(yaw), np.sin(yaw)
                        T = np.eye(4)
                        T[:3, :3] = R_down @ np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
                        T[:3, 3] = p
                        targets.append(T)
                        owners.append(len(layouts) - 1)
    Tp = hand.contact_frames[len(hand.closures) // 2]
    res = reach(m, hand.tool, hand.arm_joints, np.array(targets), Tp, hand.home,
                symmetric=hand.n_fingers == 2, iterations=60)  # fmt: skip
    owners_a = np.array(owners)
    scores = np.array([res.ok[owners_a == i].mean() for i in range(len(layouts))])
    # and how often the hand is there at all: random configurations whose grasp centre
    # lies over the table, under 0.15 m above it, not approaching from below
    q = hand.random_arm_q(8000, 1)
    Tg = m.fk(q, hand.tool) @ Tp
    c, up = Tg[:, :3, 3], Tg[:, 2, 2]
    density = np.zeros(len(layouts))
    for i, (c_xy, top) in enumerate(layouts):
        inside = np.all(np.abs(c[:, :2] - c_xy) <= side / 2, axis=1)
        inside &= (c[:, 2] >= top) & (c[:, 2] <= top + 0.15) & (up <= 0.3)
        density[i] = inside.mean()
    if density.max() > 0:
        scores = scores + density / density.max()
    best = int(np.argmax(scores))
    c_xy, top = layouts[best]
    centre = Tb @ np.array([c_xy[0], c_xy[1], top / 2, 1.0])
    top_w = float((Tb @ np.array([c_xy[0], c_xy[1], top, 1.0]))[2])
    table = BoxObstacle("table", (float(centre[0]), float(centre[1]), top_w / 2),
                        (side, side, top_w))  # fmt: skip
    return TableLayout(table, float(scores[best]), R)
