"""Collision checks of the planner: points on the robot's links against the tables, the
ground, the object and the other arms.

Each link's collision surface is sampled once (:func:`robotsim.grasp.hand.link_points`);
a configuration moves the points by forward kinematics. The arm that grasps (every link
its first joint moves) must keep ``table_margin`` from every table and the ground (its
fingers may brush them: ``finger_table_margin``, 2 mm of contact, as fingertips scrape
a table picking a small object up),
``object_margin`` from the object while it approaches with the hand open, and
``arm_margin`` from the links of the robot's other arms (at their current joints).
A check answers with the first thing hit (``"table"``, ``"ground"``, ``"object"``,
``"other arm"``) or None, and the clearance it measured.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robotsim.hands.contact import BoxObstacle
from robotsim.model.robot import RobotModel
from robotsim.objects.load import GraspObject
from robotsim.objects.query import signed_distance

__all__ = ["Clearance", "Collider", "moving_links"]


def moving_links(model: RobotModel, first_joint: str) -> list[str]:
    """Every link that ``first_joint`` moves (its child and everything below)."""
    out, stack = [], [model.joint(first_joint).child]
    while stack:
        lk = stack.pop()
        out.append(lk)
        stack.extend(j.child for j in model.joints if j.parent == lk)
    return out


@dataclass(frozen=True)
class Clearance:
    """The first thing hit (None: clear) and the smallest clearance to it (m)."""

    hit: str | None
    clearance: float


class Collider:
    """Collision checks for one arm of ``model`` (module docstring)."""

    def __init__(
        self,
        model: RobotModel,
        points: dict[str, np.ndarray],
        arm_links: list[str],
        other_links: list[str],
        T_world_base: np.ndarray,
        tables: tuple[BoxObstacle, ...],
        table_margin: float = 0.003,
        object_margin: float = 0.002,
        arm_margin: float = 0.01,
        finger_links: tuple[str, ...] = (),
        finger_table_margin: float = -0.002,
    ) -> None:
        self.model = model
        self.T = np.asarray(T_world_base, float)
        index = {n: i for i, n in enumerate(model.link_names)}
        self._arm = [(index[lk], points[lk]) for lk in arm_links if lk in points]
        # per point: the clearance it must keep from the tables and the ground
        fingers = set(finger_links)
        self._margin = np.concatenate([
            np.full(len(points[lk]), finger_table_margin if lk in fingers else table_margin)
            for lk in arm_links if lk in points
        ]) if self._arm else np.zeros(0)  # fmt: skip
        self._other = [(index[lk], points[lk]) for lk in other_links if lk in points]
        self.tables = tables
        self.table_margin, self.object_margin, self.arm_margin = (
            table_margin, object_margin, arm_margin)  # fmt: skip
        self.finger_table_margin = finger_table_margin
        self._tree = None
        self.set_others(np.asarray(model.zero()))

    def set_others(self, q: np.ndarray) -> None:
        """Place the other arms at ``q`` ``(nq,)`` (they stand still while this one moves)."""
        if self._other:
            from scipy.spatial import cKDTree

            self._tree = cKDTree(self._world(np.asarray(q, float), self._other))

    def _world(self, q: np.ndarray, which: list[tuple[int, np.ndarray]]) -> np.ndarray:
        Ts = self.model.fk_all(q)
        pts = [p @ Ts[i, :3, :3].T + Ts[i, :3, 3] for i, p in which]
        P = np.concatenate(pts) if pts else np.zeros((0, 3))
        return P @ self.T[:3, :3].T + self.T[:3, 3]

    def arm_points(self, q: np.ndarray) -> np.ndarray:
        """The grasping arm's points in the world ``(n, 3)`` at ``q``."""
        return self._world(q, self._arm)

    def check(
        self, q: np.ndarray, obj: GraspObject | None = None, T_world_obj: np.ndarray | None = None
    ) -> Clearance:
        """Check one configuration ``q`` ``(nq,)`` (see the module docstring)."""
        P = self.arm_points(q)
        ground = float(P[:, 2].min()) if len(P) else np.inf
        if len(P) and np.any(P[:, 2] < self._margin):
            return Clearance("ground", ground)
        best = ground
        for t in self.tables:
            sd = t.signed_distance(P)
            d = float(sd.min()) if len(P) else np.inf
            if np.any(sd < self._margin):
                return Clearance("table", d)
            best = min(best, d)
        if obj is not None and T_world_obj is not None:
            To = np.asarray(T_world_obj)
            local = (P - To[:3, 3]) @ To[:3, :3]
            d_o, _ = signed_distance(obj.piece_set, local, far=self.object_margin + 0.01)
            dmin = float(d_o.min())
            if dmin < self.object_margin:
                return Clearance("object", dmin)
            best = min(best, dmin)
        if self._tree is not None:
            d_a, _ = self._tree.query(P, k=1)
            dmin = float(np.min(d_a))
            if dmin < self.arm_margin:
                return Clearance("other arm", dmin)
            best = min(best, dmin)
        return Clearance(None, best)
