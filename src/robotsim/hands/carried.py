"""What the hands pass from one to the other: the paper's ball, or any object.

The kinematic mode asks three geometric questions of it, in the world, with the
object at ``T_world_obj`` ``(4, 4)``:

- :meth:`Carried.tip_depths`: how deep fingertip spheres reach into it (the touch test,
  ``>= -tol`` touches);
- :meth:`Carried.rest_height`: how far its origin sits above its lowest point (where it
  comes to rest on a surface below it);
- :meth:`Carried.support_depth`: how deep it reaches into the floor or a table.

A ball (a sphere centred on its origin) answers exactly in closed form (the paper's
sphere tests, touch to 1e-9 m); any other object through its convex pieces
(:mod:`robotsim.objects.query`: exact inside and over a face, a lower bound near an
edge).
"""

from __future__ import annotations

import numpy as np

from robotsim.hands.contact import BoxObstacle, sphere_depth
from robotsim.model.geometry import Sphere
from robotsim.objects.load import GraspObject
from robotsim.objects.query import signed_distance

__all__ = ["Carried"]


class Carried:
    """A ball of ``radius`` (m), or ``obj`` (a loaded object)."""

    def __init__(self, radius: float | None = None, obj: GraspObject | None = None) -> None:
        self.obj = obj
        self.radius: float | None = None
        if obj is None:
            self.radius = float(radius if radius is not None else 0.0)
        elif len(obj.shapes) == 1 and isinstance(obj.shapes[0].geometry, Sphere):
            T = np.asarray(obj.shapes[0].T_link_shape)
            if np.allclose(T, np.eye(4)):
                self.radius = float(obj.shapes[0].geometry.radius)
        if obj is not None:
            self._hull = obj.hull_points
        else:
            self._hull = None

    @property
    def is_ball(self) -> bool:
        return self.radius is not None

    @property
    def size(self) -> float:
        """A characteristic half-size (m): the radius, or half the smallest extent."""
        if self.radius is not None:
            return self.radius
        assert self.obj is not None
        return float(np.min(self.obj.extents)) / 2

    def tip_depths(
        self, tips: np.ndarray, tip_radius: float, T_world_obj: np.ndarray
    ) -> np.ndarray:
        """``r_tip - distance(tip centre, surface)`` per tip ``(n,)`` (m): > 0 penetrating."""
        p = np.asarray(tips, float).reshape(-1, 3)
        T = np.asarray(T_world_obj, float)
        if self.radius is not None:
            d = np.linalg.norm(p - T[:3, 3], axis=1)
            return (tip_radius + self.radius) - d
        local = (p - T[:3, 3]) @ T[:3, :3]
        assert self.obj is not None
        sd, _ = signed_distance(self.obj.piece_set, local)
        return tip_radius - sd

    def rest_height(self, T_world_obj: np.ndarray) -> float:
        """Height (m) of the origin above the object's lowest point at this orientation."""
        if self.radius is not None:
            return self.radius
        R = np.asarray(T_world_obj, float)[:3, :3]
        return float(-(self._hull @ R.T)[:, 2].min())

    def lowest(self, T_world_obj: np.ndarray) -> float:
        """World height (m) of the object's lowest point."""
        return float(np.asarray(T_world_obj)[2, 3]) - self.rest_height(T_world_obj)

    def support_depth(self, T_world_obj: np.ndarray, tables: tuple[BoxObstacle, ...]) -> float:
        """Deepest penetration (m) into the floor and the tables; <= 0 when clear."""
        T = np.asarray(T_world_obj, float)
        if self.radius is not None:
            return float(sphere_depth(T[:3, 3], self.radius, tables))
        pts = self._hull @ T[:3, :3].T + T[:3, 3]
        return float(sphere_depth(pts, 0.0, tables).max())
