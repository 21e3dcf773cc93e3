"""Points on a model's shapes, for the profile's searches (lowest points, extents, discs).

Box corners, circles of cylinders, dense spheres for round ends, mesh vertices: enough
to find a shape's lowest points and its extent; not a surface sampling.
"""

from __future__ import annotations

import numpy as np

from robotsim.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Mesh, Shape, Sphere
from robotsim.model.robot import RobotModel

__all__ = ["link_points", "shape_points"]


def _sphere_dirs(n: int) -> np.ndarray:
    i = np.arange(n) + 0.5
    phi = np.arccos(1 - 2 * i / n)
    th = np.pi * (1 + 5**0.5) * i
    return np.column_stack([np.cos(th) * np.sin(phi), np.sin(th) * np.sin(phi), np.cos(phi)])


def _circle(n: int) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.column_stack([np.cos(a), np.sin(a)])


def shape_points(shape: Shape) -> np.ndarray:
    """Points ``(n, 3)`` on a shape's surface in its link frame (box corners, circles of
    cylinders, dense spheres for round ends, mesh vertices): enough to find its lowest
    points and its extent."""
    g = shape.geometry
    if isinstance(g, Box):
        s = np.asarray(g.size) / 2
        p = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * s
    elif isinstance(g, Sphere):
        p = _sphere_dirs(400) * g.radius
    elif isinstance(g, Ellipsoid):
        p = _sphere_dirs(400) * np.asarray(g.radii)
    elif isinstance(g, Cylinder):
        c = _circle(64) * g.radius
        p = np.vstack([np.column_stack([c, np.full(64, z)]) for z in (-g.length / 2, g.length / 2)])
    elif isinstance(g, Capsule):
        s = _sphere_dirs(400) * g.radius
        p = np.vstack([s + np.array([0, 0, -g.length / 2]), s + np.array([0, 0, g.length / 2])])
    elif isinstance(g, Mesh):
        from robotsim.model.meshes import load_mesh

        try:
            p = np.asarray(load_mesh(g.path).vertices, dtype=np.float64) * np.asarray(g.scale)
        except Exception:  # an unreadable mesh is reported where meshes are used
            return np.zeros((0, 3))
    else:
        return np.zeros((0, 3))
    T = np.asarray(shape.T_link_shape)
    return p @ T[:3, :3].T + T[:3, 3]


def link_points(model: RobotModel, link: str, T_world: np.ndarray) -> np.ndarray:
    """Points ``(n, 3)`` on a link's collision shapes (its visual ones if it has none),
    placed by ``T_world`` (the link's pose)."""
    lk = model.link(link)
    shapes = lk.collisions or lk.visuals
    if not shapes:
        return np.zeros((0, 3))
    p = np.vstack([shape_points(s) for s in shapes])
    return p @ T_world[:3, :3].T + T_world[:3, 3]
