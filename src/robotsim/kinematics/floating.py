"""A floating base with a switchable anchor link (seed 000, eq. 2, generalised).

The humanoid paper keeps the stance foot fixed in the world while the joints move by
recomputing the root (body) pose: ``T_world_body = T_world_foot inv(T_body_foot(q))``.
:class:`AnchoredState` does this for any link of any tree: with an anchor set, every
change of ``q`` recomputes ``T_world_root`` so the anchor's world pose stays exactly
where it was. Changing the anchor changes nothing in the world (no link jumps); it only
decides which link stays put from then on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import InputError
from robotsim.kinematics import kernels

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

    One :meth:`set_q` is a single compiled call (all link poses, the new root pose and
    the world poses); :meth:`link_poses` returns the cached result.
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
        L = self._L = len(model.links)
        root = np.eye(4) if T_world_root is None else np.array(T_world_root, dtype=np.float64)
        if root.shape != (4, 4):
            raise InputError(f"T_world_root must be 4x4, got shape {root.shape}")
        # one buffer the kernel writes by address (kernels.anchored_fk_at): relative and
        # world link poses, the root pose, the anchor offset and T_world_anchor
        self._buf = np.zeros((2 * L + 3, 16))
        self._address = int(self._buf.ctypes.data)
        self._rel = self._buf[:L].reshape(L, 4, 4)
        self._world = self._buf[L : 2 * L].reshape(L, 4, 4)
        self._root = self._buf[2 * L].reshape(4, 4)
        self._anchor_offset = self._buf[2 * L + 1].reshape(4, 4)
        self._T_world_anchor = self._buf[2 * L + 2].reshape(4, 4)
        self._root[...] = root
        self._anchor_offset[...] = np.eye(4)
        self._T_world_anchor[...] = np.eye(4)
        self._anchor: str | None = None
        self._anchor_link = -1
        self.q = model.zero() if q is None else self._check_q(q)
        self._update()
        if anchor is not None:
            self.set_anchor(anchor)

    def _check_q(self, q: ArrayLike) -> np.ndarray:
        qa = np.array(q, dtype=np.float64)
        if qa.shape != (self.model.nq,):
            raise InputError(
                f"{self.model.name}: q must have {self.model.nq} values, got shape {qa.shape}"
            )
        return qa

    def _update(self) -> None:
        kernels.ANCHORED_FK_AT(
            self.q,
            self._tree.packed_address,
            self._address,
            self._L,
            self._anchor_link if self._anchor is not None else -1,
        )

    @property
    def kernel_args(self) -> tuple[int, int, int, int]:
        """``(tree address, state buffer address, L, anchor link or -1)``: what a
        compiled kernel that moves this state in place takes (``kernels.anchored_fk_at``,
        ``kernels.anchored_run``); tell the state with :meth:`moved_to` afterwards."""
        anchor = self._anchor_link if self._anchor is not None else -1
        return self._tree.packed_address, self._address, self._L, anchor

    def moved_to(self, q: np.ndarray) -> None:
        """A kernel has left this state's poses at ``q`` ``(nq,)`` with the current
        anchor (see :attr:`kernel_args`): record ``q`` (copied) without recomputing."""
        self.q = np.array(q, dtype=np.float64)

    @property
    def T_world_root(self) -> np.ndarray:
        """World pose of the root link ``(4, 4)`` (a copy)."""
        return self._root.copy()

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
        self._anchor_offset[...] = T_link_frame
        # Held exactly (not recomputed each step), so the anchor never drifts.
        self._T_world_anchor[...] = self._world[li] @ self._anchor_offset

    def set_q(self, q: ArrayLike) -> None:
        """Move the joints; with an anchor, the root moves so the anchor stays put."""
        self.q = self._check_q(q)
        self._update()

    def set_root(self, T_world_root: ArrayLike) -> None:
        """Place the root; the anchor (if any) is re-taken where it now is."""
        root = np.array(T_world_root, dtype=np.float64)
        if root.shape != (4, 4):
            raise InputError(f"T_world_root must be 4x4, got shape {root.shape}")
        self._root[...] = root
        anchor = self._anchor
        self._anchor = None
        self._update()
        self.set_anchor(anchor)

    def link_poses(self) -> np.ndarray:
        """World poses of every link ``(L, 4, 4)`` in ``model.link_names`` order
        (read-only view, valid until the next change)."""
        view = self._world.view()
        view.setflags(write=False)
        return view

    def pose(self, name: str) -> np.ndarray:
        """World pose ``(4, 4)`` of one link or frame."""
        li, T_link_frame = self._tree.frame(name)
        return self._world[li] @ T_link_frame

    def copy(self) -> AnchoredState:
        other = AnchoredState(self.model, self.q.copy(), self._root.copy())
        other.set_anchor(self._anchor)
        return other

    # The kernel writes the buffer by address: copies and pickles must build their own.
    def __copy__(self) -> AnchoredState:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> AnchoredState:
        return self.copy()

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.model, self.q.copy(), self._root.copy(), self._anchor))


def _rebuild(
    model: RobotModel, q: np.ndarray, T_world_root: np.ndarray, anchor: str | None
) -> AnchoredState:
    """An unpickled :class:`AnchoredState` (its anchor re-taken where it is)."""
    state = AnchoredState(model, q, T_world_root)
    state.set_anchor(anchor)
    return state
