"""Objects to grasp: shapes, mesh files and single-body URDF/MJCF files, with mass
properties judged for plausibility and convex pieces for collision. See
``docs/objects.md``."""

from typing import TYPE_CHECKING

from robotsim.lazy import lazy_exports

if TYPE_CHECKING:
    from robotsim.objects.body import object_body as object_body
    from robotsim.objects.convex import ConvexPiece as ConvexPiece
    from robotsim.objects.convex import convex_pieces as convex_pieces
    from robotsim.objects.load import GraspObject as GraspObject
    from robotsim.objects.load import load_object as load_object
    from robotsim.objects.mass import judge_inertial as judge_inertial
    from robotsim.objects.spec import ObjectSpec as ObjectSpec
    from robotsim.objects.spec import parse_object_arg as parse_object_arg

_LAZY = {
    "object_body": "robotsim.objects.body",
    "ConvexPiece": "robotsim.objects.convex",
    "convex_pieces": "robotsim.objects.convex",
    "GraspObject": "robotsim.objects.load",
    "load_object": "robotsim.objects.load",
    "judge_inertial": "robotsim.objects.mass",
    "ObjectSpec": "robotsim.objects.spec",
    "parse_object_arg": "robotsim.objects.spec",
}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

__all__ = [
    "ConvexPiece", "GraspObject", "ObjectSpec", "convex_pieces", "judge_inertial",
    "load_object", "object_body", "parse_object_arg",
]  # fmt: skip
