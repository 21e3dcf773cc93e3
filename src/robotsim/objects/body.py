"""An object as a free physics body: its collision shapes as one compound, its mass
properties stated explicitly (so what :func:`robotsim.objects.load.load_object` decided
is what MuJoCo uses; nothing is recomputed from the pieces)."""

from __future__ import annotations

import numpy as np

from robotsim.objects.load import GraspObject
from robotsim.physics.scene import Body, Compound, Joint

__all__ = ["object_body"]


def object_body(
    obj: GraspObject,
    name: str = "object",
    T_world_object: np.ndarray | None = None,
    surface: str | None = None,
    rgba: tuple[float, float, float, float] = (0.85, 0.55, 0.2, 1.0),
) -> Body:
    """A free :class:`robotsim.physics.Body` for ``obj`` at ``T_world_object`` ``(4, 4)``
    (default: the origin); ``surface`` names a contact surface of the scene."""
    from robotsim.model.geometry import Shape

    parts = tuple(Shape(s.geometry, s.T_link_shape, rgba, s.name) for s in obj.shapes)
    return Body(
        name,
        Compound(parts),
        np.eye(4) if T_world_object is None else np.asarray(T_world_object, float),
        joint=Joint("free"),
        inertial=obj.inertial,
        surface=surface,
        rgba=rgba,
    )
