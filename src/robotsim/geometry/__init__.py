"""Bounding volumes, exact distances between them, and a broad phase.

Public names are re-exported here; see ``docs/clearance.md``.
"""

from robotsim.geometry.ellipsoid import EllipsoidDistance as EllipsoidDistance
from robotsim.geometry.ellipsoid import ellipsoid_distance as ellipsoid_distance
from robotsim.geometry.paper import PaperDistance as PaperDistance
from robotsim.geometry.paper import paper_ellipsoid_distance as paper_ellipsoid_distance
from robotsim.geometry.paper import paper_polynomial as paper_polynomial
from robotsim.geometry.shapes import ShapeDistance as ShapeDistance
from robotsim.geometry.shapes import shape_distance as shape_distance

__all__ = [
    "EllipsoidDistance",
    "PaperDistance",
    "ShapeDistance",
    "ellipsoid_distance",
    "paper_ellipsoid_distance",
    "paper_polynomial",
    "shape_distance",
]
