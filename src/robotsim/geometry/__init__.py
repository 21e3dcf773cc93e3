"""Bounding volumes, exact distances between them, and a broad phase.

Public names are re-exported here; see ``docs/clearance.md``.
"""

from robotsim.geometry.ellipsoid import EllipsoidDistance as EllipsoidDistance
from robotsim.geometry.ellipsoid import ellipsoid_distance as ellipsoid_distance
from robotsim.geometry.paper import PaperDistance as PaperDistance
from robotsim.geometry.paper import paper_ellipsoid_distance as paper_ellipsoid_distance
from robotsim.geometry.paper import paper_polynomial as paper_polynomial

__all__ = [
    "EllipsoidDistance",
    "PaperDistance",
    "ellipsoid_distance",
    "paper_ellipsoid_distance",
    "paper_polynomial",
]
