"""A small fluent builder for :class:`RobotModel` in Python code.

b = RobotBuilder("two_link")
b.link("base")
b.link("upper", visuals=[Shape(Capsule(0.03, 0.3), trans([0, 0, 0.15]))])
b.joint("shoulder", "revolute", "base", "upper", axis=(0, 1, 0), lower=-2, upper=2)
model = b.build()
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from robotsim.errors import InputError
from robotsim.model.geometry import Geometry, Shape
from robotsim.model.robot import (
    Frame,
    Inertial,
    Joint,
    JointDynamics,
    JointType,
    Limits,
    Link,
    Mimic,
    RobotModel,
)
from robotsim.spatial import make_T, rpy_to_R

__all__ = ["RobotBuilder", "xyz_rpy"]


def xyz_rpy(xyz: ArrayLike = (0.0, 0.0, 0.0), rpy: ArrayLike = (0.0, 0.0, 0.0)) -> np.ndarray:
    """``T`` (4, 4) from a translation (m) and URDF roll-pitch-yaw (rad)."""
    return make_T(rpy_to_R(np.asarray(rpy, float)), np.asarray(xyz, float))


class RobotBuilder:
    """Collects links, joints, frames and poses, then builds a frozen RobotModel."""

    def __init__(self, name: str, kind: str = "robot", floating: bool = False) -> None:
        self.name = name
        self.kind = kind
        self.floating = floating
        self._links: list[Link] = []
        self._joints: list[Joint] = []
        self._frames: list[Frame] = []
        self._poses: dict[str, dict[str, float]] = {}
        self.default_frame: str | None = None
        self.metadata: dict[str, Any] = {}

    def link(
        self,
        name: str,
        visuals: Sequence[Shape | Geometry] = (),
        collisions: Sequence[Shape | Geometry] | None = None,
        inertial: Inertial | None = None,
    ) -> RobotBuilder:
        """Add a link; collisions default to the visuals. A bare geometry (``Box(...)``)
        is a shape at the link origin."""
        vis = tuple(_shape(name, "visuals", s) for s in visuals)
        cols = (
            vis if collisions is None else tuple(_shape(name, "collisions", s) for s in collisions)
        )
        self._links.append(Link(name, vis, cols, inertial))
        return self

    def joint(
        self,
        name: str,
        type: str | JointType,
        parent: str,
        child: str,
        origin: ArrayLike | None = None,
        axis: ArrayLike = (0.0, 0.0, 1.0),
        post: ArrayLike | None = None,
        lower: float = -np.inf,
        upper: float = np.inf,
        velocity: float = np.inf,
        effort: float = np.inf,
        mimic: tuple[str, float, float] | None = None,
        dynamics: JointDynamics | None = None,
    ) -> RobotBuilder:
        """Add a joint ``T_parent_child = origin @ M(axis, q) @ post``."""
        try:
            jt = type if isinstance(type, JointType) else JointType(type)
        except ValueError:
            valid = [t.value for t in JointType]
            raise InputError(f"joint {name!r}: unknown type {type!r}; valid: {valid}") from None
        if jt is JointType.CONTINUOUS:
            lower, upper = -np.inf, np.inf
        self._joints.append(
            Joint(
                name=name,
                type=jt,
                parent=parent,
                child=child,
                origin=np.eye(4) if origin is None else np.asarray(origin, float),
                axis=np.asarray(axis, float),
                post=np.eye(4) if post is None else np.asarray(post, float),
                limits=Limits(lower, upper, velocity, effort),
                mimic=None if mimic is None else Mimic(*mimic),
                dynamics=JointDynamics() if dynamics is None else dynamics,
            )
        )
        return self

    def frame(self, name: str, link: str, T_link_frame: ArrayLike | None = None) -> RobotBuilder:
        T = np.eye(4) if T_link_frame is None else np.asarray(T_link_frame, dtype=float)
        self._frames.append(Frame(name, link, T))
        return self

    def pose(self, name: str, values: Mapping[str, float]) -> RobotBuilder:
        self._poses[name] = {k: float(v) for k, v in values.items()}
        return self

    def build(self, source: Path | None = None) -> RobotModel:
        """The frozen model (``source``: the file it was read from, if any)."""
        return RobotModel(
            name=self.name,
            links=tuple(self._links),
            joints=tuple(self._joints),
            frames=tuple(self._frames),
            poses=dict(self._poses),
            floating=self.floating,
            default_frame=self.default_frame,
            kind=self.kind,
            source=source,
            metadata=dict(self.metadata),
        )


def _shape(link: str, field: str, item: Any) -> Shape:
    if isinstance(item, Shape):
        return item
    if isinstance(item, Geometry):
        return Shape(item)
    raise InputError(
        f"link {link!r}: {field} must be Shape or geometry objects (Box, Sphere, Mesh, ...), "
        f"got {type(item).__name__}"
    )
