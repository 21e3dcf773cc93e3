"""Forward kinematics of a :class:`~robotsim.model.robot.RobotModel`: the primary API.

``fk(model, q)`` is what ``model.fk(q)`` delegates to. The model is compiled once into
a :class:`~robotsim.kinematics.tree.KinematicTree` cached on it (``model.tree``).
Batches take a ``threads`` option (None: all cores); every configuration is computed by
the same code whatever the split, so results equal a one-thread run bit for bit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from robotsim.kinematics.tree import KinematicTree

if TYPE_CHECKING:
    from robotsim.model.robot import RobotModel

__all__ = ["compile_tree", "fk", "fk_all", "fk_frames"]


def compile_tree(model: RobotModel) -> KinematicTree:
    """A new compiled tree of ``model`` (use ``model.tree`` for the cached one)."""
    return KinematicTree(model)


def fk(
    model: RobotModel, q: ArrayLike, link: str | None = None, threads: int | None = None
) -> np.ndarray:
    """Pose ``(..., 4, 4)`` of ``link`` (link or frame; default frame if None) for
    ``q (..., nq)`` (rad or m), the root at the world origin."""
    return model.tree.fk(q, link, threads)  # type: ignore[no-any-return]


def fk_all(model: RobotModel, q: ArrayLike, threads: int | None = None) -> np.ndarray:
    """Poses ``(..., L, 4, 4)`` of every link in ``model.link_names`` order."""
    return model.tree.fk_all(q, threads)  # type: ignore[no-any-return]


def fk_frames(
    model: RobotModel, q: ArrayLike, names: list[str], threads: int | None = None
) -> np.ndarray:
    """Poses ``(..., len(names), 4, 4)`` of several links/frames from one tree pass."""
    return model.tree.fk_frames(q, names, threads)  # type: ignore[no-any-return]
