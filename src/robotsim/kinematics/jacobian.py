"""Geometric Jacobians of links and frames.

``J`` has shape ``(..., 6, nq)`` with rows ``[v; w]``: ``v`` the linear velocity of
the frame origin (m/s per unit of joint velocity) and ``w`` the angular velocity
(rad/s per unit). *World* Jacobians express both in world axes (pinocchio calls this
LOCAL_WORLD_ALIGNED); *local* ones express both in the frame's own axes.
Mimic joints add their contribution, times their multiplier, to the joint they follow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

if TYPE_CHECKING:
    from robotsim.model.robot import RobotModel

__all__ = ["jacobian"]


def jacobian(
    model: RobotModel, q: ArrayLike, link: str | None = None, local: bool = False
) -> np.ndarray:
    """Geometric Jacobian ``(..., 6, nq)`` of ``link`` (link or frame name) at ``q``."""
    T, J = model.tree.jacobian_world(q, link)
    if not local:
        return J
    Rt = np.swapaxes(T[..., :3, :3], -1, -2)
    out = np.empty_like(J)
    out[..., :3, :] = Rt @ J[..., :3, :]
    out[..., 3:, :] = Rt @ J[..., 3:, :]
    return out
