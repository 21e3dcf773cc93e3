"""A floating base with a switchable anchor link (seed 000, eq. 2, generalised).

The humanoid paper keeps the stance foot fixed in the world while the joints move by
recomputing the root (body) pose: ``T_world_body = T_world_foot inv(T_body_foot(q))``.
:class:`AnchoredState` does this for any link of any tree: with an anchor set, every
change of ``q`` recomputes ``T_world_root`` so the anchor's world pose stays exactly
where it was. Changing the anchor changes nothing in the world (no link jumps); it only
decides which link stays put from then on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import InputError
from robotsim.spatial import inv_T

if TYPE_CHECKING:
    from robotsim.model.robot import RobotModel

__all__ = ["AnchoredState"]


class AnchoredState:
    """Mutable kinematic state of one robot: ``q``, ``T_world_root`` and an anchor.

    Args:
        model: the robot.
        q: initial configuration ``(nq,)`` (zeros if None).
        T_world_root: initial root pose ``(4, 4)`` (identity if None).
        anchor: link or frame name kept fixed in the world when ``q`` changes; None
            moves the root with nothing held (a fixed-base robot).
    """

    def __init__(
        self,
        model: RobotModel,
        q: ArrayLike | None = None,
        T_world_root: ArrayLike | None = None,
        anchor: str | None = None,
    ) -> None:
        self.model = model
        self._tree = model.tree
        self.q = model.zero() if q is None else self._check_q(q)
        self.T_world_root = np.eye(4) if T_world_root is None else np.array(T_world_root, float)
        self._anchor: str | None = None
        self._T_root_anchor = np.eye(4)
        self._anchor_link = 0
        self._anchor_offset = np.eye(4)
        self._T_world_anchor = np.eye(4)
        self._poses = self._tree.fk_all(self.q)
        if anchor is not None:
            self.set_anchor(anchor)

    def _check_q(self, q: ArrayLike) -> np.ndarray:
        qa = np.array(q, dtype=np.float64)
        if qa.shape != (self.model.nq,):
            raise InputError(
                f"{self.model.name}: q must have {self.model.nq} values, got shape {qa.shape}"
            )
        return qa

    @property
    def anchor(self) -> str | None:
        return self._anchor

    def set_anchor(self, name: str | None) -> None:
        """Hold ``name`` (a link or frame) fixed from now on; no link moves."""
        if name is None:
            self._anchor = None
            return
        li, T_link_frame = self._tree.frame(name)
        self._anchor = name
        self._anchor_link = li
        self._anchor_offset = np.asarray(T_link_frame)
        # Held exactly (not recomputed each step), so the anchor never drifts.
        self._T_world_anchor = self.T_world_root @ self._poses[li] @ self._anchor_offset

    def set_q(self, q: ArrayLike) -> None:
        """Move the joints; with an anchor, the root moves so the anchor stays put."""
        q = self._check_q(q)
        if self._anchor is None:
            self.q = q
            self._poses = self._tree.fk_all(q)
            return
        poses = self._tree.fk_all(q)
        T_root_anchor = poses[self._anchor_link] @ self._anchor_offset
        self.T_world_root = self._T_world_anchor @ inv_T(T_root_anchor)
        self.q = q
        self._poses = poses

    def set_root(self, T_world_root: ArrayLike) -> None:
        self.T_world_root = np.array(T_world_root, dtype=np.float64)
        if self._anchor is not None:
            self.set_anchor(self._anchor)

    def link_poses(self) -> np.ndarray:
        """World poses of every link ``(L, 4, 4)`` in ``model.link_names`` order."""
        return self.T_world_root @ self._poses

    def pose(self, name: str) -> np.ndarray:
        """World pose ``(4, 4)`` of one link or frame."""
        li, T_link_frame = self._tree.frame(name)
        return self.T_world_root @ self._poses[li] @ T_link_frame

    def copy(self) -> AnchoredState:
        other = AnchoredState(self.model, self.q.copy(), self.T_world_root.copy())
        other.set_anchor(self._anchor)
        return other
