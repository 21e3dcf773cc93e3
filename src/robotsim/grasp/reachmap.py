"""Hand poses the arm is known to reach, for arms too short of joints for the surface's
candidates (a 5-joint arm reaches a given point with only a few closing axes).

:class:`ReachMap` samples arm configurations once (uniform in the joint ranges) and keeps
those that put the hand's grasp centre above the table, approaching it from above
(``max_up``): their configurations and grasp frames. For an object the planner takes the
stored poses whose grasp centre lies nearest the object's centre of mass and moves each
by IK (:func:`robotsim.grasp.reach.reach`, from its stored configuration: a short move)
so that the grasp centre lands on the centre of mass with the same closing axis; what
the fingers then touch decides (it closes them at the pose reached).
"""

from __future__ import annotations

import numpy as np

from robotsim.grasp.hand import GraspHand
from robotsim.hands.contact import BoxObstacle

__all__ = ["ReachMap"]


class ReachMap:
    """Reachable grasp frames over ``table`` (module docstring); world frame."""

    def __init__(
        self,
        hand: GraspHand,
        T_world_base: np.ndarray,
        table: BoxObstacle,
        samples: int = 20000,
        height: float = 0.2,
        max_up: float = 0.3,
        seed: int = 0,
    ) -> None:
        m = hand.model
        q = hand.random_arm_q(samples, seed)
        self.T_point = hand.contact_frames[len(hand.closures) // 2]
        Tb = np.asarray(T_world_base, float)
        T = Tb @ m.fk(q, hand.tool) @ self.T_point
        c = T[:, :3, 3]
        half = np.asarray(table.size[:2]) / 2
        above = np.all(np.abs(c[:, :2] - np.asarray(table.center[:2])) <= half, axis=1)
        above &= (c[:, 2] >= table.top) & (c[:, 2] <= table.top + height)
        above &= T[:, :3, 2] @ np.array([0.0, 0.0, 1.0]) <= max_up
        self.q = q[above]
        self.T = T[above]
        self.hand = hand
        self.T_world_base = Tb

    def __len__(self) -> int:
        return len(self.q)

    def nearest(self, target: np.ndarray, count: int, radius: float = 0.1) -> np.ndarray:
        """Indices of up to ``count`` stored frames whose grasp centre lies nearest
        ``target`` ``(3,)`` (world, within ``radius`` m)."""
        d = np.linalg.norm(self.T[:, :3, 3] - np.asarray(target), axis=1)
        idx = np.argsort(d)[:count]
        return idx[d[idx] <= radius]
